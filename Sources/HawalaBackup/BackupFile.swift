import Foundation
import HawalaCrypto

/// Writing and reading whole `.hawala` files on disk.
public enum BackupFile {
    /// Where an export goes.
    public enum Target: Sendable, Equatable {
        /// This file, which must not exist (a backup is never replaced).
        case file(URL)
        /// The first free `hawala-backup-DATE[-N].hawala` in this folder, taken atomically: two
        /// exports at once get two files.
        case folder(URL, date: Date)
    }

    /// Exports `payload` to `target` (see `write(_:to:key:replace:)`), sealed under a key
    /// derived from `password`; returns the file written.
    @discardableResult
    public static func export(_ payload: SecretBytes, to target: Target, password: SecretBytes, cost: HawalaKDFCost = .default,
                              createdAt: Date = Date()) throws -> URL {
        let key = try BackupKey.derive(password: password, cost: cost)
        switch target {
        case .file(let url):
            try write(payload, to: url, key: key, createdAt: createdAt)
            return url
        case let .folder(folder, date):
            return try AtomicFile.write(toFirstFreeOf: { folder.appendingPathComponent(BackupExporter.suggestedName(date, number: $0)) },
                                        produce: seal(payload, key: key, createdAt: createdAt), verify: readsBack(payload, key: key))
        }
    }

    /// Encrypts `payload` into `url` atomically (temporary file in the same folder, fsync,
    /// link or rename, fsync of the folder), then reads the file back and decrypts it before
    /// reporting success. On any failure nothing is left at `url` that wasn't there before. An
    /// existing file is replaced only with `replace` (the agent's outbox).
    public static func write(_ payload: SecretBytes, to url: URL, password: SecretBytes, cost: HawalaKDFCost = .default, createdAt: Date = Date(),
                             replace: Bool = false) throws {
        try write(payload, to: url, key: try BackupKey.derive(password: password, cost: cost), createdAt: createdAt, replace: replace)
    }

    /// `write(_:to:password:)` with a key derived earlier (no Argon2id run).
    public static func write(_ payload: SecretBytes, to url: URL, key: BackupKey, createdAt: Date = Date(), replace: Bool = false) throws {
        try AtomicFile.write(to: url, replace: replace, produce: seal(payload, key: key, createdAt: createdAt), verify: readsBack(payload, key: key))
    }

    /// Seals `payload` into a file being written.
    private static func seal(_ payload: SecretBytes, key: BackupKey, createdAt: Date) -> (Int32, String) throws -> Void {
        { fd, _ in
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
        }
    }

    /// Reads a file written back before it takes its name: an export that can't be read is no backup.
    private static func readsBack(_ payload: SecretBytes, key: BackupKey) -> (String) throws -> Void {
        { path in
            let readBack = try read(URL(fileURLWithPath: path), key: key, limit: max(payload.count, 1))
            guard readBack == payload else { throw HawalaFileError.io("the written file did not read back identically") }
        }
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
