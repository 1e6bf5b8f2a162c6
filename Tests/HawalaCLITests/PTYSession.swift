import Foundation
import HawalaTestSupport

/// Runs `hawala` on a pseudo-terminal, as a person at a keyboard would: the program gets the pty
/// as its controlling terminal (so `/dev/tty` works and echo can be switched off), and the test
/// reads what the screen shows and types answers when a prompt appears.
final class PTYSession {
    private let master: Int32
    private let pid: pid_t
    /// Everything the terminal has shown so far.
    private(set) var screen = ""

    init(_ arguments: [String], environment: [String: String] = [:], home: String? = nil) throws {
        // posix_openpt/grantpt/unlockpt/ptsname are not visible to Swift here; on Linux they are
        // /dev/ptmx, TIOCSPTLCK and TIOCGPTN (grantpt has nothing to do with devpts).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0 else {
            throw PTYError("cannot open a pseudo-terminal")
        }
        let slavePath = "/dev/pts/\(number)"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new session, so opening the slave below makes it the controlling terminal.
        posix_spawnattr_setflags(&attributes, 0x80 /* glibc's POSIX_SPAWN_SETSID */)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_addclose(&actions, master)

        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "dumb"
        env["HAWALA_HOME"] = home ?? temporaryFolder("hawala-pty").path
        for (k, v) in environment { env[k] = v }
        let argv = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, CLI.binary.path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw PTYError("posix_spawn failed: \(rc)") }
        pid = child
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    /// Waits until the screen shows `text` (after what was already matched) or `timeout` passes.
    @discardableResult
    func expect(_ text: String, timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !screen.contains(text) {
            guard Date() < deadline else { throw PTYError("timed out waiting for \"\(text)\"; screen:\n\(screen)") }
            guard readAvailable(waitMilliseconds: 50) else { throw PTYError("program ended before \"\(text)\"; screen:\n\(screen)") }
        }
        return screen
    }

    /// How many times `text` appears on the screen so far.
    func occurrences(of text: String) -> Int { screen.components(separatedBy: text).count - 1 }

    /// Waits until `text` appears for the `n`-th time; returns the screen after it.
    @discardableResult
    func expect(_ text: String, occurrence n: Int, timeout: TimeInterval = 20) throws -> Substring {
        let deadline = Date().addingTimeInterval(timeout)
        while occurrences(of: text) < n {
            guard Date() < deadline else { throw PTYError("timed out waiting for \"\(text)\" #\(n); screen:\n\(screen)") }
            guard readAvailable(waitMilliseconds: 50) else { throw PTYError("program ended before \"\(text)\" #\(n); screen:\n\(screen)") }
        }
        return Substring(screen.components(separatedBy: text)[n])
    }

    /// Reads the screen until `condition` holds.
    func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw PTYError("timed out; screen:\n\(screen)") }
            guard readAvailable(waitMilliseconds: 50) else { throw PTYError("program ended; screen:\n\(screen)") }
        }
    }

    /// Types `line` and Enter.
    func send(_ line: String) {
        let bytes = Array((line + "\r").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Ctrl-D: end of input at the start of a line.
    func sendControlD() {
        var eot: UInt8 = 4
        _ = write(master, &eot, 1)
    }

    /// Waits for the program to end, collecting the rest of the screen; returns its exit status.
    func wait(timeout: TimeInterval = 20) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while readAvailable(waitMilliseconds: 50) {
            guard Date() < deadline else { throw PTYError("program did not end; screen:\n\(screen)") }
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
    }

    /// Reads what is available; false once the terminal is closed (the program ended).
    private func readAvailable(waitMilliseconds: Int32) -> Bool {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, waitMilliseconds)
        if ready == 0 { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(master, &buffer, buffer.count)
        if n <= 0 { return false }  // EIO: the slave side is closed
        screen += String(decoding: buffer[0..<n], as: UTF8.self)
        return true
    }
}

struct PTYError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
