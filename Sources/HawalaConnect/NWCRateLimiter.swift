import Foundation
import Synchronization

/// Each connection's request rate for the NIP-47 service: `requestsPerMinute` acted on in any
/// minute, then `refusalsPerMinute` answered `RATE_LIMITED`, then dropped unanswered. Counted per
/// connection, for every request its client sends, before anything costly is done: a flood of any
/// kind spends that connection's own allowance only.
final class NWCRateLimiter: Sendable {
    /// Whether a request is acted on (`allowed`), refused `RATE_LIMITED` (`refused`), or —
    /// past the refusals — dropped unanswered.
    enum Admission: Sendable { case allowed, refused, dropped }

    let requestsPerMinute: Int
    let refusalsPerMinute: Int
    private let state = Mutex(State())

    private struct State {
        var requests: [String: [Date]] = [:]
        var refusals: [String: [Date]] = [:]
    }

    init(requestsPerMinute: Int, refusalsPerMinute: Int) {
        self.requestsPerMinute = requestsPerMinute
        self.refusalsPerMinute = refusalsPerMinute
    }

    /// Counts one request of a connection's at `now` and says what becomes of it.
    func admit(connectionID: String, now: Date) -> Admission {
        state.withLock { state in
            var times = (state.requests[connectionID] ?? []).filter { now.timeIntervalSince($0) < 60 }
            defer { state.requests[connectionID] = times }
            if times.count < requestsPerMinute {
                times.append(now)
                return .allowed
            }
            var refused = (state.refusals[connectionID] ?? []).filter { now.timeIntervalSince($0) < 60 }
            defer { state.refusals[connectionID] = refused }
            guard refused.count < refusalsPerMinute else { return .dropped }
            refused.append(now)
            return .refused
        }
    }
}
