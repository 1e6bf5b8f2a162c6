import Foundation
import Hummingbird
import Logging
import Synchronization

/// One line per request at `notice` (`hawala-vault serve --access-log`): method, path, status,
/// bytes sent, milliseconds, client (as the rate limits see it, then the peer when a trusted
/// proxy forwarded the request). Never a header (a bearer token lives in one) and never a
/// body. Lines are written off the event loops (`AccessLogWriter`).
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext
    let trustedProxies: [AddressBlock]
    let writer = AccessLogWriter()

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
        writer.write("\(request.method) \(request.uri.path) \(status) \(bytes.map(String.init) ?? "-") \(String(format: "%.1f", ms))ms \(client)")
    }
}

/// Writes the access log from one background queue, never from the thread serving a request:
/// a blocked stderr (a full pipe, a slow terminal) must not stall the event loops. Past
/// `maximumPending` lines waiting, new ones are dropped, and the count of dropped lines is
/// written with the next line that gets through.
final class AccessLogWriter: Sendable {
    static let logger = Logger(label: "hawala.vault.access")
    static let maximumPending = 10_000
    private let queue = DispatchQueue(label: "hawala.vault.access-log")
    private let pending = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    func write(_ line: String) {
        guard pending.add(1, ordering: .relaxed).newValue <= Self.maximumPending else {
            pending.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
            return
        }
        queue.async { [self] in
            let lost = dropped.exchange(0, ordering: .relaxed)
            if lost > 0 { Self.logger.notice("(\(lost) access log lines dropped: the log could not keep up)") }
            Self.logger.notice("\(line)")
            pending.subtract(1, ordering: .relaxed)
        }
    }
}
