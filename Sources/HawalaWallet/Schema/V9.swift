import GRDB

extension WalletSchema {
    /// v9: a payment keeps the network it was made on (`Payment.network`), so switching the
    /// backend never lists one network's payments under another's (and the payer's comment,
    /// LUD-12, and the payee's success action, LUD-09/10). Rows from before get their network
    /// as `WalletStore.network(of:walletBackend:)` says: from a Spark invoice's prefix, else
    /// the wallet's saved backend of the same kind, else the bare backend name.
    static func v9(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE payment ADD COLUMN network TEXT;
            ALTER TABLE payment ADD COLUMN comment TEXT;
            ALTER TABLE payment ADD COLUMN successAction TEXT;
            UPDATE payment SET network = CASE
                WHEN backend = 'spark' AND lower(invoice) LIKE 'lnbcrt%' THEN 'spark:regtest'
                WHEN backend = 'spark' AND lower(invoice) LIKE 'lnbc%' THEN 'spark:mainnet'
                ELSE coalesce((SELECT value FROM walletSetting s WHERE s.walletId = payment.walletId AND s.key = 'ln.backend'
                               AND substr(s.value, 1, length(payment.backend) + 1) = payment.backend || ':'), backend)
            END;
            CREATE INDEX payment_by_network ON payment (walletId, network, timestamp DESC, id DESC, description, paymentHash);
            """)
    }
}
