import Foundation
import HawalaCrypto
@testable import HawalaNostr
import Hummingbird
import HummingbirdWebSocket
import Logging
import Synchronization
import Testing

/// A relay session against a relay on loopback (Hummingbird's WebSocket server playing the
/// relay's part of NIP-01): what it asks for, the events it is sent, the relay's `OK`s, refusals
/// and silences, a `CLOSED`, a message past the cap dropped without losing the connection, and
/// the ends — the session's own close and the relay's.
@Suite("Relay sessions", .timeLimit(.minutes(10)))
struct RelaySessionTests {
    /// What the session under test was told, in order, and a stream that says when.
    final class Heard: Sendable {
        let lines = Mutex<[String]>([])
        let (stream, continuation) = AsyncStream<String>.makeStream()
        func add(_ line: String) {
            lines.withLock { $0.append(line) }
            continuation.yield(line)
        }

        /// Waits for a line that starts with `prefix` (the relay's deadline is the suite's).
        func next(_ prefix: String, iterator: inout AsyncStream<String>.Iterator) async -> String? {
            while let line = await iterator.next() {
                if line.hasPrefix(prefix) { return line }
            }
            return nil
        }
    }

    /// What the relay was sent.
    final class Asked: Sendable {
        let texts = Mutex<[String]>([])
    }

    static let author = try! NostrKeys(secret: SecretBytes(Array(repeating: 1, count: 32)))

    /// A scripted relay: to a `REQ`, two events with a message past the session's cap between
    /// them, `EOSE`, then `CLOSED`; to an `EVENT`, `OK` true or false by its content, or nothing
    /// ("ignore"); "hang up" ends the connection. The requests it read are kept in `asked`.
    static func withRelay(_ body: (_ url: String, _ asked: Asked) async throws -> Void) async throws {
        let asked = Asked()
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/") { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message, let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any],
                      let type = array.first as? String else { continue }
                asked.texts.withLock { $0.append(text) }
                switch type {
                case "REQ":
                    let id = array[1] as? String ?? ""
                    let first = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "first", by: Self.author)
                    let second = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "second", by: Self.author)
                    try await outbound.write(.text("[\"EVENT\",\"\(id)\",\(first.json)]"))
                    let huge = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: String(repeating: "x", count: RelaySession.maximumMessageBytes), by: Self.author)
                    try await outbound.write(.text("[\"EVENT\",\"\(id)\",\(huge.json)]"))
                    try await outbound.write(.text("[\"EVENT\",\"\(id)\",\(second.json)]"))
                    try await outbound.write(.text("[\"EOSE\",\"\(id)\"]"))
                    try await outbound.write(.text("[\"CLOSED\",\"\(id)\",\"rate-limited: slow down\"]"))
                case "EVENT":
                    guard let object = array[1] as? [String: Any], let id = object["id"] as? String, let content = object["content"] as? String else { continue }
                    switch content {
                    case "accept": try await outbound.write(.text("[\"OK\",\"\(id)\",true,\"\"]"))
                    case "refuse": try await outbound.write(.text("[\"OK\",\"\(id)\",false,\"blocked: not here\"]"))
                    case "hang up": return
                    default: break
                    }
                default: break
                }
            }
        }
        let (ports, portReady) = AsyncStream<Int>.makeStream()
        let relay = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
                                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                onServerRunning: { portReady.yield($0.localAddress?.port ?? 0) })
        // A server that could not start ends the wait for its port.
        let running = Task {
            defer { portReady.finish() }
            try await relay.runService()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do { try await body("ws://127.0.0.1:\(port)", asked) } catch {
            running.cancel()
            throw error
        }
        running.cancel()
    }

    /// Runs a session on `url`, its callbacks told to `heard`; returns once it is open. The
    /// deadlines are long: a loaded test run can hold a task for minutes.
    static func open(_ url: String, heard: Heard) async throws -> (RelaySession, Task<Void, any Error>) {
        let session = try RelaySession(url: url, logger: Logger(label: "test"))
        var iterator = heard.stream.makeAsyncIterator()
        let run = Task {
            defer { heard.continuation.finish() }
            try await session.run(onOpen: { heard.add("open") }, onEvent: { subscription, event in heard.add("event \(subscription) \(event.content)") },
                                  onClosed: { subscription, reason in heard.add("closed \(subscription) \(reason)") }, handshakeTimeout: .seconds(600))
        }
        guard await heard.next("open", iterator: &iterator) != nil else {
            try await run.value
            throw RelaySession.Error.closed
        }
        return (session, run)
    }

    /// Waits until the relay has read `count` publications of `content`.
    static func relayRead(_ count: Int, of content: String, _ asked: Asked) async throws {
        while asked.texts.withLock({ $0.filter { $0.contains("\"content\":\"\(content)\"") }.count }) < count {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aConversationWithARelay() async throws {
        try await Self.withRelay { url, asked in
            let heard = Heard()
            let (session, run) = try await Self.open(url, heard: heard)
            var iterator = heard.stream.makeAsyncIterator()
            session.subscribe("nwc", filters: [NostrFilter(kinds: [NostrEvent.Kind.walletRequest], pTags: ["ab"], since: 1_800_000_000)])
            // Each message is handled in a task of its own: they are told in any order.
            var told: [String] = []
            while told.count < 3, let line = await heard.next("", iterator: &iterator) { told.append(line) }
            // Both events, the one past the cap dropped — and the connection kept (the later ones came).
            #expect(told.sorted() == ["closed nwc rate-limited: slow down", "event nwc first", "event nwc second"])
            #expect(asked.texts.withLock { $0.first } == ##"["REQ","nwc",{"kinds":[23194],"#p":["ab"],"since":1800000000}]"##)

            let accept = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "accept", by: Self.author)
            #expect(try await session.publish(accept, timeout: .seconds(600)) == RelaySession.Acceptance(accepted: true, message: ""))
            let refuse = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "refuse", by: Self.author)
            #expect(try await session.publish(refuse, timeout: .seconds(600)) == RelaySession.Acceptance(accepted: false, message: "blocked: not here"))
            // The same event published twice at once: both waits get the relay's answer.
            async let once = session.publish(accept, timeout: .seconds(600))
            async let twice = session.publish(accept, timeout: .seconds(600))
            #expect(try await [once, twice].allSatisfy(\.accepted))
            let ignore = try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "ignore", by: Self.author)
            await #expect(throws: RelaySession.Error.timeout) { try await session.publish(ignore, timeout: .milliseconds(300)) }

            // Closed while a publication waits: the wait ends `closed`, and so does the session.
            let waiting = Task { try await session.publish(ignore, timeout: .seconds(600)) }
            try await Self.relayRead(2, of: "ignore", asked)
            session.close()
            await #expect(throws: RelaySession.Error.closed) { try await waiting.value }
            try await run.value
            await #expect(throws: RelaySession.Error.closed) { try await session.publish(accept) }
        }
    }

    /// The relay hangs up: the session ends (a service connects again with a new one), and a
    /// publication waiting for its `OK` ends `closed`, not at its deadline.
    @Test func theRelayHangsUp() async throws {
        try await Self.withRelay { url, asked in
            let heard = Heard()
            let (session, run) = try await Self.open(url, heard: heard)
            let waiting = Task { try await session.publish(try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "ignore", by: Self.author), timeout: .seconds(600)) }
            try await Self.relayRead(1, of: "ignore", asked)
            session.send(try NostrEvent.signed(kind: NostrEvent.Kind.note, tags: [], content: "hang up", by: Self.author))
            try await run.value
            await #expect(throws: RelaySession.Error.closed) { try await waiting.value }
        }
    }
}
