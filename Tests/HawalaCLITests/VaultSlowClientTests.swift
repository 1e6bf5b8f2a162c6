import Foundation
import HawalaTestSupport
import Testing

/// A raw TCP connection to the server on loopback, for clients that misbehave. Reads block
/// for 20 ms at most each; the tests using it are synchronous, so they never wait for a thread
/// of the (busy) cooperative pool.
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

    /// A whole `GET /healthz` on a new connection: the status line, within `seconds`.
    static func health(port: Int, within seconds: Double) throws -> String? {
        try RawConnection(port: port).health(within: seconds)
    }

    /// A whole `GET /healthz` on this connection: the status line, within `seconds`.
    func health(within seconds: Double) -> String? {
        request("GET /healthz HTTP/1.1\r\nHost: vault\r\nConnection: close\r\n\r\n", within: seconds)
    }

    /// Sends `text` (a whole request); the answer's status line, within `seconds`.
    func request(_ text: String, within seconds: Double) -> String? {
        send(text)
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

/// A `hawala-vault serve` process on a free port, for one test.
struct VaultProcess {
    let fixture: WalletFixture
    let process: RunningCLI
    let url: String
    let port: Int
    let db: String

    /// `fileLimit`: run it under `ulimit -n` (soft and hard) of that many descriptors.
    /// `database`: a `--db` other than a new SQLite file in the fixture's home.
    init(_ options: [String] = [], fileLimit: Int? = nil, database: String? = nil) throws {
        fixture = try WalletFixture()
        db = database ?? "sqlite:" + fixture.home.appendingPathComponent("vault.sqlite").path
        let arguments = ["serve", "--port", "0", "--db", db] + options
        if let fileLimit {
            process = try RunningCLI(["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", CLI.vaultBinary.path] + arguments, environment: fixture.environment,
                                     binary: URL(fileURLWithPath: "/bin/sh"))
        } else {
            process = try RunningCLI(arguments, environment: fixture.environment, binary: CLI.vaultBinary)
        }
        let line = try #require(process.nextLine())
        url = String(line.dropFirst("vault listening on ".count))
        port = try #require(Int(url.split(separator: ":").last ?? ""))
    }

    func stop() {
        process.process.terminate()
        process.process.waitUntilExit()
    }
}

@Suite("hawala-vault serve: slow and idle clients")
struct VaultSlowClientTests {
    /// 200 idle connections and 50 that never finish their headers (10 dripping a header line
    /// at a time, as slowloris does) are closed once the idle timeout passes; /healthz answers
    /// throughout, and a client sending its body in slow but steady chunks is not cut.
    @Test func idleAndSlowHeaderConnectionsAreClosed() throws {
        let vault = try VaultProcess(["--idle-timeout", "2"])
        defer { vault.stop() }
        let idle = try (0..<200).map { _ in try RawConnection(port: vault.port) }
        let slow = try (0..<50).map { _ in try RawConnection(port: vault.port) }
        for connection in slow { connection.send("GET /healthz HTTP/1.1\r\nHost: vault\r\n") }
        let started = Date()
        var drip = 0
        while Date().timeIntervalSince(started) < 1 {
            for connection in slow.prefix(10) { connection.send("X-Drip-\(drip): 1\r\n") }
            drip += 1
            #expect(try RawConnection.health(port: vault.port, within: 2) == "HTTP/1.1 200 OK")
            usleep(100000)
        }
        if Date().timeIntervalSince(started) < 1.5 {
            #expect([idle[0], slow[0]].allSatisfy { !$0.closedByServer }, "closed before the timeout")
        }
        // A steady slow upload (a chunk every 300 ms, 2.4 s in all) outlives the 2 s timeout.
        let token = try vault.fixture.vault(["user", "add", "steady", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let steady = try RawConnection(port: vault.port)
        steady.send("POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\nContent-Length: 8\r\n\r\n")
        for _ in 0..<8 {
            usleep(300000)
            steady.send("x")
        }
        #expect(steady.health(within: 2)?.hasPrefix("HTTP/1.1 201") == true, "the steady upload was cut")
        // By now (≥ 3.4 s) every idle and slow-header connection is gone.
        let closed = (idle + slow).filter(\.closedByServer).count
        #expect(closed == 250, "\(250 - closed) of 250 connections still open after \(Date().timeIntervalSince(started)) s")
        #expect(try RawConnection.health(port: vault.port, within: 2) == "HTTP/1.1 200 OK")
    }

    /// Under `ulimit -n 128`, 130 idle clients (more than the server has descriptors for) don't
    /// lock everyone out until their idle timeout: the oldest idle ones are closed to let new
    /// clients in, so /healthz and a user's upload answer at once. (Before, /healthz timed out.)
    @Test func moreIdleClientsThanDescriptors() throws {
        let vault = try VaultProcess(fileLimit: 128)
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let idle = try (0..<130).map { _ in try RawConnection(port: vault.port) }
        #expect(try RawConnection.health(port: vault.port, within: 3) == "HTTP/1.1 200 OK")
        let upload = try RawConnection(port: vault.port).request("""
            POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\n\
            Content-Length: 5\r\nConnection: close\r\n\r\nhello
            """, within: 3)
        #expect(upload == "HTTP/1.1 201 Created")
        let oldestClosed = idle.prefix(10).filter(\.closedByServer).count
        #expect(oldestClosed == 10, "the oldest idle clients were let be")
        #expect(vault.process.process.isRunning)
        // Once they are gone, everything is as before.
        let left = idle.filter { !$0.closedByServer }.count
        #expect(left < 130)
        #expect(try RawConnection.health(port: vault.port, within: 3) == "HTTP/1.1 200 OK")
    }

    /// A client that sends `Expect: 100-continue` (curl, for bodies over 1 MiB) hears `100
    /// Continue` at once rather than waiting a second; an oversized body hears 413 instead.
    @Test func expectContinueIsAnswered() throws {
        let vault = try VaultProcess(["--max-upload-mib", "1"])
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let head = "POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\nExpect: 100-continue\r\n"
        let connection = try RawConnection(port: vault.port)
        #expect(connection.request(head + "Content-Length: 5\r\n\r\n", within: 0.5) == "HTTP/1.1 100 Continue")
        let large = try RawConnection(port: vault.port)
        #expect(large.request(head + "Content-Length: \(2 << 20)\r\n\r\n", within: 2) == "HTTP/1.1 413 Payload Too Large")
    }

    /// With the disk full (a 24 MiB tmpfs), an upload answers 507 and /healthz 503 saying so,
    /// and so does a credential backup; deleting a backup larger than the reserve still works —
    /// freed pages are not zeroed through the WAL (Debian's SQLite is built with
    /// SECURE_DELETE), and the reserve file is given up for what the delete does write — and
    /// frees room for the next upload. (Before, a delete larger than the reserve failed: 500.)
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root")) func aFullDiskStillDeletes() throws {
        let dir = temporaryFolder("hawala-full").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(try CLI.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", dir]) == 0)
        defer { _ = try? CLI.runTool("/bin/umount", ["-l", dir]) }
        let vault = try VaultProcess(["--disk-reserve-mib", "1", "--quota-mib", "100"], database: "sqlite:\(dir)/vault.sqlite")
        defer { vault.stop() }
        #expect(FileManager.default.fileExists(atPath: dir + "/vault.sqlite-reserve"))
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try vault.fixture.write("blob", String(repeating: "0123456789abcdef", count: 3 << 16))  // 3 MiB, 3 × the reserve
        func upload() throws -> String {
            let (_, out) = try curl(["-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream",
                                     "--data-binary", "@\(blob)", "\(vault.url)/vault/backup"])
            return String(decoding: out, as: UTF8.self)
        }
        var stored: [String] = []
        var refused = ""
        for _ in 0..<20 {
            let answer = try upload()
            guard answer.hasSuffix("201") else { refused = answer; break }
            let json = try #require(JSONSerialization.jsonObject(with: Data(answer.dropLast(4).utf8)) as? [String: Any])
            stored.append(try #require(json["id"] as? String))
        }
        #expect(refused.hasSuffix("507") && refused.contains("disk is full"), "\(refused)")
        #expect(stored.count >= 3)
        let health = try curl(["-w", "%{http_code}", "\(vault.url)/healthz"])
        #expect(String(decoding: health.stdout, as: UTF8.self).contains("disk is full"))
        // What room the failed upload left is taken too: a credential backup can't be kept.
        let filler = try vault.fixture.write("filler-source", String(repeating: "f", count: 64 << 10))
        _ = try CLI.runTool("/bin/sh", ["-c", "while cat \"$0\" >> \"$1\" 2>/dev/null; do :; done", filler, dir + "/filler"])
        let (_, credential) = try curl(["-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream",
                                        "--data-binary", "@\(filler)", "\(vault.url)/vault/credentials/backup"])
        #expect(String(decoding: credential, as: UTF8.self).hasSuffix("507"), "\(String(decoding: credential, as: UTF8.self))")
        // Deleting works with the disk full to the last byte.
        for id in stored.prefix(3) {
            let (_, out) = try curl(["-w", "%{http_code}", "-X", "DELETE", "-H", "Authorization: Bearer \(token)", "\(vault.url)/vault/backups/\(id)"])
            #expect(String(decoding: out, as: UTF8.self) == "204", "deleting on a full disk")
        }
        try FileManager.default.removeItem(atPath: dir + "/filler")
        #expect(try upload().hasSuffix("201"), "the space deleted is used again")
    }

    /// Another process holds the database's write lock for 5 s (an operator's `sqlite3
    /// .backup`, a `hawala-vault user add`) while six uploads wait for it: /healthz and listings
    /// answer at once throughout, and every upload lands once the lock is released.
    @Test func aLockedDatabaseStallsNobodyElse() throws {
        let vault = try VaultProcess(["--transfers-per-user", "6"])
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let path = String(vault.db.dropFirst("sqlite:".count))
        let holder = try RunningCLI(["-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN IMMEDIATE"); print("locked", flush=True); time.sleep(5); c.execute("COMMIT")
            """, path], environment: [:], binary: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(holder.nextLine() == "locked")
        let started = Date()
        let uploads = try (0..<6).map { i in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            p.standardOutput = FileHandle.nullDevice
            p.arguments = ["-s", "-o", "/dev/null", "-m", "30", "-H", "Expect:", "-H", "Authorization: Bearer \(token)",
                           "-H", "Content-Type: application/octet-stream", "--data-binary", "backup \(i)", vault.url + "/vault/backup"]
            try p.run()
            return p
        }
        // The uploads are waiting on the lock once the server holds their six connections.
        #expect(Self.waitForConnections(toPort: vault.port, count: 6, within: 5), "the uploads never reached the server")
        for _ in 0..<3 {
            let asked = Date()
            #expect(try RawConnection.health(port: vault.port, within: 2) == "HTTP/1.1 200 OK")
            let list = try curl(["-m", "2", "-H", "Authorization: Bearer \(token)", vault.url + "/vault/backups"])
            #expect(list.status == 0 && list.stdout.first == UInt8(ascii: "["))
            #expect(Date().timeIntervalSince(asked) < 1.5, "/healthz and a list took \(Date().timeIntervalSince(asked)) s while the database was locked")
            usleep(200000)
        }
        #expect(Date().timeIntervalSince(started) < 5, "the checks ran after the lock was released")
        for p in uploads { p.waitUntilExit() }
        #expect(holder.finish().status == 0)
        let list = try curl(["-H", "Authorization: Bearer \(token)", vault.url + "/vault/backups"])
        #expect((try JSONSerialization.jsonObject(with: list.stdout) as? [Any])?.count == 6)
    }

    /// A user with as many transfers running as allowed gets 429 (with Retry-After) for one
    /// more; other users don't; the slot is free again once the slow upload ends.
    @Test func transfersPerUserAreBounded() throws {
        // The slow upload must outlive the tries however loaded the machine: no idle cut-off.
        let vault = try VaultProcess(["--transfers-per-user", "1", "--idle-timeout", "120"])
        defer { vault.stop() }
        let alice = try vault.fixture.vault(["user", "add", "alice", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bob = try vault.fixture.vault(["user", "add", "bob", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func upload(_ token: String) throws -> (status: Int, text: String) {
            let answer = try curl(["-s", "-i", "-m", "10", "-H", "Expect:", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream",
                                   "--data-binary", "small", vault.url + "/vault/backup"])
            let text = String(decoding: answer.stdout, as: UTF8.self)
            return (Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0, text)
        }
        let slow = try RawConnection(port: vault.port)
        slow.send("POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(alice)\r\nContent-Type: application/octet-stream\r\nContent-Length: 70001\r\n\r\n")
        slow.send(String(repeating: "a", count: 70_000))
        var refused: (status: Int, text: String)?
        // Bounded in time, not in tries: on a loaded machine the slow upload's head may take
        // seconds to be read (it failed once in a full run at 50 tries).
        let deadline = Date().addingTimeInterval(40)
        while refused == nil, Date() < deadline {
            let attempt = try upload(alice)
            if attempt.status == 429 { refused = attempt; break }
            usleep(50_000)
        }
        let busy = try #require(refused, "a second upload was never refused while the first was running")
        #expect(busy.text.lowercased().contains("retry-after: 5") && busy.text.contains("too many transfers at once"), "\(busy.text)")
        // A credential envelope takes a slot too (it was held in memory outside the limit).
        let envelope = try curl(["-s", "-i", "-m", "10", "-H", "Authorization: Bearer \(alice)", "-H", "Content-Type: application/octet-stream",
                                 "--data-binary", "envelope", vault.url + "/vault/credentials/backup"])
        #expect(String(decoding: envelope.stdout, as: UTF8.self).hasPrefix("HTTP/1.1 429"), "\(String(decoding: envelope.stdout, as: UTF8.self))")
        #expect(try upload(bob).status == 201, "another user is not limited")
        #expect(slow.health(within: 5)?.hasPrefix("HTTP/1.1 201") == true, "the slow upload completes")
        #expect(try upload(alice).status == 201, "the slot is free again")
    }

    /// Six 48 MiB uploads at once, then six downloads at once: the server streams both ways,
    /// so its peak resident memory stays under 128 MiB (holding the bodies would take 288 MiB
    /// or more), and every byte comes back.
    @Test func transfersKeepMemoryBounded() throws {
        let vault = try VaultProcess(["--transfers-per-user", "6"])
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "big", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = vault.fixture.home.appendingPathComponent("blob")
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<(48 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
        try data.write(to: blob)
        let digest = hexDigest(data)
        func curls(_ arguments: (Int) -> [String]) throws -> [Data] {
            let runs = try (0..<6).map { i in
                let p = Process(), out = Pipe()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                p.arguments = ["-s", "-m", "120", "-H", "Expect:", "-H", "Authorization: Bearer \(token)"] + arguments(i)
                p.standardOutput = out
                try p.run()
                return (p, out)
            }
            return runs.map { p, out in
                let data = out.fileHandleForReading.readDataToEndOfFile()
                p.waitUntilExit()
                return data
            }
        }
        let uploads = try curls { _ in ["-H", "Content-Type: application/octet-stream", "-H", "X-Content-SHA256: \(digest)", "--data-binary", "@" + blob.path, vault.url + "/vault/backup"] }
        let ids = uploads.compactMap { (try? JSONSerialization.jsonObject(with: $0) as? [String: Any])?["id"] as? String }
        #expect(ids.count == 6, "\(uploads.map { String(decoding: $0.prefix(200), as: UTF8.self) })")
        let downloads = try curls { i in ["-o", vault.fixture.home.appendingPathComponent("down\(i)").path, "-w", "%{http_code} %{size_download}", vault.url + "/vault/backups/" + ids[i % ids.count]] }
        #expect(downloads.map { String(decoding: $0, as: UTF8.self) } == Array(repeating: "200 \(48 << 20)", count: 6))
        #expect(try Data(contentsOf: vault.fixture.home.appendingPathComponent("down5")) == data)
        let status = try String(contentsOfFile: "/proc/\(vault.process.process.processIdentifier)/status", encoding: .utf8)
        let peak = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") })
        #expect(peak < 128 << 10, "peak resident memory \(peak / 1024) MiB")
    }
}

extension RawConnection {
    /// The answer's head (status line and header lines) within `seconds`, or nil.
    func head(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received += buffer[0..<n] } else if n == 0 { break }
            if let text = String(bytes: received, encoding: .utf8), let end = text.range(of: "\r\n\r\n") { return String(text[..<end.lowerBound]) }
        }
        return nil
    }

    /// Whether the server closes the connection within `seconds`.
    func closes(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if closedByServer { return true }
        }
        return false
    }
}

@Suite("hawala-vault serve: hostile bodies")
struct VaultHostileBodyTests {
    /// A JSON body sent chunked (no Content-Length) is counted as it arrives: past 64 KiB the
    /// answer is 413 and the connection is closed, whatever is still coming. A credential
    /// envelope has its own small limit, chunked or declared. (Before, 600 MiB of whitespace to
    /// a JSON route was read whole: 1.3 GiB resident.)
    @Test func bodiesAreBoundedAsTheyArrive() throws {
        let vault = try VaultProcess()
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let chunked = try RawConnection(port: vault.port)
        chunked.send("PUT /vault/backup/settings HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: " ", count: 16 << 10)
        for _ in 0..<6 { chunked.send(String(format: "%x\r\n", chunk.utf8.count) + chunk + "\r\n") }
        let refused = try #require(chunked.head(within: 3), "no answer to a 96 KiB chunked JSON body")
        #expect(refused.hasPrefix("HTTP/1.1 413") && refused.lowercased().contains("connection: close"), "\(refused)")
        #expect(chunked.closes(within: 3), "the connection stays open for the rest of the body")

        let envelope = try RawConnection(port: vault.port)
        envelope.send("POST /vault/credentials/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<6 { envelope.send(String(format: "%x\r\n", chunk.utf8.count) + chunk + "\r\n") }
        #expect(envelope.head(within: 3)?.hasPrefix("HTTP/1.1 413") == true)
        let declared = try RawConnection(port: vault.port).request("""
            POST /vault/credentials/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\n\
            Content-Length: \(100 << 20)\r\n\r\n
            """, within: 3)
        #expect(declared == "HTTP/1.1 413 Payload Too Large")
        #expect(try RawConnection.health(port: vault.port, within: 2) == "HTTP/1.1 200 OK")
    }

    /// A body trickled a byte at a time never finishes in time: a JSON body is cut once the
    /// body timeout passes (408, closed), an upload once it averages under the minimum rate.
    /// (Before, a byte every 2 s held a connection, counted as busy, forever.)
    @Test func slowBodiesAreCut() throws {
        let vault = try VaultProcess(["--body-timeout", "2", "--idle-timeout", "5"])
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let json = try RawConnection(port: vault.port)
        json.send("PUT /vault/backup/settings HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
        let upload = try RawConnection(port: vault.port)
        upload.send("POST /vault/backup HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n")
        let started = Date()
        var heads: [String: String] = [:]
        while Date().timeIntervalSince(started) < 6, heads.count < 2 {
            for (name, connection) in [("json", json), ("upload", upload)] where heads[name] == nil {
                connection.send(" ")
                if let head = connection.head(within: 0.25) { heads[name] = head }
            }
        }
        #expect(heads["json"]?.hasPrefix("HTTP/1.1 408") == true, "\(heads)")
        #expect(heads["upload"]?.hasPrefix("HTTP/1.1 408") == true, "\(heads)")
        #expect(Date().timeIntervalSince(started) < 5, "cut after \(Date().timeIntervalSince(started)) s")
        #expect(json.closes(within: 2) && upload.closes(within: 2))
        // Nothing of the upload was kept.
        let list = try curl(["-H", "Authorization: Bearer \(token)", vault.url + "/vault/backups"])
        #expect((try JSONSerialization.jsonObject(with: list.stdout) as? [Any])?.isEmpty == true)
    }

    /// The access log is written from a queue of its own: with the server's stderr a pipe nobody
    /// reads (full after 64 KiB), 3,000 requests still answer at once and the lines that can't
    /// be written are dropped and counted. (Before, each request wrote its line itself, and the
    /// first one to meet the full pipe stalled the event loop.)
    @Test func aStuckLogStallsNoRequest() throws {
        let fixture = try WalletFixture()
        let db = "sqlite:" + fixture.home.appendingPathComponent("vault.sqlite").path
        let process = Process()
        process.executableURL = CLI.vaultBinary
        process.arguments = ["serve", "--port", "0", "--db", db, "--access-log"]
        process.environment = ProcessInfo.processInfo.environment.merging(fixture.environment) { $1 }
        let output = Pipe(), unread = Pipe()
        process.standardOutput = output
        process.standardError = unread  // never read until the end
        try process.run()
        // Killed: a graceful stop would wait to write its own last lines to the full pipe.
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        var line = Data()
        while !line.contains(0x0A) { line += output.fileHandleForReading.availableData }
        let port = try #require(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? ""))
        let started = Date()
        for i in 0..<3_000 {
            let status = try RawConnection.health(port: port, within: 5)
            guard status == "HTTP/1.1 200 OK" else { Issue.record("request \(i): \(status ?? "no answer")"); return }
        }
        #expect(Date().timeIntervalSince(started) < 60, "3,000 requests took \(Date().timeIntervalSince(started)) s")
    }

    /// Digests go out as RFC 9530 and RFC 9110 write them (not percent-encoded), and a backup
    /// id with anything after a NUL byte names no backup.
    @Test func digestsAndIdsOnTheWire() throws {
        let vault = try VaultProcess()
        defer { vault.stop() }
        let token = try vault.fixture.vault(["user", "add", "u", "--db", vault.db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let uploaded = try curl(["-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream", "--data-binary", "hello", vault.url + "/vault/backup"])
        let json = try #require(JSONSerialization.jsonObject(with: uploaded.stdout) as? [String: Any])
        let id = try #require(json["id"] as? String), sha = try #require(json["sha256"] as? String)
        let download = try RawConnection(port: vault.port)
        download.send("GET /vault/backups/\(id) HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        let head = try #require(download.head(within: 3)).lowercased()
        #expect(head.contains("etag: \"\(sha)\""), "\(head)")
        #expect(head.contains("repr-digest: sha-256=:\(Data(sha256Bytes("hello")).base64EncodedString().lowercased()):"), "\(head)")
        for path in ["\(id)%00zzzz", "\(id)zz", String(id.dropLast()), id.uppercased()] {
            let (_, out) = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)", vault.url + "/vault/backups/" + path])
            #expect(String(decoding: out, as: UTF8.self) == "404", "\(path)")
        }
    }
}

/// SHA-256 of a text's UTF-8 bytes.
func sha256Bytes(_ text: String) -> [UInt8] {
    let hex = hexDigest(Data(text.utf8))
    return stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
}

extension VaultSlowClientTests {
    /// Waits until `count` connections to `port` are established on this machine (Linux's
    /// /proc/net/tcp and tcp6, the server's side of each); whether they were within `within` seconds.
    static func waitForConnections(toPort port: Int, count: Int, within: TimeInterval) -> Bool {
        let local = String(format: ":%04X", port)
        let deadline = Date().addingTimeInterval(within)
        repeat {
            // Read to the end: a /proc file's size is 0, which String(contentsOfFile:) believes.
            let table = ["/proc/net/tcp", "/proc/net/tcp6"]
                .map { String(decoding: FileHandle(forReadingAtPath: $0)?.readDataToEndOfFile() ?? Data(), as: UTF8.self) }.joined(separator: "\n")
            let open = table.split(separator: "\n").filter { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "01"
            }
            if open.count >= count { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }
}
