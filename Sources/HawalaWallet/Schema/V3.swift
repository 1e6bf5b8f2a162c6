import GRDB

extension WalletSchema {
    /// v3: Lightning payment history and per-wallet settings (the types: HawalaLightning/History).
    static func v3(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE payment (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                id TEXT NOT NULL,
                type TEXT NOT NULL CHECK (type IN ('send', 'receive')),
                status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
                amountMsat INTEGER NOT NULL CHECK (amountMsat >= 0),
                feeMsat INTEGER NOT NULL CHECK (feeMsat >= 0),
                timestamp REAL NOT NULL,
                method TEXT NOT NULL,
                backend TEXT NOT NULL,
                invoice TEXT,
                description TEXT,
                paymentHash TEXT,
                preimage TEXT,
                destination TEXT,
                idempotencyKey TEXT,
                failureReason TEXT,
                fiatCurrency TEXT,
                fiatValue TEXT,
                PRIMARY KEY (walletId, id));
            CREATE INDEX payment_by_time ON payment (walletId, timestamp DESC, id DESC);
            CREATE UNIQUE INDEX payment_by_idempotency_key ON payment (walletId, idempotencyKey) WHERE idempotencyKey IS NOT NULL;
            CREATE TABLE walletSetting (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (walletId, key));
            """)
    }
}
