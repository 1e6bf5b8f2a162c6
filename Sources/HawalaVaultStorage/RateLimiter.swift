import Foundation
import HawalaVault

/// Counts failures per key (a token hash, a client address) in fixed windows; past the limit
/// the key is refused until its window ends. Used for failed authentication and credential
/// recovery, so guessing tokens or phrases from one address or token is slow.
///
/// Memory is bounded and each call is O(1) (amortised): at most `maximumKeys` keys are kept;
/// expired windows are dropped oldest first as calls come in, and when the table is full the
/// oldest window is evicted to make room (a flood of new keys forgets the oldest ones, never
/// slows down every request).
public final class RateLimiter: @unchecked Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let maximumKeys: Int
    private let lock = NSLock()
    private struct Entry { var count: Int; let start: Date; let serial: UInt64 }
    private var entries: [String: Entry] = [:]
    /// Windows in the order they opened: (key, serial of its entry then).
    private var order: [(key: String, serial: UInt64)] = []
    private var head = 0
    private var nextSerial: UInt64 = 0

    public init(limit: Int, window: TimeInterval, maximumKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maximumKeys = max(1, maximumKeys)
    }

    /// How many keys are held now.
    public var count: Int { lock.withLock { entries.count } }

    /// Seconds to wait before `key` may try again, or nil when it may try now.
    public func retryAfter(_ key: String, now: Date = Date()) -> Int? {
        lock.withLock {
            expire(now: now)
            guard let entry = entries[key], now.timeIntervalSince(entry.start) < window, entry.count >= limit else { return nil }
            return max(1, Int((window - now.timeIntervalSince(entry.start)).rounded(.up)))
        }
    }

    /// Records one failure of `key`.
    public func recordFailure(_ key: String, now: Date = Date()) {
        lock.withLock {
            expire(now: now)
            if var entry = entries[key], now.timeIntervalSince(entry.start) < window {
                entry.count += 1
                entries[key] = entry
                return
            }
            while entries.count >= maximumKeys, popOldest() {}
            nextSerial += 1
            entries[key] = Entry(count: 1, start: now, serial: nextSerial)
            order.append((key, nextSerial))
        }
    }

    /// Drops windows that have ended, oldest first (each window is dropped once).
    private func expire(now: Date) {
        while head < order.count {
            let (key, serial) = order[head]
            if let entry = entries[key], entry.serial == serial, now.timeIntervalSince(entry.start) < window { break }
            _ = popOldest()
        }
    }

    /// Removes the oldest window; false when there is none.
    private func popOldest() -> Bool {
        guard head < order.count else { return false }
        let (key, serial) = order[head]
        if entries[key]?.serial == serial { entries[key] = nil }
        head += 1
        // Compact the queue now and then, so its memory follows the table's.
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return true
    }
}
