import GRDB

extension WalletSchema {
    /// v13: L402 credentials (`L402Tokens.swift`): bought for an origin and a folder of its
    /// paths, sealed, used again until the service refuses them; how a connection's program
    /// reaches it (NWC, MCP).
    static func v13(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE l402Token (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                origin TEXT NOT NULL,
                path TEXT NOT NULL,
                scheme TEXT NOT NULL,
                sealed BLOB NOT NULL,
                paymentId TEXT NOT NULL,
                createdAt REAL NOT NULL,
                PRIMARY KEY (walletId, origin, path));
            ALTER TABLE appConnection ADD COLUMN wires TEXT NOT NULL DEFAULT 'nwc';
            """)
    }
}
