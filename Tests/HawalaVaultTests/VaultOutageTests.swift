import AsyncHTTPClient
import Foundation
import HawalaVault
import HawalaVaultStorage
@testable import HawalaVaultServer
import Synchronization
import Testing

/// A storage that can be made to fail like a database that does not answer (locked by another
/// process, its server down): every call — or only listing backups, the database lost between
/// authentication and the query — throws the driver's words.
final class OutageStorage: VaultStorage {
    enum Mode { case up, down, listingFails }
    let base: any VaultStorage
    private let state = Mutex(Mode.up)
    /// What a driver would say: it must never reach a client.
    static let driverWords = "SQLITE_BUSY: database is locked (internal detail 0xdeadbeef)"

    init(_ base: any VaultStorage) { self.base = base }

    var mode: Mode {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    private func check(_ operation: String = #function) throws(VaultError) {
        switch mode {
        case .up: return
        case .down: throw .database(reason: Self.driverWords)
        case .listingFails: if operation.hasPrefix("backups(") { throw .database(reason: Self.driverWords) }
        }
    }

    func addUser(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        try check(); return try await base.addUser(name, scope: scope, now: now)
    }
    func addToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        try check(); return try await base.addToken(name, scope: scope, now: now)
    }
    func revokeUser(_ name: String) async throws(VaultError) { try check(); try await base.revokeUser(name) }
    func rotateToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        try check(); return try await base.rotateToken(name, scope: scope, now: now)
    }
    func users() async throws(VaultError) -> [VaultUserInfo] { try check(); return try await base.users() }
    func user(token: String) async throws(VaultError) -> VaultUser { try check(); return try await base.user(token: token) }
    func beginUpload(type: Backup.Kind, encryptionMethod: String, user: VaultUser, now: Date) async throws(VaultError) -> String {
        try check(); return try await base.beginUpload(type: type, encryptionMethod: encryptionMethod, user: user, now: now)
    }
    func appendChunk(_ chunk: Data, index: Int, upload: String, user: VaultUser) async throws(VaultError) {
        try check(); try await base.appendChunk(chunk, index: index, upload: upload, user: user)
    }
    func completeUpload(_ id: String, sizeBytes: Int64, sha256: String, user: VaultUser, quota: Int64, now: Date) async throws(VaultError) -> Backup {
        try check(); return try await base.completeUpload(id, sizeBytes: sizeBytes, sha256: sha256, user: user, quota: quota, now: now)
    }
    func abandonUpload(_ id: String, user: VaultUser) async { await base.abandonUpload(id, user: user) }
    func removeAbandonedUploads(startedBefore: Date) async throws(VaultError) -> Int {
        try check(); return try await base.removeAbandonedUploads(startedBefore: startedBefore)
    }
    func backups(user: VaultUser) async throws(VaultError) -> [Backup] { try check(); return try await base.backups(user: user) }
    func storedBackup(id: String, user: VaultUser) async throws(VaultError) -> Backup { try check(); return try await base.storedBackup(id: id, user: user) }
    func chunk(_ index: Int, of id: String, user: VaultUser) async throws(VaultError) -> Data? {
        try check(); return try await base.chunk(index, of: id, user: user)
    }
    func deleteBackup(id: String, user: VaultUser) async throws(VaultError) { try check(); try await base.deleteBackup(id: id, user: user) }
    func usage(user: VaultUser) async throws(VaultError) -> Int64 { try check(); return try await base.usage(user: user) }
    func prune(user: VaultUser, now: Date) async throws(VaultError) -> [Backup] { try check(); return try await base.prune(user: user, now: now) }
    func pruneAll(now: Date) async throws(VaultError) -> Int { try check(); return try await base.pruneAll(now: now) }
    func settings(user: VaultUser) async throws(VaultError) -> BackupSettings { try check(); return try await base.settings(user: user) }
    func setSettings(_ settings: BackupSettings, user: VaultUser) async throws(VaultError) { try check(); try await base.setSettings(settings, user: user) }
    func setCredentialBackup(_ envelope: Data, user: VaultUser, now: Date, quota: Int64) async throws(VaultError) {
        try check(); try await base.setCredentialBackup(envelope, user: user, now: now, quota: quota)
    }
    func credentialBackup(user: VaultUser, now: Date) async throws(VaultError) -> Data { try check(); return try await base.credentialBackup(user: user, now: now) }
    func credentialStatus(user: VaultUser) async throws(VaultError) -> CredentialBackupStatus { try check(); return try await base.credentialStatus(user: user) }
    func bindLoginKey(_ publicKey: Data, user: VaultUser, now: Date) async throws(VaultError) {
        try check(); try await base.bindLoginKey(publicKey, user: user, now: now)
    }
    func unbindLoginKey(user: VaultUser) async throws(VaultError) { try check(); try await base.unbindLoginKey(user: user) }
    func loginKey(user: VaultUser) async throws(VaultError) -> (publicKey: Data, boundAt: Date)? { try check(); return try await base.loginKey(user: user) }
    func addLoginChallenge(_ challenge: Data, publicKey: Data, expiresAt: Date, now: Date) async throws(VaultError) {
        try check(); try await base.addLoginChallenge(challenge, publicKey: publicKey, expiresAt: expiresAt, now: now)
    }
    func takeLoginChallenge(_ challenge: Data, publicKey: Data, now: Date) async throws(VaultError) -> Bool {
        try check(); return try await base.takeLoginChallenge(challenge, publicKey: publicKey, now: now)
    }
    func tokenForLoginKey(_ publicKey: Data, now: Date) async throws(VaultError) -> String {
        try check(); return try await base.tokenForLoginKey(publicKey, now: now)
    }
    func revokeOtherTokens(user: VaultUser, keeping token: String) async throws(VaultError) -> Int {
        try check(); return try await base.revokeOtherTokens(user: user, keeping: token)
    }
    func storedBackups() async throws(VaultError) -> [StoredBackup] { try check(); return try await base.storedBackups() }
    func ping() async throws(VaultError) { try check(); try await base.ping() }
    func dailyPass(day: String, now: Date, _ pass: @Sendable () async throws(VaultError) -> Void) async throws(VaultError) -> Bool {
        try check(); return try await base.dailyPass(day: day, now: now, pass)
    }
    func close() async { await base.close() }
}

@Suite("Vault server: a storage that does not answer")
struct VaultOutageTests {
    /// Status, headers (names in lower case) and body of a GET.
    static func get(_ vault: RunningVault, _ path: String, token: String?) async throws -> (Int, [String: String], String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(vault.port)\(path)")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        return (Int(response.status.code), headers, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// While the database does not answer, a valid token gets 503 with Retry-After — never 401
    /// "invalid or revoked token", and never, after enough of them, 429: the outage is not the
    /// user's failure. `/healthz` says "storage unavailable" in those words only (nothing of
    /// the driver's), and everything works again once the database answers. (Before: 401,
    /// then 429 for a minute, while /healthz said ok.)
    @Test(arguments: StorageKind.enabled) func anOutageIsNotABadToken(kind: StorageKind) async throws {
        let storage = OutageStorage(try await kind.makeStorage())
        var limits = VaultLimits()
        limits.failuresAllowed = 3
        let vault = try await RunningVault.start(storage: storage, limits: limits)
        defer { vault.stop() }
        let token = try await storage.addUser("alice", now: Date())
        #expect(try await Self.get(vault, "/vault/backups", token: token).0 == 200)
        #expect(try await Self.get(vault, "/healthz", token: nil).0 == 200)

        storage.mode = .down
        for path in ["/vault/backups", "/vault/backup/settings", "/vault/credentials/backup"] {
            for _ in 0..<4 {
                let (status, headers, body) = try await Self.get(vault, path, token: token)
                #expect(status == 503, "\(path): \(status) \(body)")
                #expect(headers["retry-after"].flatMap { Int($0) } == StorageHealth.retryAfter)
                #expect(!body.contains("SQLITE") && !body.contains("deadbeef") && !body.lowercased().contains("token"), "\(body)")
            }
        }
        let (health, _, said) = try await Self.get(vault, "/healthz", token: nil)
        #expect(health == 503 && said == "storage unavailable\n", "\(health) \(said)")

        storage.mode = .up
        let (status, _, body) = try await Self.get(vault, "/vault/backups", token: token)
        #expect(status == 200, "the outage counted as failed authentications: \(status) \(body)")
        // A wrong token is still a wrong token, and is still limited.
        let wrong = try await (0..<5).asyncMap { _ in try await Self.get(vault, "/vault/backups", token: "hwv_wrong").0 }
        #expect(wrong.prefix(3).allSatisfy { $0 == 401 } && wrong.last == 429, "\(wrong)")
    }

    /// A storage failure inside an operation (past authentication) is 503 too, with the
    /// request id the log carries, and the driver's words stay in the log.
    @Test func aFailureInsideAnOperationIs503() async throws {
        let storage = OutageStorage(try temporaryStorage())
        let vault = try await RunningVault.start(storage: storage)
        defer { vault.stop() }
        let token = try await storage.addUser("alice", now: Date())
        storage.mode = .listingFails
        let (status, headers, body) = try await Self.get(vault, "/vault/backups", token: token)
        #expect(status == 503 && headers["retry-after"] != nil && headers["x-request-id"] != nil, "\(status) \(body)")
        #expect(!body.contains("SQLITE"), "\(body)")
    }

    /// The health check asks the storage itself (at most once a second), so an outage shows
    /// before any user meets it; it remembers an outage for as long as clients are told to wait.
    @Test func healthAsksTheStorage() async throws {
        let storage = OutageStorage(try temporaryStorage())
        let health = StorageHealth()
        let start = Date()
        #expect(await health.check(storage, now: start, within: .seconds(60)) == nil)
        storage.mode = .down
        #expect(await health.check(storage, now: start.addingTimeInterval(0.5), within: .seconds(60)) == nil, "asked again within a second")
        #expect(await health.check(storage, now: start.addingTimeInterval(1.5), within: .seconds(60)) == .unavailable)
        storage.mode = .up
        #expect(await health.check(storage, now: start.addingTimeInterval(2), within: .seconds(60)) == .unavailable, "remembered")
        #expect(await health.check(storage, now: start.addingTimeInterval(2 + Double(StorageHealth.retryAfter)), within: .seconds(60)) == nil)
    }
}

extension Sequence {
    /// `map` with an async transform, one element after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
