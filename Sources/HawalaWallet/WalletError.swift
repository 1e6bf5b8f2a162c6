import Foundation
import HawalaKeys

/// Everything that can go wrong with the wallet store, as one line a person can act on.
/// No case carries a secret.
public enum WalletError: Error, Equatable, Sendable, CustomStringConvertible {
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
    /// The wallet home cannot be used for `operation` (the system's `reason`).
    case home(path: String, operation: HomeOperation, reason: String)
    /// The wallet database failed (`path` when opening it; SQLite's `reason`).
    case database(path: String?, reason: String)
    /// A stored record holds a value this version cannot read.
    case unreadableRecord(UnreadableRecord)
    /// A private key to import is malformed, or its chain cannot take imported keys.
    case invalidImportedKey(String)
    /// The imported account already exists in this wallet.
    case importedAccountExists(address: String)
    /// A count of addresses outside `allowed`.
    case countOutOfRange(Int, allowed: ClosedRange<Int>)
    /// The wallet has no account on `chain` (`wallet`'s network is `network`).
    case noAccount(wallet: String, chain: String, network: Network)
    /// A seed-only wallet has no Cardano account: Cardano's keys derive from the words.
    case noCardanoWithoutWords(wallet: String)
    /// Only Bitcoin-family chains have watch-only extended public keys.
    case noExtendedPublicKey(chain: String)
    /// No imported account with this address.
    case noSuchImportedAccount(address: String)
    /// Every receive address on the chain (`ReceiveAddresses.limit`) was given out.
    case receiveAddressesExhausted(chain: String)
    /// A backup names a chain this version does not know.
    case unknownChain(String)
    /// A payment id prefix matches more than one payment.
    case ambiguousPaymentID(String)
    /// The request needs the wallet password (addresses past the cache without an xpub).
    case passwordNeeded(String)
    /// The wallet is a bare seed (recovered from SLIP-39 shares): it has no words to show.
    case noWords(String)
    /// The wallet is watch-only: it has public keys and no secret.
    case watchOnly(String)
    /// A watch-only key of another network than the account named.
    case watchOnlyNetwork(key: String, chain: String)
    /// A watch-only key that is not an account's key of the chain named.
    case watchOnlyKeyNotAccount(String)
    /// A first password was chosen here while another process set one: nothing was changed.
    case passwordSetMeanwhile
    /// The wallet home is a file, not a folder.
    case notAFolder(String)
    /// The wallet database is an empty file: it was truncated. Nothing was written to it.
    case damagedDatabase(String)
    /// A new wallet of this many words is not offered (`offered` are).
    case wordCountNotOffered(Int, offered: [Int])
    /// An app connection of this name exists in the wallet.
    case connectionNameTaken(String)
    case noSuchConnection(String)

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
        case let .home(path, .restrict, reason): "cannot restrict \(path) to its owner: \(reason)"
        case let .home(path, operation, reason): "cannot \(operation.rawValue) \(path): \(reason)"
        case let .database(path?, reason): "cannot open the wallet database \(path): \(reason)"
        case let .database(nil, reason): "wallet database error: \(reason)"
        case .unreadableRecord(let record): "the wallet database holds \(record.rawValue)"
        case .invalidImportedKey(let why): why
        case .importedAccountExists(let address): "\(address) is already imported in this wallet"
        case let .countOutOfRange(n, allowed): "count must be between \(allowed.lowerBound) and \(allowed.upperBound), not \(n)"
        case let .noAccount(wallet, chain, network) where network == .testnet && (chain == "litecoin" || chain == "bitcoin"):
            "wallet \"\(wallet)\" is a testnet wallet: its Bitcoin and Litecoin test coins share the bitcoin-testnet account (coin type 1)"
        case let .noAccount(wallet, chain, network): "wallet \"\(wallet)\" has no \(chain) account (its network is \(network.rawValue))"
        case .noCardanoWithoutWords(let wallet):
            "wallet \"\(wallet)\" has no words, and Cardano's keys derive from the words: it has no cardano account"
        case .noExtendedPublicKey(let chain):
            "\(chain) has no extended public key: only Bitcoin-family chains have watch-only exports"
        case .noSuchImportedAccount(let address): "no imported account \(address)"
        case .receiveAddressesExhausted(let chain): "\(chain) has given out 100,000 receive addresses; no more are offered"
        case .unknownChain(let chain): "unknown chain \(chain) in the backup"
        case .ambiguousPaymentID(let id): "\"\(id)\" matches more than one payment; give more of the id"
        case .passwordNeeded(let why): why
        case .passwordSetMeanwhile: "another Hawala process set the wallet password at the same time; nothing was changed here: run the command again"
        case .notAFolder(let path): "\(path) is a file, not a folder: the wallet home must be a folder (check HAWALA_HOME)"
        case .damagedDatabase(let path): "the wallet database \(path) is empty: it was damaged (truncated); it was left untouched — restore it from a backup"
        case let .wordCountNotOffered(n, offered):
            "a new wallet has \(offered.map(String.init).joined(separator: " or ")) words, not \(n)"
        case .noWords(let name): "wallet \"\(name)\" was recovered from SLIP-39 shares and has no BIP39 words; back it up as shares or as a backup file"
        case .watchOnly(let name): "wallet \"\(name)\" is watch-only: it holds no keys to sign or back up; the wallet with its words signs for it"
        case .watchOnlyKeyNotAccount(let why): "that is not an account key this wallet can watch: \(why)"
        case let .watchOnlyNetwork(key, chain): "that is \(key) key; the \(chain) account needs the other network's"
        case .connectionNameTaken(let name): "a connection named \"\(name)\" already exists in this wallet"
        case .noSuchConnection(let name): "no connection named \"\(name)\""
        }
    }
}

extension WalletError {
    /// What was being done with the wallet home.
    public enum HomeOperation: String, Sendable, Equatable {
        case lock, create, restrict
    }

    /// A stored value this version cannot read (written by a newer Hawala, or damaged).
    public enum UnreadableRecord: String, Sendable, Equatable {
        case language = "an unknown word-list language"
        case walletKind = "an unknown wallet kind"
        case payment = "a payment of unknown type or status"
        case connection = "an app connection of unknown renewal"
        case l402Token = "an L402 credential it cannot read"
        case holdPreimage = "a hold invoice's preimage it cannot read"
    }
}
