import Crypto
import Foundation
import HawalaText
import HawalaVault

/// Backups move through the vault in chunks: an upload is stored as it arrives and a download
/// is read as it is sent, so memory per transfer is about two chunks, whatever the size.
public enum BackupChunking {
    /// Bytes per stored chunk (the last one of a backup may be shorter).
    public static let chunkSize = 64 * 1024
}

/// One upload on its way into storage: bytes are appended as they arrive, hashed on the way,
/// and stored a chunk at a time as a `partial` backup that nobody sees; `finish` checks the
/// declared SHA-256 and completes it (charging the quota) in one transaction. Whatever
/// fails on the way, `abandon` removes what was stored.
struct BackupUpload {
    let storage: any VaultStorage
    let user: VaultUser
    let type: Backup.Kind
    let maximumSize: Int64
    /// The `encryptionMethod` to record, from the first bytes.
    let classify: @Sendable (Data) -> String

    private(set) var id: String?
    private var pending = Data()
    private var hasher = SHA256()
    private var nextIndex = 0
    private var size: Int64 = 0

    init(storage: any VaultStorage, user: VaultUser, type: Backup.Kind, maximumSize: Int64, classify: @escaping @Sendable (Data) -> String) {
        self.storage = storage
        self.user = user
        self.type = type
        self.maximumSize = maximumSize
        self.classify = classify
        pending.reserveCapacity(BackupChunking.chunkSize)
    }

    mutating func append(_ bytes: some Collection<UInt8>, now: Date) async throws(VaultError) {
        guard size + Int64(bytes.count) <= maximumSize else { throw .tooLarge(limit: maximumSize) }
        size += Int64(bytes.count)
        // Filled up to one chunk and emptied in place: Data.removeFirst would only move the
        // slice's start, and the storage behind it would grow with the whole upload.
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(BackupChunking.chunkSize - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if pending.count == BackupChunking.chunkSize {
                try await store(pending, now: now)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Stores what is left, checks `sha256` (hex, when the client declared one) and completes.
    mutating func finish(sha256 declared: String?, quota: Int64, now: Date) async throws(VaultError) -> Backup {
        guard size > 0 else { throw .invalidField("body", "the backup is empty") }
        let id = pending.isEmpty ? id : try await store(pending, now: now)
        let digest = hexString(Data(hasher.finalize()))
        if let declared, declared.lowercased() != digest { throw .hashMismatch }
        // size > 0, so at least one chunk was stored and the upload started.
        guard let id else { throw .database(reason: "an upload finished without being started") }
        return try await storage.completeUpload(id, sizeBytes: size, sha256: digest, user: user, quota: quota, now: now)
    }

    /// Removes the partial backup, if one was started.
    func abandon() async {
        if let id { await storage.abandonUpload(id, user: user) }
    }

    /// Stores the next chunk (starting the upload with the first); returns the upload's id.
    @discardableResult
    private mutating func store(_ chunk: Data, now: Date) async throws(VaultError) -> String {
        let id: String
        if let started = self.id { id = started } else {
            id = try await storage.beginUpload(type: type, encryptionMethod: classify(chunk), user: user, now: now)
            self.id = id
        }
        hasher.update(data: chunk)
        try await storage.appendChunk(chunk, index: nextIndex, upload: id, user: user)
        nextIndex += 1
        return id
    }
}

/// A stored backup's bytes, read one chunk at a time as they are consumed. A backup whose chunks
/// don't add up to its recorded size ends with `corrupted` instead of a short body.
public struct BackupChunks: AsyncSequence, Sendable {
    public typealias Element = Data
    let storage: any VaultStorage
    let backup: Backup
    let user: VaultUser

    public struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: BackupChunks
        var index = 0
        var read: Int64 = 0
        var done = false

        public mutating func next() async throws(VaultError) -> Data? {
            guard !done else { return nil }
            guard let chunk = try await chunks.storage.chunk(index, of: chunks.backup.id, user: chunks.user) else {
                done = true
                guard read == chunks.backup.sizeBytes else { throw .corrupted(chunks.backup.id) }
                return nil
            }
            index += 1
            read += Int64(chunk.count)
            guard read <= chunks.backup.sizeBytes else { done = true; throw .corrupted(chunks.backup.id) }
            return chunk
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}

extension VaultStorage {
    /// Stores an upload as its bytes arrive (see `BackupUpload`): at most `maximumSize` bytes
    /// (`tooLarge` past it), `sha256` checked when declared, the quota charged at the end.
    /// Retention runs after. Nothing is left behind when it fails, including when `body` ends
    /// with an error (`interrupted`: the client went away).
    public func addBackup<Body: AsyncSequence>(streaming body: Body, type: Backup.Kind, sha256: String?, user: VaultUser, now: Date, quota: Int64,
                                               maximumSize: Int64, classify: @escaping @Sendable (Data) -> String) async throws(VaultError) -> Backup
    where Body.Element: Collection<UInt8> {
        var upload = BackupUpload(storage: self, user: user, type: type, maximumSize: maximumSize, classify: classify)
        do {
            do {
                for try await bytes in body { try await upload.append(bytes, now: now) }
            } catch let error as VaultError {
                throw error
            } catch {
                throw VaultError.interrupted
            }
            let backup = try await upload.finish(sha256: sha256, quota: quota, now: now)
            try await prune(user: user, now: now)
            return backup
        } catch {
            await upload.abandon()
            throw error as? VaultError ?? .interrupted
        }
    }

    /// Stores `data` as a backup (see `addBackup(streaming:…)`).
    public func addBackup(_ data: Data, type: Backup.Kind, encryptionMethod: String, sha256: String?, user: VaultUser, now: Date,
                          quota: Int64 = .max) async throws(VaultError) -> Backup {
        try await addBackup(streaming: OneChunk(data: data), type: type, sha256: sha256, user: user, now: now, quota: quota,
                            maximumSize: .max, classify: { _ in encryptionMethod })
    }

    /// A complete backup's record and its bytes as a sequence of chunks, read as consumed.
    public func download(id: String, user: VaultUser) async throws(VaultError) -> (Backup, BackupChunks) {
        let backup = try await storedBackup(id: id, user: user)
        return (backup, BackupChunks(storage: self, backup: backup, user: user))
    }

    /// Reads a backup through, giving each chunk to `each`, and hashes it: `corrupted` when the
    /// bytes no longer match the SHA-256 recorded at upload. Memory: one chunk.
    @discardableResult
    public func verify(id: String, user: VaultUser, each: (Data) -> Void = { _ in }) async throws(VaultError) -> Backup {
        let (backup, chunks) = try await download(id: id, user: user)
        var hasher = SHA256()
        for try await chunk in chunks {
            hasher.update(data: chunk)
            each(chunk)
        }
        guard hexString(Data(hasher.finalize())) == backup.sha256 else { throw .corrupted(id) }
        return backup
    }

    /// A backup and all its bytes, checked against the recorded SHA-256 (for small backups and
    /// tests; the server streams).
    public func backup(id: String, user: VaultUser) async throws(VaultError) -> (Backup, Data) {
        var data = Data()
        let backup = try await verify(id: id, user: user) { data.append($0) }
        return (backup, data)
    }
}

/// `data` as a body of one element.
private struct OneChunk: AsyncSequence, Sendable {
    let data: Data
    struct AsyncIterator: AsyncIteratorProtocol {
        var data: Data?
        mutating func next() async -> Data? {
            defer { data = nil }
            return data
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data) }
}
