import Foundation
import GRDB
import HawalaText

/// One payment in a wallet's history, shaped like the Spark SDK's `Payment`.
/// Amounts are millisatoshis; a pending payment is not final (it may still settle).
public struct Payment: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable { case send, receive }
    public enum Status: String, Sendable, Codable, CaseIterable { case pending, completed, failed }

    /// What a payment paid or was paid by.
    public struct Details: Sendable, Codable, Equatable {
        public var invoice: String?
        public var description: String?
        public var paymentHash: String?
        /// Proof of payment; kept only once the payment completed.
        public var preimage: String?
        /// The payee's node id (hex) for a send, ours for a receive.
        public var destination: String?
        /// The payer's comment to the payee (LUD-12), sent with a payment to a Lightning
        /// address or an LNURL-pay service.
        public var comment: String?
        /// What the payee's LNURL service said once paid (LUD-09/10: its message, or its link).
        public var successAction: String?
        /// An on-chain payment's transaction (a withdrawal's, or the deposit a claim credited).
        public var txid: String?
        /// An on-chain payment's Bitcoin address: where a withdrawal went, or where a deposit came.
        public var address: String?
        /// An on-chain transaction's confirmations when the history last synced (0: in no block yet).
        public var confirmations: Int?

        public init(invoice: String? = nil, description: String? = nil, paymentHash: String? = nil, preimage: String? = nil, destination: String? = nil,
                    comment: String? = nil, successAction: String? = nil, txid: String? = nil, address: String? = nil, confirmations: Int? = nil) {
            self.txid = txid
            self.address = address
            self.confirmations = confirmations
            self.comment = comment
            self.successAction = successAction
            self.invoice = invoice
            self.description = description
            self.paymentHash = paymentHash
            self.preimage = preimage
            self.destination = destination
        }
    }

    /// A payment's value in a fiat currency at the time it was made.
    public struct FiatValue: Sendable, Codable, Equatable {
        public let currency: String
        public let value: Decimal
        public init(currency: String, value: Decimal) {
            self.currency = currency
            self.value = value
        }
    }

    public let id: String
    public let type: Kind
    public var status: Status
    public let amountMsat: Msat
    public var feeMsat: Msat
    public let timestamp: Date
    /// "lightning", or "bitcoin" for an on-chain payment (a withdrawal to an address, a claimed
    /// deposit), which carries its transaction in `details`.
    public let method: String
    /// The backend that made it: "devnet" or a real network's name.
    public let backend: String
    /// The network it was made on, as its backend is saved (`devnet:PATH`, `spark:regtest`,
    /// `spark:mainnet`): a history shows one network's payments, never another's under its
    /// name. nil until recorded: the store fills it in (`WalletStore.network(of:walletBackend:)`).
    public var network: String?
    public var details: Details
    public var idempotencyKey: String?
    public var failureReason: String?
    public var fiat: FiatValue?
    /// The app connection that made this payment ("paid by agent-1"), nil for a person's.
    public var connection: String?

    public init(id: String, type: Kind, status: Status, amountMsat: Msat, feeMsat: Msat, timestamp: Date,
                method: String = "lightning", backend: String, details: Details, idempotencyKey: String? = nil,
                failureReason: String? = nil, fiat: FiatValue? = nil, network: String? = nil, connection: String? = nil) {
        self.network = network
        self.connection = connection
        self.id = id
        self.type = type
        self.status = status
        self.amountMsat = amountMsat
        self.feeMsat = feeMsat
        self.timestamp = timestamp
        self.method = method
        self.backend = backend
        self.details = details
        self.idempotencyKey = idempotencyKey
        self.failureReason = failureReason
        self.fiat = fiat
    }

    /// The amount in whole sats, rounded down.
    public var amountSats: Sats { amountMsat.sats(.down) }
    /// Whether this payment moved bitcoin on-chain (a withdrawal or a deposit).
    public var isOnChain: Bool { method == Payment.onChainMethod }
    /// The `method` of an on-chain payment.
    public static let onChainMethod = "bitcoin"
    /// Fees rounded up to whole satoshis (never shown lower than paid).
    public var feeSats: Sats { feeMsat.sats(.up) }

    /// The key a new invoice is kept under as a pending receive until paid: this prefix and
    /// its payment hash.
    public static let invoiceKeyPrefix = "receive:"
    /// An invoice of this wallet's not paid (yet): kept in the history, but not a payment.
    public var isOpenInvoice: Bool {
        type == .receive && status == .pending && idempotencyKey?.hasPrefix(Payment.invoiceKeyPrefix) == true
    }
}

/// Which payments to list: newest first, optional type, status and time range, paging.
public struct PaymentFilter: Sendable, Equatable {
    public var type: Payment.Kind?
    public var status: Payment.Status?
    public var from: Date?
    public var to: Date?
    /// Hex payment hash.
    public var paymentHash: String?
    /// Text a person searches for: in the description (anywhere, ASCII case ignored), or the
    /// start of the payment's id or payment hash.
    public var search: String?
    /// Only the payments of this network (`Payment.network`); nil: every network.
    public var network: String?
    /// Only the payments and invoices of this app connection (`Payment.connection`).
    public var connection: String?
    /// Whether invoices not paid yet are listed (`Payment.isOpenInvoice`): they are not payments.
    public var openInvoices: Bool
    public var offset: Int
    public var limit: Int?

    public init(type: Payment.Kind? = nil, status: Payment.Status? = nil, from: Date? = nil, to: Date? = nil,
                paymentHash: String? = nil, search: String? = nil, network: String? = nil, connection: String? = nil, openInvoices: Bool = true,
                offset: Int = 0, limit: Int? = nil) {
        self.network = network
        self.connection = connection
        self.openInvoices = openInvoices
        self.paymentHash = paymentHash
        self.search = search
        self.type = type
        self.status = status
        self.from = from
        self.to = to
        self.offset = offset
        self.limit = limit
    }
}

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

    static func insert(_ payment: Payment, walletID: String, db: Database) throws {
        try PaymentRecord(payment, walletID: walletID).insert(db, onConflict: .replace)
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

    // MARK: Per-wallet settings

    /// A wallet's setting (e.g. its Lightning backend), or nil.
    public func setting(_ key: String, walletID: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT value FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, key]) }
    }

    /// A wallet's settings worth carrying in a backup (not sync cursors).
    public func settings(walletID: String) throws -> [String: String] {
        try read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM walletSetting WHERE walletId = ? AND key != 'ln.syncedAt'", arguments: [walletID]) {
                out[row["key"]] = row["value"]
            }
            return out
        }
    }

    /// Sets (or, with nil, removes) a wallet's setting.
    public func setSetting(_ key: String, to value: String?, walletID: String) throws {
        try writeTransaction { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO walletSetting (walletId, key, value) VALUES (?, ?, ?)", arguments: [walletID, key, value])
            } else {
                try db.execute(sql: "DELETE FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, key])
            }
        }
    }
}

