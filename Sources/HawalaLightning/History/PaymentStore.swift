import Foundation
import GRDB
import HawalaText
import HawalaWallet

// MARK: - History in the wallet store

extension WalletStore {
    /// Records `payment` for `walletID`, or updates it when it is already recorded. A final
    /// status (completed, failed) is never turned back into pending, and a completed payment
    /// never becomes failed: a late or replayed update can't rewrite history.
    public func savePayment(_ payment: Payment, walletID: String) throws {
        try savePayments([payment], walletID: walletID)
    }

    /// `savePayment` for many payments in one transaction.
    public func savePayments(_ payments: [Payment], walletID: String) throws {
        try writeTransaction { db in
            // Cached statements: a backup import or a sync may bring 100,000 payments.
            let existing = try db.cachedStatement(sql: "SELECT * FROM payment WHERE walletId = ? AND id = ?")
            let dropPlaceholder = try db.cachedStatement(sql: "DELETE FROM payment WHERE walletId = ? AND idempotencyKey = ? AND id != ? AND status = 'pending'")
            let keyTaken = try db.cachedStatement(sql: "SELECT 1 FROM payment WHERE walletId = ? AND idempotencyKey = ? AND id != ?")
            let walletBackend = try String.fetchOne(db, sql: "SELECT value FROM walletSetting WHERE walletId = ? AND key = 'ln.backend'", arguments: [walletID])
            let placeholder = try db.cachedStatement(sql: "SELECT * FROM payment WHERE walletId = ? AND idempotencyKey = ? AND id != ? AND status = 'pending'")
            for var payment in payments {
                if let old = try PaymentRecord.fetchOne(existing, arguments: [walletID, payment.id]) {
                    guard WalletStore.mayReplace(Payment.Status(rawValue: old.status) ?? .pending, with: payment.status) else { continue }
                    // What only this store knew stays: a backend's later report of the payment
                    // (a sync) carries no comment, no payee's message, no fiat value of the time.
                    payment.details.comment = payment.details.comment ?? old.comment
                    payment.details.successAction = payment.details.successAction ?? old.successAction
                    payment.fiat = payment.fiat ?? old.fiat
                    payment.network = payment.network ?? old.network
                    // An on-chain payment's address and transaction, known when it was sent
                    // (Spark's later reports of a withdrawal carry no address).
                    payment.details.txid = payment.details.txid ?? old.txid
                    payment.details.address = payment.details.address ?? old.onChainAddress
                    payment.details.confirmations = payment.details.confirmations ?? old.confirmations
                    // The key it was sent under still guards it (a backend's report carries none).
                    payment.idempotencyKey = payment.idempotencyKey ?? old.idempotencyKey
                    payment.connection = payment.connection ?? old.connection
                }
                if let key = payment.idempotencyKey {
                    // The backend's record replaces the placeholder written before sending (and
                    // keeps what it knew).
                    if let old = try PaymentRecord.fetchOne(placeholder, arguments: [walletID, key, payment.id]) {
                        payment.details.comment = payment.details.comment ?? old.comment
                        payment.details.successAction = payment.details.successAction ?? old.successAction
                        payment.network = payment.network ?? old.network
                        payment.connection = payment.connection ?? old.connection
                    }
                    try dropPlaceholder.execute(arguments: [walletID, key, payment.id])
                    if try Bool.fetchOne(keyTaken, arguments: [walletID, key, payment.id]) == true { continue }
                }
                if payment.network == nil { payment.network = WalletStore.network(of: payment, walletBackend: walletBackend) }
                try WalletStore.insert(payment, walletID: walletID, db: db)
            }
        }
    }

    /// Removes the pending record written before a send the backend refused outright (nothing
    /// was sent); a row no longer pending is kept.
    public func deletePendingPlaceholder(walletID: String, id: String) throws {
        try writeTransaction { db in
            try db.execute(sql: "DELETE FROM payment WHERE walletId = ? AND id = ? AND status = 'pending'", arguments: [walletID, id])
        }
    }

    /// The network of a payment recorded without one (an older backup, a row from before the
    /// network was kept): a Spark payment's invoice says which Spark network (`lnbcrt`: regtest,
    /// `lnbc`: mainnet); otherwise the wallet's saved backend when it is of the same kind;
    /// otherwise the bare backend name ("devnet", "spark": a network no backend is saved as,
    /// listed only among all networks).
    public static func network(of payment: Payment, walletBackend: String?) -> String {
        let invoice = payment.details.invoice?.lowercased() ?? ""
        if payment.backend == "spark" {
            if invoice.hasPrefix("lnbcrt") { return "spark:regtest" }
            if invoice.hasPrefix("lnbc") { return "spark:mainnet" }
        }
        if let walletBackend, walletBackend.hasPrefix(payment.backend + ":") { return walletBackend }
        return payment.backend
    }

    static func mayReplace(_ old: Payment.Status, with new: Payment.Status) -> Bool {
        switch (old, new) {
        case (.pending, _): true
        case (.failed, .completed): true  // a retry under the same key that settled
        case (.completed, .completed), (.failed, .failed): true
        default: false
        }
    }

    package static func insert(_ payment: Payment, walletID: String, db: Database) throws {
        try PaymentRecord(payment, walletID: walletID).insert(db, onConflict: .replace)
    }

    /// Whether `walletID` already has `payment`: the same id, or the same idempotency key.
    package static func knows(_ payment: Payment, walletID: String, db: Database) throws -> Bool {
        let sameKey = payment.idempotencyKey.map { PaymentRecord.Columns.idempotencyKey == $0 } ?? false.databaseValue
        return try PaymentRecord.of(wallet: walletID).filter(PaymentRecord.Columns.id == payment.id || sameKey).fetchCount(db) > 0
    }

    /// The wallet's payments matching `filter`, newest first.
    public func payments(walletID: String, filter: PaymentFilter = PaymentFilter()) throws -> [Payment] {
        var rows: [Payment] = []
        try forEachPayment(walletID: walletID, filter: filter) { rows.append($0) }
        return rows
    }

    /// How many payments match `filter` (its page aside).
    public func countPayments(walletID: String, filter: PaymentFilter = PaymentFilter()) throws -> Int {
        let (conditions, arguments) = WalletStore.conditions(walletID: walletID, filter: filter)
        return try read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM payment WHERE " + conditions, arguments: arguments) ?? 0 }
    }

    /// Calls `body` with each matching payment, newest first, without holding them all in memory.
    public func forEachPayment(walletID: String, filter: PaymentFilter = PaymentFilter(), _ body: (Payment) throws -> Void) throws {
        let (conditions, arguments) = WalletStore.conditions(walletID: walletID, filter: filter)
        try read { db in
            let cursor = try PaymentRecord.fetchCursor(db, sql: "SELECT * FROM payment WHERE " + conditions + WalletStore.newestFirst(filter),
                                                       arguments: arguments)
            while let record = try cursor.next() { try body(try record.payment()) }
        }
    }

    /// The WHERE conditions of `filter` (every list and export of payments reads through them).
    static func conditions(walletID: String, filter: PaymentFilter) -> (String, StatementArguments) {
        var sql = "walletId = ?"
        var arguments: StatementArguments = [walletID]
        if let type = filter.type { sql += " AND type = ?"; arguments += [type.rawValue] }
        if let status = filter.status { sql += " AND status = ?"; arguments += [status.rawValue] }
        if let from = filter.from { sql += " AND timestamp >= ?"; arguments += [from.timeIntervalSince1970] }
        if let to = filter.to { sql += " AND timestamp < ?"; arguments += [to.timeIntervalSince1970] }
        if let hash = filter.paymentHash { sql += " AND paymentHash = ?"; arguments += [hash] }
        if let network = filter.network { sql += " AND network = ?"; arguments += [network] }
        if let connection = filter.connection { sql += " AND connection = ?"; arguments += [connection] }
        if !filter.openInvoices {
            sql += " AND NOT (type = 'receive' AND status = 'pending' AND COALESCE(idempotencyKey, '') LIKE ? ESCAPE '\\')"
            arguments += [WalletStore.likePrefix(Payment.invoiceKeyPrefix)]
        }
        if let text = filter.search, !text.isEmpty {
            sql += " AND (description LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' OR paymentHash LIKE ? ESCAPE '\\')"
            let prefix = WalletStore.likePrefix(text)
            arguments += ["%" + prefix, prefix, prefix]
        }
        return (sql, arguments)
    }

    /// Newest first, then `filter`'s page.
    static func newestFirst(_ filter: PaymentFilter) -> String {
        " ORDER BY timestamp DESC, id DESC LIMIT \(filter.limit.map { max(0, $0) } ?? -1) OFFSET \(max(0, filter.offset))"
    }

    /// The payment with `id` (or the only payment whose id or payment hash starts with `id`).
    public func payment(walletID: String, id: String) throws -> Payment? {
        try read { db in
            if let record = try PaymentRecord.of(wallet: walletID).filter(PaymentRecord.Columns.id == id).fetchOne(db) {
                return try record.payment()
            }
            let rows = try PaymentRecord.fetchAll(db, sql: "SELECT * FROM payment WHERE walletId = ? AND (id LIKE ? ESCAPE '\\' OR paymentHash LIKE ? ESCAPE '\\') LIMIT 2",
                                        arguments: [walletID, WalletStore.likePrefix(id), WalletStore.likePrefix(id)])
            guard rows.count == 1 else {
                if rows.count > 1 { throw WalletError.ambiguousPaymentID(id) }
                return nil
            }
            return try rows[0].payment()
        }
    }

    /// The payment sent under `idempotencyKey`, if any.
    public func payment(walletID: String, idempotencyKey: String) throws -> Payment? {
        try read { db in
            try PaymentRecord.of(wallet: walletID).filter(PaymentRecord.Columns.idempotencyKey == idempotencyKey).fetchOne(db)?.payment()
        }
    }

    static func likePrefix(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// The networks `walletID` has payments on, most payments first.
    public func paymentNetworks(walletID: String) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT network FROM payment WHERE walletId = ? AND network IS NOT NULL GROUP BY network ORDER BY count(*) DESC, network",
                                arguments: [walletID])
        }
    }
}
