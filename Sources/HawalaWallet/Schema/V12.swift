import GRDB

extension WalletSchema {
    /// v12: app connections (`AppConnections.swift`): programs that pay within limits, each
    /// with its own keys; what each spends, reserved before a payment and settled after; the
    /// answers given to requests (a request delivered again gets the same); and which
    /// connection made a payment or an invoice.
    static func v12(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE appConnection (
                id TEXT PRIMARY KEY,
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                permissions TEXT NOT NULL,
                budgetSat INTEGER,
                renewal TEXT NOT NULL,
                maxPaymentSat INTEGER,
                expiresAt REAL,
                createdAt REAL NOT NULL,
                lastUsedAt REAL,
                revokedAt REAL,
                servicePublicKey TEXT NOT NULL UNIQUE,
                sealedServiceKey BLOB NOT NULL,
                clientPublicKey TEXT NOT NULL UNIQUE,
                relays TEXT NOT NULL,
                UNIQUE (walletId, name));
            CREATE TABLE connectionSpend (
                connectionId TEXT NOT NULL REFERENCES appConnection(id) ON DELETE CASCADE,
                paymentKey TEXT NOT NULL,
                msat INTEGER NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'released')),
                at REAL NOT NULL,
                PRIMARY KEY (connectionId, paymentKey));
            CREATE INDEX connectionSpend_by_time ON connectionSpend (connectionId, at);
            CREATE TABLE connectionAnswer (
                connectionId TEXT NOT NULL REFERENCES appConnection(id) ON DELETE CASCADE,
                requestId TEXT NOT NULL,
                answer TEXT NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (connectionId, requestId));
            ALTER TABLE payment ADD COLUMN connection TEXT;
            """)
    }
}
