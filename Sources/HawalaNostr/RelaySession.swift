import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// One connection to one relay (NIP-01): subscriptions, publishing with the relay's `OK`, and
/// the events the subscriptions bring. It runs until the relay closes or `close()`; a service
/// reconnects with a new session. Every message is capped in size, every wait bounded.
public final class RelaySession: Sendable {
    /// What a relay said about an event published.
    public struct Acceptance: Sendable, Equatable {
        public let accepted: Bool
        public let message: String
    }

    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// ws:// is for this machine only; anything else must be wss://.
        case plainWebSocket(String)
        case invalidURL(String)
        /// The relay did not answer within the time.
        case timeout
        /// The connection ended before the answer.
        case closed

        public var description: String {
            switch self {
            case .plainWebSocket(let url): "\(url): ws:// is for a relay on this machine only; use wss://"
            case .invalidURL(let url): "\(url) is not a relay address (wss://…)"
            case .timeout: "the relay did not answer in time"
            case .closed: "the relay connection closed"
            }
        }
    }

    /// The largest message handled: a larger one (an event nobody here asked for, or a
    /// stranger's flood) is dropped, the connection kept.
    public static let maximumMessageBytes = 256 * 1024
    /// The largest message read at all: past it the relay itself misbehaves, and the connection ends.
    public static let maximumFrameBytes = 4 * 1024 * 1024

    public let url: String
    private let logger: Logger
    private let outgoing: AsyncStream<String>
    private let queue: AsyncStream<String>.Continuation
    private let state = Mutex(State())

    private struct State {
        /// Publications waiting for the relay's `OK`, by event id, then by call: the same event
        /// published twice at once waits twice, and each wait ends alone.
        var waiting: [String: [Int: CheckedContinuation<Acceptance, any Swift.Error>]] = [:]
        var nextWait = 0
        var closed = false
    }

    /// - Throws: `RelaySession.Error` for an address that is no relay, or plain ws:// to another machine.
    public init(url: String, logger: Logger) throws(Error) {
        try Self.check(url)
        self.url = url
        self.logger = logger
        (outgoing, queue) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1_024))
    }

    /// A relay address: wss://, or ws:// on loopback.
    public static func check(_ url: String) throws(Error) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            throw .invalidURL(url)
        }
        switch scheme {
        case "wss": return
        case "ws": guard ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) else { throw .plainWebSocket(url) }
        default: throw .invalidURL(url)
        }
    }

    /// Connects and runs until the relay or `close()` ends it; `onOpen` runs once connected
    /// (subscribe there), `onEvent` for each event a subscription brings, `onClosed` when the
    /// relay ends a subscription (NIP-01 `CLOSED`, with its reason).
    /// Messages handled at once on one connection.
    public static let concurrentHandlers = 32

    /// Attempts given up at their handshake's deadline whose connection has not ended yet, by relay.
    private static let stuck = Mutex<[String: Int]>([:])

    /// How many attempts on `url` were given up at the handshake's deadline and still hold
    /// their connection (a relay that accepts TCP and never upgrades): the service waits
    /// before another once there are a few.
    public static func stuckAttempts(_ url: String) -> Int { stuck.withLock { $0[url] ?? 0 } }

    /// How long the connection and the WebSocket upgrade may take: a relay that accepts TCP and
    /// never upgrades fails with `Error.timeout` then (the service retries it with backoff).
    public static let handshakeTimeout: Duration = .seconds(15)

    public func run(onOpen: @escaping @Sendable () -> Void, onEvent: @escaping @Sendable (_ subscription: String, NostrEvent) async -> Void,
                    onClosed: @escaping @Sendable (_ subscription: String, _ reason: String) -> Void = { _, _ in },
                    handshakeTimeout: Duration = RelaySession.handshakeTimeout) async throws {
        // The client's upgrade waits on a future that neither cancellation nor the peer's close
        // ends: the connection runs in a task of its own, and this call answers on time — the
        // connection's end, the handshake's deadline, or its own cancellation.
        let outcome = Outcome()
        let url = self.url
        let connection = Task {
            // Opened after the deadline (the attempt already given up): not this session's any more.
            try await self.connect(onOpen: { if outcome.markOpened() { onOpen() } }, onEvent: onEvent, onClosed: onClosed)
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Swift.Error>) in
                outcome.set(continuation)
                Task {
                    do { try await connection.value; outcome.resume(.success(())) } catch { outcome.resume(.failure(error)) }
                    if outcome.wasAbandoned { Self.stuck.withLock { $0[url, default: 1] -= 1 } }
                }
                Task {
                    try? await Task.sleep(for: handshakeTimeout)
                    guard outcome.timeOutUnlessOpened() else { return }
                    // Its socket stays until the peer's end reaches it (the client's upgrade ignores
                    // cancellation): counted, so a relay can't make the service pile them up.
                    Self.stuck.withLock { $0[url, default: 0] += 1 }
                    connection.cancel()
                    self.close()
                }
            }
        } onCancel: {
            connection.cancel()
            self.close()
            outcome.resume(.failure(CancellationError()))
        }
    }

    private func connect(onOpen: @escaping @Sendable () -> Void, onEvent: @escaping @Sendable (_ subscription: String, NostrEvent) async -> Void,
                         onClosed: @escaping @Sendable (_ subscription: String, _ reason: String) -> Void) async throws {
        var configuration = WebSocketClientConfiguration(maxFrameSize: Self.maximumFrameBytes, autoPing: .enabled(timePeriod: .seconds(30)), validateUTF8: true)
        configuration.closeTimeout = .seconds(5)
        let tls = url.lowercased().hasPrefix("wss:") ? TLSConfiguration.makeClientConfiguration() : nil
        let outgoing = self.outgoing, logger = self.logger
        defer { fail(with: Error.closed) }
        try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls, logger: logger) { inbound, outbound, _ in
            onOpen()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await text in outgoing { try await outbound.write(.text(text)) }
                    // Closed here (`close()`): the connection ends with the session, not when the
                    // relay next speaks. Cancelled (the connection failed): the library's own close
                    // code goes out, not a normal closure.
                    if !Task.isCancelled { try? await outbound.close(.normalClosure, reason: nil) }
                }
                // Each message handled in a task of its own, at most `concurrentHandlers` at once:
                // a slow one (a payment waiting on the network) never holds up the others.
                var running = 0
                for try await message in inbound.messages(maxSize: Self.maximumFrameBytes) {
                    guard case .text(let text) = message else { continue }
                    guard text.utf8.count <= Self.maximumMessageBytes else {
                        logger.debug("relay message dropped: too large", metadata: ["relay": .string(self.url), "bytes": .string("\(text.utf8.count)")])
                        continue
                    }
                    if running >= Self.concurrentHandlers {
                        try await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.handle(text, onEvent: onEvent, onClosed: onClosed) }
                }
                group.cancelAll()
            }
        }
    }

    /// Asks the relay for events matching `filters` under `id` (NIP-01 `REQ`).
    public func subscribe(_ id: String, filters: [NostrFilter]) {
        queue.yield("[\"REQ\",\(NostrEvent.quote(id, wire: true)),\(filters.map(\.json).joined(separator: ","))]")
    }

    /// Publishes `event` and waits for the relay's `OK` within `timeout`.
    public func publish(_ event: NostrEvent, timeout: Duration = .seconds(10)) async throws -> Acceptance {
        try await withThrowingTaskGroup(of: Acceptance.self) { group in
            group.addTask {
                let wait = self.state.withLock { state in
                    defer { state.nextWait += 1 }
                    return state.nextWait
                }
                // Cancelled (the deadline came first): the wait ends now, not when the relay
                // answers or the session closes — the group waits for it before returning.
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let ended = self.state.withLock { state -> Swift.Error? in
                            if state.closed { return Error.closed }
                            if Task.isCancelled { return CancellationError() }
                            state.waiting[event.id, default: [:]][wait] = continuation
                            return nil
                        }
                        if let ended { continuation.resume(throwing: ended); return }
                        self.queue.yield("[\"EVENT\",\(event.json)]")
                    }
                } onCancel: {
                    let continuation = self.state.withLock { state in
                        defer { if state.waiting[event.id]?.isEmpty == true { state.waiting[event.id] = nil } }
                        return state.waiting[event.id]?.removeValue(forKey: wait)
                    }
                    continuation?.resume(throwing: CancellationError())
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Error.timeout
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw Error.closed }
            return first
        }
    }

    /// Publishes without waiting for the relay's answer (notifications, info events).
    public func send(_ event: NostrEvent) {
        queue.yield("[\"EVENT\",\(event.json)]")
    }

    /// Ends the connection: every wait for an answer ends with `closed`.
    public func close() {
        queue.finish()
        fail(with: Error.closed)
    }

    private func fail(with error: Error) {
        let waiting = state.withLock { state -> [CheckedContinuation<Acceptance, any Swift.Error>] in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap(\.values)
        }
        for continuation in waiting { continuation.resume(throwing: error) }
    }

    /// One message from the relay: events for the subscriptions, answers to publications.
    private func handle(_ text: String, onEvent: @Sendable (String, NostrEvent) async -> Void, onClosed: @Sendable (String, String) -> Void) async {
        switch RelayMessage(text) {
        case .event(let subscription, let event)?:
            await onEvent(subscription, event)
        case .ok(let id, let accepted, let message)?:
            let waits = state.withLock { $0.waiting.removeValue(forKey: id) } ?? [:]
            for continuation in waits.values { continuation.resume(returning: Acceptance(accepted: accepted, message: message)) }
        case .notice(let message)?:
            logger.debug("relay notice", metadata: ["relay": .string(url), "notice": .string(String(message.prefix(200)))])
        case .closed(let subscription, let message)?:
            onClosed(subscription, message)
        case .endOfStoredEvents?, nil:
            break
        }
    }
}

/// What a relay sends (NIP-01).
public enum RelayMessage: Sendable, Equatable {
    case event(subscription: String, NostrEvent)
    case ok(eventID: String, accepted: Bool, message: String)
    case endOfStoredEvents(subscription: String)
    case closed(subscription: String, message: String)
    case notice(String)

    /// nil for anything else (a malformed or unknown message is ignored, never fatal).
    public init?(_ text: String) {
        guard let data = text.data(using: .utf8), let array = try? JSONSerialization.jsonObject(with: data) as? [Any],
              let type = array.first as? String else { return nil }
        switch (type, array.count) {
        case ("EVENT", 3):
            guard let subscription = array[1] as? String, let object = array[2] as? [String: Any],
                  let eventData = try? JSONSerialization.data(withJSONObject: object),
                  let event = try? JSONDecoder().decode(NostrEvent.self, from: eventData) else { return nil }
            self = .event(subscription: subscription, event)
        case ("OK", 4):
            guard let id = array[1] as? String, let accepted = array[2] as? Bool else { return nil }
            self = .ok(eventID: id, accepted: accepted, message: array[3] as? String ?? "")
        case ("EOSE", 2):
            guard let subscription = array[1] as? String else { return nil }
            self = .endOfStoredEvents(subscription: subscription)
        case ("CLOSED", 3):
            guard let subscription = array[1] as? String else { return nil }
            self = .closed(subscription: subscription, message: array[2] as? String ?? "")
        case ("NOTICE", 2):
            self = .notice(array[1] as? String ?? "")
        default:
            return nil
        }
    }
}

/// A subscription filter (NIP-01): the kinds, authors and `#p` tags wanted, and since when.
public struct NostrFilter: Sendable, Equatable {
    public var kinds: [Int]
    public var authors: [String]?
    public var pTags: [String]?
    public var since: Int64?
    public var limit: Int?

    public init(kinds: [Int], authors: [String]? = nil, pTags: [String]? = nil, since: Int64? = nil, limit: Int? = nil) {
        self.kinds = kinds
        self.authors = authors
        self.pTags = pTags
        self.since = since
        self.limit = limit
    }

    var json: String {
        var fields = ["\"kinds\":[" + kinds.map(String.init).joined(separator: ",") + "]"]
        if let authors { fields.append("\"authors\":[" + authors.map { NostrEvent.quote($0, wire: true) }.joined(separator: ",") + "]") }
        if let pTags { fields.append("\"#p\":[" + pTags.map { NostrEvent.quote($0, wire: true) }.joined(separator: ",") + "]") }
        if let since { fields.append("\"since\":\(since)") }
        if let limit { fields.append("\"limit\":\(limit)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// A continuation resumed once, whoever comes first — also when the result comes before the
/// continuation is there; and whether the connection it waits on has opened.
private final class Outcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Swift.Error>?
        var pending: Result<Void, any Swift.Error>?
        var done = false
        var opened = false
        var abandoned = false
    }
    private let state = Mutex(State())

    /// The connection is open: the handshake's deadline no longer applies. False when the
    /// attempt had already ended (given up, cancelled): its opening is nobody's then.
    func markOpened() -> Bool {
        state.withLock { state in
            guard !state.done, state.pending == nil else { return false }
            state.opened = true
            return true
        }
    }

    /// The handshake's deadline: the attempt ends with `timeout`, unless it opened or ended
    /// first — decided at once, under the lock. True when it was given up here.
    func timeOutUnlessOpened() -> Bool {
        let failure = Result<Void, any Swift.Error>.failure(RelaySession.Error.timeout)
        let (continuation, given) = state.withLock { state -> (CheckedContinuation<Void, any Swift.Error>?, Bool) in
            guard !state.opened else { return (nil, false) }
            let (continuation, given) = Self.give(failure, &state)
            if given { state.abandoned = true }
            return (continuation, given)
        }
        continuation?.resume(with: failure)
        return given
    }

    /// Whether the attempt was given up at its deadline (its connection may outlive it).
    var wasAbandoned: Bool { state.withLock { $0.abandoned } }

    func set(_ continuation: CheckedContinuation<Void, any Swift.Error>) {
        let early = state.withLock { state -> Result<Void, any Swift.Error>? in
            guard let pending = state.pending, !state.done else { state.continuation = continuation; return nil }
            state.done = true
            return pending
        }
        if let early { continuation.resume(with: early) }
    }

    /// Whether this result is the one given (false: another came first).
    @discardableResult
    func resume(_ result: Result<Void, any Swift.Error>) -> Bool {
        let (continuation, first) = state.withLock { Self.give(result, &$0) }
        continuation?.resume(with: result)
        return first
    }

    /// Gives `result` unless one was given: the continuation to resume (nil when it is not
    /// there yet: `set` resumes it), and whether this result is the one.
    private static func give(_ result: Result<Void, any Swift.Error>, _ state: inout State) -> (CheckedContinuation<Void, any Swift.Error>?, Bool) {
        guard !state.done, state.pending == nil else { return (nil, false) }
        guard let continuation = state.continuation else { state.pending = result; return (nil, true) }
        state.done = true
        state.continuation = nil
        return (continuation, true)
    }
}
