import GRDB

/// A row of `setting` (Schema/V1.swift): the store's own settings — the current wallet
/// (`current`), plain settings (`x.` keys) and sealed ones (`s.` keys, base64).
package struct SettingRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "setting"

    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    package enum Columns {
        package static let key = Column(CodingKeys.key)
    }

    /// The key under which the current wallet's id is kept.
    package static let currentKey = "current"

    /// The current wallet's id, if any.
    package static func current(_ db: Database) throws -> String? {
        try fetchOne(db, key: currentKey)?.value
    }

    /// Makes the wallet `id` current.
    package static func setCurrent(_ id: String, _ db: Database) throws {
        try SettingRecord(key: currentKey, value: id).insert(db, onConflict: .replace)
    }
}

/// A row of `walletSetting` (Schema/V3.swift): a wallet's own setting (its Lightning backend,
/// fiat currency, sync cursor…).
package struct WalletSettingRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "walletSetting"

    package var walletId: String
    package var key: String
    package var value: String

    package init(walletId: String, key: String, value: String) {
        self.walletId = walletId
        self.key = key
        self.value = value
    }

    package enum Columns {
        package static let walletId = Column(CodingKeys.walletId)
        package static let key = Column(CodingKeys.key)
    }

    /// The setting a sync moves on every run: not carried in a backup, not an export change.
    static let syncCursorKey = "ln.syncedAt"

    /// The settings of `walletID`.
    package static func of(wallet walletID: String) -> QueryInterfaceRequest<WalletSettingRecord> {
        filter(Columns.walletId == walletID)
    }
}
