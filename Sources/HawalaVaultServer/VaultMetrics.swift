import CoreMetrics
import Foundation
import HawalaVaultStorage
import Prometheus
import Synchronization

/// The server's counters and request durations (swift-metrics, kept in a Prometheus registry of
/// the server's own, not the process-wide `MetricsSystem`), served as Prometheus text on the
/// metrics port.
final class VaultMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private struct Made {
        var requests: [String: CoreMetrics.Counter] = [:]  // "route|status"
        var durations: [String: CoreMetrics.Timer] = [:]   // route
    }
    private let made = Mutex(Made())
    private let bytesIn: CoreMetrics.Counter
    private let bytesOut: CoreMetrics.Counter
    private let backupsStored: CoreMetrics.Counter
    private let dailyPasses: CoreMetrics.Counter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
                                                   .milliseconds(500), .seconds(2), .seconds(10), .seconds(60)]
        self.factory = factory
        bytesIn = Counter(label: "hawala_vault_bytes_in_total", factory: factory)
        bytesOut = Counter(label: "hawala_vault_bytes_out_total", factory: factory)
        backupsStored = Counter(label: "hawala_vault_backups_stored_total", factory: factory)
        dailyPasses = Counter(label: "hawala_vault_daily_passes_total", factory: factory)
        // Present from the start, so a scraper sees 0 rather than nothing.
        for counter in [bytesIn, bytesOut, backupsStored, dailyPasses] { counter.increment(by: 0) }
    }

    /// One answered request: `route` is the operation (or "auth" for answers given before
    /// one: 401, 429, 405, 413).
    func record(route: String, status: Int, bytesIn: Int, bytesOut: Int, duration: Duration? = nil) {
        let factory = self.factory
        let (counter, timer) = made.withLock { made -> (CoreMetrics.Counter, CoreMetrics.Timer?) in
            let key = "\(route)|\(status)"
            let counter = made.requests[key] ?? {
                let new = Counter(label: "hawala_vault_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory)
                made.requests[key] = new
                return new
            }()
            guard duration != nil else { return (counter, nil) }
            let timer = made.durations[route] ?? {
                let new = Timer(label: "hawala_vault_request_duration_seconds", dimensions: [("route", route)], factory: factory)
                made.durations[route] = new
                return new
            }()
            return (counter, timer)
        }
        counter.increment()
        if let timer, let duration { timer.recordNanoseconds(duration.nanoseconds) }
        if bytesIn > 0 { self.bytesIn.increment(by: bytesIn) }
        if bytesOut > 0 { self.bytesOut.increment(by: bytesOut) }
    }

    func backupStored() { backupsStored.increment() }

    /// This server ran the day's retention pass (servers sharing a database run one a day between them).
    func dailyPassRan() { dailyPasses.increment() }

    /// Everything in Prometheus' text exposition format.
    func text() -> String { registry.emitToString() }
}

/// The storage's latest trouble, which `/healthz` reports for a while: in the operator's
/// words, never the driver's (the reason goes to the log).
final class StorageHealth: Sendable {
    enum Problem: Sendable, Equatable {
        /// The database did not answer (locked, unreachable, unreadable): 503.
        case unavailable
        /// The disk is full: uploads are refused (507), deleting still works.
        case diskFull
        /// A call failed another way (a 500).
        case failing

        /// What `/healthz` says.
        var text: String {
            switch self {
            case .unavailable: "storage unavailable"
            case .diskFull: "storage: the disk is full"
            case .failing: "storage failing (see the server's log)"
            }
        }
    }

    /// Seconds a client is told to wait while the storage is unavailable.
    static let retryAfter = 10
    private let latest = Mutex<(at: Date, problem: Problem)?>(nil)
    /// The last probe's answer and when it was made: `/healthz` asks the database at most once
    /// a second, however often it is called.
    private let probed = Mutex<(at: Date, problem: Problem?)?>(nil)

    func failed(_ problem: Problem, now: Date = Date()) { latest.withLock { $0 = (now, problem) } }

    /// The latest trouble, if it is recent: an outage for as long as clients are told to wait,
    /// anything else for a minute.
    func trouble(now: Date = Date()) -> Problem? {
        latest.withLock { state in
            state.flatMap { now.timeIntervalSince($0.at) < ($0.problem == .unavailable ? Double(StorageHealth.retryAfter) : 60) ? $0.problem : nil }
        }
    }

    /// The recent trouble, or what asking `storage` now finds (no answer `within`: unavailable).
    func check(_ storage: any VaultStorage, now: Date = Date(), within: Duration = .seconds(3)) async -> Problem? {
        if let trouble = trouble(now: now) { return trouble }
        if let cached = probed.withLock({ $0 }), now.timeIntervalSince(cached.at) < 1 { return cached.problem }
        let problem: Problem? = await StorageHealth.answers(storage, within: within) ? nil : .unavailable
        probed.withLock { $0 = (now, problem) }
        if let problem { failed(problem, now: now) }
        return problem
    }

    private static func answers(_ storage: any VaultStorage, within time: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await storage.ping()) != nil }
            group.addTask {
                try? await Task.sleep(for: time)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
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
