import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaNostr
import HawalaText
import HawalaWallet
import Logging
import Synchronization

/// The NIP-47 wallet service: every live app connection of every wallet in a store, served on
/// its relays until cancelled. It asks relays only for requests from the connections' client
/// keys, addressed to their service keys; answers in the scheme the request came in (NIP-44 v2,
/// or NIP-04 for older clients); refuses a request made more than `Options.freshness` from its
/// clock; gives a request delivered again its first answer, a refusal included; counts each
/// connection's rate before decrypting anything; answers a revoked or expired connection
/// `UNAUTHORIZED`; publishes each connection's info event and its payment notifications;
/// reconnects to a relay that drops, and subscribes again where a relay closed the
/// subscription, with backoff. One log line a request: connection, method, outcome, amount —
/// never content or keys.
public final class NWCService: Sendable {
    public struct Options: Sendable {
        /// Requests a connection may make a minute before `RATE_LIMITED`.
        public var requestsPerMinute = 120
        /// `RATE_LIMITED` answers a connection gets a minute; past them, its requests are dropped unanswered.
        public var refusalsPerMinute = 10
        /// How far a request's `created_at` may be from the service's clock: an older request
        /// (delivered late, or again by another relay) is refused, never acted on.
        public var freshness: TimeInterval = 120
        /// How often the connections are read again (new ones served, revoked ones dropped).
        public var reload: Duration = .seconds(5)
        /// Waits between reconnections to a relay: from `firstBackoff`, doubling, at most `maxBackoff`.
        public var firstBackoff: Duration = .seconds(1)
        public var maxBackoff: Duration = .seconds(60)
        public var now: @Sendable () -> Date = { Date() }
        public init() {}
    }

    let store: WalletStore
    let keyring: Keyring
    let backends: BackendOpeners
    let options: Options
    let logger: Logger
    let relays: NWCRelayPool
    let rateLimiter: NWCRateLimiter
    let answers: NWCAnswerMemory
    /// The connection registry: the connections served, and each wallet's Lightning session and
    /// payment listener.
    let state = Mutex(State())

    struct State {
        var served: [String: Served] = [:]
        var sessions: [String: LightningSession] = [:]
        var listeners: [String: String] = [:]
    }

    /// A connection being served: its keys, opened once.
    struct Served: Sendable {
        let connection: AppConnection
        let keys: NostrKeys
        let clientKey: [UInt8]
        let conversationKey: SecretBytes
    }

    public init(store: WalletStore, keyring: Keyring, backends: BackendOpeners, options: Options = Options(), logger: Logger = Logger(label: "hawala.connect")) {
        self.store = store
        self.keyring = keyring
        self.backends = backends
        self.options = options
        self.logger = logger
        relays = NWCRelayPool(firstBackoff: options.firstBackoff, maxBackoff: options.maxBackoff)
        rateLimiter = NWCRateLimiter(requestsPerMinute: options.requestsPerMinute, refusalsPerMinute: options.refusalsPerMinute)
        answers = NWCAnswerMemory(freshness: options.freshness)
    }

    /// How many connections are served now (live ones; ended ones are only refused).
    public var servedCount: Int {
        let now = options.now()
        return state.withLock { $0.served.values.filter { $0.connection.servedOverNWC(at: now) }.count }
    }

    /// Serves until cancelled (SIGINT/SIGTERM in `hawala connect serve`).
    public func run() async throws {
        // A service stopped while payments waited for approval: their budgets, given back.
        do { try store.releaseAbandonedApprovals() } catch {
            logger.error("budgets held by payments that waited for approval were not given back", metadata: ["reason": .string(String("\(error)".prefix(200)))])
        }
        await withTaskGroup(of: Void.self) { group in
            var relayTasks: [String: Task<Void, Never>] = [:]
            while !Task.isCancelled {
                await reload()
                let wanted = Set(state.withLock { $0.served.values.flatMap(\.connection.relays) })
                for url in wanted where relayTasks[url] == nil {
                    relayTasks[url] = Task { await self.keepRelay(url) }
                }
                for (url, task) in relayTasks where !wanted.contains(url) {
                    task.cancel()
                    relayTasks[url] = nil
                }
                // A new connection on a relay already connected: subscribe again (same id: replaces it).
                for url in wanted { resubscribe(url, onlyIfChanged: true) }
                try? await Task.sleep(for: options.reload)
            }
            for task in relayTasks.values { task.cancel() }
        }
        await shutdown()
    }

    /// Reads the connections again: live ones served (their keys opened once), the others dropped.
    func reload() async {
        let now = options.now()
        guard let all = try? store.allConnections() else { return }
        let live = all.filter { $0.answeredOverNWC(at: now) }
        var served: [String: Served] = [:]
        for connection in live {
            if let kept = state.withLock({ $0.served[connection.id] }) {
                served[connection.id] = Served(connection: connection, keys: kept.keys, clientKey: kept.clientKey, conversationKey: kept.conversationKey)
                continue
            }
            guard let secret = try? store.connectionServiceKey(connection, keyring: keyring), let keys = try? NostrKeys(secret: secret),
                  let client = NostrHex.decode(connection.clientPublicKey, count: 32),
                  let conversation = try? NIP44.conversationKey(privateKey: keys.secret, publicKey: client) else {
                logger.error("a connection's key could not be opened", metadata: ["connection": .string(connection.name)])
                continue
            }
            served[connection.id] = Served(connection: connection, keys: keys, clientKey: client, conversationKey: conversation)
        }
        let added = state.withLock { state -> [Served] in
            let new = served.values.filter { state.served[$0.connection.id] == nil }
            state.served = served
            return new
        }
        for s in added where s.connection.servedOverNWC(at: now) {
            logger.info("serving connection", metadata: ["connection": .string(s.connection.name), "relays": .string(s.connection.relays.joined(separator: " "))])
            await listen(walletID: s.connection.walletID)
        }
    }

    /// Attempts on one relay left hanging at their handshake before the service stops trying it.
    static let stuckAttemptsAllowed = 3

    /// One relay, connected again and again until cancelled, with backoff between tries.
    func keepRelay(_ url: String) async {
        var backoff = options.firstBackoff
        while !Task.isCancelled {
            // A relay that accepts connections and never upgrades them holds each one: after a
            // few, no more until they end (the peer's close reaches them).
            if RelaySession.stuckAttempts(url) >= Self.stuckAttemptsAllowed {
                logger.warning("relay holds connections that never finished their handshake; waiting", metadata: ["relay": .string(url)])
                try? await Task.sleep(for: options.maxBackoff)
                continue
            }
            do {
                let session = try RelaySession(url: url, logger: logger)
                relays.set(session, for: url)
                let started = ContinuousClock.now
                try await withTaskCancellationHandler {
                    try await session.run(onOpen: { [weak self] in
                        self?.relays.opened(url)
                        self?.resubscribe(url, onlyIfChanged: false)
                        self?.publishInfo(on: url)
                    }, onEvent: { [weak self] _, event in
                        await self?.received(event, from: url)
                    }, onClosed: { [weak self] _, reason in
                        self?.subscriptionClosed(on: url, reason: reason)
                    })
                } onCancel: {
                    session.close()
                }
                if ContinuousClock.now - started > .seconds(30) { backoff = options.firstBackoff }
                if Task.isCancelled { break }
                logger.warning("relay connection closed; reconnecting", metadata: ["relay": .string(url)])
            } catch {
                // Cancelled: the service stops, or no connection uses this relay any more.
                if Task.isCancelled || error is CancellationError { break }
                logger.warning("relay unreachable; retrying", metadata: ["relay": .string(url), "reason": .string(String("\(error)".prefix(200)))])
            }
            relays.set(nil, for: url)
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, options.maxBackoff)
        }
    }

    func resubscribe(_ url: String, onlyIfChanged: Bool) {
        let served = state.withLock { $0.served.values.filter { $0.connection.relays.contains(url) } }.sorted { $0.keys.publicKeyHex < $1.keys.publicKeyHex }
        let (session, changed) = relays.subscribing(url, keys: served.map(\.keys.publicKeyHex))
        guard let session, !served.isEmpty, changed || !onlyIfChanged else { return }
        let since = Int64(options.now().timeIntervalSince1970 - options.freshness)
        // Only the connections' own clients: a stranger's events (however large) never arrive.
        session.subscribe("hawala-nwc", filters: [NostrFilter(kinds: [NostrEvent.Kind.walletRequest], authors: served.map(\.connection.clientPublicKey),
                                                              pTags: served.map(\.keys.publicKeyHex), since: since)])
        // A connection new on this relay says so (its info event): a program that proposed it
        // learns it was accepted.
        if changed { publishInfo(on: url) }
    }

    /// A relay ended the subscription (`CLOSED`: rate-limited, auth-required…): asked again
    /// after a wait that doubles while it keeps closing it.
    func subscriptionClosed(on url: String, reason: String) {
        guard let wait = relays.closedSubscription(url) else { return }  // already asking again
        logger.warning("relay closed the subscription; asking again", metadata: ["relay": .string(url), "reason": .string(String(reason.prefix(200))),
                                                                              "in_s": .string("\(wait.components.seconds)")])
        Task { [weak self] in
            try? await Task.sleep(for: wait)
            self?.relays.resubscribed(url)
            self?.resubscribe(url, onlyIfChanged: false)
        }
    }

    /// Each connection's info event (kind 13194): its methods, encryptions and notifications.
    func publishInfo(on url: String) {
        let now = options.now()
        let served = state.withLock { $0.served.values.filter { $0.connection.relays.contains(url) && $0.connection.servedOverNWC(at: now) } }
        guard let session = relays.session(url) else { return }
        for s in served {
            let methods = NWCHandler.methods(for: s.connection) + (NWCHandler.notifications(for: s.connection).isEmpty ? [] : ["notifications"])
            guard let event = try? NostrEvent.signed(kind: NostrEvent.Kind.walletInfo,
                                                     // `p`: the program's key, as Alby Hub tags it — how a program
                                                     // that proposed the connection learns it was accepted.
                                                     tags: [["encryption", "nip44_v2 nip04"], ["notifications", NWCHandler.notifications(for: s.connection).joined(separator: " ")],
                                                            ["p", s.connection.clientPublicKey]],
                                                     content: methods.joined(separator: " "), by: s.keys, at: options.now()) else { continue }
            session.send(event)
        }
    }

    /// A payment waiting for the person's yes: one line where the service runs (the app shows it too).
    var announceApproval: ConnectionPayer.Ask {
        { [logger] approval in
            logger.notice("a payment waits for your approval: approve or decline it in the app (Approvals), or: hawala connect approve \(approval.id)",
                          metadata: ["connection": .string(approval.program), "total_msat": .string(approval.total.description), "payee": .string(approval.payee),
                                     "waits_until": .string(approval.expiresAt.formatted(.iso8601))])
            return nil
        }
    }

    /// The largest request taken (its encrypted content).
    static let maximumRequestBytes = 128 * 1024
    /// The most NIP-44 v2 carries.
    static let nip44PlaintextBytes = 65_535

    /// A request from a relay: checked, answered once, the answer sent on every relay of its connection.
    func received(_ event: NostrEvent, from url: String) async {
        let now = options.now()
        let started = ContinuousClock.now
        guard event.kind == NostrEvent.Kind.walletRequest, event.content.utf8.count <= Self.maximumRequestBytes else { return }
        // The same request from two relays, or sent twice: handled once at a time.
        guard answers.begin(event.id) else { return }
        defer { answers.end(event.id) }
        guard let target = event.tag("p"), let served = state.withLock({ $0.served.values.first { $0.keys.publicKeyHex == target } }),
              served.connection.clientPublicKey == event.pubkey.lowercased(), event.isValid else {
            return  // not for a connection served here, or not from its client: no answer
        }
        let scheme = event.tag("encryption") == "nip44_v2" ? "nip44_v2" : "nip04"
        // Answered before (a refusal too): the same answer, nothing done again — within the
        // connection's rate, as any request (a relay replaying one event costs it alone).
        if let earlier = answers.answer(to: event.id, now: now) ?? (try? store.connectionAnswer(served.connection, requestID: event.id)) {
            guard rateLimiter.admit(connectionID: served.connection.id, now: now) == .allowed else { return }
            await send(earlier, to: served, replyingTo: event, scheme: scheme)
            logger.info("nwc request answered again", metadata: ["connection": .string(served.connection.name)])
            return
        }
        if let expiration = event.tag("expiration").flatMap(Int64.init), expiration < Int64(now.timeIntervalSince1970) {
            logger.info("nwc request refused", metadata: ["connection": .string(served.connection.name), "outcome": "expired request (its expiration tag)"])
            return  // its client said not to act on it after then: not answered either
        }
        // Counted before anything costly (decrypting, the store, the network): a flood of any
        // kind spends the connection's own allowance only.
        let admission = rateLimiter.admit(connectionID: served.connection.id, now: now)
        guard admission != .dropped else {
            // Unanswered, but refused for good: delivered again later, it is never acted on.
            remember(event.id, answer: NWCHandler.Answer.failed("", .rateLimited, "too many requests; send a new request in a minute").json, now: now)
            return
        }
        let (answer, method) = await answer(event, scheme: scheme, served: served, admission: admission, now: now)
        let json = answer.json
        // The answer goes first, then is kept: a payment is already once per request (its
        // idempotency key), and a copy delivered meanwhile is dropped while this one is in flight.
        await send(json, to: served, replyingTo: event, scheme: scheme)
        // Kept in memory: refusals (final for this request) and what must not be done twice;
        // a read delivered again is read again (its answer may be large).
        if answer.error != nil || Self.mustBeKept(answer) { remember(event.id, answer: json, now: now) }
        // Kept in the store only what must never be done twice for one request: a payment
        // tried, an invoice made. Refusals and reads live in memory for `freshness`.
        // Not written: the memory above still answers a copy for `freshness`.
        if Self.mustBeKept(answer) {
            UnsavedWrite.attempt("\(served.connection.name)'s answer to request \(event.id)", logger: logger) {
                try store.saveConnectionAnswer(served.connection, requestID: event.id, answer: json, now: now)
            }
        }
        var metadata: Logger.Metadata = ["connection": .string(served.connection.name), "method": .string(answer.method.isEmpty ? method : answer.method),
                                         "outcome": .string(answer.error?.code.rawValue ?? "ok")]
        if let error = answer.error, error.code != .rateLimited { metadata["reason"] = .string(String(error.message.prefix(200))) }
        if let paid = answer.paidMsat { metadata["amount_msat"] = .string(paid.description) }
        if case .object(let fields)? = answer.result {
            if answer.paidMsat == nil, let amount = fields.first(where: { $0.0 == "amount" }) { metadata["amount_msat"] = .string(amount.1.compact) }
            if let fee = fields.first(where: { $0.0 == "fees_paid" }) { metadata["fees_paid_msat"] = .string(fee.1.compact) }
        }
        let elapsed = ContinuousClock.now - started
        metadata["ms"] = .string(String(format: "%.2f", Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15))
        logger.info(answer.error == nil ? "nwc request" : "nwc request refused", metadata: metadata)
    }

    /// A payment's answer, refusals included (small, and final also after a restart), or an
    /// invoice made: what a request delivered again must get, never a second go.
    static func mustBeKept(_ answer: NWCHandler.Answer) -> Bool {
        switch answer.method {
        case "pay_invoice": answer.error?.code != .rateLimited
        case "make_invoice": answer.error == nil
        default: false
        }
    }

    /// The answer to a request not answered before, and its method (empty when it can't be read).
    func answer(_ event: NostrEvent, scheme: String, served: Served, admission: NWCRateLimiter.Admission, now: Date) async -> (NWCHandler.Answer, method: String) {
        guard event.tag("encryption") == nil || event.tag("encryption") == scheme else {
            return (.failed("", .unsupportedEncryption, "this wallet service speaks nip44_v2 and nip04"), "")
        }
        guard let plaintext = decrypt(event.content, scheme: scheme, served: served) else {
            return (.failed("", .other, "the request could not be decrypted"), "")
        }
        let method = Self.method(of: plaintext)
        if admission == .refused {
            return (.failed(method, .rateLimited, "too many requests; retry in a few seconds"), method)
        }
        let age = now.timeIntervalSince1970 - TimeInterval(event.created_at)
        guard abs(age) <= options.freshness else {
            // Said in whole seconds up to a year's worth (a made-up created_at may be any Int64).
            let seconds = Int(min(abs(age), 31_536_000))
            return (.failed(method, .other, "this request was made \(seconds) s \(age > 0 ? "ago" : "ahead of this service's clock"): "
                            + "requests older than \(Int(options.freshness)) s are not acted on; check the clock and send a new request"), method)
        }
        // Fresh from the store: a revocation or an expiry counts at once.
        guard let connection = try? store.connection(id: served.connection.id) else {
            return (.failed(method, .unauthorized, "this connection no longer exists"), method)
        }
        switch connection.state(at: now) {
        case .live: break
        case .revoked: return (.failed(method, .unauthorized, ConnectionRefusal.revoked.description), method)
        case .expired: return (.failed(method, .unauthorized, ConnectionRefusal.expired.description), method)
        }
        guard let session = await lightning(walletID: connection.walletID) else {
            return (.failed(method, .internal, "the wallet's Lightning can't be reached now; try again"), method)
        }
        let limit = scheme == "nip44_v2" ? Self.nip44PlaintextBytes : .max
        let answer = await NWCHandler(session: session, ask: announceApproval).answer(plaintext, connection: connection, requestID: event.id, now: now, maxAnswerBytes: limit)
        guard answer.json.utf8.count <= limit else {
            return (.failed(answer.method, .other, "the answer is larger than NIP-44 carries; ask for less"), method)
        }
        return (answer, method)
    }

    static func method(of plaintext: String) -> String {
        guard let data = plaintext.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let method = object["method"] as? String, method.utf8.count <= 64 else { return "" }
        return method
    }

    func decrypt(_ content: String, scheme: String, served: Served) -> String? {
        switch scheme {
        case "nip44_v2": try? NIP44.decrypt(content, conversationKey: served.conversationKey)
        default: try? NIP04.decrypt(content, privateKey: served.keys.secret, publicKey: served.clientKey)
        }
    }

    func encrypt(_ json: String, scheme: String, served: Served) -> String? {
        switch scheme {
        case "nip44_v2": try? NIP44.encrypt(json, conversationKey: served.conversationKey)
        default: try? NIP04.encrypt(json, privateKey: served.keys.secret, publicKey: served.clientKey)
        }
    }

    /// The answer (kind 23195), signed by the connection's service key, on each of its relays.
    func send(_ json: String, to served: Served, replyingTo request: NostrEvent, scheme: String) async {
        guard let content = encrypt(json, scheme: scheme, served: served),
              let event = try? NostrEvent.signed(kind: NostrEvent.Kind.walletResponse, tags: [["p", request.pubkey], ["e", request.id], ["encryption", scheme]],
                                                 content: content, by: served.keys, at: options.now()) else { return }
        for session in relays.sessions(served.connection.relays) { session.send(event) }
    }

    /// Keeps an answer in memory; now and then, the store's older than a day are forgotten (a
    /// request that old is refused anyway).
    func remember(_ id: String, answer: String, now: Date) {
        guard answers.remember(id, answer: answer, now: now) else { return }
        UnsavedWrite.attempt("the pruning of answers older than a day", logger: logger) { try store.pruneConnectionAnswers(before: now.addingTimeInterval(-86_400)) }
    }

    /// The wallet's Lightning session, opened once (signing) and kept; nil when it can't be opened now.
    func lightning(walletID: String) async -> LightningSession? {
        if let session = state.withLock({ $0.sessions[walletID] }) { return session }
        do {
            guard let wallet = try store.list().first(where: { $0.id == walletID }) else { throw WalletError.noSuchWallet(walletID) }
            let session = try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: backends) { keyring }
            let (kept, raced) = state.withLock { state -> (LightningSession, Bool) in
                if let other = state.sessions[walletID] { return (other, true) }
                state.sessions[walletID] = session
                return (session, false)
            }
            if raced { await session.close() }
            return kept
        } catch {
            logger.error("a wallet's Lightning could not be opened", metadata: ["reason": .string(String("\(error)".prefix(200)))])
            return nil
        }
    }

    func shutdown() async {
        let (sessions, listeners) = state.withLock { state in
            defer { state.sessions = [:]; state.listeners = [:] }
            return (state.sessions, state.listeners)
        }
        for relay in relays.removeAll() { relay.close() }
        for (walletID, session) in sessions {
            if let id = listeners[walletID] { session.backend.removeEventListener(id) }
            await session.close()
        }
    }
}
