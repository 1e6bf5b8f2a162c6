import GRDB

extension WalletSchema {
    /// Schema v1: the first tables.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE keyring (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                kdf TEXT NOT NULL,
                passes INTEGER NOT NULL,
                memoryKiB INTEGER NOT NULL,
                salt BLOB NOT NULL,
                verifier BLOB NOT NULL);
            CREATE TABLE wallet (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                createdAt REAL NOT NULL,
                network TEXT NOT NULL,
                wordCount INTEGER NOT NULL,
                language TEXT NOT NULL,
                hasPassphrase INTEGER NOT NULL,
                fingerprint TEXT NOT NULL,
                backedUpAt REAL,
                lastVerifiedAt REAL,
                sealedEntropy BLOB NOT NULL,
                sealedPassphrase BLOB);
            CREATE TABLE account (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                chain TEXT NOT NULL,
                accountIndex INTEGER NOT NULL,
                path TEXT NOT NULL,
                label TEXT,
                xpub TEXT,
                PRIMARY KEY (walletId, chain, accountIndex));
            CREATE TABLE address (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                chain TEXT NOT NULL,
                accountIndex INTEGER NOT NULL,
                change INTEGER NOT NULL,
                addressIndex INTEGER NOT NULL,
                path TEXT NOT NULL,
                address TEXT NOT NULL,
                publicKey TEXT NOT NULL,
                PRIMARY KEY (walletId, chain, accountIndex, change, addressIndex));
            CREATE TABLE importedAccount (
                id TEXT PRIMARY KEY,
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                chain TEXT NOT NULL,
                address TEXT NOT NULL,
                label TEXT,
                importedAt REAL NOT NULL,
                sealedKey BLOB NOT NULL,
                UNIQUE (walletId, chain, address));
            CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            """)
    }
}
