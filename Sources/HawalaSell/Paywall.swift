import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import Synchronization

/// The rule of `hawala ln sell`, apart from HTTP: for each request, whether it is for sale,
/// needs paying (an L402 challenge: an invoice of the wallet's and a credential bound to it),
/// is paid (forwarded), or — with `hold` — was paid for on delivery and its answer is ready.
///
/// On delivery (`terms.hold`): the challenge's invoice is a hold invoice; the request that
/// asked is kept, and once its payment is held it is sent upstream: a 2xx answer settles the
/// payment (the buyer's wallet gets the preimage, its retry with the credential gets that
/// answer), anything else cancels it (the buyer's money goes back). Nothing is taken for a job
/// that did not come back.
public final class Paywall: Sendable {
    /// A request as the paywall keeps it to send upstream.
    public struct Forward: Sendable {
        public let method: String
        /// The path alone (what path rules match), checked free of dot segments and encoded
        /// separators by the server.
        public let path: String
        public let query: String?
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        public init(method: String, path: String, query: String? = nil, headers: [(name: String, value: String)], body: [UInt8]) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }

        /// What is asked of the upstream: the path and its query.
        public var target: String { query.map { path + "?" + $0 } ?? path }
    }

    /// The upstream's answer, whole (what a held payment waits for).
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// What to do with a request.
    public enum Decision: Sendable {
        /// No path rule covers it (404).
        case notForSale
        /// 402 with this `WWW-Authenticate` value; `reason` says why a credential sent was not enough.
        case challenge(wwwAuthenticate: String, reason: String?)
        /// Paid: forward it upstream (without its credential).
        case forward
        /// Paid on delivery: the upstream's answer, given when the payment was settled.
        case deliver(Answer)
        /// The wallet could not make an invoice now (503), in words.
        case unavailable(String)
    }

    /// Sends a request upstream; nil when it could not be reached in time.
    public typealias Upstream = @Sendable (Forward) async -> Answer?

    public static let invoiceExpiry: UInt64 = 600
    /// Requests kept waiting for their held payment at once, and answers kept for their buyers.
    static let maximumJobs = 1_000
    static let maximumKeptBytes = 64 * 1_048_576

    public let terms: PaywallTerms
    let session: LightningSession
    let key: SecretBytes
    let upstream: Upstream
    let clock: @Sendable () -> Date
    let log: @Sendable (String) -> Void

    private struct Jobs {
        var waiting: [String: Int] = [:]
        var waitingBytes = 0
        var delivered: [String: (answer: Answer, until: Date)] = [:]
        var keptBytes = 0
        var tasks: [String: Task<Void, Never>] = [:]

        /// Answers their buyers did not come back for, dropped once their time passed.
        mutating func dropStale(now: Date) {
            for (hash, kept) in delivered where kept.until <= now {
                delivered[hash] = nil
                keptBytes -= kept.answer.body.count
            }
        }
    }
    private let jobs = Mutex(Jobs())

    /// `scope` names what is sold (the upstream's address): with the price and the path rules,
    /// it is bound into every credential's tag, so a credential bought from one paywall of the
    /// wallet (or before its terms changed) buys nothing from another.
    public init(terms: PaywallTerms, scope: String, session: LightningSession, key: SecretBytes, upstream: @escaping Upstream,
                clock: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.terms = terms
        self.session = session
        let sold = "hawala paywall terms v1\n\(scope)\n\(terms.price.value)\n\(terms.hold)\n" + terms.paths.map(\.source).joined(separator: "\n")
        self.key = SecretBytes(Hash.hmacSHA256(key: key, Array(sold.utf8)))
        self.upstream = upstream
        self.clock = clock
        self.log = log
    }

    deinit { jobs.withLock { $0.tasks.values.forEach { $0.cancel() } } }

    /// The wallet's paywall key (made the first time, kept sealed): what binds its credentials,
    /// so one sold before a restart still works after it.
    public static func key(store: WalletStore, walletID: String, keyring: Keyring) throws -> SecretBytes {
        let name = "ln.sell.key." + walletID
        if let kept = try store.sealedSetting(name, keyring: keyring) { return kept }
        let fresh = SecretBytes(SystemRandom.bytes(32))
        try store.setSealedSetting(name, secret: fresh, keyring: keyring)
        return fresh
    }

    /// Decides for one request: `authorization` is its `Authorization` header, `request` what
    /// is sent upstream when it is paid on delivery.
    public func decide(_ request: Forward, authorization: String?) async -> Decision {
        guard let rule = terms.rule(for: request.path) else { return .notForSale }
        var reason: Refusal?
        if let authorization {
            switch check(authorization, rule: rule) {
            case .success(let hash):
                let now = clock()
                if terms.hold, let answer = jobs.withLock({ jobs -> Answer? in
                    jobs.dropStale(now: now)
                    guard let kept = jobs.delivered.removeValue(forKey: hash) else { return nil }
                    jobs.keptBytes -= kept.answer.body.count
                    return kept.answer
                }) {
                    return .deliver(answer)
                }
                return .forward
            case .failure(let why):
                reason = why
            }
        }
        return await challenge(for: request, rule: rule, reason: reason)
    }

    /// The payment hash (hex) a valid credential paid, its use counted; or why it is not valid.
    func check(_ authorization: String, rule: [UInt8]) -> Result<String, Refusal> {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["L402", "LSAT"].contains(parts[0].uppercased()) else { return .failure(Refusal("not an L402 credential")) }
        let pair = parts[1].split(separator: ":")
        guard pair.count == 2, let credential = PaywallCredential.read(String(pair[0]), key: key) else { return .failure(Refusal("not a credential of this paywall")) }
        guard let preimage = bytes(fromHex: String(pair[1])), preimage.count == 32, Hash.sha256(preimage) == credential.paymentHash else {
            return .failure(Refusal("the preimage does not match"))
        }
        guard credential.rule == rule else { return .failure(Refusal("a credential for another path")) }
        if let expiresAt = credential.expiresAt, clock() >= expiresAt { return .failure(Refusal("expired")) }
        let hash = hexString(credential.paymentHash)
        // No limit on its uses: nothing to count (no write on the way of a paid request).
        guard credential.uses != nil else { return .success(hash) }
        do {
            guard try session.store.usePaywallCredential(paymentHash: hash, walletID: session.wallet.id, limit: credential.uses, now: clock()) else {
                return .failure(Refusal("used up"))
            }
        } catch {
            return .failure(Refusal("its uses can't be counted now"))
        }
        return .success(hash)
    }

    struct Refusal: Error { let words: String; init(_ words: String) { self.words = words } }

    /// A fresh invoice and credential for `request` (on delivery: a hold invoice, the request kept).
    func challenge(for request: Forward, rule: [UInt8], reason: Refusal?) async -> Decision {
        if terms.hold, jobs.withLock({ $0.waiting.count >= Self.maximumJobs || $0.waitingBytes + request.body.count > Self.maximumKeptBytes }) {
            return .unavailable("too many jobs wait for their payment; try again later")
        }
        let receive = ReceiveRequest(amountSats: terms.price, description: "paid request: " + String(request.path.prefix(100)), expirySeconds: Self.invoiceExpiry)
        let made: CreatedInvoice
        do {
            made = terms.hold ? try await session.receiveHeld(receive) : try await session.receive(receive)
        } catch {
            return .unavailable(error.description)
        }
        guard let hash = bytes(fromHex: made.response.paymentHash), hash.count == 32 else { return .unavailable("the invoice has no payment hash") }
        let credential = PaywallCredential(paymentHash: hash, rule: rule, expiresAt: terms.validFor.map { clock().addingTimeInterval($0) }, uses: terms.uses)
        if terms.hold { deliverOnPayment(made.response, request: request) }
        let value = "L402 macaroon=\"\(credential.token(key: key))\", invoice=\"\(made.response.invoice)\""
        return .challenge(wwwAuthenticate: value, reason: reason.map { $0.words })
    }

    /// Waits for the held payment of `invoice`, then sends `request` upstream: settled on 2xx,
    /// cancelled otherwise (or when the upstream can't be reached).
    func deliverOnPayment(_ invoice: ReceiveResponse, request: Forward) {
        let hash = invoice.paymentHash
        let wait = Duration.seconds(max(1, invoice.expiresAt.timeIntervalSince(clock())))
        let task = Task { [session, upstream, log, clock] in
            defer {
                jobs.withLock { jobs in
                    if let bytes = jobs.waiting.removeValue(forKey: hash) { jobs.waitingBytes -= bytes }
                    jobs.tasks[hash] = nil
                }
            }
            guard let payment = try? await session.lightning.waitForPayment(paymentHash: hash, timeout: wait), payment.isHeld else {
                // Never paid: its preimage is kept no longer.
                try? session.store.forgetHoldPreimage(paymentHash: hash, walletID: session.wallet.id)
                return
            }
            let started = ContinuousClock.now
            let answer = await upstream(request)
            let ms = (ContinuousClock.now - started).components.seconds * 1_000 + (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000
            if let answer, (200..<300).contains(answer.status) {
                let until = clock().addingTimeInterval(TimeInterval(Self.invoiceExpiry))
                let kept = jobs.withLock { jobs -> Bool in
                    jobs.dropStale(now: clock())
                    guard jobs.keptBytes + answer.body.count <= Self.maximumKeptBytes else { return false }
                    jobs.delivered[hash] = (answer, until)
                    jobs.keptBytes += answer.body.count
                    return true
                }
                do {
                    _ = try await session.settle(.paymentHash(hash))
                    log("\(request.method) \(Self.loggable(request.path)) delivered \(answer.status), payment settled, \(ms) ms")
                } catch {
                    jobs.withLock { jobs in
                        if let dropped = jobs.delivered.removeValue(forKey: hash) { jobs.keptBytes -= dropped.answer.body.count }
                    }
                    log("\(request.method) \(Self.loggable(request.path)) delivered \(answer.status), but the payment could not be settled: \(error)")
                }
                if !kept { log("the answer was too large to keep for its buyer; their retry is forwarded again") }
            } else {
                let why = answer.map { "upstream \($0.status)" } ?? "upstream unreachable"
                do {
                    _ = try await session.cancel(paymentHash: hash)
                    log("\(request.method) \(Self.loggable(request.path)) not delivered (\(why)), payment cancelled, \(ms) ms")
                } catch {
                    log("\(request.method) \(Self.loggable(request.path)) not delivered (\(why)); the payment is not taken: \(error)")
                }
            }
        }
        jobs.withLock { jobs in
            jobs.waiting[hash] = request.body.count
            jobs.waitingBytes += request.body.count
            jobs.tasks[hash] = task
        }
    }

    /// A path as a log line shows it: its control characters replaced, at most 200 scalars.
    public static func loggable(_ path: String) -> String { DisplayText.safe(TextLimit.prefix(path, scalars: 200)) }
}
