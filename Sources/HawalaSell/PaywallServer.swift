import AsyncHTTPClient
import Foundation
import HawalaLightning
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// `hawala ln sell`'s HTTP face: an L402 reverse proxy on `host:port` in front of `upstream`
/// (what Aperture does for lnd). Each request is decided by the `Paywall`; a paid one is sent
/// upstream without its credential and the answer streamed back. Bounded like every server of
/// Hawala's: a request body of at most `maximumBody` bytes read within `bodyTime`, idle
/// connections closed, the upstream's exchange within `upstreamTime`. One log line a request
/// (method, path, outcome, ms) — never a credential.
public struct PaywallServer: Sendable {
    public struct Limits: Sendable {
        public var maximumBody = 8 * 1_048_576
        public var bodyTime: Duration = .seconds(30)
        public var idleTimeout: Duration = .seconds(30)
        public var upstreamTime: Duration = .seconds(60)
        /// The most an answer kept for a held payment may hold.
        public var maximumKeptAnswer = 16 * 1_048_576
        public init() {}
    }

    public let upstream: URL
    public let host: String
    public let port: Int
    public let limits: Limits

    /// - Throws: `PaywallError.upstreamNotHTTP`.
    public init(upstream: URL, host: String = "127.0.0.1", port: Int, limits: Limits = Limits()) throws(PaywallError) {
        guard let scheme = upstream.scheme?.lowercased(), ["http", "https"].contains(scheme), upstream.host?.isEmpty == false else {
            throw .upstreamNotHTTP(upstream.absoluteString)
        }
        self.upstream = upstream
        self.host = host
        self.port = port
        self.limits = limits
    }

    /// Headers that belong to one connection, or to the buyer's side alone (its credential).
    static let notForwarded: Set<String> = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                                            "transfer-encoding", "upgrade", "host", "content-length", "authorization"]

    /// Serves until SIGINT or SIGTERM; `onRunning` hears the port once it listens; `log` gets one line a request.
    public func run(paywall makePaywall: @escaping @Sendable (@escaping Paywall.Upstream) -> Paywall, log: @escaping @Sendable (String) -> Void,
                    onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: .init(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .seconds(10), read: TimeAmount(limits.upstreamTime))))
        let paywall = makePaywall { request in await bufferedUpstream(request, client: client) }
        let logger = Logger(label: "hawala-sell")
        let router = Router()
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]
        for path in ["/", "**"] {
            for method in methods {
                router.on(RouterPath(path), method: method) { request, _ in try await answer(request, paywall: paywall, client: client, log: log) }
            }
        }
        let http1 = HTTPServerBuilder.http1(configuration: .init(idleTimeout: TimeAmount(limits.idleTimeout)))
        let app = Application(router: router, server: http1, configuration: .init(address: .hostname(host, port: port), serverName: "hawala-sell"),
                              onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    func answer(_ request: Request, paywall: Paywall, client: HTTPClient, log: @escaping @Sendable (String) -> Void) async throws -> Response {
        let started = ContinuousClock.now
        let method = request.method.rawValue
        let path = request.uri.path
        func done(_ response: Response, _ outcome: String) -> Response {
            let elapsed = ContinuousClock.now - started
            let ms = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            log("\(method) \(Paywall.loggable(path)) \(response.status.code) \(outcome) \(ms) ms")
            return response
        }
        let body: [UInt8]
        do {
            let limit = limits.maximumBody
            let incoming = request.body
            body = try await Deadline.run(limits.bodyTime, timedOut: { PaywallBodyError.tooSlow }) {
                var collected = try await incoming.collect(upTo: limit)
                return collected.readBytes(length: collected.readableBytes) ?? []
            }
        } catch PaywallBodyError.tooSlow {
            return done(Self.text(.requestTimeout, "the request's body did not arrive in time"), "refused (slow body)")
        } catch {
            return done(Self.text(.contentTooLarge, "the request's body is larger than \(limits.maximumBody / 1_048_576) MiB"), "refused (body too large)")
        }
        guard Self.isPlain(path) else {
            return done(Self.text(.badRequest, "a path with dot segments or encoded separators is not sold"), "refused (path)")
        }
        let headers = request.headers.filter { !Self.notForwarded.contains($0.name.canonicalName) }.map { ($0.name.canonicalName, $0.value) }
        let forward = Paywall.Forward(method: method, path: path, query: request.uri.query, headers: headers, body: body)
        switch await paywall.decide(forward, authorization: request.headers[.authorization]) {
        case .notForSale:
            return done(Self.text(.notFound, "nothing is sold at this path"), "not for sale")
        case .unavailable(let why):
            return done(Self.text(.serviceUnavailable, "no invoice can be made now: \(why)"), "unavailable")
        case .challenge(let value, let reason):
            var response = Self.json(.init(code: 402, reasonPhrase: "Payment Required"),
                                     #"{"error":"payment required","priceSats":\#(paywall.terms.price.value)}"#)
            response.headers[HTTPField.Name("WWW-Authenticate")!] = value
            return done(response, reason.map { "refused (\($0)), challenged" } ?? "challenged")
        case .deliver(let answer):
            var response = Response(status: .init(code: answer.status), body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
            for (name, value) in answer.headers { if let field = HTTPField.Name(name) { response.headers.append(HTTPField(name: field, value: value)) } }
            return done(response, "paid on delivery, delivered")
        case .forward:
            do {
                let response = try await streamedUpstream(forward, client: client)
                return done(response, "paid, forwarded")
            } catch {
                return done(Self.text(.badGateway, "the service behind this paywall did not answer"), "paid, upstream failed")
            }
        }
    }

    enum PaywallBodyError: Error { case tooSlow }

    /// A path rules can be trusted to match as the upstream will read it: no `.` or `..`
    /// segment, no percent-encoded dot, slash or backslash, no backslash.
    static func isPlain(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.contains("\\") else { return false }
        let lower = path.lowercased()
        if lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
    }

    func upstreamRequest(_ forward: Paywall.Forward) -> HTTPClientRequest {
        var url = upstream.absoluteString
        if url.hasSuffix("/") { url.removeLast() }
        var outgoing = HTTPClientRequest(url: url + (forward.path.hasPrefix("/") ? forward.target : "/" + forward.target))
        outgoing.method = HTTPMethod(rawValue: forward.method)
        for (name, value) in forward.headers { outgoing.headers.add(name: name, value: value) }
        if !forward.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: forward.body)) }
        return outgoing
    }

    /// A paid request's answer, streamed back as it comes.
    func streamedUpstream(_ forward: Paywall.Forward, client: HTTPClient) async throws -> Response {
        // The client's deadline ends with the answer's head: the body's end is bounded too.
        let end = ContinuousClock.now + limits.upstreamTime
        let upstreamResponse = try await client.execute(upstreamRequest(forward), deadline: .now() + TimeAmount(limits.upstreamTime))
        var headers = HTTPFields()
        for header in upstreamResponse.headers where !Self.notForwarded.contains(header.name.lowercased()) || header.name.lowercased() == "content-length" {
            if let field = HTTPField.Name(header.name) { headers.append(HTTPField(name: field, value: header.value)) }
        }
        return Response(status: .init(code: Int(upstreamResponse.status.code)), headers: headers,
                        body: ResponseBody(asyncSequence: UntilDeadline(base: upstreamResponse.body, end: end)))
    }

    /// The upstream's body, cut off once the exchange's time is over (each wait for a chunk is
    /// bounded by the client's read timeout, the whole by this).
    struct UntilDeadline<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
        let base: Base
        let end: ContinuousClock.Instant

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            let end: ContinuousClock.Instant

            mutating func next() async throws -> ByteBuffer? {
                guard ContinuousClock.now < end else { throw PaywallBodyError.tooSlow }
                return try await base.next()
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), end: end) }
    }

    /// A held payment's job: the upstream's whole answer, within the time and size bounds; nil
    /// when it can't be had.
    func bufferedUpstream(_ forward: Paywall.Forward, client: HTTPClient) async -> Paywall.Answer? {
        let request = upstreamRequest(forward)
        let (time, size) = (limits.upstreamTime, limits.maximumKeptAnswer)
        return try? await Deadline.run(time, timedOut: { PaywallBodyError.tooSlow }) {
            let response = try await client.execute(request, deadline: .now() + TimeAmount(time))
            let body = try await response.body.collect(upTo: size)
            let headers = response.headers.filter { !Self.notForwarded.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
            return Paywall.Answer(status: Int(response.status.code), headers: headers, body: Array(body.readableBytesView))
        }
    }

    static func text(_ status: HTTPResponse.Status, _ words: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: words + "\n")))
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body + "\n")))
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
