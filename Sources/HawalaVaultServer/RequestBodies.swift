import Foundation
import HawalaVault
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How a request's body is read: every body is bounded in size as it arrives (chunked or not)
/// and in time, so no client holds memory or a connection with a body that never ends.
enum BodyPolicy: Equatable {
    /// A backup upload, streamed into storage: at most `limit` bytes, at a minimum rate.
    case streamed(limit: Int64)
    /// Everything else (JSON, a credential envelope): read whole before the handler runs, at
    /// most `limit` bytes, within the limits' `smallBodyTime`.
    case buffered(limit: Int64)

    var limit: Int64 {
        switch self {
        case .streamed(let limit), .buffered(let limit): limit
        }
    }

    /// The policy of `method` on the path `segments`.
    static func of(_ method: HTTPRequest.Method, _ segments: [String], limits: VaultLimits) -> BodyPolicy {
        switch (method, segments) {
        case (.post, ["vault", "backup"]): .streamed(limit: limits.maximumUpload)
        case (.post, ["vault", "credentials", "backup"]): .buffered(limit: limits.maximumCredential)
        default: .buffered(limit: Int64(limits.maximumSmallBody))
        }
    }
}

/// Why a body was not taken.
enum BodyRefusal: Error, Equatable {
    case tooLarge(limit: Int64)
    case tooSlow
}

enum RequestBodies {
    /// Reads `request`'s body whole into memory (at most `limit` bytes, every chunk counted as
    /// it arrives) and puts it back as one buffer. A body still arriving after `time` is
    /// refused at its next chunk; one that stops arriving is cut by the idle timeout.
    static func buffer(_ request: inout Request, limit: Int64, time: Duration) async throws -> BodyRefusal? {
        let deadline = ContinuousClock.now + time
        var collected = ByteBuffer()
        for try await chunk in request.body {
            guard Int64(collected.readableBytes + chunk.readableBytes) <= limit else { return .tooLarge(limit: limit) }
            guard ContinuousClock.now <= deadline else { return .tooSlow }
            var chunk = chunk
            collected.writeBuffer(&chunk)
        }
        request.body = RequestBody(buffer: collected)
        return nil
    }

    /// `request`'s body, refused with `VaultError.tooSlow` at the first chunk that finds it
    /// averaging under `minimumRate` bytes a second once `grace` has passed.
    static func rateLimited(_ request: Request, minimumRate: Int, grace: Duration) -> RequestBody {
        RequestBody(asyncSequence: MinimumRate(base: request.body, minimumRate: minimumRate, grace: grace))
    }
}

/// A body that must keep arriving at `minimumRate` bytes a second on average after `grace`.
struct MinimumRate: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let minimumRate: Int
    let grace: Duration

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let minimumRate: Int
        let grace: Duration
        let start = ContinuousClock.now
        var received = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            received += chunk.readableBytes
            let elapsed = ContinuousClock.now - start
            if elapsed > grace, Double(received) < Double(minimumRate) * elapsed.seconds { throw VaultError.tooSlow(minimumBytesPerSecond: minimumRate) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), minimumRate: minimumRate, grace: grace) }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Closes a connection once it has sent an answer that says `Connection: close`. Hummingbird
/// would otherwise read the rest of a refused request's body before the next request, so a
/// client trickling a body it was told to stop sending kept its connection.
final class CloseAfterAnswerHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .end where closing:
            closing = false
            context.writeAndFlush(data).whenComplete { _ in context.close(promise: nil) }
            promise?.succeed()
        default:
            context.write(data, promise: promise)
        }
    }
}

/// Storage calls that must answer within a bound: a database that does not answer (SQLite
/// retries a locked WAL index for about 10 s before it gives up) must not hold requests that
/// long, however long the call itself goes on.
enum StorageDeadline {
    /// The result of `operation`, or `VaultError.noConnection` once `limit` has passed first
    /// (the operation then finishes on its own, its result dropped).
    static func answer<T: Sendable>(within limit: Duration,
                                    _ operation: @escaping @Sendable () async throws(VaultError) -> T) async throws(VaultError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, VaultError>, Never>) in
            let pending = ResumeOnce(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                pending.resume(.failure(.noConnection(seconds: limit.components.seconds)))
            }
            Task {
                let outcome: Result<T, VaultError>
                do throws(VaultError) { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
                timer.cancel()
                pending.resume(outcome)
            }
        }
        return try result.get()
    }

    /// A continuation resumed by the first of two racers.
    private final class ResumeOnce<T: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<T, Never>?>

        init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = Mutex(continuation) }

        func resume(_ value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
    }
}
