import Foundation
import HawalaCrypto

/// Writing and reading whole `.hawala` files on disk.
public enum BackupFile {
    /// Encrypts `payload` into `url` atomically (temporary file in the same folder, fsync,
    /// rename, fsync of the folder), then reads the file back and decrypts it before reporting
    /// success. On any failure nothing is left at `url` that wasn't there before.
    public static func write(_ payload: SecretBytes, to url: URL, password: SecretBytes, cost: HawalaKDFCost = .default, createdAt: Date = Date()) throws {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HawalaFileError.io("cannot create a file in \(folder.path): \(String(cString: strerror(errno)))") }
        var renamed = false
        defer { if !renamed { unlink(temporary.path) } }
        do {
            defer { close(fd) }
            let stream = FileDescriptorStream(fd: fd)
            let writer = try HawalaFileWriter(sink: stream, password: password, cost: cost, createdAt: createdAt)
            try payload.withUnsafeBytes { try writer.write($0) }
            try writer.finish()
            guard fsync(fd) == 0 else { throw HawalaFileError.io("cannot flush \(temporary.path) to disk") }
        }
        // Read back before anything is replaced: an export that can't be read is no backup.
        let readBack = try read(temporary, password: password, limit: max(payload.count, 1))
        guard readBack == payload else { throw HawalaFileError.io("the written file did not read back identically") }
        guard rename(temporary.path, url.path) == 0 else { throw HawalaFileError.io("cannot move the backup to \(url.path): \(String(cString: strerror(errno)))") }
        renamed = true
        let dir = open(folder.path, O_RDONLY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
    }

    /// Decrypts the whole payload of `url` (at most `limit` bytes).
    public static func read(_ url: URL, password: SecretBytes, limit: Int = BackupPayload.maximumBytes) throws -> SecretBytes {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HawalaFileError.io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let reader = try HawalaFileReader(source: FileDescriptorStream(fd: fd), password: password)
        return try reader.readAll(limit: limit)
    }

    /// The header of `url`, without the password.
    public static func inspect(_ url: URL) throws -> HawalaFileHeader {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HawalaFileError.io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try HawalaFileReader.inspect(FileDescriptorStream(fd: fd))
    }
}
