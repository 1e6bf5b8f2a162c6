import Foundation

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

/// Request counters in Prometheus' text format (`GET /metrics`).
public final class VaultMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [String: Int] = [:]  // "route|status"
    private var bytesIn = 0
    private var bytesOut = 0
    private var backupsStored = 0

    public init() {}

    public func record(route: String, status: Int, bytesIn: Int, bytesOut: Int) {
        lock.withLock {
            requests["\(route)|\(status)", default: 0] += 1
            self.bytesIn += bytesIn
            self.bytesOut += bytesOut
        }
    }

    public func backupStored() { lock.withLock { backupsStored += 1 } }

    private var lastStorageFailure: (at: Date, reason: String)?

    /// Notes that storage failed (a 500): `/healthz` reports it for a minute.
    public func storageFailed(_ reason: String, now: Date = Date()) { lock.withLock { lastStorageFailure = (now, reason) } }

    /// The storage failure of the last minute, if any.
    public func storageTrouble(now: Date = Date()) -> String? {
        lock.withLock { lastStorageFailure.flatMap { now.timeIntervalSince($0.at) < 60 ? $0.reason : nil } }
    }

    public func text() -> String {
        lock.withLock {
            var out = "# HELP hawala_vault_requests_total Requests by route and status.\n# TYPE hawala_vault_requests_total counter\n"
            for (key, count) in requests.sorted(by: { $0.key < $1.key }) {
                let parts = key.split(separator: "|")
                out += "hawala_vault_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(count)\n"
            }
            out += "# HELP hawala_vault_bytes_in_total Request body bytes received.\n# TYPE hawala_vault_bytes_in_total counter\nhawala_vault_bytes_in_total \(bytesIn)\n"
            out += "# HELP hawala_vault_bytes_out_total Response body bytes sent.\n# TYPE hawala_vault_bytes_out_total counter\nhawala_vault_bytes_out_total \(bytesOut)\n"
            out += "# HELP hawala_vault_backups_stored_total Backups stored since start.\n# TYPE hawala_vault_backups_stored_total counter\nhawala_vault_backups_stored_total \(backupsStored)\n"
            return out
        }
    }
}
