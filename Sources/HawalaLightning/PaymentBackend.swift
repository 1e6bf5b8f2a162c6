import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// The payment engine behind Hawala's Lightning wallet, shaped like the Breez Spark SDK (see
/// docs/decisions/0001-lightning-payment-backend.md for the mapping). The layers above keep the
/// rules whatever the backend: pending is not final, one idempotency key never pays twice, the
/// fee is shown before confirming.
public protocol PaymentBackend: AnyObject, Sendable {
    /// The name a user sees ("devnet" for the development backend).
    var name: String { get }
    /// The network the backend's invoices are for.
    var network: LightningNetwork { get }

    /// Connects with the wallet's keys; the node key is derived from them.
    func connect(_ request: ConnectRequest) async throws
    /// Stops listening; events stop.
    func disconnect() async
    /// Brings the backend's view up to date and emits `.synced`.
    func sync() async throws
    /// The node id and balance.
    func getInfo() async throws -> NodeInfo
    /// What `input` is (BOLT11, Lightning address, LNURL, BIP21 URI, Bitcoin address).
    func parse(_ input: String) async throws -> PaymentInput
    /// Checks an invoice can be paid and computes the fee, without paying.
    func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse
    /// Pays a prepared invoice. The same `idempotencyKey` never pays twice: a repeated call
    /// returns the first payment.
    func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> Payment
    /// Fetches and checks an LNURL-pay invoice (LUD-06/12/16), then prepares paying it.
    func prepareLnurlPay(_ request: PrepareLnurlPayRequest) async throws -> PrepareLnurlPayResponse
    /// Pays a prepared LNURL-pay invoice (idempotent like `sendPayment`).
    func lnurlPay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String) async throws -> Payment
    /// Creates a BOLT11 invoice signed by this node.
    func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse
    /// Payments of this node, newest first.
    func listPayments(_ filter: PaymentFilter) async throws -> [Payment]
    /// One payment by id.
    func getPayment(id: String) async throws -> Payment?
    /// Bitcoin prices in fiat currencies.
    func listFiatRates() async throws -> [FiatRate]
    /// On-chain fee rates in sat/vB.
    func recommendedFees() async throws -> RecommendedFees
    /// Calls `listener` with every event from now on; returns an id for `removeEventListener`.
    func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String
    func removeEventListener(_ id: String)
}

/// What `connect` needs: the wallet's keys (from the words and passphrase, or a bare seed —
/// the Spark SDK takes the mnemonic) and a directory the backend may keep its own files in.
public struct ConnectRequest: Sendable {
    public let keys: HDWallet
    public let storageDirectory: URL
    public init(keys: HDWallet, storageDirectory: URL) {
        self.keys = keys
        self.storageDirectory = storageDirectory
    }
}

public struct NodeInfo: Sendable, Equatable {
    /// Hex of the node's compressed public key.
    public let nodeID: String
    public let balanceMsat: UInt64
    public var balanceSats: UInt64 { balanceMsat / 1000 }
}

public struct PrepareSendRequest: Sendable {
    /// A BOLT11 invoice (or a BIP21 URI carrying one).
    public let input: String
    /// Required for an amountless invoice; must match an invoice's own amount otherwise.
    public let amountSats: UInt64?
    public init(input: String, amountSats: UInt64? = nil) {
        self.input = input
        self.amountSats = amountSats
    }
}

/// A fee preview: what will be paid, to whom, for what. Nothing is paid yet.
public struct PrepareSendResponse: Sendable {
    public let invoiceText: String
    public let invoice: Bolt11Invoice
    public let amountMsat: UInt64
    public let feeMsat: UInt64
    public var totalMsat: UInt64 { amountMsat + feeMsat }
    public var description: String? { invoice.description }
    public var expiresAt: Date { invoice.expiresAt }
}

public struct PrepareLnurlPayRequest: Sendable {
    public let payRequest: LNURLPayRequest
    public let amountSats: UInt64
    public let comment: String?
    public init(payRequest: LNURLPayRequest, amountSats: UInt64, comment: String? = nil) {
        self.payRequest = payRequest
        self.amountSats = amountSats
        self.comment = comment
    }
}

public struct PrepareLnurlPayResponse: Sendable {
    public let payRequest: LNURLPayRequest
    public let prepared: PrepareSendResponse
    public let successAction: SuccessAction?
}

public struct ReceiveRequest: Sendable {
    /// nil: an amountless invoice (the payer chooses).
    public let amountSats: UInt64?
    public let description: String
    public let expirySeconds: UInt64
    public init(amountSats: UInt64?, description: String = "", expirySeconds: UInt64 = Bolt11Invoice.defaultExpiry) {
        self.amountSats = amountSats
        self.description = description
        self.expirySeconds = expirySeconds
    }
}

public struct ReceiveResponse: Sendable {
    public let invoice: String
    public let paymentHash: String
    /// What receiving costs (0 on devnet).
    public let feeMsat: UInt64
    public let expiresAt: Date
}

/// On-chain fee rates, sat/vB.
public struct RecommendedFees: Sendable, Equatable {
    public let fastest, halfHour, hour, economy, minimum: UInt64
}

public enum PaymentEvent: Sendable {
    case synced
    case paymentSucceeded(Payment)
    case paymentPending(Payment)
    case paymentFailed(Payment)

    public var payment: Payment? {
        switch self {
        case .synced: nil
        case .paymentSucceeded(let p), .paymentPending(let p), .paymentFailed(let p): p
        }
    }

    /// The event for a payment in its current status.
    public static func about(_ payment: Payment) -> PaymentEvent {
        switch payment.status {
        case .completed: .paymentSucceeded(payment)
        case .pending: .paymentPending(payment)
        case .failed: .paymentFailed(payment)
        }
    }
}

/// Everything the Lightning wallet layer refuses, as one line a person can act on.
public enum LightningError: Error, Equatable, Sendable, CustomStringConvertible {
    case notConnected
    case invalidBackend(String)
    case amountRequired
    case amountMismatch(invoiceSats: UInt64, givenSats: UInt64)
    case amountOutOfRange(String)
    case wrongNetwork(invoice: LightningNetwork, backend: LightningNetwork, backendName: String)
    case expired(Date)
    case insufficientBalance(haveMsat: UInt64, needMsat: UInt64)
    case ownInvoice
    case alreadyPaid
    case unknownDestination(String)
    case feeAboveMaximum(feeMsat: UInt64, maximumMsat: UInt64)
    case notPayable(String)
    case timeout(String)
    case devnetOnly(String)

    public var description: String {
        switch self {
        case .notConnected: "the payment backend is not connected"
        case .invalidBackend(let why): why
        case .amountRequired: "the invoice has no amount: an amount in sat must be given"
        case let .amountMismatch(invoice, given): "the invoice asks for \(invoice) sat, not \(given)"
        case .amountOutOfRange(let why): why
        case let .wrongNetwork(invoice, backend, name):
            "the invoice is for \(invoice.displayName), and this wallet's backend (\(name)) pays on \(backend.displayName) only"
        case .expired(let date): "the invoice expired at \(ISO8601DateFormatter().string(from: date))"
        case let .insufficientBalance(have, need): "insufficient balance: \(PaymentExport.sats(have)) sat available, \(PaymentExport.sats(need)) sat needed (amount + fee)"
        case .ownInvoice: "this invoice is this wallet's own"
        case .alreadyPaid: "the invoice has already been paid"
        case .unknownDestination(let node): "unknown destination: no route to node \(node)"
        case let .feeAboveMaximum(fee, maximum): "the fee (\(PaymentExport.sats(fee)) sat) is above the maximum (\(PaymentExport.sats(maximum)) sat)"
        case .notPayable(let why): why
        case .timeout(let why): why
        case .devnetOnly(let why): why
        }
    }
}

extension LightningNetwork {
    /// How the network is named to a user.
    public var displayName: String {
        switch self {
        case .bitcoin: "bitcoin mainnet"
        case .testnet: "testnet"
        case .regtest: "regtest"
        case .signet: "signet"
        case .simnet: "simnet"
        }
    }
}

// MARK: - Waiting on events

extension PaymentBackend {
    /// Waits until the payment with `paymentHash` completes or fails, built on the event
    /// listeners. A payment already final is returned at once.
    /// - Throws: `LightningError.timeout` after `timeout` (a pending payment may still settle).
    public func waitForPayment(paymentHash: String, timeout: Duration) async throws -> Payment {
        let (stream, continuation) = AsyncStream<Payment>.makeStream(bufferingPolicy: .unbounded)
        let id = addEventListener { event in
            if let p = event.payment, p.details.paymentHash == paymentHash, p.status != .pending { continuation.yield(p) }
        }
        defer { removeEventListener(id) }
        // Listen first, then look: a payment that settled in between is not missed.
        if let done = try await listPayments(PaymentFilter(paymentHash: paymentHash)).first(where: { $0.status != .pending }) {
            return done
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await payment in stream { return payment }
        throw LightningError.timeout("no payment for \(paymentHash.prefix(16))… within \(timeout); if one is pending it may still settle")
    }
}
