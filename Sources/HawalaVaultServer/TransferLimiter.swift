import Foundation
import Synchronization

/// How many uploads and downloads each user has running at once: one user's many transfers
/// can't take the server's connections, memory or disk to themselves. A transfer holds a
/// `TransferPermit` until its body has been read or sent (the permit returns its slot when it
/// is released).
final class TransferLimiter: Sendable {
    let limit: Int
    private let running = Mutex<[Int64: Int]>([:])

    init(limit: Int) { self.limit = max(1, limit) }

    /// A permit for one more transfer of `user`, or nil when it has `limit` running.
    func acquire(user: Int64) -> TransferPermit? {
        let limit = self.limit
        let granted = running.withLock { running -> Bool in
            guard running[user, default: 0] < limit else { return false }
            running[user, default: 0] += 1
            return true
        }
        return granted ? TransferPermit(limiter: self, user: user) : nil
    }

    /// Transfers `user` has running now.
    func count(user: Int64) -> Int { running.withLock { $0[user, default: 0] } }

    fileprivate func release(user: Int64) {
        running.withLock { running in
            running[user, default: 1] -= 1
            if running[user] == 0 { running[user] = nil }
        }
    }
}

/// One running transfer's slot; given back when the permit is released.
final class TransferPermit: Sendable {
    private let limiter: TransferLimiter
    private let user: Int64

    fileprivate init(limiter: TransferLimiter, user: Int64) {
        self.limiter = limiter
        self.user = user
    }

    deinit { limiter.release(user: user) }
}

/// A download's chunks holding its permit: the slot is given back when the response body (and
/// so this sequence) is released, after the last byte went out or the client went away. A
/// storage failure after the head was sent can only cut the body short: `failed` reports it.
struct PermittedChunks<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    typealias Element = ArraySlice<UInt8>
    let base: Base
    let permit: TransferPermit
    let failed: @Sendable (any Error) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let permit: TransferPermit
        let failed: @Sendable (any Error) -> Void

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                return try await base.next().map { ArraySlice($0) }
            } catch {
                failed(error)
                throw error
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), permit: permit, failed: failed) }
}
