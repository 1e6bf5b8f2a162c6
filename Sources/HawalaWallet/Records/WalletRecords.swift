import Foundation
import GRDB
import HawalaKeys

/// A row of `wallet` (Schema/V1.swift; `sealedSecret` and `kind` from V2, `cacheTag` from V5):
/// what a wallet is, its secret and passphrase sealed under the keyring.
package struct WalletRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "wallet"

    package var id: String
    package var name: String
    package var createdAt: Double
    package var network: String
    package var kind: String
    package var wordCount: Int
    package var language: String
    package var hasPassphrase: Bool
    package var fingerprint: String
    package var backedUpAt: Double?
    package var lastVerifiedAt: Double?
    package var sealedSecret: Data
    package var sealedPassphrase: Data?
    package var cacheTag: Data?

    package enum Columns {
        package static let id = Column(CodingKeys.id)
        package static let name = Column(CodingKeys.name)
        package static let createdAt = Column(CodingKeys.createdAt)
        package static let network = Column(CodingKeys.network)
        package static let sealedSecret = Column(CodingKeys.sealedSecret)
        package static let sealedPassphrase = Column(CodingKeys.sealedPassphrase)
        package static let backedUpAt = Column(CodingKeys.backedUpAt)
        package static let lastVerifiedAt = Column(CodingKeys.lastVerifiedAt)
        package static let cacheTag = Column(CodingKeys.cacheTag)
    }

    /// The wallet named `name`.
    package static func named(_ name: String) -> QueryInterfaceRequest<WalletRecord> { filter(Columns.name == name) }

    /// Every wallet, oldest first (the order of lists, and of "the next current wallet").
    package static var byAge: QueryInterfaceRequest<WalletRecord> { order(Columns.createdAt, Columns.name) }

    /// What the secret is sealed to: the wallet's id and its kind.
    /// - Throws: `WalletError.unreadableRecord` for a kind this version does not know.
    func secretContext() throws(WalletError) -> [UInt8] {
        switch WalletKind(rawValue: kind) {
        case .bip39: WalletStore.context(wallet: id, "entropy")
        case .seed: WalletStore.context(wallet: id, "seed")
        case .watchOnly: WalletStore.context(wallet: id, "watch-only")
        case nil: throw .unreadableRecord(.walletKind)
        }
    }
}

/// A row of `account` (Schema/V1.swift): a chain's HD account of a wallet, with its extended
/// public key where the chain has one.
struct AccountRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"

    var walletId: String
    var chain: String
    var accountIndex: Int64
    var path: String
    var label: String?
    var xpub: String?

    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
        static let chain = Column(CodingKeys.chain)
        static let accountIndex = Column(CodingKeys.accountIndex)
    }

    /// The first account of `walletID` on `chain`.
    static func first(of walletID: String, chain: String) -> QueryInterfaceRequest<AccountRecord> {
        filter(Columns.walletId == walletID && Columns.chain == chain && Columns.accountIndex == 0)
    }
}

/// A row of `importedAccount` (Schema/V1.swift; `compressed` from V4): a private key imported
/// into a wallet, sealed under the keyring.
package struct ImportedAccountRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "importedAccount"

    package var id: String
    package var walletId: String
    package var chain: String
    package var address: String
    package var label: String?
    package var importedAt: Double
    package var sealedKey: Data
    package var compressed: Bool

    package init(id: String, walletId: String, chain: String, address: String, label: String?, importedAt: Double, sealedKey: Data, compressed: Bool) {
        self.id = id
        self.walletId = walletId
        self.chain = chain
        self.address = address
        self.label = label
        self.importedAt = importedAt
        self.sealedKey = sealedKey
        self.compressed = compressed
    }

    package enum Columns {
        package static let walletId = Column(CodingKeys.walletId)
        package static let chain = Column(CodingKeys.chain)
        package static let address = Column(CodingKeys.address)
        package static let importedAt = Column(CodingKeys.importedAt)
    }

    /// The account as the public model shows it.
    var account: ImportedAccount {
        ImportedAccount(id: id, chain: chain, address: address, label: label, importedAt: Date(timeIntervalSince1970: importedAt), compressed: compressed)
    }
}

/// The one row of `keyring` (Schema/V1.swift): the password's Argon2id parameters and the
/// verifier that tells a right password from a wrong one.
struct KeyringRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "keyring"

    var id = 1
    var kdf = "argon2id"
    var passes: Int
    var memoryKiB: Int
    var salt: Data
    var verifier: Data

    /// The parameters kept, checked against the accepted bounds.
    /// - Throws: `WalletError.invalidKDFParameters`.
    func parameters() throws -> KDFParameters {
        guard kdf == "argon2id" else { throw WalletError.invalidKDFParameters("unknown KDF") }
        let parameters = KDFParameters(passes: passes, memoryKiB: memoryKiB, salt: Array(salt))
        try parameters.validate()
        return parameters
    }

    /// The keyring's row, once a password is set.
    static func fetch(_ db: Database) throws -> KeyringRecord? { try fetchOne(db, key: 1) }
}

/// A row of `backupRecord` (Schema/V11.swift): when a method other than the words last kept a
/// wallet.
struct BackupMethodRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "backupRecord"

    var walletId: String
    var method: String
    var lastAt: Double

    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
    }
}

/// A row of `address` (Schema/V1.swift): a receive address cached in the clear, so a wallet
/// shows its addresses without the password (authenticated by the wallet's `cacheTag`).
struct AddressRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "address"

    var walletId: String
    var chain: String
    var accountIndex: Int64 = 0
    var change: Int64 = 0
    var addressIndex: Int
    var path: String
    var address: String
    var publicKey: String

    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
        static let chain = Column(CodingKeys.chain)
        static let accountIndex = Column(CodingKeys.accountIndex)
        static let change = Column(CodingKeys.change)
        static let addressIndex = Column(CodingKeys.addressIndex)
    }

    /// The cached receive addresses of `walletID` (account 0, receive branch), by chain and index.
    static func receiving(of walletID: String) -> QueryInterfaceRequest<AddressRecord> {
        filter(Columns.walletId == walletID && Columns.accountIndex == 0 && Columns.change == 0).order(Columns.chain, Columns.addressIndex)
    }
}

extension AccountRecord {
    /// The first account of each chain of `walletID`.
    static func firsts(of walletID: String) -> QueryInterfaceRequest<AccountRecord> {
        filter(Columns.walletId == walletID && Columns.accountIndex == 0)
    }
}
