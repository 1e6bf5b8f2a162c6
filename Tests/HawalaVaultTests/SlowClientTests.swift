import Foundation
import HawalaVault
import HawalaVaultServer
import Testing

/// A raw TCP connection to the server on loopback, for clients that misbehave.
final class RawConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 0, tv_usec: 20_000)  // reads wait at most 20 ms
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) } }

    /// Whether the server closed the connection (EOF or reset); false while it is still open.
    var closedByServer: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// A whole `GET /healthz` on this connection: the status line, within `seconds`.
    func health(within seconds: Double) -> String? {
        send("GET /healthz HTTP/1.1\r\nHost: vault\r\nConnection: close\r\n\r\n")
        let deadline = Date().addingTimeInterval(seconds)
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received += buffer[0..<n] } else if n == 0 { break }
            if let text = String(bytes: received, encoding: .utf8), let line = text.split(separator: "\r\n").first, text.contains("\r\n") { return String(line) }
        }
        return nil
    }
}

@Suite("Vault server: slow and idle clients")
struct SlowClientTests {
    /// 200 idle connections and 50 that never finish their headers (some dripping a byte at a
    /// time, as slowloris does) are closed once the idle timeout passes; /healthz answers at
    /// once throughout, and a client sending its body in slow but steady chunks is not cut.
    @Test func idleAndSlowHeaderConnectionsAreClosed() async throws {
        var limits = VaultLimits()
        limits.idleTimeout = .seconds(1)
        let vault = try await RunningVault.start(.sqlite, limits: limits)
        defer { vault.stop() }
        let idle = try (0..<200).map { _ in try RawConnection(port: vault.port) }
        let slow = try (0..<50).map { _ in try RawConnection(port: vault.port) }
        for connection in slow { connection.send("GET /healthz HTTP/1.1\r\nHost: vault\r\n") }
        let started = Date()
        var drip = 0
        while Date().timeIntervalSince(started) < 0.8 {
            for connection in slow.prefix(10) { connection.send("X-Drip-\(drip): 1\r\n") }
            drip += 1
            #expect(try RawConnection(port: vault.port).health(within: 0.5) == "HTTP/1.1 200 OK")
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!idle[0].closedByServer && !slow[0].closedByServer, "closed before the timeout")
        // A steady slow upload (a chunk every 300 ms, 2.4 s in all) outlives the 1 s timeout.
        let token = try await vault.storage.addUser("steady", now: Date())
        let steady = try RawConnection(port: vault.port)
        steady.send("POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\nContent-Length: 8\r\n\r\n")
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(300))
            steady.send("x")
        }
        #expect(steady.health(within: 2)?.hasPrefix("HTTP/1.1 201") == true, "the steady upload was cut")
        // By now (≥ 2.4 s) every idle and slow-header connection is gone.
        var open = 0
        for connection in idle + slow where !connection.closedByServer { open += 1 }
        #expect(open == 0, "\(open) of 250 connections still open after \(Date().timeIntervalSince(started)) s")
        #expect(try RawConnection(port: vault.port).health(within: 0.5) == "HTTP/1.1 200 OK")
    }
}
