import Foundation
import HawalaLightning
import HawalaText
import HawalaWallet

/// The one rule by which a program takes payment on delivery through its app connection,
/// whatever its wire (NWC, MCP): it makes hold invoices when it may receive, and settles or
/// cancels only the held payments of its own invoices — never the person's, nor another
/// program's. The library's hold invoices do the rest (`LightningSession.receiveHeld`).
public enum ConnectionHolds {
    /// Why a connection's hold step was refused.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The connection's limits say no (revoked, expired, not allowed to receive).
        case refused(ConnectionRefusal)
        /// No invoice of this connection's has this payment hash.
        case notFound
        /// The hold invoice's own refusal (settled already, cancelled, expired…).
        case hold(HoldInvoiceError)
        /// The request's parameters: the words say which.
        case invalid(String)
        /// The backend failed; nothing changed.
        case failed(String)

        public var description: String {
            switch self {
            case .refused(let refusal): refusal.description
            case .notFound: "no invoice of this connection has this payment hash"
            case .hold(let error): error.description
            case .invalid(let words), .failed(let words): words
            }
        }
    }

    /// Makes a hold invoice for `connection` (`paymentHash` nil: the wallet keeps the
    /// preimage, and the connection settles by hash).
    public static func make(_ request: ReceiveRequest, paymentHash: String?, connection: AppConnection, session: LightningSession,
                            now: Date = Date()) async throws(Failure) -> CreatedInvoice {
        try check(connection, now: now)
        do {
            return try await session.receiveHeld(request, paymentHash: paymentHash, connection: connection.name)
        } catch {
            throw failure(error)
        }
    }

    /// Settles the held payment `reference` names, when its invoice is this connection's.
    public static func settle(_ reference: HoldReference, connection: AppConnection, session: LightningSession, now: Date = Date()) async throws(Failure) -> Payment {
        try check(connection, now: now)
        try own(reference.paymentHash, connection: connection, session: session)
        do {
            return try await session.settle(reference)
        } catch {
            throw failure(error)
        }
    }

    /// Gives back the held payment under `paymentHash`, when its invoice is this connection's.
    public static func cancel(paymentHash: String, connection: AppConnection, session: LightningSession, now: Date = Date()) async throws(Failure) -> Payment {
        try check(connection, now: now)
        let hash = paymentHash.lowercased()
        guard hash.utf8.count == 64, hash.allSatisfy(\.isHexDigit) else { throw .hold(.notAHash) }
        try own(hash, connection: connection, session: session)
        do {
            return try await session.cancel(paymentHash: hash)
        } catch {
            throw failure(error)
        }
    }

    static func check(_ connection: AppConnection, now: Date) throws(Failure) {
        switch connection.state(at: now) {
        case .live: break
        case .revoked: throw .refused(.revoked)
        case .expired: throw .refused(.expired)
        }
        guard connection.allows(.receive) else { throw .refused(.notAllowed(.receive)) }
    }

    /// Whether the invoice under `hash` was made by this connection.
    static func own(_ hash: String, connection: AppConnection, session: LightningSession) throws(Failure) {
        let filter = PaymentFilter(type: .receive, paymentHash: hash, connection: connection.name, limit: 1)
        guard let found = try? session.store.payments(walletID: connection.walletID, filter: filter) else { throw .failed("the history can't be read now") }
        guard !found.isEmpty else { throw .notFound }
    }

    static func failure(_ error: LightningError) -> Failure {
        switch error {
        case .hold(let refusal): .hold(refusal)
        default: .failed(error.description)
        }
    }
}
