import Foundation
import HawalaVault
import Synchronization

/// Counts failures per key (a token hash, a client address) in fixed windows; past the limit
/// the key is refused until its window ends. Used for failed authentication and credential
/// recovery, so guessing tokens or phrases from one address or token is slow.
///
/// Memory is bounded and each call is O(1) (amortised): at most `maximumKeys` keys are kept;
/// expired windows are dropped oldest first as calls come in, and when the table is full the
/// oldest window is evicted to make room (a flood of new keys forgets the oldest ones, never
/// slows down every request).
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let maximumKeys: Int
    private let table = Mutex(Table())

    public init(limit: Int, window: TimeInterval, maximumKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maximumKeys = max(1, maximumKeys)
    }

    /// How many keys are held now.
    public var count: Int { table.withLock { $0.entries.count } }

    /// Seconds to wait before `key` may try again, or nil when it may try now.
    public func retryAfter(_ key: String, now: Date = Date()) -> Int? {
        let (limit, window) = (self.limit, self.window)
        return table.withLock { table in
            table.expire(now: now, window: window)
            guard let entry = table.entries[key], now.timeIntervalSince(entry.start) < window, entry.count >= limit else { return nil }
            return max(1, Int((window - now.timeIntervalSince(entry.start)).rounded(.up)))
        }
    }

    /// Records one failure of `key`.
    public func recordFailure(_ key: String, now: Date = Date()) {
        let (window, maximumKeys) = (self.window, self.maximumKeys)
        table.withLock { table in
            table.expire(now: now, window: window)
            if var entry = table.entries[key], now.timeIntervalSince(entry.start) < window {
                entry.count += 1
                table.entries[key] = entry
                return
            }
            while table.entries.count >= maximumKeys, table.popOldest() {}
            table.nextSerial += 1
            table.entries[key] = Entry(count: 1, start: now, serial: table.nextSerial)
            table.order.append((key, table.nextSerial))
        }
    }

    private struct Entry { var count: Int; let start: Date; let serial: UInt64 }

    /// The windows, and the order they opened in: (key, serial of its entry then).
    private struct Table {
        var entries: [String: Entry] = [:]
        var order: [(key: String, serial: UInt64)] = []
        var head = 0
        var nextSerial: UInt64 = 0

        /// Drops windows that have ended, oldest first (each window is dropped once).
        mutating func expire(now: Date, window: TimeInterval) {
            while head < order.count {
                let (key, serial) = order[head]
                if let entry = entries[key], entry.serial == serial, now.timeIntervalSince(entry.start) < window { break }
                _ = popOldest()
            }
        }

        /// Removes the oldest window; false when there is none.
        mutating func popOldest() -> Bool {
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
}
