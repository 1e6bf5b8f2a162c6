import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import Synchronization

/// The development backend, "devnet": Lightning payments between Hawala wallets on this machine,
/// settled through one shared SQLite file (`DevnetLedger`). It is not the Lightning network —
/// invoices are for regtest (`lnbcrt…`) and no money moves anywhere else — but everything a
/// wallet does with a real backend happens for real: each wallet signs its invoices with its own
/// node key, payments pay fees, invoices expire, and insufficient balance, an expired invoice or
/// an unknown destination fail.
///
/// The node key is derived from the wallet's seed at `nodeKeyPath` (LND's node-key family 6,
/// coin type 1 for a test network), so a wallet restored from its words is the same node.
public final class DevnetBackend: PaymentBackend, Sendable {
    public static let name = "devnet"
    public static let nodeKeyPath = "m/1017'/1'/6'/0/0"
    /// How often other processes' payments are looked for while a listener is registered.
    static let pollInterval: Duration = .milliseconds(200)

    public var name: String { DevnetBackend.name }
    public let network: LightningNetwork = .regtest
    public var ledgerPath: String { ledger.path }

    let ledger: DevnetLedger
    private let rates: FiatRatesProvider?
    private let lnurl: LNURLPayFlow?
    let clock: @Sendable () -> Date

    /// What changes as the backend is used: the node (its key once connected), the event
    /// listeners and the poller that feeds them.
    private struct State {
        var nodeKey: SecretBytes?
        var nodeID: String?
        var listeners: [String: @Sendable (PaymentEvent) -> Void] = [:]
        var poller: Task<Void, Never>?
    }
    private let state = Mutex(State())
    private let policy = Mutex(ClaimFeePolicy.default)
    /// The exit state given by `importExitState` (what `prepareExit` plans).
    let importedExit = Mutex<DevnetExitState?>(nil)
    /// The wallet's cap on a deposit's claim fee.
    var claimPolicy: ClaimFeePolicy { policy.withLock { $0 } }
    public func setClaimFeePolicy(_ policy: ClaimFeePolicy) { self.policy.withLock { $0 = policy } }

    /// Opens (creating if needed) the devnet ledger at `ledgerPath`.
    public init(ledgerPath: String, rates: FiatRatesProvider? = nil, lnurl: LNURLPayFlow? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        ledger = try DevnetLedger(path: ledgerPath)
        self.rates = rates
        self.lnurl = lnurl
        self.clock = clock
    }

    deinit { state.withLock { $0.poller?.cancel() } }

    /// The node key of a wallet.
    public static func nodeKey(_ keys: HDWallet) throws -> SecretBytes {
        try keys.privateKey(at: DerivationPath(nodeKeyPath))
    }

    /// The node id (hex compressed public key) of a wallet.
    public static func nodeID(_ keys: HDWallet) throws -> String {
        hexString(try Secp256k1.PublicKey(privateKey: nodeKey(keys)).compressed)
    }

    // MARK: Connection

    public func connect(_ request: ConnectRequest) async throws {
        let key = try DevnetBackend.nodeKey(request.keys)
        let id = hexString(try Secp256k1.PublicKey(privateKey: key).compressed)
        try ledger.register(node: id, now: clock())
        state.withLock {
            $0.nodeKey = key
            $0.nodeID = id
        }
    }

    /// Watches a node without its key: balance, payments and events work; paying and invoicing
    /// need `connect`.
    /// Signs with the devnet node key (needs a connection with the wallet's keys).
    public func signMessage(_ message: String) async throws -> SignedMessage {
        try MessageSignature.check(message)
        guard let key = state.withLock({ $0.nodeKey }) else { throw LightningError.notConnected }
        return try MessageSignature.sign(message, privateKey: key)
    }

    public func attach(nodeID id: String) {
        state.withLock { $0.nodeID = id }
    }

    public func disconnect() async {
        let task = state.withLock { state in
            defer {
                state.poller = nil
                state.listeners = [:]
                state.nodeKey = nil
            }
            return state.poller
        }
        task?.cancel()
    }

    /// Registers the node, and claims its confirmed deposits under the wallet's cap.
    public func sync() async throws {
        let id = try node()
        try ledger.register(node: id, now: clock())
        try ledger.releaseExpiredHolds(now: clock())
        try claimConfirmedDeposits()
        emit(.synced)
    }

    /// A deposit address (regtest bech32): the same one until something is sent to it.
    public func receiveAddress(_ method: ReceiveMethod) async throws -> String {
        guard method == .bitcoin else { throw LightningError.unsupported(backend: name, .receiveMethod(method)) }
        return try ledger.depositAddress(node: try signingNode(), fresh: false, now: clock())
    }

    public func getInfo() async throws -> NodeInfo {
        let id = try node()
        try ledger.releaseExpiredHolds(now: clock())
        return NodeInfo(nodeID: id, balanceMsat: try ledger.balanceMsat(node: id))
    }

    // MARK: Sending

    public func parse(_ input: String) async throws -> PaymentInput {
        try PaymentInput.parse(input)
    }

    public func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse {
        try prepare(try request.invoice(backendName: name), amountSats: request.amountSats)
    }

    func prepare(_ invoice: Bolt11Invoice, amountSats: Sats?) throws -> PrepareSendResponse {
        let me = try node()
        let amountMsat = try PrepareSendRequest.amountMsat(paying: invoice, amountSats: amountSats, network: network, backendName: name, now: clock())
        let payee = hexString(invoice.payee)
        guard payee != me else { throw LightningError.ownInvoice }
        // What route finding would learn on a real network: is the payee reachable, is it paid.
        let state = try ledger.invoiceState(paymentHash: hexString(invoice.paymentHash), payee: payee)
        guard state.known else { throw LightningError.unknownDestination(String(payee.prefix(16)) + "…") }
        guard state.credits != me else { throw LightningError.ownInvoice }
        guard !state.paid else { throw LightningError.alreadyPaid }
        let fee = try DevnetLedger.fee(amountMsat: amountMsat)
        let balance = try ledger.balanceMsat(node: me)
        let total = try amountMsat + fee
        guard balance >= total else { throw LightningError.insufficientBalance(haveMsat: balance, needMsat: total) }
        return PrepareSendResponse(invoiceText: invoice.text, invoice: invoice, amountMsat: amountMsat, feeMsat: fee)
    }

    /// Pays; a failure the network reports (expired meanwhile, balance spent meanwhile…) is a
    /// failed payment in the history, returned, not thrown.
    public func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> Payment {
        let me = try signingNode()
        return try ledger.pay(payer: me, invoice: prepared.invoice, text: prepared.invoiceText, amountMsat: prepared.amountMsat,
                              feeMsat: prepared.feeMsat, idempotencyKey: idempotencyKey, now: clock())
    }

    public func prepareLnurlPay(_ request: PrepareLnurlPayRequest) async throws -> PrepareLnurlPayResponse {
        guard let lnurl else { throw LightningError.unsupported(backend: name, .lnurlWithoutClient) }
        let (invoice, action) = try await lnurl.invoice(for: request.payRequest, amountMsat: request.amountSats.msat, comment: request.comment, network: network)
        return PrepareLnurlPayResponse(payRequest: request.payRequest, prepared: try prepare(invoice, amountSats: request.amountSats), successAction: action,
                                       comment: request.comment)
    }

    public func lnurlPay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String) async throws -> Payment {
        try await sendPayment(prepared.prepared, idempotencyKey: idempotencyKey)
    }

    // MARK: Receiving

    public func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse {
        var preimage = SystemRandom.bytes(32)
        defer { SecretBytes.wipe(&preimage) }
        return try makeInvoice(request, paymentHash: Hash.sha256(preimage), preimage: preimage)
    }

    /// An invoice for `paymentHash` signed by this node, registered with the ledger (`preimage`
    /// nil: a hold invoice).
    func makeInvoice(_ request: ReceiveRequest, paymentHash: [UInt8], preimage: [UInt8]?) throws -> ReceiveResponse {
        guard let key = state.withLock({ $0.nodeKey }) else { throw LightningError.notConnected }
        let amountMsat = try PaymentLimits.check(request)
        let fields = Bolt11Invoice.fields(paymentHash: paymentHash, paymentSecret: SystemRandom.bytes(32), description: request.description,
                                          expiry: request.expirySeconds, features: [8, 14])
        let text = try Bolt11Invoice.encode(network: network, amountMsat: amountMsat, timestamp: UInt64(clock().timeIntervalSince1970),
                                            fields: fields, privateKey: key)
        let invoice = try Bolt11Invoice(text)
        try ledger.addInvoice(invoice, text: text, preimage: preimage)
        return ReceiveResponse(invoice: text, paymentHash: hexString(paymentHash), feeMsat: 0, expiresAt: invoice.expiresAt)
    }

    /// Test funds (devnet only): credits this node and records a received payment.
    public func fund(sats: Sats) async throws -> Payment {
        return try ledger.fund(node: try signingNode(), amountMsat: sats.msat, now: clock())
    }

    // MARK: History, rates, fees

    public func listPayments(_ filter: PaymentFilter) async throws -> [Payment] {
        try ledger.releaseExpiredHolds(now: clock())
        return try ledger.payments(of: try node(), filter: filter)
    }

    public func getPayment(id: String) async throws -> Payment? {
        try ledger.payment(id: id, as: try node())
    }

    /// The rates source given, else devnet's test table (`testRates`, with the prices set on
    /// this ledger by `setTestRate` over it; a price of 0 takes a currency out).
    public func listFiatRates() async throws -> [FiatRate] {
        if let rates { return try await rates.rates() }
        let set = try ledger.testRates()
        var table = Self.testRates.map { FiatRate(currency: $0.currency, btcPrice: set[$0.currency] ?? $0.btcPrice) }
        table += set.filter { code, _ in !Self.testRates.contains { $0.currency == code } }.map { FiatRate(currency: $0.key, btcPrice: $0.value) }
        return table.filter { $0.btcPrice > 0 }
    }

    /// Devnet's rate table on the ledger at `ledgerPath`, after setting `currency`'s price to
    /// `btcPrice` when given (0: no price for it).
    public static func rates(ledgerPath: String, set: (currency: String, btcPrice: Decimal)? = nil) async throws -> [FiatRate] {
        let backend = try DevnetBackend(ledgerPath: ledgerPath)
        if let set { try backend.setTestRate(set.currency, btcPrice: set.btcPrice) }
        return try await backend.listFiatRates()
    }

    /// Moves devnet's test price of `currency` for every wallet on this ledger (0: no price).
    public func setTestRate(_ currency: String, btcPrice: Decimal) throws {
        try ledger.setTestRate(currency, btcPrice: btcPrice)
    }

    /// Devnet's rates when none are configured: test money at round test prices (1 BTC =
    /// 100,000 USD…), so fiat values can be tried without a rates service. Never real prices.
    public static let testRates: [FiatRate] = [
        ("USD", 100_000), ("EUR", 95_000), ("GBP", 80_000), ("CHF", 90_000), ("JPY", 15_000_000), ("CAD", 140_000), ("AUD", 155_000),
        ("BRL", 550_000), ("INR", 8_500_000), ("KWD", 31_000),
    ].map { FiatRate(currency: $0.0, btcPrice: Decimal($0.1)) }

    /// Devnet's fee table (`hawala ln devnet fees` sets it).
    public func recommendedFees() async throws -> RecommendedFees {
        try ledger.fees()
    }

    // MARK: Events

    public func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String {
        let id = UUID().uuidString
        let needsPoller = state.withLock { state in
            state.listeners[id] = listener
            return state.poller == nil
        }
        if needsPoller { startPolling() }
        return id
    }

    public func removeEventListener(_ id: String) {
        let task: Task<Void, Never>? = state.withLock { state in
            state.listeners[id] = nil
            guard state.listeners.isEmpty else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        task?.cancel()
    }

    /// Looks for new ledger rows of this node (from any process) and reports them.
    private func startPolling() {
        guard let id = state.withLock({ $0.nodeID }), let first = try? ledger.lastSequence() else { return }
        let ledger = self.ledger
        let clock = self.clock
        // Read now, not when the task first runs: a deposit made meanwhile is still news.
        let known = DepositWatch(try? ledger.deposits(of: id))
        let task = Task { [weak self] in
            var seen = first
            var deposits = known
            while !Task.isCancelled {
                try? await Task.sleep(for: DevnetBackend.pollInterval)
                try? ledger.releaseExpiredHolds(now: clock())
                guard let (payments, last) = try? ledger.changes(of: id, after: seen) else { continue }
                seen = last
                for payment in payments { self?.emit(.about(payment)) }
                let now = try? ledger.deposits(of: id)
                for event in deposits.events(now) { self?.emit(event) }
                // Confirmed while watched: claimed at once, as the SDK does in the background.
                if now?.contains(where: { $0.state == .claimable }) == true { try? self?.claimConfirmedDeposits() }
                // A payment renews the node's leaf: what an exit needs changed.
                if !payments.isEmpty { self?.emit(.exitStateChanged) }
            }
        }
        state.withLock { state in
            if state.poller == nil { state.poller = task } else { task.cancel() }
        }
    }

    private func emit(_ event: PaymentEvent) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener(event) }
    }

    // MARK: Helpers

    /// Deposit events from one look at the deposits to the next: new ones, claimed, not claimed.
    struct DepositWatch {
        private var states: [String: Deposit.State]
        init(_ deposits: [Deposit]?) {
            states = Dictionary((deposits ?? []).map { ($0.outpoint, $0.state) }, uniquingKeysWith: { a, _ in a })
        }

        mutating func events(_ deposits: [Deposit]?) -> [PaymentEvent] {
            guard let deposits else { return [] }
            var new: [Deposit] = [], claimed: [Deposit] = [], unclaimed: [Deposit] = []
            for deposit in deposits where states[deposit.outpoint] != deposit.state {
                let before = states[deposit.outpoint]
                states[deposit.outpoint] = deposit.state
                switch deposit.state {
                case .claimed: claimed.append(deposit)
                case .notClaimed: unclaimed.append(deposit)
                case .waiting where before == nil, .claimable where before == nil: new.append(deposit)
                default: break
                }
            }
            return (new.isEmpty ? [] : [.newDeposits(new)]) + (claimed.isEmpty ? [] : [.claimedDeposits(claimed)])
                + (unclaimed.isEmpty ? [] : [.unclaimedDeposits(unclaimed)])
        }
    }

    func node() throws -> String {
        guard let id = state.withLock({ $0.nodeID }) else { throw LightningError.notConnected }
        return id
    }

    func signingNode() throws -> String {
        guard let id = state.withLock({ $0.nodeKey == nil ? nil : $0.nodeID }) else { throw LightningError.notConnected }
        return id
    }
}
