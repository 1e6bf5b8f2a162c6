import GRDB

extension WalletSchema {
    /// v17: approval in the app (`PaymentApprovals.swift`): a connection's threshold above which
    /// a payment waits for the person's yes (`appConnection.approveAboveSat`) and how long it
    /// waits (`approvalWaitSeconds`); and the payments waiting, approved, declined or expired,
    /// each with the key its budget is reserved under (`paymentKey`) and its invoice's hash.
    static func v17(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE appConnection ADD COLUMN approveAboveSat INTEGER;
            ALTER TABLE appConnection ADD COLUMN approvalWaitSeconds INTEGER;
            CREATE TABLE paymentApproval (
                id TEXT PRIMARY KEY NOT NULL,
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                connectionId TEXT NOT NULL,
                program TEXT NOT NULL,
                payee TEXT NOT NULL,
                amountMsat INTEGER NOT NULL,
                feeMsat INTEGER NOT NULL,
                totalMsat INTEGER NOT NULL,
                description TEXT,
                paymentKey TEXT NOT NULL,
                paymentHash TEXT,
                askedAt REAL NOT NULL,
                expiresAt REAL NOT NULL,
                state TEXT NOT NULL,
                decidedAt REAL);
            CREATE INDEX paymentApprovalState ON paymentApproval(state, expiresAt);
            CREATE INDEX paymentApprovalConnection ON paymentApproval(connectionId, state);
            """)
    }
}
