import GRDB

extension WalletSchema {
    /// v16: hold invoices (`HoldPreimages.swift`): the preimages Hawala made for them, sealed
    /// until the invoice is settled or cancelled; `payment.heldUntil`, the time a payment held
    /// for this wallet must be settled by (it goes back to its payer then); and the uses of the
    /// credentials the wallet's paywall sold (`PaywallUses.swift`), so a restart gives none back;
    /// budgets in a currency (`appConnection.budgetCurrency`, `budgetFiat`: a decimal) and the
    /// price of 1 BTC in it when each payment was reserved (`connectionSpend.btcPrice`).
    static func v16(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE holdPreimage (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                paymentHash TEXT NOT NULL,
                sealed BLOB NOT NULL,
                createdAt REAL NOT NULL,
                PRIMARY KEY (walletId, paymentHash));
            ALTER TABLE payment ADD COLUMN heldUntil REAL;
            CREATE TABLE paywallUse (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                paymentHash TEXT NOT NULL,
                used INTEGER NOT NULL,
                lastAt REAL NOT NULL,
                PRIMARY KEY (walletId, paymentHash));
            ALTER TABLE appConnection ADD COLUMN budgetCurrency TEXT;
            ALTER TABLE appConnection ADD COLUMN budgetFiat TEXT;
            ALTER TABLE connectionSpend ADD COLUMN btcPrice TEXT;
            """)
    }
}
