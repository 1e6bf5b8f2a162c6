import Crypto
import Foundation
import GRDB
import HawalaText
import HawalaVault
@testable import HawalaVaultStorage
import HawalaVaultAPI
import HawalaVaultPostgres
@testable import HawalaVaultServer
import OpenAPIRuntime
import HawalaTestSupport
import Testing

/// A body arriving in pieces of the given sizes (the bytes of `data`), failing after `failAfter`
/// pieces when set (a client that went away).
struct Pieces: AsyncSequence, Sendable {
    let data: Data
    let sizes: [Int]
    var failAfter: Int?

    struct Gone: Error {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let pieces: Pieces
        var offset = 0
        var index = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let limit = pieces.failAfter, index == limit { throw Gone() }
            guard offset < pieces.data.count else { return nil }
            let size = pieces.sizes[index % pieces.sizes.count]
            let end = Swift.min(pieces.data.count, offset + size)
            defer { offset = end; index += 1 }
            return ArraySlice(pieces.data[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pieces: self) }
}

func randomData(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

@Suite("Vault streaming (SQLite and PostgreSQL)")
struct VaultStreamingTests {
    /// Stored as it arrives, whatever the pieces; read back in chunks of at most 64 KiB that
    /// add up to the same bytes.
    @Test(arguments: StorageKind.enabled) func streamedInAndOut(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        let data = Data("HWLA".utf8) + randomData(300_000)
        let digest = VaultStorageSupport.sha256Hex(data)
        let backup = try await storage.addBackup(streaming: Pieces(data: data, sizes: [1, 100, 65_535, 70_000, 3, 131_072]), type: .auto, sha256: digest,
                                                 user: user, now: Date(), quota: 1 << 20, maximumSize: 1 << 20,
                                                 classify: { $0.starts(with: Data("HWLA".utf8)) ? "hawala-v1" : "opaque" })
        #expect(backup.sizeBytes == Int64(data.count) && backup.sha256 == digest && backup.encryptionMethod == "hawala-v1" && backup.status == .complete)
        let (listed, chunks) = try await storage.download(id: backup.id, user: user)
        #expect(listed == backup)
        var back = Data()
        var sizes: [Int] = []
        for try await chunk in chunks { back.append(chunk); sizes.append(chunk.count) }
        #expect(back == data)
        #expect(sizes == [65_536, 65_536, 65_536, 65_536, 300_004 - 4 * 65_536])
        #expect(try await storage.verify(id: backup.id, user: user) == backup)
        #expect(try await storage.usage(user: user) == 300_004)
        // Exactly one chunk's worth, and a tiny one.
        for size in [65_536, 1] {
            let exact = randomData(size)
            let stored = try await storage.addBackup(exact, type: .manual, encryptionMethod: "opaque", sha256: nil, user: user, now: Date())
            #expect(try await storage.backup(id: stored.id, user: user).1 == exact)
        }
    }

    /// An upload that fails on the way (client gone, too large, wrong hash, over quota) leaves
    /// nothing: not listed, not counted, no chunks. One in progress is invisible until complete.
    @Test(arguments: StorageKind.enabled) func nothingLeftBehind(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        let data = randomData(200_000)
        func upload(_ body: Pieces, sha256: String? = nil, quota: Int64 = 1 << 20, maximumSize: Int64 = 1 << 20) async throws -> Backup {
            try await storage.addBackup(streaming: body, type: .manual, sha256: sha256, user: user, now: Date(), quota: quota, maximumSize: maximumSize,
                                        classify: { _ in "opaque" })
        }
        await #expect(throws: VaultError.interrupted) { try await upload(Pieces(data: data, sizes: [50_000], failAfter: 3)) }
        await #expect(throws: VaultError.tooLarge(limit: 150_000)) { try await upload(Pieces(data: data, sizes: [70_000]), maximumSize: 150_000) }
        await #expect(throws: VaultError.hashMismatch) { try await upload(Pieces(data: data, sizes: [70_000]), sha256: String(repeating: "a", count: 64)) }
        await #expect(throws: VaultError.quotaExceeded(limit: 100_000)) { try await upload(Pieces(data: data, sizes: [70_000]), quota: 100_000) }
        await #expect(throws: VaultError.invalidField("body", "the backup is empty")) { try await upload(Pieces(data: Data(), sizes: [1])) }
        #expect(try await storage.backups(user: user).isEmpty)
        #expect(try await storage.usage(user: user) == 0)
        #expect(try await storage.removeAbandonedUploads(startedBefore: .distantFuture) == 0, "no partial upload was left")

        // In progress: not listed, counted, checked or downloadable; removed once abandoned.
        let started = Date()
        let id = try await storage.beginUpload(type: .manual, encryptionMethod: "opaque", user: user, now: started)
        try await storage.appendChunk(Data(repeating: 1, count: 10), index: 0, upload: id, user: user)
        let other = try await storage.user(token: try await storage.addUser("other", now: Date()))
        await #expect(throws: VaultError.notFound) { try await storage.appendChunk(Data([1]), index: 1, upload: id, user: other) }
        #expect(try await storage.backups(user: user).isEmpty)
        #expect(try await storage.usage(user: user) == 0)
        #expect(try await storage.storedBackups().isEmpty)
        #expect(try await storage.users().first { $0.name == "u" }?.backups == 0)
        await #expect(throws: VaultError.notFound) { try await storage.download(id: id, user: user) }
        await #expect(throws: VaultError.notFound) { try await storage.deleteBackup(id: id, user: user) }
        #expect(try await storage.removeAbandonedUploads(startedBefore: started.addingTimeInterval(-60)) == 0, "a recent upload is left alone")
        #expect(try await storage.removeAbandonedUploads(startedBefore: started.addingTimeInterval(60)) == 1)
        await #expect(throws: VaultError.notFound) {
            try await storage.completeUpload(id, sizeBytes: 10, sha256: "", user: user, quota: .max, now: Date())
        }
    }

    /// A database written before chunks existed keeps its backups: the blobs are split on open.
    @Test func sqliteBlobsMoveIntoChunks() async throws {
        let dir = temporaryFolder("hawala-vault")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("vault.sqlite").path
        let data = randomData(150_000)
        let token = "hwv_old"
        do {
            let old = try DatabaseQueue(path: path)
            try SQLiteVaultStorage.migrator.migrate(old, upTo: "vault-v2-backups-version")
            try await old.write { db in
                try db.execute(sql: "INSERT INTO user (id, name, tokenHash, createdAt) VALUES (1, 'u', ?, 0)", arguments: [VaultStorageSupport.tokenHash(token)])
                try db.execute(sql: "INSERT INTO user (id, name, tokenHash, createdAt, revoked) VALUES (2, 'gone', ?, 0, 1)",
                               arguments: [VaultStorageSupport.tokenHash("hwv_gone")])
                for (id, blob) in [("a", data), ("b", Data([9]))] {
                    try db.execute(sql: """
                        INSERT INTO backup (id, userId, createdAt, sizeBytes, type, status, encryptionMethod, sha256, data)
                        VALUES (?, 1, 1, ?, 'manual', 'complete', 'opaque', ?, ?)
                        """, arguments: [id, blob.count, VaultStorageSupport.sha256Hex(blob), blob])
                }
            }
        }
        let storage = try SQLiteVaultStorage(path: path)
        let user = try await storage.user(token: token)
        #expect(try await storage.backup(id: "a", user: user).1 == data)
        #expect(try await storage.backup(id: "b", user: user).1 == Data([9]))
        let counts = try await DatabaseQueue(path: path).read { try Int.fetchAll($0, sql: "SELECT COUNT(*) FROM chunk GROUP BY backupId ORDER BY backupId") }
        #expect(counts == [3, 1])
        // The old token became a full one; a revoked user stays revoked; what it stores is counted.
        #expect(user.scope == .full)
        #expect(try await storage.usage(user: user) == Int64(data.count + 1))
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: "hwv_gone") }
        #expect(try await storage.users().map(\.revoked) == [true, false])
    }

    @Test(.enabled(if: StorageKind.enabled.contains(.postgres), "needs the test run's PostgreSQL (make test starts one)"))
    func postgresBlobsMoveIntoChunks() async throws {
        let url = try await TestPostgres.newDatabase()
        let database = String(URLComponents(string: url)!.path.dropFirst())
        let data = randomData(150_000)
        for statement in [
            "CREATE TABLE vault_user (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash BYTEA NOT NULL UNIQUE, created_at DOUBLE PRECISION NOT NULL, revoked BOOLEAN NOT NULL DEFAULT FALSE)",
            """
            CREATE TABLE vault_backup (id TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES vault_user(id) ON DELETE CASCADE, created_at DOUBLE PRECISION NOT NULL,
                size_bytes BIGINT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL, encryption_method TEXT NOT NULL, sha256 TEXT NOT NULL, data BYTEA NOT NULL)
            """,
            "INSERT INTO vault_user (id, name, token_hash, created_at) VALUES (1, 'u', decode('\(hexString(VaultStorageSupport.tokenHash("hwv_old")))', 'hex'), 0)",
            "INSERT INTO vault_user (id, name, token_hash, created_at, revoked) VALUES (2, 'gone', decode('\(hexString(VaultStorageSupport.tokenHash("hwv_gone")))', 'hex'), 0, TRUE)",
            "INSERT INTO vault_backup VALUES ('a', 1, 1, \(data.count), 'manual', 'complete', 'opaque', '\(VaultStorageSupport.sha256Hex(data))', decode('\(hexString(data))', 'hex'))",
        ] { try await TestPostgres.execute(statement, database: database) }
        let storage = try await PostgresVaultStorage.open(url: url)
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: "hwv_old")
        #expect(try await storage.backup(id: "a", user: user).1 == data)
        #expect(user.scope == .full)
        #expect(try await storage.usage(user: user) == Int64(data.count))
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: "hwv_gone") }
        #expect(try await storage.users().map(\.revoked) == [true, false])
    }
}
