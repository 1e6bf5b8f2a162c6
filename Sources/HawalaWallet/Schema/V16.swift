import GRDB

extension WalletSchema {
    /// v16: hold invoices (`HoldPreimages.swift`): the preimages Hawala made for them, sealed
    /// until the invoice is settled or cancelled; and `payment.heldUntil`, the time a payment
    /// held for this wallet must be settled by (it goes back to its payer then).
    static func v16(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE holdPreimage (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                paymentHash TEXT NOT NULL,
                sealed BLOB NOT NULL,
                createdAt REAL NOT NULL,
                PRIMARY KEY (walletId, paymentHash));
            ALTER TABLE payment ADD COLUMN heldUntil REAL;
            """)
    }
}
