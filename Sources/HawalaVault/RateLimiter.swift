import Foundation

/// Counts failures per key (a token hash, a client address) in a sliding window; past the
/// limit the key is refused until the window moves on. Used for failed authentication and
/// credential recovery, so guessing tokens or phrases from one address or token is slow.
public final class RateLimiter: @unchecked Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let lock = NSLock()
    private var failures: [String: [Date]] = [:]

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds to wait before `key` may try again, or nil when it may try now.
    public func retryAfter(_ key: String, now: Date = Date()) -> Int? {
        lock.withLock {
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Records one failure of `key`.
    public func recordFailure(_ key: String, now: Date = Date()) {
        lock.withLock {
            var recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            failures[key] = recent
            if failures.count > 100_000 { failures = failures.filter { !$0.value.isEmpty } }  // bounded memory
        }
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
