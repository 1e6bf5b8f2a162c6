import Foundation

/// Everything that can go wrong with the wallet store, as one line a person can act on.
/// No case carries a secret.
public enum WalletError: Error, Equatable, CustomStringConvertible {
    /// The password does not unlock the store. Nothing was changed.
    case wrongPassword
    /// A sealed secret failed authentication: the database was changed outside Hawala.
    case tampered(String)
    /// No wallet with this name.
    case noSuchWallet(String)
    /// No wallet exists yet.
    case noWallets
    /// A wallet with these keys already exists (under `name`): nothing was changed.
    case alreadyExists(name: String)
    /// The name is taken by another wallet.
    case nameTaken(String)
    /// Names are 1–64 printable characters.
    case invalidName(String)
    /// The password is too short to protect the keys.
    case weakPassword(String)
    /// Stored key-derivation parameters outside the accepted bounds.
    case invalidKDFParameters(String)
    /// The database or its folder cannot be used.
    case storage(String)
    /// A private key to import is malformed, or its chain cannot take imported keys.
    case invalidImportedKey(String)
    /// The imported account already exists in this wallet.
    case importedAccountExists(address: String)
    /// A request the wallet cannot satisfy (count out of range, unknown chain…).
    case invalidRequest(String)
    /// The request needs the wallet password (addresses past the cache without an xpub).
    case passwordNeeded(String)
    /// The wallet is a bare seed (recovered from SLIP-39 shares): it has no words to show.
    case noWords(String)
    /// A first password was chosen here while another process set one: nothing was changed.
    case passwordSetMeanwhile
    /// The wallet home is a file, not a folder.
    case notAFolder(String)
    /// The wallet database is an empty file: it was truncated. Nothing was written to it.
    case damagedDatabase(String)

    public var description: String {
        switch self {
        case .wrongPassword: "wrong password"
        case .tampered(let what): "\(what) failed authentication: the wallet database was changed outside Hawala"
        case .noSuchWallet(let name): "no wallet named \"\(name)\""
        case .noWallets: "no wallet yet: create one or restore one"
        case .alreadyExists(let name): "this wallet already exists as \"\(name)\"; nothing was changed"
        case .nameTaken(let name): "a wallet named \"\(name)\" already exists"
        case .invalidName(let why): why
        case .weakPassword(let why): why
        case .invalidKDFParameters(let why): "the wallet database holds invalid key-derivation parameters (\(why))"
        case .storage(let why): why
        case .invalidImportedKey(let why): why
        case .importedAccountExists(let address): "\(address) is already imported in this wallet"
        case .invalidRequest(let why): why
        case .passwordNeeded(let why): why
        case .passwordSetMeanwhile: "another Hawala process set the wallet password at the same time; nothing was changed here: run the command again"
        case .notAFolder(let path): "\(path) is a file, not a folder: the wallet home must be a folder (check HAWALA_HOME)"
        case .damagedDatabase(let path): "the wallet database \(path) is empty: it was damaged (truncated); it was left untouched — restore it from a backup"
        case .noWords(let name): "wallet \"\(name)\" was recovered from SLIP-39 shares and has no BIP39 words; back it up as shares or as a backup file"
        }
    }
}
