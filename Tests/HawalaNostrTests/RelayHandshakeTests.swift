import Foundation
@testable import HawalaNostr
import Logging
import Testing

/// A relay that accepts TCP and never answers the WebSocket upgrade (or closes at once) can't
/// hold a connection attempt: it ends on time, and a cancelled one ends at once.
@Suite("Relay handshakes", .timeLimit(.minutes(10)))
struct RelayHandshakeTests {
    /// A loopback port that accepts connections (the kernel's backlog) and never answers.
    static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(bound == 0 && listen(fd, 16) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aRelayThatNeverUpgradesEndsOnTime() async throws {
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let session = try RelaySession(url: "ws://127.0.0.1:\(port)", logger: Logger(label: "test"))
        await #expect(throws: RelaySession.Error.timeout) {
            try await session.run(onOpen: {}, onEvent: { _, _ in }, handshakeTimeout: .milliseconds(800))
        }
        // On its deadline (0.8 s) when the machine is idle; a loaded test run can hold a task
        // for minutes, so no wall-clock bound here. Without the deadline it never ends (the
        // suite's time limit, and the watchdog, say so).
    }

    @Test func aCancelledAttemptEndsAtOnce() async throws {
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let session = try RelaySession(url: "ws://127.0.0.1:\(port)", logger: Logger(label: "test"))
        let attempt = Task { try await session.run(onOpen: {}, onEvent: { _, _ in }, handshakeTimeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(300))
        attempt.cancel()
        await #expect(throws: (any Error).self) { try await attempt.value }  // ends: a 60 s deadline never came
    }
}
