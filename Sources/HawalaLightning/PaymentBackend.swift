import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// The payment engine behind Hawala's Lightning wallet, shaped like the Breez Spark SDK (see
/// docs/decisions/0003-lightning-payment-backend.md and 0004-spark-sdk-backend.md for the mapping). The layers above keep the
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
    /// Creates a hold invoice for `paymentHash` (hex): a payment to it is held, not yet this
    /// wallet's, until `settleHeldPayment` or `cancelHeldPayment`; at the invoice's expiry it
    /// goes back to its payer (`HoldInvoices.swift`).
    func receiveHeldPayment(_ request: ReceiveRequest, paymentHash: String) async throws -> ReceiveResponse
    /// Takes the payment held under SHA-256 of `preimage`, releasing the preimage to its payer.
    func settleHeldPayment(preimage: SecretBytes) async throws -> Payment
    /// Gives the payment held under `paymentHash` back to its payer.
    func cancelHeldPayment(paymentHash: String) async throws -> Payment
    /// Payments of this node, newest first.
    func listPayments(_ filter: PaymentFilter) async throws -> [Payment]
    /// One payment by id.
    func getPayment(id: String) async throws -> Payment?
    /// Bitcoin prices in fiat currencies.
    func listFiatRates() async throws -> [FiatRate]
    /// On-chain fee rates in sat/vB.
    func recommendedFees() async throws -> RecommendedFees
    /// An address to be paid at by another method than a BOLT11 invoice (a Spark address, an
    /// on-chain deposit address), for backends that have one.
    func receiveAddress(_ method: ReceiveMethod) async throws -> String
    /// Signs `message` with the node's identity key (`MessageSignature`: SHA-256, DER).
    func signMessage(_ message: String) async throws -> SignedMessage
    /// How the backend's network reports itself now; nil when it does not say (devnet) or
    /// can't be asked.
    func networkStatus() async -> NetworkStatus?
    /// The most a deposit's claim may cost, from now on (the wallet's setting).
    func setClaimFeePolicy(_ policy: ClaimFeePolicy)
    /// A deposit address never given before.
    func newDepositAddress() async throws -> String
    /// Deposits to the wallet's addresses not claimed yet, and recent ones.
    func listDeposits() async throws -> [Deposit]
    /// Claims one deposit under `policy` (a higher cap than the wallet's, say).
    func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit
    /// Sends one unclaimed deposit to `address` (of the backend's network) at `satPerVbyte`.
    func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit
    /// The wallet's Lightning address (LUD-16), nil when it has none.
    func lightningAddress() async throws -> LightningAddressInfo?
    /// Whether `name` (checked: `LightningAddressInfo.checkName`) is free, or this wallet's.
    func isLightningAddressAvailable(_ name: String) async throws -> Bool
    /// Registers `name` as the wallet's Lightning address (replacing its earlier one).
    /// - Throws: `LightningAddressError.taken` when another wallet holds it.
    func registerLightningAddress(name: String, description: String) async throws -> LightningAddressInfo
    /// Gives the wallet's Lightning address up.
    func deleteLightningAddress() async throws
    /// Prices a withdrawal to a Bitcoin address at each speed (nothing is sent).
    func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote
    /// Sends a priced withdrawal at `speed` (at most once per key); the pending payment, with its txid.
    func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment
    /// Everything needed to leave without the operators, as of now; nil when the backend has none.
    func exportExitState() async throws -> ExitSnapshot?
    /// Gives the backend a kept exit state (from this device or a backup).
    func importExitState(_ state: SecretBytes) async throws
    /// Plans leaving with the kept state at `satPerVbyte`, sending what is recovered to `destination`.
    func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan
    /// Builds (and signs) a planned exit: its transactions in broadcast order; `funding` pays
    /// the fees the plan needs from an on-chain output of the wallet's own (`fundingSat`).
    func runExit(_ plan: ExitPlan, funding: ExitFundingSource?) async throws -> [ExitTransaction]
    /// Calls `listener` with every event from now on; returns an id for `removeEventListener`.
    func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String
    func removeEventListener(_ id: String)
}

/// How a payment is to be received.
public enum ReceiveMethod: String, Sendable, CaseIterable {
    /// A BOLT11 invoice (any Lightning wallet can pay it).
    case bolt11
    /// The wallet's Spark address (Spark wallets pay it without Lightning fees).
    case spark
    /// An on-chain Bitcoin deposit address.
    case bitcoin
}

/// The health a payment network reports of itself (the Spark SDK's status of its operators).
public enum NetworkStatus: String, Sendable, CaseIterable {
    case operational, degraded, partial, major, unknown

    /// One line for a person when something is wrong; nil when all is well or unknown.
    public func warning(network: String) -> String? {
        switch self {
        case .operational, .unknown: nil
        case .degraded: "the \(network) reports degraded service: payments may be slow"
        case .partial: "the \(network) reports a partial outage: some payments may fail; what you hold is safe"
        case .major: "the \(network) reports a major outage: payments may fail until it recovers; what you hold is safe"
        }
    }
}

extension PaymentBackend {
    public func setClaimFeePolicy(_ policy: ClaimFeePolicy) {}
    public func newDepositAddress() async throws -> String { try await receiveAddress(.bitcoin) }
    public func listDeposits() async throws -> [Deposit] {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }
    public func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }
    public func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }

    public func lightningAddress() async throws -> LightningAddressInfo? {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func isLightningAddressAvailable(_ name: String) async throws -> Bool {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func registerLightningAddress(name: String, description: String) async throws -> LightningAddressInfo {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func deleteLightningAddress() async throws {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }

    /// Backends that do not report their network's health.
    public func networkStatus() async -> NetworkStatus? { nil }
    public func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote {
        throw LightningError.unsupported(backend: name, .onChainAddress)
    }
    public func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment {
        throw LightningError.unsupported(backend: name, .onChainAddress)
    }
    public func exportExitState() async throws -> ExitSnapshot? { nil }
    public func importExitState(_ state: SecretBytes) async throws {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }
    public func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }
    public func runExit(_ plan: ExitPlan, funding: ExitFundingSource?) async throws -> [ExitTransaction] {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }

    /// Backends without an identity key to sign with say so.
    public func signMessage(_ message: String) async throws -> SignedMessage {
        throw LightningError.unsupported(backend: name, .otherCall("signMessage"))
    }

    /// Backends without other receive methods say so.
    public func receiveAddress(_ method: ReceiveMethod) async throws -> String {
        throw LightningError.unsupported(backend: name, .receiveMethod(method))
    }
}

// MARK: - Waiting on events

extension PaymentBackend {
    /// Waits until the payment with `paymentHash` completes, fails or is held (a hold
    /// invoice's), built on the event
    /// listeners. A payment already final is returned at once.
    /// - Throws: `LightningError.timeout` after `timeout` (a pending payment may still settle).
    /// With `paymentID`, only that payment counts (not an earlier attempt under the same hash).
    public func waitForPayment(paymentHash: String, paymentID: String? = nil, timeout: Duration) async throws -> Payment {
        let (stream, continuation) = AsyncStream<Payment>.makeStream(bufferingPolicy: .unbounded)
        let wanted: @Sendable (Payment) -> Bool = { p in
            p.details.paymentHash == paymentHash && (paymentID == nil || p.id == paymentID) && (p.status != .pending || p.isHeld)
        }
        let id = addEventListener { event in
            if let p = event.payment, wanted(p) { continuation.yield(p) }
        }
        defer { removeEventListener(id) }
        // Listen first, then look: a payment that settled in between is not missed.
        if let done = try await listPayments(PaymentFilter(paymentHash: paymentHash)).first(where: wanted) {
            return done
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await payment in stream { return payment }
        throw LightningError.timeout(waitingFor: .payment(hash: paymentHash), after: timeout)
    }
}
