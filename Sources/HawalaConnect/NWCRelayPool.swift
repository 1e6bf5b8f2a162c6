import Foundation
import HawalaNostr
import Synchronization

/// The relays the NIP-47 service is connected to: each one's session while it is up, the service
/// keys it was last asked for (a new subscription only when they change), and the wait before
/// asking again a relay that closed the subscription (doubling while it keeps closing it).
final class NWCRelayPool: Sendable {
    let firstBackoff: Duration
    let maxBackoff: Duration
    private let state = Mutex(State())

    private struct State {
        var sessions: [String: RelaySession] = [:]
        var subscribed: [String: [String]] = [:]
        var closedBackoff: [String: Duration] = [:]
        var resubscribing: Set<String> = []
    }

    init(firstBackoff: Duration, maxBackoff: Duration) {
        self.firstBackoff = firstBackoff
        self.maxBackoff = maxBackoff
    }

    /// A relay's session is up (or, with nil, down).
    func set(_ session: RelaySession?, for url: String) {
        state.withLock { $0.sessions[url] = session }
    }

    /// The relay connected anew: the next `CLOSED` waits from the start again.
    func opened(_ url: String) {
        state.withLock { $0.closedBackoff[url] = nil }
    }

    func session(_ url: String) -> RelaySession? {
        state.withLock { $0.sessions[url] }
    }

    /// The sessions of those relays that are up.
    func sessions(_ urls: [String]) -> [RelaySession] {
        state.withLock { state in urls.compactMap { state.sessions[$0] } }
    }

    /// Records the service keys a relay is asked for; whether they differ from the last ones.
    /// Nothing is recorded while the relay is down (it is asked anew when it opens).
    func subscribing(_ url: String, keys: [String]) -> (session: RelaySession?, changed: Bool) {
        state.withLock { state in
            let changed = state.subscribed[url] != keys
            if state.sessions[url] != nil { state.subscribed[url] = keys }
            return (state.sessions[url], changed)
        }
    }

    /// A relay closed the subscription: how long to wait before asking again, or nil when a new
    /// request is already waiting.
    func closedSubscription(_ url: String) -> Duration? {
        state.withLock { state -> Duration? in
            guard !state.resubscribing.contains(url) else { return nil }
            state.resubscribing.insert(url)
            let next = min((state.closedBackoff[url] ?? firstBackoff / 2) * 2, maxBackoff)
            state.closedBackoff[url] = next
            return next
        }
    }

    /// The wait after a `CLOSED` is over: the relay is asked again.
    func resubscribed(_ url: String) {
        _ = state.withLock { $0.resubscribing.remove(url) }
    }

    /// Every session, forgotten (the service stops).
    func removeAll() -> [RelaySession] {
        state.withLock { state in
            defer { state.sessions = [:] }
            return Array(state.sessions.values)
        }
    }
}
