import Foundation
import HawalaCrypto

/// Atomic file writes: a private temporary file in the same folder, fsync, then the final name
/// (`link(2)`, which never replaces, unless replacing is asked for: `rename(2)`), fsync of the
/// folder. A crash at any moment leaves the old file (or none) or the new one, never a part, and
/// of two writers racing for one name, the second fails instead of replacing the first.
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
            throw HawalaFileError.exists(path: url.path)
        }
        _ = try write(names: { _ in url }, attempts: 1, replace: replace, produce: produce, verify: verify)
    }

    /// `write(to:)` under the first free name of `names(1)`, `names(2)`, … (all in one folder),
    /// each taken atomically: two writers racing for a folder's next name get two files.
    /// Returns the name taken.
    public static func write(toFirstFreeOf names: (Int) -> URL, produce: (_ fd: Int32, _ path: String) throws -> Void,
                             verify: (_ path: String) throws -> Void = { _ in }) throws -> URL {
        try write(names: names, attempts: 10_000, replace: false, produce: produce, verify: verify)
    }

    private static func write(names: (Int) -> URL, attempts: Int, replace: Bool,
                              produce: (_ fd: Int32, _ path: String) throws -> Void,
                              verify: (_ path: String) throws -> Void) throws -> URL {
        let url = names(1)
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
        var taken = url
        for number in 1...attempts {
            taken = names(number)
            do {
                try publish(temporary.path, as: taken.path, replace: replace)
                break
            } catch HawalaFileError.exists(_) where number < attempts {
                continue
            }
        }
        renamed = true
        let dir = open(folder.path, O_RDONLY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
        return taken
    }

    /// Gives the finished temporary file its name. Without `replace`, a hard link creates the name
    /// only if it is free (atomically, unlike a check then a rename); file systems without hard
    /// links fall back to the checked rename.
    private static func publish(_ temporary: String, as path: String, replace: Bool) throws {
        if !replace {
            if link(temporary, path) == 0 {
                unlink(temporary)
                return
            }
            let error = errno
            if error == EEXIST { throw HawalaFileError.exists(path: path) }
            guard error == EPERM || error == EOPNOTSUPP || error == EMLINK else {
                throw HawalaFileError.io("cannot write \(path): \(String(cString: strerror(error)))")
            }
            if FileManager.default.fileExists(atPath: path) { throw HawalaFileError.exists(path: path) }
        }
        guard rename(temporary, path) == 0 else { throw HawalaFileError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
    }
}
