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
            // Cached statements, written once: a backup import or a sync may bring 100,000
            // payments, each looked up three ways.
            let existing = try db.cachedStatement(sql: "SELECT * FROM payment WHERE walletId = ? AND id = ?")
            let dropPlaceholder = try db.cachedStatement(sql: "DELETE FROM payment WHERE walletId = ? AND idempotencyKey = ? AND id != ? AND status = 'pending'")
            let keyTaken = try db.cachedStatement(sql: "SELECT 1 FROM payment WHERE walletId = ? AND idempotencyKey = ? AND id != ?")
            let walletBackend = try WalletSettingRecord.fetchOne(db, key: ["walletId": walletID, "key": LightningWallet.SettingKey.backend])?.value
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
                    payment.heldUntil = payment.heldUntil ?? old.heldUntil.map(Date.init(timeIntervalSince1970:))
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
                // A program's payment that ended after it was answered (a held payment settled
                // or given back): its connection's budget counts what it cost, or frees it.
                if payment.type == .send, let key = payment.idempotencyKey, payment.status != .pending {
                    let cost = payment.status == .completed ? (try? payment.amountMsat + payment.feeMsat) : nil
                    if payment.status == .failed || cost != nil { try WalletStore.paymentEnded(paymentKey: key, cost: cost, db: db) }
                }
            }
        }
    }

    /// Removes the pending record written before a send the backend refused outright (nothing
    /// was sent); a row no longer pending is kept.
    public func deletePendingPlaceholder(walletID: String, id: String) throws {
        try writeTransaction { db in
            _ = try PaymentRecord.of(wallet: walletID)
                .filter(PaymentRecord.Columns.id == id && PaymentRecord.Columns.status == Payment.Status.pending.rawValue).deleteAll(db)
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
        var same = PaymentRecord.Columns.id == payment.id
        if let key = payment.idempotencyKey { same = same || PaymentRecord.Columns.idempotencyKey == key }
        return try PaymentRecord.of(wallet: walletID).filter(same).fetchCount(db) > 0
    }

    /// The wallet's payments matching `filter`, newest first.
    public func payments(walletID: String, filter: PaymentFilter = PaymentFilter()) throws -> [Payment] {
        var rows: [Payment] = []
        try forEachPayment(walletID: walletID, filter: filter) { rows.append($0) }
        return rows
    }

    /// How many payments match `filter` (its page aside).
    public func countPayments(walletID: String, filter: PaymentFilter = PaymentFilter()) throws -> Int {
        try read { try PaymentRecord.matching(walletID: walletID, filter: filter).fetchCount($0) }
    }

    /// Calls `body` with each matching payment, newest first, without holding them all in memory.
    public func forEachPayment(walletID: String, filter: PaymentFilter = PaymentFilter(), _ body: (Payment) throws -> Void) throws {
        try read { db in
            let cursor = try PaymentRecord.fetchCursor(db, PaymentRecord.matching(walletID: walletID, filter: filter).newestFirst(filter))
            while let record = try cursor.next() { try body(try record.payment()) }
        }
    }

    /// The payment with `id` (or the only payment whose id or payment hash starts with `id`).
    public func payment(walletID: String, id: String) throws -> Payment? {
        try read { db in
            if let record = try PaymentRecord.of(wallet: walletID).filter(PaymentRecord.Columns.id == id).fetchOne(db) {
                return try record.payment()
            }
            let prefix = PaymentRecord.likePrefix(id)
            let rows = try PaymentRecord.of(wallet: walletID)
                .filter(PaymentRecord.Columns.id.like(prefix, escape: "\\") || PaymentRecord.Columns.paymentHash.like(prefix, escape: "\\"))
                .limit(2).fetchAll(db)
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

    /// The networks `walletID` has payments on, most payments first.
    public func paymentNetworks(walletID: String) throws -> [String] {
        try read { db in
            let network = PaymentRecord.Columns.network
            return try String.fetchAll(db, PaymentRecord.of(wallet: walletID).filter(network != nil).select(network)
                .group(network).order(count(PaymentRecord.Columns.id).desc, network))
        }
    }
}
