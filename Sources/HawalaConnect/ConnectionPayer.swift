import Foundation
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

        public var description: String {
            switch self {
            case .refused(let refusal): refusal.description
            case .invalidInvoice(let why), .invalidAmount(let why), .insufficientBalance(let why), .paymentFailed(let why): why
            }
        }
    }

    /// The idempotency key of a connection's request: one payment per request, ever.
    public static func paymentKey(connection: AppConnection, requestID: String) -> String { "connect:\(connection.id):\(requestID)" }

    /// Pays `invoice` for `connection`, once per `requestID` (a request delivered again gets
    /// the same payment). `amountMsat` is for an invoice without an amount; a payment still
    /// pending comes back pending (it may settle later: a sync says).
    /// - Throws: `Failure`.
    public static func pay(invoice text: String, amountMsat: Msat?, requestID: String, connection: AppConnection,
                           session: LightningSession, now: Date = Date()) async throws(Failure) -> Payment {
        guard text.utf8.count <= Bolt11Invoice.maximumLength, case .bolt11(let invoice)? = try? PaymentInput.parse(text) else {
            throw .invalidInvoice("not a BOLT11 invoice")
        }
        var amountSats: Sats?
        if invoice.amountMsat == nil {
            guard let amountMsat else { throw .invalidAmount("this invoice has no amount: give one") }
            guard amountMsat.isWholeSats, amountMsat > .zero else { throw .invalidAmount("an amount is whole sats (a multiple of 1,000 msat)") }
            amountSats = amountMsat.sats(.down)
        }
        return try await pay(.bolt11(invoice), text: text, amountSats: amountSats, comment: nil, requestID: requestID, connection: connection, session: session, now: now)
    }

    /// Pays a BOLT11 invoice, or a Lightning address or LNURL-pay (`amountSats` and an optional
    /// comment), for `connection`, once per `requestID` — the rule above. A connection that may
    /// not pay, or not this much, is refused before any service is asked for an invoice.
    /// - Throws: `Failure`.
    public static func pay(_ input: PaymentInput, text: String, amountSats: Sats?, comment: String?, requestID: String, connection: AppConnection,
                           session: LightningSession, now: Date = Date()) async throws(Failure) -> Payment {
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
        if let maximum = connection.maxPayment, let amountSats, amountSats > maximum { throw .refused(.aboveMaximum(maximum: maximum)) }
        let prepared: PreparedPayment
        do {
            prepared = try await session.prepare(input, text: text, amountSats: amountSats, comment: comment, maxFeeSats: nil)
        } catch {
            throw failure(error)
        }
        let amount = prepared.prepared.amountMsat
        guard let total = try? prepared.prepared.totalMsat() else { throw .invalidAmount(AmountError.aboveSupply.description) }
        let reservation: SpendReservation
        do {
            reservation = try store.reserveSpending(connection, paymentKey: key, amount: amount, total: total, now: now)
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
        let payment: Payment
        do {
            payment = try await session.lightning.pay(prepared, idempotencyKey: key, connection: connection.name)
        } catch {
            // Refused: nothing was paid, the reservation is given back. Unknown (cancelled
            // mid-send, the store failing after the backend answered): it keeps counting.
            if !error.mayHaveGoneOut { try? store.releaseSpending(connection, paymentKey: key) }
            throw failure(error)
        }
        switch payment.status {
        case .failed:
            try? store.releaseSpending(connection, paymentKey: key, now: now)
        case .completed, .pending:
            // What it cost (pending: the reservation, the most it may cost, stays counted).
            let spent = payment.status == .completed ? (try? payment.amountMsat + payment.feeMsat) ?? total : total
            try? store.settleSpending(connection, paymentKey: key, total: spent, now: now)
        }
        return payment
    }

    static func failure(_ error: LightningError) -> Failure {
        switch error {
        case .insufficientBalance: .insufficientBalance(error.description)
        case .expired, .ownInvoice, .amountRequired: .invalidInvoice(error.description)
        default: .paymentFailed(error.description)
        }
    }
}
