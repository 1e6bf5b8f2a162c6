import GRDB

extension WalletSchema {
    /// v10: on-chain payments (withdrawals to an address, claimed deposits) keep their
    /// transaction, address and confirmations; each wallet keeps the newest unilateral-exit
    /// state of each Lightning network, sealed (the types: HawalaLightning's `ExitStateStore.swift`), and a backup carries it.
    static func v10(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE payment ADD COLUMN txid TEXT;
            ALTER TABLE payment ADD COLUMN onChainAddress TEXT;
            ALTER TABLE payment ADD COLUMN confirmations INTEGER;
            CREATE TABLE exitState (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                network TEXT NOT NULL,
                exportedAt REAL NOT NULL,
                valueSat INTEGER,
                leafCount INTEGER,
                sealedState BLOB NOT NULL,
                PRIMARY KEY (walletId, network));
            """)
        // A new state moves what a backup holds; the same state found again only renews
        // its time here (the vault agent does not upload it again).
        for event in ["INSERT", "UPDATE OF sealedState", "DELETE"] {
            try db.execute(sql: """
                CREATE TRIGGER exitState_\(event.prefix(6).lowercased())_moves_export AFTER \(event) ON exitState
                BEGIN UPDATE exportVersion SET n = n + 1; END
                """)
        }
    }
}
