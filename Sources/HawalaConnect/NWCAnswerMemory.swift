import Foundation
import Synchronization

/// The NIP-47 service's de-duplication: a request delivered again (by a second relay, or sent
/// twice) is handled once at a time, and within the freshness window gets its first answer — a
/// refusal included — without anything being done again. Payments and invoices are also kept in
/// the store (they must outlive a restart); this memory answers the rest.
final class NWCAnswerMemory: Sendable {
    /// How many answers are kept at most.
    static let capacity = 4_096

    /// How long an answer is kept: twice the service's freshness (for clocks that differ). A
    /// request older than the freshness is refused anyway.
    let window: TimeInterval
    private let state = Mutex(State())

    private struct State {
        var recent: [String: (answer: String, at: Date)] = [:]
        var inFlight: Set<String> = []
        var lastPrune = Date.distantPast
    }

    init(freshness: TimeInterval) {
        window = 2 * freshness
    }

    /// Takes a request by its id; false while the same request is being handled.
    func begin(_ id: String) -> Bool {
        state.withLock { $0.inFlight.insert(id).inserted }
    }

    /// The request is no longer being handled.
    func end(_ id: String) {
        _ = state.withLock { $0.inFlight.remove(id) }
    }

    /// The answer given to `id` within the window, if any.
    func answer(to id: String, now: Date) -> String? {
        state.withLock { state in state.recent[id].flatMap { now.timeIntervalSince($0.at) <= window ? $0.answer : nil } }
    }

    /// Keeps an answer; past `capacity`, the answers out of the window go, and while still too
    /// many (a flood), the oldest half. True once every ten minutes: time for the caller to prune
    /// the store's kept answers too.
    func remember(_ id: String, answer: String, now: Date) -> Bool {
        state.withLock { state in
            state.recent[id] = (answer, now)
            if state.recent.count > Self.capacity {
                state.recent = state.recent.filter { now.timeIntervalSince($0.value.at) <= window }
                if state.recent.count > Self.capacity {
                    let cut = state.recent.values.map(\.at).sorted()[state.recent.count / 2]
                    state.recent = state.recent.filter { $0.value.at >= cut }
                }
            }
            let due = now.timeIntervalSince(state.lastPrune) > 600
            if due { state.lastPrune = now }
            return due
        }
    }

    /// How many answers are kept now.
    var count: Int { state.withLock { $0.recent.count } }
}
