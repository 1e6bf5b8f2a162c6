import Foundation
import HawalaFormat
import HawalaText
import HawalaVault
import HawalaVaultStorage
import HawalaVaultAPI
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle

/// Limits a deployment sets (`hawala-vault serve` options).
public struct VaultLimits: Sendable {
    /// Largest backup upload, bytes (413 beyond): by default the largest `.hawala` file.
    public var maximumUpload = Int64(HawalaFormat.maximumFileBytes)
    /// Largest credential envelope, bytes (413 beyond): the largest a client seals.
    public var maximumCredential = Int64(CredentialEnvelopeFormat.maximumEnvelopeBytes)
    /// Largest body of every other request (JSON), bytes (413 beyond), counted as it arrives.
    public var maximumSmallBody = 64 << 10
    /// A body read whole (JSON, a credential envelope) must have arrived within this (408
    /// beyond, and the connection is closed).
    public var smallBodyTime: Duration = .seconds(10)
    /// A backup upload must average at least this many bytes a second once `uploadGrace` has
    /// passed (408 beyond): a client trickling a byte now and then can't hold a connection.
    public var minimumUploadRate = 1024
    public var uploadGrace: Duration = .seconds(10)
    /// Bytes a user may store in all (507 beyond).
    public var quota: Int64 = 2 << 30
    /// Failed authentications (or credential recoveries) allowed per token and per address
    /// within `rateWindow` seconds (429 with Retry-After beyond).
    public var failuresAllowed = 10
    public var rateWindow: TimeInterval = 60
    /// A connection is closed when nothing arrives for this long: idle between requests, a
    /// request head not finished (slow headers), or a gap between body chunks.
    public var idleTimeout: Duration = .seconds(30)
    /// A storage that has not told who a token belongs to within this is unavailable (503).
    public var storageAnswer: Duration = .seconds(3)
    /// Uploads and downloads one user may run at once (429 with Retry-After beyond).
    public var transfersPerUser = 4
    /// Whether an account bound to a login key may log in with the words (`/auth/…`); the
    /// operator may turn it off (403).
    public var wordsLogin = true
    /// How long a words-login challenge may be answered.
    public var challengeLifetime: TimeInterval = 300
    public init() {}
}

/// The server's certificate chain and private key (PEM files), for serving HTTPS directly.
/// TLS 1.2 at least.
public struct VaultTLS: Sendable {
    let configuration: TLSConfiguration

    /// Reads both files now, so a wrong path or format is reported before the server starts.
    public init(certificateChainFile: String, privateKeyFile: String) throws(VaultError) {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificateChainFile) } catch {
            throw .invalidField("certificate", "cannot read a PEM certificate chain from \(certificateChainFile)")
        }
        guard !chain.isEmpty else { throw .invalidField("certificate", "\(certificateChainFile) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem) } catch {
            throw .invalidField("key", "cannot read an unencrypted PEM private key from \(privateKeyFile)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        self.configuration = configuration
    }
}

/// The caller of the request being handled, set by `VaultAuthMiddleware`.
enum VaultRequest {
    @TaskLocal static var user: VaultUser?
    /// The bearer token the request came with (for `revokeOtherTokens`: every token but it).
    @TaskLocal static var token: String?
    @TaskLocal static var clientAddress: String = "unknown"
}

/// The vault's HTTP server: the generated OpenAPI handlers over a `VaultStorage`, behind
/// bearer authentication, rate limits, size limits and metrics.
public enum VaultServer {
    /// The application listening on `host:port` (port 0: any free port; `onRunning` gets it).
    /// `trustedProxies`: peers whose `Forwarded`/`X-Forwarded-For` names the real client (for
    /// the rate limits); every other peer is the client. `accessLog`: a line per request at
    /// `notice`. `tls`: serve HTTPS with that certificate. `metricsPort`: serve `GET /metrics`
    /// (Prometheus text) there, on 127.0.0.1 only (none otherwise; `onMetricsRunning` gets the
    /// port). Retention runs for every user once a day as a service of the application (every
    /// `pruneEvery` it asks whether today's pass is still to run: servers sharing a database
    /// run one a day between them), as well as after each upload.
    public static func application(storage: VaultStorage, host: String = "127.0.0.1", port: Int = 8080, limits: VaultLimits = VaultLimits(),
                                   trustedProxies: [AddressBlock] = [], accessLog: Bool = false, tls: VaultTLS? = nil,
                                   metricsPort: Int? = nil, pruneEvery: Duration = .seconds(3600),
                                   onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                                   onMetricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let metrics = VaultMetrics()
        let health = StorageHealth()
        let authFailures = RateLimiter(limit: limits.failuresAllowed, window: limits.rateWindow)
        let router = Router(context: VaultRequestContext.self)
        if accessLog { router.add(middleware: AccessLogMiddleware(trustedProxies: trustedProxies)) }
        router.add(middleware: VaultHeadersMiddleware())
        router.add(middleware: VaultAuthMiddleware(storage: storage, failures: authFailures, limits: limits, metrics: metrics, health: health,
                                                   trustedProxies: trustedProxies))
        let handler = VaultHandler(storage: storage, limits: limits, counters: metrics, health: health,
                                   recoveries: RateLimiter(limit: limits.failuresAllowed, window: limits.rateWindow),
                                   transfers: TransferLimiter(limit: limits.transfersPerUser),
                                   logins: RateLimiter(limit: limits.failuresAllowed, window: limits.rateWindow))
        try handler.registerHandlers(on: router, configuration: Configuration(dateTranscoder: VaultDateTranscoder()),
                                     middlewares: [VaultMetricsMiddleware(metrics: metrics, health: health), VaultListCache()])
        let connections = ConnectionGuard.fromDescriptorLimit(minimumBodyRate: limits.minimumUploadRate)
        let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [connections.handler(), CloseAfterAnswerHandler(),
                                                                                            ExpectContinueHandler(maximumBody: limits.maximumUpload)],
                                                                 idleTimeout: TimeAmount(limits.idleTimeout)))
        let server = try tls.map { try HTTPServerBuilder.tls(http1, tlsConfiguration: $0.configuration) } ?? http1
        var services: [any Service] = [DailyPrune(storage: storage, every: pruneEvery, metrics: metrics, now: { Date() })]
        if let metricsPort { services.append(metricsApplication(metrics, port: metricsPort, onRunning: onMetricsRunning)) }
        return Application(router: router, server: server, configuration: .init(address: .hostname(host, port: port), serverName: "hawala-vault"),
                           services: services,
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) })
    }

    /// Raises this process's soft limit on open files to the hard limit (what a server should
    /// run with); `application` then keeps client connections under it (`ConnectionGuard`).
    public static func raiseDescriptorLimit() { ConnectionGuard.raiseDescriptorLimit() }

    /// `GET /metrics` on 127.0.0.1:`port`, apart from the API: what a scraper on this machine
    /// reads (request counts by route and status, including 401, 429 and 5xx; durations; bytes),
    /// never reachable from where the clients are.
    static func metricsApplication(_ metrics: VaultMetrics, port: Int, onRunning: @escaping @Sendable (Int) async -> Void) -> some Service {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hawala-vault-metrics"),
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) })
    }
}

/// A request's context with the client's address (for per-address rate limits).
struct VaultRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Headers on every answer: nothing is cached (a list of backups, a credential envelope),
/// nothing is sniffed into another type, and a 401 says how to authenticate. Digests go out as
/// RFC 9530 and RFC 9110 write them: the generated code percent-encodes header values
/// (`%22…%22`, `sha-256%3D%3A…`). A refused request whose body may still be arriving is
/// answered with `Connection: close`, so the rest of its body is never waited for.
struct VaultHeadersMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if response.status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer realm=\"hawala-vault\"" }
        for name in [HTTPField.Name.eTag, HTTPField.Name("Repr-Digest")!] {
            if let value = response.headers[name], value.contains("%") { response.headers[name] = value.removingPercentEncoding ?? value }
        }
        let hasBody = request.headers[.transferEncoding] != nil || (request.headers[.contentLength].flatMap(Int64.init) ?? 0) > 0
        if hasBody, response.status.code >= 400 { response.headers[.connection] = "close" }
        return response
    }
}

/// Resolves the bearer token of every /vault request, counting failures per token and per
/// client address; bounds every request body in size and time before a handler sees it. A
/// storage that fails to answer is the server's problem: 503 with Retry-After, `/healthz`
/// marked, never a failed authentication.
struct VaultAuthMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext
    let storage: VaultStorage
    let failures: RateLimiter
    let limits: VaultLimits
    let metrics: VaultMetrics
    let health: StorageHealth
    let trustedProxies: [AddressBlock]
    static let logger = Logger(label: "hawala.vault")

    /// An answer given here, before any operation: counted in `/metrics` under "auth" (401,
    /// 429, 405, 413 would otherwise be invisible there).
    private func early(_ response: Response) -> Response {
        metrics.record(route: "auth", status: Int(response.status.code), bytesIn: 0, bytesOut: 0)
        return response
    }

    /// Methods of each route (path segments, `*` for a backup id), for 405 answers.
    static let routes: [([String], Set<HTTPRequest.Method>)] = [
        (["vault", "backup"], [.post]), (["vault", "backups"], [.get]), (["vault", "backups", "*"], [.get, .delete]),
        (["vault", "restore"], [.post]), (["vault", "backup", "settings"], [.get, .put]),
        (["vault", "credentials", "backup"], [.get, .post]), (["vault", "credentials", "recover"], [.post]),
        (["vault", "login-key"], [.get, .put, .delete]), (["vault", "tokens", "revoke-others"], [.post]),
        (["auth", "challenge"], [.post]), (["auth", "words"], [.post]),
        (["healthz"], [.get]),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        let address = ClientAddress.limitKey(ClientAddress.resolve(peer: peer, headers: request.headers, trustedProxies: trustedProxies))
        let segments = request.uri.path.split(separator: "/").map(String.init)
        if let route = VaultAuthMiddleware.routes.first(where: { $0.0.count == segments.count && zip($0.0, segments).allSatisfy { $0 == "*" || $0 == $1 } }),
           !route.1.contains(request.method) {
            var response = VaultAuthMiddleware.error(.methodNotAllowed, "\(request.method) is not allowed here")
            response.headers[HTTPField.Name("Allow")!] = route.1.map(\.rawValue).sorted().joined(separator: ", ")
            return early(response)
        }
        let policy = BodyPolicy.of(request.method, segments, limits: limits)
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > policy.limit { return early(tooLarge(policy.limit)) }
        guard request.uri.path.hasPrefix("/vault") else {
            return try await VaultRequest.$clientAddress.withValue(address) { try await withBody(request, policy, context, next) }
        }
        let token = request.headers[.authorization].flatMap { value -> String? in
            guard value.lowercased().hasPrefix("bearer ") else { return nil }
            return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        // A valid token is never refused because of failures: not its address's (a NAT, an
        // office, a proxy shares one), not anyone else's. Only requests that fail count.
        if let token {
            let user: VaultUser?
            do {
                user = try await StorageDeadline.answer(within: limits.storageAnswer) { [storage] () async throws(VaultError) in try await storage.user(token: token) }
            } catch .unauthorized {
                user = nil  // counted below
            } catch {
                return early(unavailable(error))
            }
            if let user {
                return try await VaultRequest.$user.withValue(user) {
                    try await VaultRequest.$token.withValue(token) {
                        try await VaultRequest.$clientAddress.withValue(address) { try await withBody(request, policy, context, next) }
                    }
                }
            }
        }
        let tokenKey = "token:" + String((token ?? "").hashValue)
        for key in ["addr:" + address] + (token == nil ? [] : [tokenKey]) {
            if let retry = failures.retryAfter(key) {
                var response = VaultAuthMiddleware.error(.tooManyRequests, "too many failed attempts; retry in \(retry) s")
                response.headers[HTTPField.Name("Retry-After")!] = String(retry)
                return early(response)
            }
        }
        failures.recordFailure("addr:" + address)
        if token != nil { failures.recordFailure(tokenKey) }
        return early(VaultAuthMiddleware.error(.unauthorized, "invalid or revoked token"))
    }

    /// Runs the handler with the request's body bounded by `policy`: a buffered body read
    /// whole first (413, or 408 when too slow), a streamed one checked for its rate as it goes.
    private func withBody(_ request: Request, _ policy: BodyPolicy, _ context: Context,
                          _ next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        switch policy {
        case .streamed:
            request.body = RequestBodies.rateLimited(request, minimumRate: limits.minimumUploadRate, grace: limits.uploadGrace)
        case .buffered(let limit):
            switch try await RequestBodies.buffer(&request, limit: limit, time: limits.smallBodyTime) {
            case .tooLarge?: return early(tooLarge(limit))
            case .tooSlow?: return early(VaultAuthMiddleware.error(.requestTimeout, "the request's body did not arrive within \(limits.smallBodyTime.seconds) s"))
            case nil: break
            }
        }
        return try await next(request, context)
    }

    private func tooLarge(_ limit: Int64) -> Response {
        VaultAuthMiddleware.error(.contentTooLarge, "the request is larger than the limit of \(limit) bytes")
    }

    /// 503 for a storage that failed to answer; `/healthz` says so for a minute.
    private func unavailable(_ error: VaultError) -> Response {
        VaultAuthMiddleware.logger.error("storage unavailable: \(error)")
        health.failed(.unavailable)
        return VaultAuthMiddleware.unavailable()
    }

    /// The answer while the storage is unavailable: retry in `StorageHealth.retryAfter` seconds.
    static func unavailable() -> Response {
        var response = error(.serviceUnavailable, "the vault's storage is unavailable; retry in \(StorageHealth.retryAfter) s")
        response.headers[HTTPField.Name("Retry-After")!] = String(StorageHealth.retryAfter)
        return response
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = (try? JSONEncoder().encode(Components.Schemas._Error(error: message))) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Counts requests by operation and status, their durations and body bytes, for `/metrics`;
/// notes storage failures for `/healthz`; turns requests
/// the generated code can't decode into 400 answers.
struct VaultMetricsMiddleware: ServerMiddleware {
    let metrics: VaultMetrics
    let health: StorageHealth
    static let logger = Logger(label: "hawala.vault")

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let started = ContinuousClock.now
        let (response, responseBody): (HTTPResponse, HTTPBody?)
        do {
            (response, responseBody) = try await next(request, body, metadata)
        } catch let error as ServerError {
            // A request the generated code could not decode (missing or malformed body,
            // parameter): 400 with the reason, never a 500. A storage that failed to answer:
            // 503, retry later. Anything else the server did wrong: 500.
            let vaultError = error.underlyingError as? VaultError
            let status: HTTPResponse.Status = vaultError == nil ? .badRequest : vaultError!.isStorageFailure ? .serviceUnavailable : .internalServerError
            var message = switch status {
            case .badRequest: "invalid request: \(VaultMetricsMiddleware.describe(error))"
            case .serviceUnavailable: "the vault's storage is unavailable; retry in \(StorageHealth.retryAfter) s"
            default: "server error"
            }
            var headers: HTTPFields = [.contentType: "application/json"]
            if let vaultError {
                // Logged with an id the client also gets, so an operator can find it.
                let id = hexString((0..<8).map { _ in UInt8.random(in: 0...255) })
                VaultMetricsMiddleware.logger.error("\(status.code) \(operationID): \(vaultError)", metadata: ["request": "\(id)"])
                health.failed(vaultError.isStorageFailure ? .unavailable : .failing)
                headers[HTTPField.Name("X-Request-ID")!] = id
                if status == .serviceUnavailable { headers[HTTPField.Name("Retry-After")!] = String(StorageHealth.retryAfter) }
                message += " (request \(id))"
            }
            let json = (try? JSONEncoder().encode(Components.Schemas._Error(error: message))) ?? Data()
            (response, responseBody) = (HTTPResponse(status: status, headerFields: headers), HTTPBody(json))
        }
        let bytesIn = request.headerFields[.contentLength].flatMap(Int.init) ?? 0
        let bytesOut: Int = switch responseBody?.length { case .known(let n)?: Int(n); default: 0 }
        // The duration runs to the answer's head (a download's body streams after).
        metrics.record(route: operationID, status: response.status.code, bytesIn: bytesIn, bytesOut: bytesOut, duration: ContinuousClock.now - started)
        return (response, responseBody)
    }
}

extension VaultMetricsMiddleware {
    /// What is wrong with a request the generated code could not decode, naming fields, never
    /// Swift types (`DecodingError`, `CodingKeys`).
    static func describe(_ error: ServerError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error.underlyingError {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field \(parent == "the body" ? key.stringValue : parent + "." + key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "\(path(context)) has an invalid value"
        default:
            return "it does not match the vault's API (\(error.operationID))"
        }
    }
}

/// RFC 3339 dates in whole seconds (`2026-11-23T07:52:03Z`), as OpenAPIRuntime's default
/// transcoder writes them, without its shared formatter's lock: listing backups formats one
/// date per backup on every request.
public struct VaultDateTranscoder: DateTranscoder {
    public init() {}

    private let fallback = ISO8601DateTranscoder()

    public func encode(_ date: Date) throws -> String {
        // Like Foundation's formatter: milliseconds rounded, then the fraction dropped.
        var seconds = time_t(((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, (0...9999).contains(parts.tm_year + 1900) else { return try fallback.encode(date) }
        var out = [UInt8]()
        out.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 { out.append(UInt8(48 + (value / divisor) % 10)); divisor /= 10 }
        }
        digits(parts.tm_year + 1900, 4); out.append(45)
        digits(parts.tm_mon + 1, 2); out.append(45)
        digits(parts.tm_mday, 2); out.append(84)
        digits(parts.tm_hour, 2); out.append(58)
        digits(parts.tm_min, 2); out.append(58)
        digits(parts.tm_sec, 2); out.append(90)
        return String(decoding: out, as: UTF8.self)
    }

    public func decode(_ text: String) throws -> Date { try fallback.decode(text) }
}
