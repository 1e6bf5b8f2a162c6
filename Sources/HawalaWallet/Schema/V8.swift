import GRDB

extension WalletSchema {
    /// v8: a counter every write to what a backup holds moves (docs/decisions/0002): the
    /// vault agent's snapshot is brought up to date after each unlocking command and app
    /// request, and it skips the whole export when the counter has not moved.
    static func v8(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE exportVersion (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL); INSERT INTO exportVersion VALUES (1, 0)")
        // What `exportWallets` and a backup's current wallet read: whole tables, or some keys.
        let watched: [(table: String, rows: String?)] = [
            ("wallet", nil), ("importedAccount", nil), ("payment", nil),
            ("walletSetting", "key != 'ln.syncedAt'"), ("setting", "key = 'current'"),
        ]
        for (table, rows) in watched {
            for (event, row) in [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")] {
                let when = rows.map { " WHEN \(row).\($0)" } ?? ""
                try db.execute(sql: """
                    CREATE TRIGGER \(table)_\(event.lowercased())_moves_export AFTER \(event) ON \(table)\(when)
                    BEGIN UPDATE exportVersion SET n = n + 1; END
                    """)
            }
        }
    }
}
