import GRDB

extension WalletSchema {
    /// v4: imported legacy keys may be uncompressed (their address hashes the 65-byte key).
    static func v4(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE importedAccount ADD COLUMN compressed INTEGER NOT NULL DEFAULT 1")
    }
}
