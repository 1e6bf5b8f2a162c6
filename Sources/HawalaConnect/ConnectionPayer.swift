import Foundation
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

/// The one rule by which a program pays through its app connection, whatever its wire (NWC
/// now; L402 and MCP next): a BOLT11 invoice, prepared for its fee; the connection's budget
/// reserved for amount + fee before anything is sent (in one store transaction, so concurrent
/// requests never overspend); paid once per request; the reservation settled to what it cost,
/// or released when nothing was paid. The payment carries the connection's name.
public enum ConnectionPayer {
    /// Why a connection's payment was not made.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The connection's limits say no (revoked, expired, not allowed, over a limit).
        case refused(ConnectionRefusal)
        /// Not a BOLT11 invoice, or one that can't be paid (expired, this wallet's own…).
        case invalidInvoice(String)
        /// The amount of an amountless invoice is missing, or not in whole sats.
        case invalidAmount(String)
        case insufficientBalance(String)
        /// The network refused or failed it; nothing was paid.
        case paymentFailed(String)
        /// The person declined it, or did not answer in time (the words say which); nothing was paid.
        case notApproved(String)

        public var description: String {
            switch self {
            case .refused(let refusal): refusal.description
            case .invalidInvoice(let why), .invalidAmount(let why), .insufficientBalance(let why), .paymentFailed(let why), .notApproved(let why): why
            }
        }
    }

    /// What a person approves before a program's payment is sent: who is paid as Hawala knows
    /// it (a Lightning address or L402 host when that is how it was reached, else the payee's
    /// node id), amount, fee and total from the prepared payment, and the payee's own words.
    public struct Approval: Sendable, Equatable {
        public let payee: String
        public let amount: Msat
        public let fee: Msat
        public let total: Msat
        /// The invoice's description: written by the payee, so never who the payee is.
        public let description: String?

        /// "Pay 1,200 sat to alice@example.com (fee 2 sat, 1,202 sat in all)? They describe it as: “job 6”."
        public var question: String {
            var text = "Pay \(AmountText.sats(amount, rounding: .up)) to \(payee) (fee \(AmountText.sats(fee, rounding: .up)), \(AmountText.sats(total, rounding: .up)) in all)?"
            if let description, !description.isEmpty {
                text += " They describe it as: \u{201C}\(DisplayText.safe(TextLimit.prefix(description, scalars: 120)))\u{201D}."
            }
            return text
        }

        /// A node id as a person can compare it: its first and last 8 hex digits.
        public static func shortNodeID(_ key: [UInt8]) -> String {
            let hex = hexString(key)
            return hex.count > 20 ? "node \(hex.prefix(8))…\(hex.suffix(8))" : "node \(hex)"
        }
    }

    /// Asked once the fee is known, before anything is reserved or sent; whatever it throws
    /// stops the payment (`Failure.notApproved` with its words, unless it is a `Failure`).
    public typealias Approve = @Sendable (Approval) async throws -> Void

    /// The question a person answers for `approval`.
    public static func question(_ approval: PaymentApproval) -> String {
        Approval(payee: approval.payee, amount: approval.amount, fee: approval.fee, total: approval.total, description: approval.description).question
    }

    /// Told at once of a payment that waits for the person's yes (it is in the store: the app
    /// shows it): a face prints it, an MCP client is asked. Its answer, when it gets one
    /// (true: approved), decides; nil leaves it to the app.
    public typealias Ask = @Sendable (PaymentApproval) async -> Bool?

    /// Waits for the person's answer to `approval` — approved, or nothing is paid (declined,
    /// no answer within the connection's `approvalWait`, or this task cancelled).
    static func waitForApproval(_ approval: Approval, connection: AppConnection, store: WalletStore, paymentKey: String, paymentHash: String?,
                                ask: Ask?) async throws(Failure) {
        let asked: PaymentApproval
        do {
            asked = try store.askApproval(ApprovalQuestion(payee: approval.payee, amount: approval.amount, fee: approval.fee, total: approval.total,
                                                           description: approval.description, paymentKey: paymentKey, paymentHash: paymentHash),
                                          connection: connection)
        } catch let refusal as ApprovalError {
            throw .notApproved(refusal.description)
        } catch {
            throw .paymentFailed("the payment can't wait for approval now: \(error)")
        }
        // A decision that can't be written leaves it waiting: at worst nothing is paid. One
        // given too late (answered or expired meanwhile) is no failure: the first answer stands.
        let face = ask.map { ask in
            Task {
                guard let yes = await ask(asked) else { return }
                UnsavedWrite.attempt("the client's answer to payment approval \(asked.id)") {
                    do { _ = try store.decideApproval(id: asked.id, approve: yes) } catch is ApprovalError {}
                }
            }
        }
        defer { face?.cancel() }
        while Date() < asked.expiresAt, !Task.isCancelled {
            if let state = try? store.paymentApproval(id: asked.id)?.state, state != .waiting { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        let cutShort = Task.isCancelled
        // Read, or expired, in one transaction: an answer given at the last moment stands. Not
        // written: counted as no answer (nothing is paid; the caller gives the budget back).
        var ended = PaymentApproval.State.expired
        UnsavedWrite.attempt("the end of payment approval \(asked.id)") { ended = try store.endApproval(id: asked.id) }
        // Revoked (or expired) while it waited: nothing more of it is paid, whatever the answer.
        let current = (try? store.connection(id: connection.id)) ?? nil
        if current?.state(at: Date()) != .live { throw .refused(current?.state(at: Date()) == .expired ? .expired : .revoked) }
        switch ended {
        case .approved: return
        case .declined: throw .notApproved("the person declined: nothing was paid")
        case .waiting, .expired:
            if cutShort { throw .notApproved("the wait for the person's approval was cut short (the service stopped or lost its relay): nothing was paid; ask again") }
            throw .notApproved("no answer within \(Self.waitText(connection.approvalWait)): nothing was paid")
        }
    }

    /// Above the connection's `approveAbove`, the person's yes from the app (or the program's
    /// client: `ask`); below it, the caller's own `approve`, when given.
    static func askThePerson(_ approval: Approval, connection: AppConnection, store: WalletStore, paymentKey: String, paymentHash: String?,
                             approve: Approve?, ask: Ask?) async throws(Failure) {
        if let threshold = connection.approveAbove, approval.total > threshold.msat {
            try await waitForApproval(approval, connection: connection, store: store, paymentKey: paymentKey, paymentHash: paymentHash, ask: ask)
        } else if let approve {
            do {
                try await approve(approval)
            } catch {
                throw (error as? Failure) ?? .notApproved("\(error)")
            }
        }
    }

    /// "2 minutes", "90 seconds".
    public static func waitText(_ seconds: Int) -> String {
        seconds % 60 == 0 ? (seconds == 60 ? "a minute" : "\(seconds / 60) minutes") : "\(seconds) seconds"
    }

    /// The idempotency key of a connection's request: one payment per request, ever.
    public static func paymentKey(connection: AppConnection, requestID: String) -> String { "connect:\(connection.id):\(requestID)" }

    /// Pays `invoice` for `connection`, once per `requestID` (a request delivered again gets
    /// the same payment). `amountMsat` is for an invoice without an amount; a payment still
    /// pending comes back pending (it may settle later: a sync says).
    /// - Throws: `Failure`.
    public static func pay(invoice text: String, amountMsat: Msat?, requestID: String, connection: AppConnection,
                           session: LightningSession, now: Date = Date(), payee: String? = nil, approve: Approve? = nil, ask: Ask? = nil) async throws(Failure) -> Payment {
        guard text.utf8.count <= Bolt11Invoice.maximumLength, case .bolt11(let invoice)? = try? PaymentInput.parse(text) else {
            throw .invalidInvoice("not a BOLT11 invoice")
        }
        var amountSats: Sats?
        if invoice.amountMsat == nil {
            guard let amountMsat else { throw .invalidAmount("this invoice has no amount: give one") }
            guard amountMsat.isWholeSats, amountMsat > .zero else { throw .invalidAmount("an amount is whole sats (a multiple of 1,000 msat)") }
            amountSats = amountMsat.sats(.down)
        }
        return try await pay(.bolt11(invoice), text: text, amountSats: amountSats, comment: nil, requestID: requestID, connection: connection, session: session, now: now,
                             payee: payee, approve: approve, ask: ask)
    }

    /// Pays a BOLT11 invoice, or a Lightning address or LNURL-pay (`amountSats` and an optional
    /// comment), for `connection`, once per `requestID` — the rule above. A connection that may
    /// not pay, or not this much, is refused before any service is asked for an invoice.
    /// Above the connection's `approveAbove` it waits for the person's yes (`ask` hears of
    /// it); below, `approve`, when given, is asked with the prepared figures (`payee` names
    /// who is paid when the caller knows better than the invoice: an L402 host).
    /// - Throws: `Failure`.
    public static func pay(_ input: PaymentInput, text: String, amountSats: Sats?, comment: String?, requestID: String, connection: AppConnection,
                           session: LightningSession, now: Date = Date(), payee: String? = nil, approve: Approve? = nil, ask: Ask? = nil) async throws(Failure) -> Payment {
        let store = session.store
        let key = paymentKey(connection: connection, requestID: requestID)
        // A request delivered again: the payment made for it, never a second one.
        if let earlier = try? store.payment(walletID: connection.walletID, idempotencyKey: key) { return earlier }
        switch connection.state(at: now) {
        case .live: break
        case .revoked: throw .refused(.revoked)
        case .expired: throw .refused(.expired)
        }
        guard connection.allows(.pay) else { throw .refused(.notAllowed(.pay)) }
        // The same invoice, paid (or on its way) through this connection by an earlier request —
        // a program's retry after a lost answer: that payment, nothing sent again.
        if case .bolt11(let invoice) = input, let earlier = paidBefore(invoice, connection: connection, store: store) { return earlier }
        if let maximum = connection.maxPayment, let amountSats, amountSats > maximum { throw .refused(.aboveMaximum(maximum: maximum)) }
        let prepared: PreparedPayment
        do {
            prepared = try await session.prepare(input, text: text, amountSats: amountSats, comment: comment, maxFeeSats: nil)
        } catch {
            throw failure(error)
        }
        let amount = prepared.prepared.amountMsat
        guard let total = try? prepared.prepared.totalMsat() else { throw .invalidAmount(AmountError.aboveSupply.description) }
        let approval = Approval(payee: payee ?? (input.isLNURL ? text : Approval.shortNodeID(prepared.prepared.invoice.payee)),
                                amount: amount, fee: prepared.prepared.feeMsat, total: total, description: prepared.prepared.description)
        // A budget in a currency counts this payment at the price of bitcoin now.
        let price: Decimal? = if let fiat = connection.fiatBudget { await session.btcPrice(in: fiat.currency) } else { nil }
        let reservation: SpendReservation
        do {
            reservation = try store.reserveSpending(connection, paymentKey: key, amount: amount, total: total, btcPrice: price, now: now)
        } catch let refusal as ConnectionRefusal {
            throw .refused(refusal)
        } catch {
            throw .paymentFailed("\(error)")
        }
        if case .alreadyReserved = reservation {
            // Another delivery of the same request is paying it right now, or did: its payment.
            if let earlier = try? store.payment(walletID: connection.walletID, idempotencyKey: key) { return earlier }
            throw .paymentFailed("this request is being paid already")
        }
        // Asked once its budget is held: the person is asked only for what its limits allow,
        // and nothing approved can be overspent by another request meanwhile.
        let hash: String? = if case .bolt11(let invoice) = input { hexString(invoice.paymentHash) } else { nil }
        do {
            try await askThePerson(approval, connection: connection, store: store, paymentKey: key, paymentHash: hash, approve: approve, ask: ask)
        } catch {
            release(key, of: connection, store: store, now: now)
            throw error
        }
        // Paid meanwhile by another request of this connection (a program's retry): that payment.
        if case .bolt11(let invoice) = input, let earlier = paidBefore(invoice, connection: connection, store: store) {
            release(key, of: connection, store: store, now: now)
            return earlier
        }
        let payment: Payment
        do {
            payment = try await session.lightning.pay(prepared, idempotencyKey: key, connection: connection.name)
        } catch {
            // Refused: nothing was paid, the reservation is given back. Unknown (cancelled
            // mid-send, the store failing after the backend answered): it keeps counting.
            if !error.mayHaveGoneOut { release(key, of: connection, store: store, now: Date()) }
            throw failure(error)
        }
        switch payment.status {
        case .failed:
            release(key, of: connection, store: store, now: now)
        case .completed, .pending:
            // What it cost (pending: the reservation, the most it may cost, stays counted).
            // Not written: the reservation, the most it may cost, stays counted, and the
            // payment's own record settles it when it ends.
            let spent = payment.status == .completed ? (try? payment.amountMsat + payment.feeMsat) ?? total : total
            UnsavedWrite.attempt("what \(connection.name)'s payment \(key) cost (\(spent.value) msat)") {
                try store.settleSpending(connection, paymentKey: key, total: spent, now: now)
            }
        }
        return payment
    }

    /// Gives back a reservation nothing was paid for. Not written: it stays counted against the
    /// budget (the safe side) and the log says so.
    static func release(_ key: String, of connection: AppConnection, store: WalletStore, now: Date) {
        UnsavedWrite.attempt("the budget \(connection.name) held for payment \(key), given back,") {
            try store.releaseSpending(connection, paymentKey: key, now: now)
        }
    }

    /// This connection's payment of `invoice` that did not fail, if it made one.
    static func paidBefore(_ invoice: Bolt11Invoice, connection: AppConnection, store: WalletStore) -> Payment? {
        let hash = hexString(invoice.paymentHash)
        let filter = PaymentFilter(type: .send, paymentHash: hash, connection: connection.name)
        return (try? store.payments(walletID: connection.walletID, filter: filter))?.first { $0.status != .failed }
    }

    /// Whether `payment`, the answer to `requestID`, was made before, for another request (the
    /// same invoice paid again is answered with its first payment).
    public static func wasPaidBefore(_ payment: Payment, requestID: String, connection: AppConnection) -> Bool {
        let key = paymentKey(connection: connection, requestID: requestID)
        return payment.idempotencyKey.map { $0 != key && !$0.hasPrefix(key + "#") } ?? true
    }

    static func failure(_ error: LightningError) -> Failure {
        switch error {
        case .insufficientBalance: .insufficientBalance(error.description)
        case .expired, .ownInvoice, .amountRequired: .invalidInvoice(error.description)
        default: .paymentFailed(error.description)
        }
    }
}
