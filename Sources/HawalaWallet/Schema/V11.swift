import GRDB

extension WalletSchema {
    /// v11: the backup methods a wallet has besides its checked words (a file, a vault
    /// upload, a paper sheet, shares), each with its last time. Not part of what a backup
    /// holds (recording an upload must not make the next one due).
    static func v11(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE backupRecord (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                method TEXT NOT NULL,
                lastAt REAL NOT NULL,
                PRIMARY KEY (walletId, method));
            """)
    }
}
