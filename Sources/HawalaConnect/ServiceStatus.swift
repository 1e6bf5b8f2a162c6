import Foundation
import HawalaWallet

/// Whether `hawala connect serve` runs for a wallet home: one service at a time (a lock file
/// held while it runs), and what it says of itself (a status file it refreshes).
public enum ConnectServiceStatus {
    public struct Running: Sendable, Equatable, Codable {
        public let pid: Int32
        public let startedAt: Date
        public var heartbeatAt: Date
        public var connections: Int
        public init(pid: Int32, startedAt: Date, heartbeatAt: Date, connections: Int) {
            self.pid = pid
            self.startedAt = startedAt
            self.heartbeatAt = heartbeatAt
            self.connections = connections
        }
    }

    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case alreadyRunning(pid: Int32?)
        case cannotLock(String)

        public var description: String {
            switch self {
            case .alreadyRunning(let pid): "the connections service already runs for these wallets" + (pid.map { " (process \($0))" } ?? "")
            case .cannotLock(let why): "cannot take the connections service's lock: \(why)"
            }
        }
    }

    /// The lock held while a service runs; released when the process ends, however it ends.
    public final class Lock: Sendable {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    static func folder(_ home: URL) -> URL { home.appendingPathComponent("connect") }
    static func lockFile(_ home: URL) -> URL { folder(home).appendingPathComponent("service.lock") }
    static func statusFile(_ home: URL) -> URL { folder(home).appendingPathComponent("service.json") }

    /// Takes the lock, or says the service runs already.
    public static func acquire(home: URL) throws(Error) -> Lock {
        do { try FileManager.default.createDirectory(at: folder(home), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
            throw .cannotLock("\(error)")
        }
        let fd = open(lockFile(home).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotLock(String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .alreadyRunning(pid: (try? readStatus(home: home))?.pid)
        }
        return Lock(fd: fd)
    }

    /// Writes what the running service says of itself (atomically).
    public static func write(_ status: Running, home: URL) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(status) else { return }
        UnsavedWrite.attempt("the service's status (\(statusFile(home).path))") { try data.write(to: statusFile(home), options: .atomic) }
    }

    /// The running service, if one holds the lock (its last word about itself); nil otherwise.
    public static func running(home: URL) -> Running? {
        let fd = open(lockFile(home).path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil  // nobody holds it: not running
        }
        return (try? readStatus(home: home)) ?? Running(pid: 0, startedAt: Date(), heartbeatAt: Date(), connections: 0)
    }

    static func readStatus(home: URL) throws -> Running {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Running.self, from: Data(contentsOf: statusFile(home)))
    }
}
