import GRDB

extension WalletSchema {
    /// v6: the payments in one status (every sync asks for the pending ones) without reading
    /// the whole history.
    static func v6(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX payment_by_status ON payment (walletId, status, timestamp DESC, id DESC)")
    }
}
