import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Synchronization

/// The vault client's HTTP transport: one shared client that fails at once when the vault
/// can't be reached (no silent reconnect loop), 10 s to connect, 60 s without a byte read, 30
/// minutes for a whole request (large uploads on slow links).
enum VaultTransport {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool.retryConnectionEstablishment = false
        // A redirect is answered as it is, never followed: the token must not travel to another
        // origin, and a redirected login must not look like a vault.
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    static func make() -> AsyncHTTPClientTransport { AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .minutes(30))) }

    /// The typed error for a failure of the generated client: the vault's refusal (thrown by
    /// `RefusalMiddleware`), or why the vault could not be reached.
    static func error(_ error: any Error) -> VaultClientError {
        if let error = error as? VaultClientError { return error }
        guard let error = error as? ClientError else { return .unreachable(url: nil, cause: "\(error)") }
        if let refused = error.underlyingError as? VaultClientError { return refused }
        let url = error.baseURL?.absoluteString
        switch error.underlyingError {
        case let io as IOError: return .unreachable(url: url, cause: String(cString: strerror(io.errnoCode)).lowercased())
        case let http as HTTPClientError: return .unreachable(url: url, cause: "\(http)")
        // NIOSSL's error text names BoringSSL's source file; the person needs the reason.
        case let other where "\(other)".contains("CERTIFICATE_VERIFY_FAILED"): return .untrustedCertificate(url: url)
        case let other as DecodingError: return .malformedAnswer("\(other)")
        case let other: return .unreachable(url: url, cause: "\(other)")
        }
    }
}

/// `Authorization: Bearer` on every request.
struct BearerMiddleware: ClientMiddleware {
    let token: String
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// Turns every answer that is not a success (redirects included: they are never followed)
/// into `VaultClientError.refused`, so the status-to-error mapping exists once.
struct RefusalMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 300 else { return (response, responseBody) }
        struct Said: Decodable { let error: String }
        var reason: String?
        if let responseBody, let bytes = try? await Data(collecting: responseBody, upTo: 64 << 10) {
            reason = (try? JSONDecoder().decode(Said.self, from: bytes))?.error
        }
        throw VaultClientError.refused(VaultRefusal(operation: VaultOperation(operationID: operationID), status: response.status.code,
                                                    reason: reason, retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) }))
    }
}

/// An upload body handed to the HTTP client in 256 KiB pieces, reporting (bytes sent, total)
/// as the client takes them, so the figure follows the network, not the disk.
enum UploadBody {
    static func make(_ data: Data, progress: (@Sendable (Int, Int) -> Void)?) -> HTTPBody {
        let total = data.count
        let cursor = Cursor()
        let pieces = AsyncStream<ArraySlice<UInt8>>(unfolding: {
            guard let (start, end) = cursor.next(total: total, piece: 256 << 10) else { return nil }
            progress?(end, total)
            return ArraySlice(data[start..<end])
        })
        return HTTPBody(pieces, length: .known(Int64(total)), iterationBehavior: .single)
    }

    /// The next piece's bounds (the stream is read by one consumer; the mutex keeps it Sendable).
    private final class Cursor: Sendable {
        private let offset = Mutex(0)
        func next(total: Int, piece: Int) -> (Int, Int)? {
            offset.withLock { offset in
                guard offset < total else { return nil }
                defer { offset = min(offset + piece, total) }
                return (offset, min(offset + piece, total))
            }
        }
    }
}
