import Foundation
import HawalaCrypto

/// Writing and reading whole `.hawala` files on disk.
public enum BackupFile {
    /// Encrypts `payload` into `url` atomically (temporary file in the same folder, fsync,
    /// rename, fsync of the folder), then reads the file back and decrypts it before reporting
    /// success. On any failure nothing is left at `url` that wasn't there before.
    public static func write(_ payload: SecretBytes, to url: URL, password: SecretBytes, cost: HawalaKDFCost = .default, createdAt: Date = Date()) throws {
        try write(payload, to: url, key: try BackupKey.derive(password: password, cost: cost), createdAt: createdAt)
    }

    /// `write(_:to:password:)` with a key derived earlier (no Argon2id run).
    public static func write(_ payload: SecretBytes, to url: URL, key: BackupKey, createdAt: Date = Date()) throws {
        try AtomicFile.write(to: url, replace: true, produce: { fd, _ in
            // Sealing overlaps the kernel's copy of the previous chunk.
            let sink = BackgroundSink(FileDescriptorStream(fd: fd))
            do {
                let writer = try HawalaFileWriter(sink: sink, key: key, createdAt: createdAt)
                try payload.withUnsafeBytes { try writer.write($0) }
                try writer.finish()
            } catch {
                try? sink.finish()
                throw error
            }
            try sink.finish()
        }, verify: { path in
            // Read back before anything is replaced: an export that can't be read is no backup.
            let readBack = try read(URL(fileURLWithPath: path), key: key, limit: max(payload.count, 1))
            guard readBack == payload else { throw HawalaFileError.io("the written file did not read back identically") }
        })
    }

    /// Decrypts the whole payload of `url` (at most `limit` bytes).
    public static func read(_ url: URL, password: SecretBytes, limit: Int = BackupPayload.maximumBytes) throws -> SecretBytes {
        try withFile(url) { try HawalaFileReader(source: $0, password: password).readAll(limit: limit) }
    }

    /// Decrypts the whole payload of `url`, sealed with `key` (no Argon2id run).
    public static func read(_ url: URL, key: BackupKey, limit: Int = BackupPayload.maximumBytes) throws -> SecretBytes {
        try withFile(url) { try HawalaFileReader(source: $0, key: key).readAll(limit: limit) }
    }

    /// The header of `url`, without the password.
    public static func inspect(_ url: URL) throws -> HawalaFileHeader {
        try withFile(url) { try HawalaFileReader.inspect($0) }
    }

    /// `body` over the file opened for reading; closed afterwards.
    private static func withFile<T>(_ url: URL, _ body: (FileDescriptorStream) throws -> T) throws -> T {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HawalaFileError.io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try body(FileDescriptorStream(fd: fd))
    }
}
