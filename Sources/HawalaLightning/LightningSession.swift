import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// Why a wallet's Lightning side can't be opened or used as asked.
public enum LightningSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The wallet has no backend saved and none was given.
    case noBackend(wallet: String)
    /// The Spark SDK is not part of this build.
    case sparkNotBuilt
    /// The development network is not part of this build (a front end that links no devnet).
    case devnetNotBuilt
    /// Spark with real bitcoin, chosen (or saved) for a testnet wallet: refused.
    case realBitcoinOnTestWallet(wallet: String)

    public var description: String {
        switch self {
        case .noBackend(let wallet): "no Lightning backend is set for wallet \"\(wallet)\""
        case .sparkNotBuilt: "the spark backend is not available in this build: the Breez Spark SDK exists for Linux x86_64 (and Apple platforms) only"
        case .devnetNotBuilt: "the devnet backend is not available here"
        case .realBitcoinOnTestWallet(let wallet):
            "\(wallet.isEmpty ? "this wallet" : "\u{201C}\(wallet)\u{201D}") is a testnet wallet (coins worth nothing), so its Lightning can't move real bitcoin: "
                + "choose devnet or Spark's test network for it, or create or restore a mainnet wallet for real bitcoin"
        }
    }
}

/// A wallet, its payment backend and its history, opened for one task: what every Lightning
/// screen or command starts from.
public struct LightningSession: Sendable {
    public let store: WalletStore
    public let wallet: WalletSummary
    public let spec: BackendSpec
    public let backend: any PaymentBackend
    public let lightning: LightningWallet
    /// How the session reaches LNURL-pay services; nil when it was not opened to pay one.
    public let lnurl: LNURLPayFlow?
    /// The HTTP client the session made for `lnurl`, ended by `close`.
    let fetcher: HTTPFetcher?
    /// The wallet's keyring when the session was opened with the password: what seals the exit
    /// state it keeps (nil: a devnet session opened on its saved node id alone).
    public var keyring: Keyring? = nil
    /// The listener that keeps the exit state on `exitStateChanged`, removed by `close`.
    var exitListener: String?

    /// How the backend is named to a person (devnet always says it is not the Lightning network).
    public var backendLabel: String { spec.label }

    /// Opens the wallet's backend: `backend` when given, else the wallet's saved one. With
    /// `signing`, the wallet is unlocked (`unlock`) to derive the node key; otherwise, on devnet,
    /// the node id saved by an earlier session is enough and `unlock` is called only the first
    /// time. Spark always needs the password: the SDK connects with the wallet's seed.
    /// With `reachesLNURL`, the session makes an HTTP client for LNURL-pay services (Lightning
    /// addresses, LNURLs), which `close` ends.
    public static func open(store: WalletStore, wallet: WalletSummary, backend: String? = nil, signing: Bool,
                            backends: BackendOpeners, networkTimeout: Duration = .seconds(30), reachesLNURL: Bool = false,
                            unlock: () throws -> Keyring) async throws -> LightningSession {
        // An LNURL service answers within the network's time too (and never beyond 15 s an exchange).
        let fetcher = reachesLNURL ? HTTPFetcher(timeout: min(networkTimeout, HTTPFetcher.defaultTimeout)) : nil
        // Plain http reaches LNURL services on this machine on devnet only (its LNURL server).
        let specText = try backend ?? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id)
        let onDevnet = specText.flatMap { try? BackendSpec.parse($0, home: store.home.directory) }?.allowsLoopbackHTTP ?? false
        let flow = fetcher.map { LNURLPayFlow(fetcher: $0, allowLoopbackHTTP: onDevnet) }
        do {
            return try await open(store: store, wallet: wallet, backend: backend, signing: signing, backends: backends,
                                  networkTimeout: networkTimeout, lnurl: flow, fetcher: fetcher, unlock: unlock)
        } catch {
            await fetcher?.shutdown()
            throw error
        }
    }

    private static func open(store: WalletStore, wallet: WalletSummary, backend: String?, signing: Bool, backends: BackendOpeners,
                             networkTimeout: Duration, lnurl: LNURLPayFlow?, fetcher: HTTPFetcher?,
                             unlock: () throws -> Keyring) async throws -> LightningSession {
        guard let specText = try backend ?? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id) else {
            throw LightningSessionError.noBackend(wallet: wallet.name)
        }
        let spec = try BackendSpec.parse(specText, home: store.home.directory)
        // A mismatch saved before the rule (or given for one command): said, never used.
        try spec.check(for: wallet.network, wallet: wallet.name)
        // The rates source typed by hand, when there is one; else the backend's own rates.
        let savedRates = try store.setting(LightningWallet.SettingKey.rates, walletID: wallet.id).flatMap(RatesSource.init(saved:))?.provider()
        // The node id saved is the saved backend's: a one-off backend of another kind neither
        // reads it nor overwrites it (a Spark identity is not a devnet node).
        let savedSpec = try store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id).flatMap { try? BackendSpec.parse($0, home: store.home.directory) }
        let ownsSavedNode = savedSpec == nil || savedSpec?.backendName == spec.backendName
        let savedNode = ownsSavedNode ? try store.setting(LightningWallet.SettingKey.nodeID, walletID: wallet.id) : nil
        let opened: any PaymentBackend
        var directory = store.home.directory
        var keyring: Keyring?
        switch spec {
        case .devnet(let path):
            guard let opener = backends.devnet else { throw LightningSessionError.devnetNotBuilt }
            let devnet = try opener.makeBackend(path, savedRates, lnurl)
            devnet.setClaimFeePolicy(LightningWallet.claimFeePolicy(store: store, walletID: wallet.id))
            if !signing, let savedNode {
                devnet.attach(nodeID: savedNode)
                let fiat = try LightningWallet.fiat(store: store, wallet: wallet, backendRates: BackendRatesProvider(backend: devnet))
                return LightningSession(store: store, wallet: wallet, spec: spec, backend: devnet,
                                        lightning: LightningWallet(store: store, wallet: wallet, backend: devnet, network: spec.description, fiat: fiat),
                                        lnurl: lnurl, fetcher: fetcher)
            }
            opened = devnet
        case .spark(let network):
            guard let spark = backends.spark else { throw LightningSessionError.sparkNotBuilt }
            let unlocked = try unlock()
            keyring = unlocked
            let apiKey = try store.sealedSetting(LightningWallet.SettingKey.sparkAPIKey(network), keyring: unlocked)
            opened = try spark.makeBackend(network, apiKey, networkTimeout, lnurl)
            directory = try spark.storageDirectory(store.home.directory, wallet.id, network)
        }
        opened.setClaimFeePolicy(LightningWallet.claimFeePolicy(store: store, walletID: wallet.id))
        if keyring == nil { keyring = try unlock() }
        let secret = try store.secret(of: wallet, keyring: keyring!)
        try await opened.connect(ConnectRequest(secret: secret, storageDirectory: directory))
        let info = try await opened.getInfo()
        if ownsSavedNode, info.nodeID != savedNode { try store.setSetting(LightningWallet.SettingKey.nodeID, to: info.nodeID, walletID: wallet.id) }
        let fiat = try LightningWallet.fiat(store: store, wallet: wallet, backendRates: BackendRatesProvider(backend: opened))
        var session = LightningSession(store: store, wallet: wallet, spec: spec, backend: opened,
                                       lightning: LightningWallet(store: store, wallet: wallet, backend: opened, network: spec.description, fiat: fiat),
                                       lnurl: lnurl, fetcher: fetcher, keyring: keyring)
        // The exit state is kept again whenever the backend says it changed (until `close`).
        session.exitListener = opened.addEventListener { [session] event in
            if case .exitStateChanged = event { Task { await session.keepExitStateLogged() } }
        }
        return session
    }

    /// The wallet's address for `method` (the Spark address, or an on-chain deposit address).
    public func receivingAddress(_ method: ReceiveMethod) async throws -> ReceivingAddress {
        try lightning.checkBackupBeforeRealMoney()
        return ReceivingAddress(method: method, address: try await backend.receiveAddress(method), backend: backend.name)
    }

    /// Disconnects (Spark stops its background work and closes its storage) and ends the
    /// session's HTTP client.
    public func close() async {
        // Every session that could seal it leaves the exit state as fresh as what it did.
        if keyring != nil { await refreshExitState() }
        if let exitListener { backend.removeEventListener(exitListener) }
        await backend.disconnect()
        await fetcher?.shutdown()
    }

    /// Prepares paying `input` (see `LightningWallet.prepare`), through the session's LNURL access.
    public func prepare(_ input: PaymentInput, text: String, amountSats: Sats?, comment: String?, maxFeeSats: Sats?) async throws(LightningError) -> PreparedPayment {
        try await lightning.prepare(input, text: text, amountSats: amountSats, comment: comment, maxFeeSats: maxFeeSats, lnurl: lnurl)
    }

    /// Runs `body`, then closes the session, whether `body` succeeded or not.
    public func closing<T>(_ body: (LightningSession) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// Creates an invoice and records it as a pending receive (`connection`: the app
    /// connection that asked for it).
    public func receive(_ request: ReceiveRequest, connection: String? = nil) async throws(LightningError) -> CreatedInvoice {
        try lightning.checkBackupBeforeRealMoney()
        return try await LightningError.during(backend.name) {
            let response = try await backend.receivePayment(request)
            try lightning.recordInvoice(response, amountSats: request.amountSats, description: request.description, connection: connection)
            return CreatedInvoice(response: response, amountSats: request.amountSats, description: request.description, backend: backend.name)
        }
    }

    /// The balance after a sync, with its fiat value: in `currency` when given (then a rates
    /// failure is an error), else in the wallet's configured currency (then a failure is noted).
    /// When the network does not answer within `syncTimeout`, the last synced balance, marked
    /// with when it synced and why it is not current (`Balance.offline`).
    /// - Throws: `LightningError.notSyncedYet` offline for a wallet never synced on this
    ///   network: no balance is known, and none is made up.
    public func balance(currency: String? = nil, syncTimeout: Duration = .seconds(10)) async throws -> Balance {
        var balance: Balance
        do {
            try await Deadline.run(syncTimeout, timedOut: { [spec] in
                LightningError.unreachable(network: spec.networkName, reason: "no answer within \(syncTimeout.components.seconds) s")
            }) { [lightning] in _ = try await lightning.sync() }
            let info = try await backend.getInfo()
            LightningWallet.rememberBalance(info.balanceMsat, store: store, walletID: wallet.id, network: spec.description)
            balance = Balance(info: info, backend: backend.name)
            // At least at each sync: the way out stays as fresh as the balance.
            await keepExitStateLogged()
        } catch {
            guard let offline = error as? LightningError, offline.isOffline else { throw error }
            let reason = Balance.offlineReason(offline)
            balance = try Balance.lastKnown(store: store, wallet: wallet, spec: spec, reason: reason)
        }
        guard let (code, provider) = try LightningWallet.fiat(store: store, wallet: wallet, currency: currency?.uppercased(),
                                                              backendRates: BackendRatesProvider(backend: backend)) else { return balance }
        do {
            let rate = try await provider.rate(code)
            balance.fiat = Balance.Fiat(rate: rate, value: rate.value(msat: balance.info.balanceMsat))
        } catch {
            // (Not `catch where`: with typed throws it crashes Swift 6.3's SIL optimizer.)
            if currency != nil, balance.offline == nil { throw error }
            balance.fiatProblem = "no \(code) value: \(error)"
        }
        return balance
    }

    // MARK: Lightning address, LNURL-withdraw

    /// Registers `name` as the wallet's Lightning address, after checking it is well formed and
    /// free (a taken name is refused before anything changes).
    public func registerAddress(name: String, description: String = "") async throws(LightningError) -> LightningAddressInfo {
        try lightning.checkBackupBeforeRealMoney()  // an address is a way to be paid
        let checked: String
        do { checked = try LightningAddressInfo.checkName(name) } catch { throw .address(error) }
        guard TextLimit.fits(description, scalars: LightningAddressInfo.maximumDescriptionScalars) else { throw .outOfRange(.addressDescription) }
        return try await LightningError.during(backend.name) {
            guard try await backend.isLightningAddressAvailable(checked) else { throw LightningAddressError.taken(checked) }
            return try await backend.registerLightningAddress(name: checked, description: description)
        }
    }

    /// What an LNURL-withdraw link offers (LUD-03), fetched from its service.
    /// - Throws: `.lnurl(.notAWithdrawal)` for another kind of LNURL.
    public func withdrawOffer(_ input: PaymentInput) async throws(LightningError) -> LNURLWithdrawRequest {
        guard let lnurl else { throw .unsupported(backend: backend.name, .lnurlWithoutClient) }
        guard case .lnurl(let url) = input else { throw .lnurl(.notAWithdrawal("not an LNURL")) }
        return try await LightningError.during(backend.name) {
            try LNURLWithdrawRequest.parse(try await lnurl.fetcher.get(url), from: url, allowLoopbackHTTP: lnurl.allowLoopbackHTTP)
        }
    }

    /// Withdraws from `offer`: makes an invoice of `amountSats` (the most offered when nil),
    /// kept as a pending receive, hands it to the service, and waits at most `timeout` for the
    /// payment.
    /// - Throws: the service's refusal (`.lnurl(.serviceError)`); `.timeout`
    ///   when the payment did not come in time (the invoice stays valid until it expires).
    public func withdraw(_ offer: LNURLWithdrawRequest, amountSats: Sats?, timeout: Duration) async throws(LightningError) -> Payment {
        guard let lnurl else { throw .unsupported(backend: backend.name, .lnurlWithoutClient) }
        let sats: Sats
        do { sats = try offer.amountSats(amountSats) } catch { throw .lnurl(error) }
        let invoice = try await receive(ReceiveRequest(amountSats: sats, description: offer.defaultDescription))
        try await LightningError.during(backend.name) {
            let answer: LNURLPayRequest.StatusJSON = try LNURLPayRequest.decode(try await lnurl.fetcher.get(try offer.callbackURL(invoice: invoice.response.invoice)))
            guard answer.status?.uppercased() == "OK" else { throw LNURLError.invalidResponse("the service did not say OK") }
        }
        return try await lightning.waitForPayment(paymentHash: invoice.response.paymentHash, timeout: timeout)
    }

    /// One line when the backend's network reports trouble (Spark degraded or down); nil when
    /// all is well, unknown, or devnet.
    public func networkWarning() async -> String? {
        await backend.networkStatus()?.warning(network: spec.networkName)
    }

    /// The currencies a value can be shown in: the saved rates source's, else the backend's own
    /// (Spark: the SDK's `listFiatRates`; devnet: its test table). Sorted, upper-case codes.
    public func fiatCurrencies() async throws(FiatRatesError) -> [String] {
        let saved = (try? store.setting(LightningWallet.SettingKey.rates, walletID: wallet.id))?.flatMap(RatesSource.init(saved:))
        let provider: FiatRatesProvider = saved?.provider() ?? BackendRatesProvider(backend: backend)
        return Set(try await provider.rates().map(\.currency)).sorted()
    }

    /// The price of 1 BTC in `currency` now, from the saved rates source, else the backend's own
    /// rates (Spark's; devnet's test table); nil when none can be had (never guessed).
    public func btcPrice(in currency: String) async -> Decimal? {
        let saved = (try? store.setting(LightningWallet.SettingKey.rates, walletID: wallet.id))?.flatMap(RatesSource.init(saved:))
        let provider: FiatRatesProvider = saved?.provider() ?? BackendRatesProvider(backend: backend)
        return try? await provider.rate(currency).btcPrice
    }

    /// Adds test funds (devnet only) and records them.
    public func fund(sats: Sats) async throws(LightningError) -> NodeInfo {
        guard let devnet = backend as? any TestFundedBackend else { throw .unsupported(backend: backendLabel, .testFunds) }
        return try await LightningError.during(backend.name) {
            try await lightning.record([try await devnet.fund(sats: sats)])
            return try await devnet.getInfo()
        }
    }

    /// The rate of the wallet's configured currency, when it has one and the source answers.
    public func configuredRate() async -> FiatRate? {
        guard let (code, provider) = try? LightningWallet.fiat(store: store, wallet: wallet, backendRates: BackendRatesProvider(backend: backend)) else {
            return nil
        }
        return try? await provider.rate(code)
    }
}

/// An invoice just made, as `ln invoice --json` prints it.
public struct CreatedInvoice: Sendable, JSONRepresentable {
    public let response: ReceiveResponse
    public let amountSats: Sats?
    public let description: String
    public let backend: String

    /// `{invoice, paymentHash, amountMsat, description, expiresAt, backend}`.
    public var json: JSONValue {
        .object([
            ("invoice", .string(response.invoice)), ("paymentHash", .string(response.paymentHash)),
            ("amountMsat", amountSats.map { .amount($0.msat) } ?? .null), ("description", .string(description)),
            ("expiresAt", .string(response.expiresAt.iso8601)), ("backend", .string(backend)),
        ])
    }
}

/// A receiving address (`--method spark|bitcoin`): `{method, address, backend}`.
public struct ReceivingAddress: Sendable, JSONRepresentable {
    public let method: ReceiveMethod
    public let address: String
    public let backend: String

    public init(method: ReceiveMethod, address: String, backend: String) {
        self.method = method
        self.address = address
        self.backend = backend
    }

    public var json: JSONValue { .object([("method", .string(method.rawValue)), ("address", .string(address)), ("backend", .string(backend))]) }
}

/// The balance, and its fiat value when known.
public struct Balance: Sendable, JSONRepresentable {
    public struct Fiat: Sendable {
        public let rate: FiatRate
        public let value: Decimal
    }

    /// A balance the network could not confirm now: the last synced one.
    public struct Offline: Sendable {
        /// When the history was last synced (nil: not recorded).
        public let lastSyncedAt: Date?
        /// "Spark network", "devnet ledger".
        public let network: String
        public let reason: String
    }

    public let info: NodeInfo
    public let backend: String
    /// Set when this is the last synced balance, not a current one.
    public var offline: Offline?
    public var fiat: Fiat?
    /// Why the configured currency's value is missing (the balance itself stands).
    public var fiatProblem: String?

    /// The last synced balance of `wallet` on `spec`'s network, for when the network does not
    /// answer (`reason`).
    /// - Throws: `LightningError.notSyncedYet` when it never synced there: no balance is known.
    public static func lastKnown(store: WalletStore, wallet: WalletSummary, spec: BackendSpec, reason: String) throws -> Balance {
        guard let known = LightningWallet.lastKnownBalance(store: store, walletID: wallet.id, network: spec.description) else {
            throw LightningError.notSyncedYet(network: spec.networkName, reason: reason)
        }
        let node = (try? store.setting(LightningWallet.SettingKey.nodeID, walletID: wallet.id)) ?? nil
        var balance = Balance(info: NodeInfo(nodeID: node ?? "", balanceMsat: known.msat), backend: spec.backendName)
        balance.offline = Offline(lastSyncedAt: known.at, network: spec.networkName, reason: reason)
        return balance
    }

    /// The reason an offline error gives, in a few words.
    public static func offlineReason(_ error: LightningError) -> String {
        switch error {
        case .unreachable(_, let why), .notSyncedYet(_, let why): why
        case .timeout(_, let after): "no answer within \(after.components.seconds) s"
        default: error.description
        }
    }

    /// `{balanceSats, balanceMsat, backend, nodeId, synced, lastSyncedAt?, offlineReason?,
    /// fiat?: {currency, value, btcPrice}}`: `synced` false is the last synced balance.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("balanceSats", .amount(info.balanceSats)), ("balanceMsat", .amount(info.balanceMsat)),
            ("backend", .string(backend)), ("nodeId", .string(info.nodeID)), ("synced", .bool(offline == nil)),
        ]
        if let offline {
            fields.append(("lastSyncedAt", offline.lastSyncedAt.map { .string($0.iso8601) } ?? .null))
            fields.append(("offlineReason", .string(offline.reason)))
        }
        if let fiat {
            fields.append(("fiat", .object([("currency", .string(fiat.rate.currency)), ("value", .string("\(fiat.value)")),
                                            ("btcPrice", .string("\(fiat.rate.btcPrice)"))])))
        }
        return .object(fields)
    }
}

/// How the history was brought up to date before it is read.
public enum HistorySync: Sendable, Equatable {
    /// No backend saved, or its node not known yet: the history kept here is all there is.
    case notAttempted
    case synced
    /// The backend did not answer in time.
    case offline(reason: String, lastSyncedAt: Date?)
    /// Spark connects with the seed, which needs the password: the history as last synced.
    case needsPassword(lastSyncedAt: Date?)

    /// Syncs the wallet's history with its backend when that needs no password and answers
    /// within `timeout`.
    public static func run(store: WalletStore, wallet: WalletSummary, backends: BackendOpeners, timeout: Duration) async -> HistorySync {
        let spec = (try? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id))?.flatMap { try? BackendSpec.parse($0) }
        switch spec {
        case .spark?:
            return .needsPassword(lastSyncedAt: LightningWallet.lastSyncedAt(store: store, walletID: wallet.id, network: spec?.description))
        case .devnet?:
            guard (try? store.setting(LightningWallet.SettingKey.nodeID, walletID: wallet.id)) != nil else { return .notAttempted }
            do {
                let session = try await LightningSession.open(store: store, wallet: wallet, signing: false, backends: backends) { throw HistorySyncNeedsPassword() }
                let outcome = await session.lightning.sync(timeout: timeout)
                await session.close()
                if case .offline(let reason, let last) = outcome { return .offline(reason: reason, lastSyncedAt: last) }
                return .synced
            } catch {
                return .offline(reason: "\(error)", lastSyncedAt: LightningWallet.lastSyncedAt(store: store, walletID: wallet.id, network: spec?.description))
            }
        case nil:
            return .notAttempted
        }
    }
}

/// A saved devnet node needs no password; asking for one means the node is not known after all.
private struct HistorySyncNeedsPassword: Error {}

extension PaymentEvent {
    /// `paymentSucceeded`, `paymentPending`, `paymentFailed`, `synced`, `newDeposits`,
    /// `claimedDeposits`, `unclaimedDeposits` or `exitStateChanged`.
    public var name: String {
        switch self {
        case .paymentSucceeded: "paymentSucceeded"
        case .paymentPending: "paymentPending"
        case .paymentFailed: "paymentFailed"
        case .synced: "synced"
        case .newDeposits: "newDeposits"
        case .claimedDeposits: "claimedDeposits"
        case .unclaimedDeposits: "unclaimedDeposits"
        case .exitStateChanged: "exitStateChanged"
        }
    }

    /// The deposits the event is about (none for a payment's).
    public var deposits: [Deposit] {
        switch self {
        case .newDeposits(let d), .claimedDeposits(let d), .unclaimedDeposits(let d): d
        default: []
        }
    }

    /// One line a person reads for a deposit event; nil for other events.
    public var depositHeadline: String? {
        let list = deposits.map { "\(AmountText.sats($0.amountSat)) (\($0.outpoint.prefix(16))…): \($0.stateText)" }.joined(separator: "; ")
        switch self {
        case .newDeposits: return "on-chain deposit seen: " + list
        case .claimedDeposits: return "deposit claimed: " + list
        case .unclaimedDeposits: return "deposit not claimed: " + list
        default: return nil
        }
    }

    /// The same news for a person, without transaction ids (a notification, a toast).
    public var depositNews: String? {
        let amounts = deposits.map { "\(AmountText.sats($0.amountSat))" }.joined(separator: ", ")
        switch self {
        case .newDeposits: return "Bitcoin deposit of \(amounts) seen: it comes into Lightning once confirmed."
        case .claimedDeposits: return "Bitcoin deposit of \(amounts) is in your Lightning balance."
        case .unclaimedDeposits:
            return "Bitcoin deposit not claimed: " + deposits.map { "\(AmountText.sats($0.amountSat)), \($0.stateText.replacingOccurrences(of: "not claimed: ", with: ""))" }
                .joined(separator: "; ") + "."
        default: return nil
        }
    }

    /// `{event, payment, deposits?}`: one line of `ln watch --json`.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("event", .string(name)), ("payment", payment?.json ?? .null)]
        if !deposits.isEmpty { fields.append(("deposits", .array(deposits.map(\.json)))) }
        return .object(fields)
    }
}

extension LightningWallet {
    /// Payment events as they happen, each recorded in the history before it is yielded; the
    /// history is synced first. Ends after `duration` (nil: never) or when the consumer stops.
    public func watch(for duration: Duration? = nil) -> AsyncThrowingStream<PaymentEvent, Error> {
        let (stream, output) = AsyncThrowingStream<PaymentEvent, Error>.makeStream()
        // Listening from the call on: an event after it is never missed.
        let (events, input) = AsyncStream<PaymentEvent>.makeStream()
        let backend = self.backend
        let id = backend.addEventListener { input.yield($0) }
        let task = Task {
            defer { backend.removeEventListener(id) }
            var timer: Task<Void, Never>?
            if let duration {
                timer = Task {
                    try? await Task.sleep(for: duration)
                    input.finish()
                }
            }
            do {
                try await sync()
                for await event in events {
                    if let payment = event.payment {
                        try await record([payment])
                        output.yield(event)
                    } else if !event.deposits.isEmpty {
                        output.yield(event)
                    }
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
            timer?.cancel()
        }
        output.onTermination = { _ in task.cancel() }
        return stream
    }
}
