import Foundation
import Hummingbird
import Logging

/// One line per request at `notice` (`hawala-vault serve --access-log`): method, path, status,
/// bytes sent, milliseconds, client (as the rate limits see it, then the peer when a trusted
/// proxy forwarded the request). Never a header (a bearer token lives in one) and never a
/// body.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext
    static let logger = Logger(label: "hawala.vault.access")
    let trustedProxies: [AddressBlock]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        let resolved = ClientAddress.resolve(peer: peer, headers: request.headers, trustedProxies: trustedProxies)
        let client = resolved == peer ? peer : "\(resolved) via \(peer)"
        do {
            let response = try await next(request, context)
            log(request, status: Int(response.status.code), bytes: response.body.contentLength, since: start, client: client)
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500, bytes: nil, since: start, client: client)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, bytes: Int?, since start: ContinuousClock.Instant, client: String) {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        AccessLogMiddleware.logger.notice("\(request.method) \(request.uri.path) \(status) \(bytes.map(String.init) ?? "-") \(String(format: "%.1f", ms))ms \(client)")
    }
}
