import Foundation
import HawalaCrypto

/// Atomic file writes: a private temporary file in the same folder, fsync, rename, fsync of the
/// folder. A crash at any moment leaves the old file (or none) or the new one, never a part.
public enum AtomicFile {
    /// Writes `bytes` to `url` (mode 0600). Refuses to replace an existing file unless `replace`.
    public static func write(_ bytes: SecretBytes, to url: URL, replace: Bool = false) throws {
        try write(to: url, replace: replace) { fd, _ in
            if !bytes.isEmpty { try bytes.withUnsafeBytes { try FileDescriptorStream(fd: fd).write($0) } }
        }
    }

    /// Lets `produce` fill the temporary file (through its descriptor, or its path for libraries
    /// that open files themselves), then `verify` read it back, before it takes the name `url`.
    public static func write(to url: URL, replace: Bool = false,
                             produce: (_ fd: Int32, _ path: String) throws -> Void,
                             verify: (_ path: String) throws -> Void = { _ in }) throws {
        if !replace && FileManager.default.fileExists(atPath: url.path) {
            throw HawalaFileError.io("\(url.path) already exists; choose another name")
        }
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HawalaFileError.io("cannot create a file in \(folder.path): \(String(cString: strerror(errno)))") }
        var renamed = false
        defer { if !renamed { unlink(temporary.path) } }
        do {
            defer { close(fd) }
            try produce(fd, temporary.path)
            guard fsync(fd) == 0 else { throw HawalaFileError.io("cannot flush \(temporary.path) to disk") }
        }
        try verify(temporary.path)
        guard rename(temporary.path, url.path) == 0 else { throw HawalaFileError.io("cannot write \(url.path): \(String(cString: strerror(errno)))") }
        renamed = true
        let dir = open(folder.path, O_RDONLY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
    }
}
