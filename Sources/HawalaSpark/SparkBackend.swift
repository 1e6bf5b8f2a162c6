import BreezSdkSpark
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import Synchronization

/// Lightning through the Breez Spark SDK (docs/decisions/0004). Every call that needs Spark's
/// network answers within `timeout`; Hawala's own checks (network, expiry, amounts, LNURL
/// description hash) run before the SDK's. One connection per process.
public final class SparkBackend: PaymentBackend, Sendable {
    public static let name = "spark"
    public var name: String { SparkBackend.name }
    public let network: LightningNetwork
    public let sparkNetwork: BackendSpec.SparkNetwork

    private let apiKey: HawalaCrypto.SecretBytes?
    private let timeout: Duration
    private let disconnectTimeout: Duration
    private let lnurl: LNURLPayFlow?
    private let logFilter: String
    private let clock: @Sendable () -> Date

    /// The connected SDK and what hangs on it.
    struct State {
        var sdk: BreezSdk?
        var sdkListenerID: String?
        var listeners: [String: @Sendable (PaymentEvent) -> Void] = [:]
        /// The SDK's own preparation of each prepared invoice, to send exactly what was previewed.
        var prepared: [String: PrepareSendPaymentResponse] = [:]
        /// When the SDK last said it synced with the network (its `synced` event).
        var syncedAt: ContinuousClock.Instant?
    }
    let state = Mutex(State())
    private let claimPolicy = Mutex(ClaimFeePolicy.default)

    /// A `synced` event this recent counts as the network having answered.
    static let syncedRecently: Duration = .seconds(300)

    /// Only one SDK instance per process: it owns its storage directory and background tasks.
    private struct ProcessState {
        var connectedInstance: ObjectIdentifier?
        /// The last instance's shutdown, which the next connect waits for.
        var closing: Task<Void, Never>?
        var loggingStarted = false
    }
    private static let process = Mutex(ProcessState())

    /// - Parameters:
    ///   - apiKey: the Breez API key; mainnet needs one, regtest does not.
    ///   - timeout: the longest any call waits for Spark's network.
    ///   - disconnectTimeout: how long `disconnect` waits for the SDK to stop. Offline, its
    ///     background tasks take up to 5 s to notice; its storage is transactional, so what is
    ///     left to finish in the background loses nothing.
    ///   - logFilter: the SDK's log level (trace, debug, info, warn, error).
    public init(network: BackendSpec.SparkNetwork, apiKey: HawalaCrypto.SecretBytes?, timeout: Duration = .seconds(30),
                disconnectTimeout: Duration = .seconds(2), lnurl: LNURLPayFlow? = nil, logFilter: String = "info",
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        try SparkLibrary.check()
        sparkNetwork = network
        self.network = network.lightningNetwork
        self.apiKey = apiKey
        self.timeout = timeout
        self.disconnectTimeout = disconnectTimeout
        self.lnurl = lnurl
        self.logFilter = logFilter
        self.clock = clock
    }

    /// Where a wallet's Spark state lives: `<home>/spark/<wallet-id>`, created 0700. The SDK
    /// keeps each network's state in its own `<network>/` folder inside (Hawala creates it 0700
    /// first), and its logs go to `<network>/logs`.
    public static func storageDirectory(home: URL, walletID: String, network: BackendSpec.SparkNetwork) throws -> URL {
        let wallet = WalletHome(directory: home).walletFolder("spark", walletID: walletID)
        let spark = wallet.deletingLastPathComponent()
        for dir in [spark, wallet, wallet.appendingPathComponent(network.rawValue)] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir.path)
        }
        return wallet
    }

    // MARK: Connection

    /// Connects with the wallet's BIP32 seed, which the SDK takes as its `entropy` input: the
    /// same keys as the words and passphrase (tested), for SLIP-39 wallets too, and no string
    /// holding the words is ever made. `request.storageDirectory` is the wallet's own directory
    /// (`storageDirectory(home:walletID:network:)`).
    public func connect(_ request: HawalaLightning.ConnectRequest) async throws {
        if sparkNetwork == .mainnet && apiKey == nil { throw LightningError.apiKeyRequired(backend: "Spark mainnet") }
        if let closing = SparkBackend.process.withLock({ $0.closing }) {
            do {
                try await bounded(.seconds(15), network: SparkErrors.network) { await closing.value }
            } catch {
                throw LightningError.backendUnavailable("the previous Spark connection in this process is still closing")
            }
        }
        let me = ObjectIdentifier(self)
        try SparkBackend.process.withLock { process in
            if let other = process.connectedInstance, other != me {
                throw LightningError.backendUnavailable("another Spark connection is open in this process")
            }
            process.connectedInstance = me
        }
        do {
            try await open(request)
        } catch {
            SparkBackend.process.withLock { if $0.connectedInstance == me { $0.connectedInstance = nil } }
            throw error
        }
    }

    private func open(_ request: HawalaLightning.ConnectRequest) async throws {
        if state.withLock({ $0.sdk }) != nil { return }
        let directory = request.storageDirectory
        startLogging(in: directory.appendingPathComponent(sparkNetwork.rawValue).appendingPathComponent("logs"))
        var config = defaultConfig(network: sparkNetwork == .mainnet ? .mainnet : .regtest)
        config.apiKey = apiKey.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        config.maxDepositClaimFee = SparkBackend.maxFee(claimPolicy.withLock { $0 })
        var seed = request.seed.withUnsafeBytes { Data($0) }
        defer { seed.resetBytes(in: 0..<seed.count) }
        let connectRequest = BreezSdkSpark.ConnectRequest(config: config, seed: .entropy(seed), storageDir: directory.path)
        let sdk = try await bounded(timeout, network: SparkErrors.network) { try await BreezSdkSpark.connect(request: connectRequest) }
        let forwarder = Forwarder(self)
        let id: String
        do {
            id = try await bounded(timeout, network: SparkErrors.network) { await sdk.addEventListener(listener: forwarder) }
        } catch {
            SparkBackend.stop(sdk, listenerID: nil)
            throw error
        }
        state.withLock {
            $0.sdk = sdk
            $0.sdkListenerID = id
        }
    }

    /// The SDK logs to files in `directory` (once per process: its logger is global). What it
    /// writes never contains the seed (tested).
    private func startLogging(in directory: URL) {
        let logFilter = self.logFilter
        SparkBackend.process.withLock { process in
            guard !process.loggingStarted else { return }
            process.loggingStarted = true
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? initLogging(logDir: directory.path, appLogger: nil, logFilter: logFilter)
        }
    }

    /// Stops the SDK, waiting at most `disconnectTimeout`; the next connect in this process
    /// waits until it has stopped.
    public func disconnect() async {
        let (sdk, listenerID): (BreezSdk?, String?) = state.withLock { state in
            defer { state.sdk = nil; state.sdkListenerID = nil; state.prepared = [:]; state.syncedAt = nil }
            return (state.sdk, state.sdkListenerID)
        }
        let me = ObjectIdentifier(self)
        guard let sdk else {
            SparkBackend.process.withLock { if $0.connectedInstance == me { $0.connectedInstance = nil } }
            return
        }
        let stopping = SparkBackend.stop(sdk, listenerID: listenerID)
        SparkBackend.process.withLock { if $0.connectedInstance == me { $0.connectedInstance = nil } }
        _ = try? await bounded(disconnectTimeout, network: SparkErrors.network) { await stopping.value }
    }

    /// Stops `sdk` on the SDK's threads; the next connect in this process waits for it.
    @discardableResult
    private static func stop(_ sdk: BreezSdk, listenerID: String?) -> Task<Void, Never> {
        let stopping = Task(executorPreference: SparkExecutor.shared) {
            if let listenerID { _ = await sdk.removeEventListener(id: listenerID) }
            try? await sdk.disconnect()
        }
        process.withLock { $0.closing = stopping }
        return stopping
    }

    private func connected() throws -> BreezSdk {
        guard let sdk = state.withLock({ $0.sdk }) else { throw LightningError.notConnected }
        return sdk
    }

    /// A call to the connected SDK, answered within the timeout.
    func call<T: Sendable>(_ body: @escaping @Sendable (BreezSdk) async throws -> T) async throws -> T {
        let sdk = try connected()
        return try await bounded(timeout, network: SparkErrors.network) { try await body(sdk) }
    }

    /// Syncs, then waits for the SDK's first full sync of this connection: offline, `syncWallet`
    /// alone succeeds on what is stored here (a wallet never synced would read 0 sat), so only a
    /// sync the network answered counts.
    /// Signs through the SDK (its identity key; SHA-256, DER), after Hawala's own checks.
    public func signMessage(_ message: String) async throws -> SignedMessage {
        try MessageSignature.check(message)
        let signed = try await call { try await $0.signMessage(request: SignMessageRequest(message: message, compact: false)) }
        return SignedMessage(message: message, publicKey: signed.pubkey, signature: signed.signature)
    }

    // MARK: Deposits (on-chain bitcoin in)

    public func setClaimFeePolicy(_ policy: ClaimFeePolicy) { claimPolicy.withLock { $0 = policy } }

    /// The SDK's claim cap for a Hawala policy.
    static func maxFee(_ policy: ClaimFeePolicy) -> MaxFee {
        switch policy {
        case .network(let leeway): MaxFee(onchain: .networkRecommended(leewaySatPerVbyte: leeway))
        case .rate(let rate): MaxFee(onchain: .rate(satPerVbyte: rate))
        case .fixed(let sats): MaxFee(onchain: .fixed(amount: sats.value))
        }
    }

    public func newDepositAddress() async throws -> String {
        try await call { try await $0.receivePayment(request: ReceivePaymentRequest(paymentMethod: .bitcoinAddress(newAddress: true))) }.paymentRequest
    }

    /// The SDK's unclaimed deposits (claimed ones are received payments in the history).
    public func listDeposits() async throws -> [Deposit] {
        try await call { try await $0.listUnclaimedDeposits(request: ListUnclaimedDepositsRequest()) }.deposits.map(SparkBackend.deposit)
    }

    public func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit {
        let request = ClaimDepositRequest(txid: txid, vout: vout, maxFee: SparkBackend.maxFee(policy))
        let before = try await listDeposits().first { $0.txid == txid && $0.vout == vout }
        let outcome = try await call { try await $0.claimDeposit(request: request) }.outcome
        if let left = try await listDeposits().first(where: { $0.txid == txid && $0.vout == vout }), left.state != .claimable { return left }
        let amount = before?.amountSat ?? .zero
        if case .settled(let payment) = outcome {
            let received = Sats(clamping: UInt64(payment.amount) ?? 0)
            return Deposit(txid: txid, vout: vout, amountSat: amount, state: .claimed(feeSat: amount.minusOrZero(received)))
        }
        return Deposit(txid: txid, vout: vout, amountSat: amount, state: .notClaimed(.other("the claim was submitted; it settles shortly")))
    }

    public func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit {
        try network.checkBitcoinAddress(address, backend: name)
        let request = RefundDepositRequest(txid: txid, vout: vout, destinationAddress: address, fee: .rate(satPerVbyte: satPerVbyte))
        let response = try await call { try await $0.refundDeposit(request: request) }
        let known = try? await listDeposits().first { $0.txid == txid && $0.vout == vout }
        return Deposit(txid: txid, vout: vout, amountSat: known?.amountSat ?? .zero, state: .refunded(txid: response.txId))
    }

    static func deposit(_ info: DepositInfo) -> Deposit {
        let state: Deposit.State
        if let refund = info.refundTxId {
            state = .refunded(txid: refund)
        } else if let error = info.claimError {
            switch error {
            case let .maxDepositClaimFeeExceeded(_, _, maxFeeSats, requiredFeeSats): state = .notClaimed(.feeAboveCap(requiredSat: Sats(clamping: requiredFeeSats), capSat: maxFeeSats.map { Sats(clamping: $0) }))
            case .depositTooSmall: state = .notClaimed(.belowDust)
            case .missingUtxo: state = .notClaimed(.other("the output is not on the chain (yet)"))
            case .generic(let message): state = .notClaimed(.other(message))
            }
        } else {
            state = info.isMature ? .claimable : .waiting(confirmations: 0, needed: 3)
        }
        return Deposit(txid: info.txid, vout: info.vout, amountSat: Sats(clamping: info.amountSats), state: state)
    }

    // MARK: Lightning address (Breez's LNURL server and domain)

    public func lightningAddress() async throws -> HawalaLightning.LightningAddressInfo? {
        guard let info = try await call({ try await $0.getLightningAddress() }) else { return nil }
        return try SparkBackend.address(info)
    }

    public func isLightningAddressAvailable(_ name: String) async throws -> Bool {
        let name = try HawalaLightning.LightningAddressInfo.checkName(name)
        return try await call { try await $0.checkLightningAddressAvailable(req: CheckLightningAddressRequest(username: name)) }
    }

    public func registerLightningAddress(name: String, description: String) async throws -> HawalaLightning.LightningAddressInfo {
        let name = try HawalaLightning.LightningAddressInfo.checkName(name)
        let request = RegisterLightningAddressRequest(username: name, description: description.isEmpty ? nil : description)
        return try SparkBackend.address(try await call { try await $0.registerLightningAddress(request: request) })
    }

    public func deleteLightningAddress() async throws {
        try await call { try await $0.deleteLightningAddress() }
    }

    static func address(_ info: BreezSdkSpark.LightningAddressInfo) throws -> HawalaLightning.LightningAddressInfo {
        let parts = info.lightningAddress.split(separator: "@")
        guard parts.count == 2, let url = URL(string: info.lnurl.url) else {
            throw LightningError.refused(by: "Spark", reason: "its Lightning address is malformed")
        }
        return HawalaLightning.LightningAddressInfo(name: String(parts[0]), domain: String(parts[1]), description: info.description, url: url)
    }

    /// The SDK's status of Spark's operators and service provider, asked within 5 s (nil when
    /// it can't be reached: then the network's own errors speak).
    public func networkStatus() async -> NetworkStatus? {
        let status = try? await bounded(.seconds(5), network: SparkErrors.network) { try await getSparkStatus(request: GetSparkStatusRequest()) }
        switch status?.status {
        case .operational?: return .operational
        case .degraded?: return .degraded
        case .partial?: return .partial
        case .major?: return .major
        case .unknown?: return .unknown
        case nil: return nil
        }
    }

    public func sync() async throws {
        do {
            _ = try await call { try await $0.syncWallet(request: SyncWalletRequest()) }
            _ = try await call { try await $0.getInfo(request: GetInfoRequest(ensureSynced: true)) }
        } catch {
            throw SparkErrors.readingState(error)
        }
        // Offline, both calls above succeed on what is stored here; only the SDK's `synced`
        // event says the network answered: one since this sync began, or within the last few
        // minutes (the SDK syncs in the background; a long-lived connection reads its result).
        let began = ContinuousClock.now
        try await bounded(timeout, network: SparkErrors.network) { [self] in
            while true {
                if let at = self.state.withLock({ $0.syncedAt }), at >= began || ContinuousClock.now - at < SparkBackend.syncedRecently { return }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// The node's identity and balance as last synced (no network needed).
    public func getInfo() async throws -> NodeInfo {
        let info: GetInfoResponse
        do { info = try await call { try await $0.getInfo(request: GetInfoRequest(ensureSynced: false)) } } catch { throw SparkErrors.readingState(error) }
        return NodeInfo(nodeID: info.identityPubkey, balanceMsat: Sats(clamping: info.balanceSats).msat)
    }

    // MARK: Sending

    public func parse(_ input: String) async throws -> PaymentInput {
        try PaymentInput.parse(input)
    }

    public func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse {
        try await prepare(try request.invoice(backendName: name), amountSats: request.amountSats)
    }

    private func prepare(_ invoice: HawalaLightning.Bolt11Invoice, amountSats: Sats?) async throws -> PrepareSendResponse {
        let amountMsat = try PrepareSendRequest.amountMsat(paying: invoice, amountSats: amountSats, network: network, backendName: name, now: clock())
        let request = PrepareSendPaymentRequest(paymentRequest: .input(input: invoice.text),
                                                amount: invoice.amountMsat == nil ? String(amountMsat.sats(.down).value) : nil)
        let response = try await call { try await $0.prepareSendPayment(request: request) }
        let prepared = try Self.prepared(response, invoice: invoice, amountMsat: amountMsat)
        state.withLock { $0.prepared[invoice.text] = response }
        return prepared
    }

    /// What the SDK prepared, as the person confirms it: a Lightning payment in sats of exactly
    /// the amount asked, and its fee (the figure shown before anything is signed, and what a
    /// connection's budget reserves) — anything else is refused, never shown rounded.
    static func prepared(_ response: PrepareSendPaymentResponse, invoice: HawalaLightning.Bolt11Invoice, amountMsat: Msat) throws(LightningError) -> PrepareSendResponse {
        guard case let .bolt11Invoice(_, _, lightningFeeSats) = response.paymentMethod, response.tokenIdentifier == nil else {
            throw .refused(by: "Spark", reason: "it prepared something other than a Lightning payment in bitcoin for this invoice")
        }
        guard let amount = UInt64(response.amount), amount == amountMsat.sats(.up).value else {
            throw .refused(by: "Spark", reason: "it prepared \(response.amount.prefix(40)) sat for a payment of \(amountMsat.sats(.up)) sat; nothing was sent")
        }
        guard let fee = try? Sats(lightningFeeSats) else { throw .refused(by: "Spark", reason: "it asked a fee above the supply of bitcoin; nothing was sent") }
        return PrepareSendResponse(invoiceText: invoice.text, invoice: invoice, amountMsat: amountMsat, feeMsat: fee.msat)
    }

    /// Pays what `prepare` previewed. The idempotency key goes to the SDK as a UUID derived from
    /// it (the SDK takes UUIDs), so a repeated key is refused there too.
    public func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> HawalaLightning.Payment {
        guard let response = state.withLock({ $0.prepared[prepared.invoiceText] }) else {
            throw LightningError.unsupported(backend: name, .preparedElsewhere)
        }
        let request = SendPaymentRequest(prepareResponse: response, options: nil, idempotencyKey: SparkBackend.uuid(idempotencyKey))
        let sent = try await call { try await $0.sendPayment(request: request) }
        var payment = HawalaLightning.Payment(spark: sent.payment, backend: name)
        payment.idempotencyKey = idempotencyKey
        return payment
    }

    /// A version-4-shaped UUID from SHA-256 of `key`: the same key, the same UUID.
    static func uuid(_ key: String) -> String {
        var b = Array(Hash.sha256(Array(key.utf8)).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString.lowercased()
    }

    /// Hawala fetches the LNURL invoice itself (checking its description hash and amount, which
    /// the SDK's own LNURL-pay skips), then pays it as any invoice.
    public func prepareLnurlPay(_ request: HawalaLightning.PrepareLnurlPayRequest) async throws -> HawalaLightning.PrepareLnurlPayResponse {
        guard let lnurl else { throw LightningError.unsupported(backend: name, .lnurlWithoutClient) }
        let (invoice, action) = try await lnurl.invoice(for: request.payRequest, amountMsat: request.amountSats.msat, comment: request.comment, network: network)
        return HawalaLightning.PrepareLnurlPayResponse(payRequest: request.payRequest, prepared: try await prepare(invoice, amountSats: request.amountSats),
                                       successAction: action, comment: request.comment)
    }

    public func lnurlPay(_ prepared: HawalaLightning.PrepareLnurlPayResponse, idempotencyKey: String) async throws -> HawalaLightning.Payment {
        try await sendPayment(prepared.prepared, idempotencyKey: idempotencyKey)
    }

    // MARK: Receiving

    public func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse {
        try await receive(request, paymentHash: nil)
    }

    /// A HODL invoice (the SDK's `paymentHash`): the payer's HTLC waits for `claimHtlcPayment`.
    public func receiveHeldPayment(_ request: ReceiveRequest, paymentHash: String) async throws -> ReceiveResponse {
        try await receive(request, paymentHash: paymentHash)
    }

    /// Releases the preimage to claim a held payment.
    public func settleHeldPayment(preimage: HawalaCrypto.SecretBytes) async throws -> HawalaLightning.Payment {
        let hex = preimage.withUnsafeBytes { hexString($0) }
        let response = try await call { try await $0.claimHtlcPayment(request: ClaimHtlcPaymentRequest(preimage: hex)) }
        return HawalaLightning.Payment(spark: response.payment, backend: name)
    }

    /// The SDK has no call to fail a held HTLC early: it returns to its payer at its expiry.
    public func cancelHeldPayment(paymentHash: String) async throws -> HawalaLightning.Payment {
        throw HoldInvoiceError.cancelNotOffered(backend: "Spark")
    }

    private func receive(_ request: ReceiveRequest, paymentHash: String?) async throws -> ReceiveResponse {
        _ = try PaymentLimits.check(request)
        guard let expiry = UInt32(exactly: request.expirySeconds) else { throw LightningError.outOfRange(.expiry) }
        let method = ReceivePaymentMethod.bolt11Invoice(description: request.description, amountSats: request.amountSats?.value,
                                                        expirySecs: expiry, paymentHash: paymentHash, receiverIdentityPublicKey: nil)
        let response = try await call { try await $0.receivePayment(request: ReceivePaymentRequest(paymentMethod: method)) }
        let invoice: HawalaLightning.Bolt11Invoice
        do { invoice = try HawalaLightning.Bolt11Invoice(response.paymentRequest) } catch {
            throw LightningError.refused(by: "Spark", reason: "it made an invoice Hawala can't read (\(error))")
        }
        guard invoice.network == network else {
            throw LightningError.wrongNetwork(invoice: invoice.network, backend: network, backendName: name)
        }
        return ReceiveResponse(invoice: response.paymentRequest, paymentHash: hexString(invoice.paymentHash),
                               feeMsat: HawalaLightning.Payment.msat(sats: response.fee), expiresAt: invoice.expiresAt)
    }

    public func receiveAddress(_ method: ReceiveMethod) async throws -> String {
        let sdkMethod: ReceivePaymentMethod
        switch method {
        case .spark: sdkMethod = .sparkAddress
        case .bitcoin: sdkMethod = .bitcoinAddress(newAddress: nil)
        case .bolt11: throw LightningError.unsupported(backend: name, .otherCall("receivePayment"))
        }
        return try await call { try await $0.receivePayment(request: ReceivePaymentRequest(paymentMethod: sdkMethod)) }.paymentRequest
    }

    // MARK: History, rates, fees

    public func listPayments(_ filter: PaymentFilter) async throws -> [HawalaLightning.Payment] {
        let request = ListPaymentsRequest(
            typeFilter: filter.type.map { [$0 == .send ? .send : .receive] },
            statusFilter: filter.status.map { [$0 == .completed ? .completed : $0 == .failed ? .failed : .pending] },
            fromTimestamp: filter.from.map { UInt64(max(0, $0.timeIntervalSince1970)) },
            toTimestamp: filter.to.map { UInt64(max(0, $0.timeIntervalSince1970)) },
            offset: filter.paymentHash == nil ? UInt32(clamping: filter.offset) : nil,
            limit: filter.paymentHash == nil ? filter.limit.map { UInt32(clamping: $0) } : nil)
        let payments = try await call { try await $0.listPayments(request: request) }.payments.map { HawalaLightning.Payment(spark: $0, backend: name) }
        guard let hash = filter.paymentHash else { return payments }
        return payments.filter { $0.details.paymentHash == hash }
    }

    /// Nil for an id Spark does not know (Hawala's own pending records have such ids).
    public func getPayment(id: String) async throws -> HawalaLightning.Payment? {
        do {
            return HawalaLightning.Payment(spark: try await call { try await $0.getPayment(request: GetPaymentRequest(paymentId: id)) }.payment, backend: name)
        } catch LightningError.refused {
            return nil
        }
    }

    public func listFiatRates() async throws -> [FiatRate] {
        try await call { try await $0.listFiatRates() }.rates.compactMap { rate in
            Decimal(string: String(rate.value)).map { FiatRate(currency: rate.coin.uppercased(), btcPrice: $0) }
        }
    }

    public func recommendedFees() async throws -> HawalaLightning.RecommendedFees {
        let f = try await call { try await $0.recommendedFees() }
        return HawalaLightning.RecommendedFees(fastest: f.fastestFee, halfHour: f.halfHourFee, hour: f.hourFee, economy: f.economyFee, minimum: f.minimumFee)
    }

    // MARK: Events

    /// Listeners are Hawala's own: one SDK listener (registered at connect) fans out to them, so
    /// adding and removing costs no call into the SDK.
    public func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String {
        let id = UUID().uuidString
        state.withLock { $0.listeners[id] = listener }
        return id
    }

    public func removeEventListener(_ id: String) {
        state.withLock { $0.listeners[id] = nil }
    }

    /// How many listeners are registered (for tests of add/remove cycles).
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    fileprivate func emit(_ event: SdkEvent) {
        if case .synced = event { state.withLock { $0.syncedAt = ContinuousClock.now } }
        guard let mapped = Self.event(event, backend: name) else { return }
        for listener in state.withLock({ Array($0.listeners.values) }) { listener(mapped) }
    }

    /// The SDK's event as Hawala's; nil for those Hawala does not follow (a payment's metadata,
    /// optimisation, the Lightning address).
    static func event(_ event: SdkEvent, backend: String) -> PaymentEvent? {
        switch event {
        case .synced: .synced
        case .paymentSucceeded(let p): .paymentSucceeded(HawalaLightning.Payment(spark: p, backend: backend))
        case .paymentPending(let p): .paymentPending(HawalaLightning.Payment(spark: p, backend: backend))
        case .paymentFailed(let p): .paymentFailed(HawalaLightning.Payment(spark: p, backend: backend))
        case .newDeposits(let deposits): .newDeposits(deposits.map(SparkBackend.deposit))
        case .claimedDeposits(let deposits): .claimedDeposits(deposits.map(SparkBackend.deposit))
        case .unclaimedDeposits(let deposits): .unclaimedDeposits(deposits.map(SparkBackend.deposit))
        case .unilateralExitStateChanged: .exitStateChanged
        default: nil
        }
    }
}

/// The SDK's listener: forwards to the backend while it exists.
private final class Forwarder: EventListener, @unchecked Sendable {
    weak var backend: SparkBackend?
    init(_ backend: SparkBackend) { self.backend = backend }
    func onEvent(event: SdkEvent) async { backend?.emit(event) }
}

extension SparkBackend {
    /// The SDK's log filter for a swift-log level name (trace, debug, info, notice, warning,
    /// error, critical).
    public static func logFilter(_ level: String) -> String {
        switch level {
        case "trace": "trace"
        case "debug": "debug"
        case "info", "notice": "info"
        case "warning": "warn"
        default: "error"
        }
    }
}

extension SparkOpener {
    /// Opens Spark through the Breez SDK, logging at `logFilter` (trace, debug, info, warn, error).
    public static func sdk(logFilter: String) -> SparkOpener {
        SparkOpener(
            makeBackend: { network, apiKey, timeout, lnurl in
                try SparkBackend(network: network, apiKey: apiKey, timeout: timeout, lnurl: lnurl, logFilter: logFilter)
            },
            storageDirectory: { home, walletID, network in try SparkBackend.storageDirectory(home: home, walletID: walletID, network: network) })
    }
}
