import GRDB

extension WalletSchema {
    /// v15: on-chain labels and frozen coins travel in backups (they move the export counter of
    /// v8, as the rest of what a backup holds); and watch-only wallets (`kind = 'watchOnly'`): one account's public key, no secret —
    /// `sealedSecret` holds the account key sealed to the wallet, so a swapped key fails
    /// authentication. SQLite can't change a CHECK in place: the table is made again with the
    /// wider one (its rows copied, its export triggers of v8 restored; GRDB runs migrations with
    /// foreign keys checked at the end, so nothing that refers to a wallet is touched).
    static func v15(_ db: Database) throws {
        let before = "CHECK (kind IN ('bip39', 'seed'))"
        guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'wallet'"),
              sql.contains(before), sql.hasPrefix("CREATE TABLE wallet (") else {
            throw DatabaseError(message: "v15: the wallet table is not as v2 left it")
        }
        let widened = sql.replacingOccurrences(of: before, with: "CHECK (kind IN ('bip39', 'seed', 'watchOnly'))")
            .replacingOccurrences(of: "CREATE TABLE wallet (", with: "CREATE TABLE wallet_v15 (")
        try db.execute(sql: widened)
        try db.execute(sql: "INSERT INTO wallet_v15 SELECT * FROM wallet; DROP TABLE wallet; ALTER TABLE wallet_v15 RENAME TO wallet")
        for table in ["wallet", "onchainLabel", "onchainFrozen"] {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(sql: """
                    CREATE TRIGGER \(table)_\(event.lowercased())_moves_export AFTER \(event) ON \(table)
                    BEGIN UPDATE exportVersion SET n = n + 1; END
                    """)
            }
        }
    }
}
