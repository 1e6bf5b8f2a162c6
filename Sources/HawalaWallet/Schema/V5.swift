import GRDB

extension WalletSchema {
    /// v5: the cached public keys and addresses are authenticated (CacheTag.swift); wallets
    /// from before get their tag at the next unlock, after a full re-derivation.
    static func v5(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE wallet ADD COLUMN cacheTag BLOB")
    }
}
