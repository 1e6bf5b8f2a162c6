import CoreMetrics
import Foundation
import Prometheus

/// The server's counters and request durations (swift-metrics, kept in a Prometheus registry of
/// the server's own, not the process-wide `MetricsSystem`), served as Prometheus text on the
/// metrics port.
final class VaultMetrics: @unchecked Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let lock = NSLock()
    private var requests: [String: CoreMetrics.Counter] = [:]  // "route|status"
    private var durations: [String: CoreMetrics.Timer] = [:]   // route
    private let bytesIn: CoreMetrics.Counter
    private let bytesOut: CoreMetrics.Counter
    private let backupsStored: CoreMetrics.Counter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
                                                   .milliseconds(500), .seconds(2), .seconds(10), .seconds(60)]
        self.factory = factory
        bytesIn = Counter(label: "hawala_vault_bytes_in_total", factory: factory)
        bytesOut = Counter(label: "hawala_vault_bytes_out_total", factory: factory)
        backupsStored = Counter(label: "hawala_vault_backups_stored_total", factory: factory)
        // Present from the start, so a scraper sees 0 rather than nothing.
        bytesIn.increment(by: 0)
        bytesOut.increment(by: 0)
        backupsStored.increment(by: 0)
    }

    /// One answered request: `route` is the operation (or "auth" for answers given before
    /// one: 401, 429, 405, 413).
    func record(route: String, status: Int, bytesIn: Int, bytesOut: Int, duration: Duration? = nil) {
        let (counter, timer) = lock.withLock { () -> (CoreMetrics.Counter, CoreMetrics.Timer?) in
            let key = "\(route)|\(status)"
            let counter = requests[key] ?? {
                let made = Counter(label: "hawala_vault_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory)
                requests[key] = made
                return made
            }()
            guard duration != nil else { return (counter, nil) }
            let timer = durations[route] ?? {
                let made = Timer(label: "hawala_vault_request_duration_seconds", dimensions: [("route", route)], factory: factory)
                durations[route] = made
                return made
            }()
            return (counter, timer)
        }
        counter.increment()
        if let timer, let duration { timer.recordNanoseconds(duration.nanoseconds) }
        if bytesIn > 0 { self.bytesIn.increment(by: bytesIn) }
        if bytesOut > 0 { self.bytesOut.increment(by: bytesOut) }
    }

    func backupStored() { backupsStored.increment() }

    /// Everything in Prometheus' text exposition format.
    func text() -> String { registry.emitToString() }
}

/// The last storage failure (a 500), which `/healthz` reports for a minute.
final class StorageHealth: @unchecked Sendable {
    private let lock = NSLock()
    private var lastFailure: (at: Date, reason: String)?

    func failed(_ reason: String, now: Date = Date()) { lock.withLock { lastFailure = (now, reason) } }

    /// The storage failure of the last minute, if any.
    func trouble(now: Date = Date()) -> String? {
        lock.withLock { lastFailure.flatMap { now.timeIntervalSince($0.at) < 60 ? $0.reason : nil } }
    }
}

extension Duration {
    /// Whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled &+ attoseconds / 1_000_000_000
    }
}
