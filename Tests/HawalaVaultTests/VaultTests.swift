import Crypto
import Foundation
import GRDB
import HawalaText
import Synchronization
import HawalaTestSupport
import Testing
import HawalaVault
@testable import HawalaVaultStorage
import HawalaVaultPostgres

/// "2028-02-29T03:00:00Z" → Date.
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text)!
}

func settings(_ frequency: BackupSettings.Frequency, at time: String = "03:00", retention: Int = 30) -> BackupSettings {
    BackupSettings(autoBackupEnabled: true, backupFrequency: frequency, backupTimeUtc: time, retentionDays: retention, includeMessages: false, wifiOnly: true)
}

func temporaryStorage() throws -> SQLiteVaultStorage {
    let dir = temporaryFolder("hawala-vault")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return try SQLiteVaultStorage(path: dir.appendingPathComponent("vault.sqlite").path)
}

@Suite("Vault schedules and retention")
struct VaultScheduleTests {
    @Test func firstRunIsTheNextSlot() {
        #expect(VaultSchedule.nextRun(settings: settings(.weekly), lastRun: nil, now: utc("2027-05-10T01:00:00Z")) == utc("2027-05-10T03:00:00Z"))
        #expect(VaultSchedule.nextRun(settings: settings(.monthly), lastRun: nil, now: utc("2027-05-10T03:00:00Z")) == utc("2027-05-11T03:00:00Z"))
        var off = settings(.daily)
        off.autoBackupEnabled = false
        #expect(VaultSchedule.nextRun(settings: off, lastRun: nil, now: utc("2027-05-10T01:00:00Z")) == nil)
    }

    @Test func dailyAcrossMonthAndYearEnds() {
        let s = settings(.daily, at: "23:30")
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2027-12-31T23:30:00Z"), now: utc("2027-12-31T23:31:00Z")) == utc("2028-01-01T23:30:00Z"))
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2028-02-28T23:30:00Z"), now: utc("2028-02-28T23:40:00Z")) == utc("2028-02-29T23:30:00Z"))
        // A manual backup an hour before the slot: the slot is skipped (less than 12 h later).
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2027-06-01T22:30:00Z"), now: utc("2027-06-01T22:31:00Z")) == utc("2027-06-02T23:30:00Z"))
        // The machine was off for days: the next slot after now, not a backlog.
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2027-06-01T23:30:00Z"), now: utc("2027-06-09T12:00:00Z")) == utc("2027-06-09T23:30:00Z"))
    }

    @Test func weeklyKeepsTheWeekday() {
        let s = settings(.weekly)
        // Tuesday 2028-02-22 → Tuesday 2028-02-29 (leap day) → 2028-03-07.
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2028-02-22T03:00:00Z"), now: utc("2028-02-22T04:00:00Z")) == utc("2028-02-29T03:00:00Z"))
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2028-02-29T03:00:00Z"), now: utc("2028-02-29T04:00:00Z")) == utc("2028-03-07T03:00:00Z"))
        #expect(VaultSchedule.nextRun(settings: s, lastRun: utc("2027-12-28T03:00:00Z"), now: utc("2028-01-20T00:00:00Z")) == utc("2028-01-25T03:00:00Z"))
    }

    @Test func monthlyClampsAndKeepsTheLastDay() {
        let s = settings(.monthly)
        func next(_ last: String, _ now: String) -> Date? { VaultSchedule.nextRun(settings: s, lastRun: utc(last), now: utc(now)) }
        // The last day of a month stays the last day: Jan 31 → Feb 29 (leap) → Mar 31 → Apr 30.
        #expect(next("2028-01-31T03:00:00Z", "2028-01-31T04:00:00Z") == utc("2028-02-29T03:00:00Z"))
        #expect(next("2028-02-29T03:00:00Z", "2028-02-29T04:00:00Z") == utc("2028-03-31T03:00:00Z"))
        #expect(next("2028-03-31T03:00:00Z", "2028-03-31T04:00:00Z") == utc("2028-04-30T03:00:00Z"))
        #expect(next("2027-01-31T03:00:00Z", "2027-02-01T00:00:00Z") == utc("2027-02-28T03:00:00Z"))
        // Other days are clamped in shorter months only: the 30th → Feb 28 (not a last-day anchor in Jan).
        #expect(next("2027-01-30T03:00:00Z", "2027-01-30T04:00:00Z") == utc("2027-02-28T03:00:00Z"))
        #expect(next("2027-01-15T03:00:00Z", "2027-01-16T00:00:00Z") == utc("2027-02-15T03:00:00Z"))
        // Year end, and months skipped while off.
        #expect(next("2027-12-15T03:00:00Z", "2027-12-16T00:00:00Z") == utc("2028-01-15T03:00:00Z"))
        #expect(next("2027-10-15T03:00:00Z", "2028-01-20T00:00:00Z") == utc("2028-02-15T03:00:00Z"))
    }

    @Test func retentionKeepsTheNewestCompleteBackup() {
        let now = utc("2027-06-30T00:00:00Z")
        func b(_ id: String, _ daysAgo: Double, _ status: Backup.Status = .complete) -> Backup {
            Backup(id: id, createdAt: now.addingTimeInterval(-daysAgo * 86_400), sizeBytes: 1, type: .auto, status: status, encryptionMethod: "hawala-v1", sha256: "")
        }
        let backups = [b("a", 40), b("b", 31), b("c", 30), b("d", 29.9), b("e", 5, .failed)]
        // Older than 30 days by receipt time: a and b. Exactly 30 days is kept.
        #expect(VaultSchedule.expired(backups, retentionDays: 30, now: now).map(\.id) == ["a", "b"])
        // Nothing recent and complete: the newest complete one survives however old.
        let stale = [b("old", 400), b("older", 500), b("broken", 300, .failed)]
        #expect(VaultSchedule.expired(stale, retentionDays: 7, now: now).map(\.id) == ["older", "broken"])
    }

    @Test func settingsAreValidatedFieldByField() {
        #expect(throws: VaultError.invalidField("retentionDays", "must be between 7 and 365")) { try settings(.daily, retention: 6).validate() }
        #expect(throws: VaultError.invalidField("retentionDays", "must be between 7 and 365")) { try settings(.daily, retention: 366).validate() }
        for bad in ["24:00", "3:00", "03:60", "0300", "03:00:00", "", "aa:bb", "-1:00"] {
            #expect(throws: VaultError.invalidField("backupTimeUtc", "must be HH:mm, 00:00 to 23:59"), "\(bad)") { try settings(.daily, at: bad).validate() }
        }
        #expect(throws: Never.self) { try settings(.monthly, at: "23:59", retention: 365).validate() }
    }
}

@Suite("Vault durability")
struct VaultDurabilityTests {
    /// SQLite syncs every commit (GRDB's WAL default, NORMAL, would not).
    @Test func sqliteCommitsAreSynced() throws {
        let path = temporaryFolder("vault", suffix: ".sqlite").path
        let storage = try SQLiteVaultStorage(path: path)
        #expect(try storage.synchronousLevel() == 2)
    }
}

@Suite("PostgreSQL addresses")
struct PostgresURLTests {
    /// No password in argv; TLS required for another machine unless asked otherwise.
    @Test func passwordsAndTLS() throws {
        #expect(throws: VaultError.self) { try PostgresURL("postgres://vault:secret@db.example.com/vault") }
        #expect(try PostgresURL("postgres://vault@db.example.com/vault").sslMode == "require")
        #expect(try PostgresURL("postgres://vault@127.0.0.1:5433/vault").sslMode == "prefer")
        #expect(try PostgresURL("postgres://vault@localhost/vault?sslmode=disable").sslMode == "disable")
        #expect(try PostgresURL("postgres://vault@db.example.com/vault?sslmode=prefer").sslMode == "prefer")
        #expect(throws: VaultError.self) { try PostgresURL("postgres://vault@db.example.com/vault?sslmode=maybe") }
        do { _ = try PostgresURL("postgres://vault:secret@db.example.com/vault") } catch {
            #expect("\(error)".contains("PGPASSWORD") && !"\(error)".contains("secret"))
        }
    }
}

@Suite("Rate limiter")
struct RateLimiterTests {
    /// A flood of distinct keys keeps at most `maximumKeys` (the oldest windows go first), and
    /// a key over its limit is still refused until its own window ends.
    @Test func memoryIsBoundedAndLimitsHold() {
        let limiter = RateLimiter(limit: 3, window: 60, maximumKeys: 10_000)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<3 { limiter.recordFailure("addr:attacker", now: start) }
        #expect(limiter.retryAfter("addr:attacker", now: start.addingTimeInterval(1)) == 59)
        for i in 0..<200_000 { limiter.recordFailure("token:\(i)", now: start.addingTimeInterval(2)) }
        #expect(limiter.count <= 10_000)
        #expect(limiter.retryAfter("token:199999", now: start.addingTimeInterval(3)) == nil, "one failure is under the limit")
        // The window ends: everything expires, the table empties as calls come in.
        #expect(limiter.retryAfter("addr:attacker", now: start.addingTimeInterval(61)) == nil)
        limiter.recordFailure("addr:late", now: start.addingTimeInterval(200))
        #expect(limiter.count == 1)
    }

    /// The same key within its window: refused once over the limit, with the seconds left.
    @Test func slidingRefusal() {
        let limiter = RateLimiter(limit: 2, window: 10)
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        limiter.recordFailure("k", now: t)
        #expect(limiter.retryAfter("k", now: t) == nil)
        limiter.recordFailure("k", now: t.addingTimeInterval(4))
        #expect(limiter.retryAfter("k", now: t.addingTimeInterval(5)) == 5)
        #expect(limiter.retryAfter("k", now: t.addingTimeInterval(10)) == nil)
    }
}

@Suite("Vault storage (SQLite and PostgreSQL)")
struct VaultStorageTests {
    @Test(arguments: StorageKind.enabled) func tokensAreHashedAndRevocable(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let token = try await storage.addUser("alice", now: Date())
        #expect(token.hasPrefix("hwv_") && token.count == 68)
        #expect(try await storage.user(token: token).name == "alice")
        await #expect(throws: VaultError.userExists("alice")) { try await storage.addUser("alice", now: Date()) }
        await #expect(throws: VaultError.invalidField("name", "1–64 letters, digits, - _ . @")) { try await storage.addUser("a b", now: Date()) }
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: token + "x") }
        try await storage.revokeUser("alice")
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: token) }
        await #expect(throws: VaultError.noSuchUser("nobody")) { try await storage.revokeUser("nobody") }
        await #expect(throws: VaultError.noSuchUser("nobody")) { try await storage.rotateToken("nobody") }
    }

    /// The quota is checked and charged with the insert: 12 concurrent 3 MiB uploads against a
    /// 20 MiB quota store 6 (18 MiB), never more.
    @Test(arguments: StorageKind.enabled) func quotaHoldsUnderConcurrentUploads(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("busy", now: Date()))
        let blob = Data(repeating: 7, count: 3 << 20)
        let stored = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask { (try? await storage.addBackup(blob, type: .manual, encryptionMethod: "opaque", sha256: nil, user: user, now: Date(), quota: 20 << 20)) != nil }
            }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        let usage = try await storage.usage(user: user)
        #expect(stored == 6 && usage == 18 << 20, "stored \(stored), \(usage) bytes")
        await #expect(throws: VaultError.quotaExceeded(limit: 20 << 20)) {
            try await storage.addBackup(blob, type: .manual, encryptionMethod: "opaque", sha256: nil, user: user, now: Date(), quota: 20 << 20)
        }
    }

    /// Operators manage users: a revoked name is given a new token (its backups stay), a
    /// rotation replaces a token in one step, and the list shows what each stores.
    @Test(arguments: StorageKind.enabled) func usersAreManaged(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let first = try await storage.addUser("phone", now: Date(timeIntervalSince1970: 1_800_000_000))
        let phone = try await storage.user(token: first)
        _ = try await storage.addBackup(Data("ciphertext".utf8), type: .manual, encryptionMethod: "hawala-v1", sha256: nil, user: phone, now: Date())
        _ = try await storage.addUser("laptop", now: Date(timeIntervalSince1970: 1_800_000_100))
        let listed = try await storage.users()
        #expect(listed.map(\.name) == ["laptop", "phone"])
        #expect(listed[1] == VaultUserInfo(name: "phone", createdAt: Date(timeIntervalSince1970: 1_800_000_000), fullTokens: 1, appendOnlyTokens: 0,
                                           backups: 1, bytes: 10))
        // Rotate: the old token stops, the new one works, the backups are the same user's.
        let rotated = try await storage.rotateToken("phone")
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: first) }
        let rotatedUser = try await storage.user(token: rotated)
        #expect(rotatedUser.id == phone.id)
        // Revoke, then add the name again: a new token for the same user and backups.
        try await storage.revokeUser("phone")
        let afterRevoke = try await storage.users()
        #expect(afterRevoke.first { $0.name == "phone" }?.revoked == true)
        let again = try await storage.addUser("phone", now: Date())
        let back = try await storage.user(token: again)
        let backBackups = try await storage.backups(user: back)
        #expect(back.id == phone.id && backBackups.count == 1)
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: rotated) }
        await #expect(throws: VaultError.userExists("phone")) { try await storage.addUser("phone", now: Date()) }
        await #expect(throws: VaultError.noSuchUser("tablet")) { try await storage.revokeUser("tablet") }
        await #expect(throws: VaultError.noSuchUser("tablet")) { try await storage.rotateToken("tablet") }
    }

    /// A user may hold several tokens, each with its scope: the agent's append-only token beside
    /// the owner's full one reaches the same backups; revoking the user ends both; a rotation
    /// leaves exactly one token; an unknown name gets no token.
    @Test(arguments: StorageKind.enabled) func tokensHaveScopes(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let owner = try await storage.addUser("alice", scope: .full, now: Date())
        let agent = try await storage.addToken("alice", scope: .appendOnly, now: Date())
        let (ownerUser, agentUser) = (try await storage.user(token: owner), try await storage.user(token: agent))
        #expect(ownerUser.id == agentUser.id && ownerUser.scope == .full && agentUser.scope == .appendOnly)
        #expect(!agentUser.scope.mayDestroy && ownerUser.scope.mayDestroy)
        let listed = try await storage.users().first
        #expect(listed?.appendOnlyTokens == 1 && listed?.fullTokens == 1)
        await #expect(throws: VaultError.noSuchUser("bob")) { try await storage.addToken("bob", scope: .full, now: Date()) }
        try await storage.revokeUser("alice")
        for token in [owner, agent] { await #expect(throws: VaultError.unauthorized) { try await storage.user(token: token) } }
        // An append-only user of its own, rotated to another append-only token.
        let lone = try await storage.addUser("agent", scope: .appendOnly, now: Date())
        let rotated = try await storage.rotateToken("agent", scope: .appendOnly, now: Date())
        await #expect(throws: VaultError.unauthorized) { try await storage.user(token: lone) }
        #expect(try await storage.user(token: rotated).scope == .appendOnly)
        let info = try await storage.users().first { $0.name == "agent" }
        #expect(info?.appendOnlyTokens == 1 && info?.fullTokens == 0 && info?.revoked == false)
    }

    /// `backupsVersion` (what cached listings are checked against) grows with every change to
    /// the user's backups, only the user's own, and not with reads or settings.
    @Test(arguments: StorageKind.enabled) func backupsVersionFollowsChanges(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let (aliceToken, bobToken) = (try await storage.addUser("alice", now: Date()), try await storage.addUser("bob", now: Date()))
        func version(_ token: String) async throws -> Int64 { try await storage.user(token: token).backupsVersion }
        let alice = try await storage.user(token: aliceToken)
        var last = try await version(aliceToken)
        func expectGrew(_ grew: Bool, _ comment: Comment) async throws {
            let now = try await version(aliceToken)
            #expect((now > last) == grew, comment)
            #expect(now >= last)
            last = now
        }
        let old = try await storage.addBackup(Data("old".utf8), type: .auto, encryptionMethod: "opaque", sha256: nil, user: alice,
                                              now: Date(timeIntervalSinceNow: -90 * 86_400))
        try await expectGrew(true, "upload")
        let new = try await storage.addBackup(Data("new".utf8), type: .auto, encryptionMethod: "opaque", sha256: nil, user: alice, now: Date())
        try await expectGrew(true, "upload that also pruned")
        #expect(try await storage.backups(user: alice).map(\.id) == [new.id])  // the 90-day-old one went with it
        _ = try await storage.backups(user: alice)
        _ = try await storage.backup(id: new.id, user: alice)
        try await storage.setSettings(settings(.weekly, retention: 90), user: alice)
        try await storage.prune(user: alice, now: Date())  // nothing to delete
        try await expectGrew(false, "reads, settings, a prune that deleted nothing")
        await #expect(throws: VaultError.notFound) { try await storage.deleteBackup(id: old.id, user: alice) }
        try await expectGrew(false, "a delete that found nothing")
        try await storage.deleteBackup(id: new.id, user: alice)
        try await expectGrew(true, "delete")
        #expect(try await version(bobToken) == 0)
    }

    /// User B can't list, read, delete or see the settings of user A.
    @Test(arguments: StorageKind.enabled) func usersAreIsolated(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let a = try await storage.user(token: try await storage.addUser("a", now: Date()))
        let b = try await storage.user(token: try await storage.addUser("b", now: Date()))
        let backup = try await storage.addBackup(Data("A's ciphertext".utf8), type: .manual, encryptionMethod: "hawala-v1", sha256: nil, user: a, now: Date())
        try await storage.setSettings(settings(.weekly, retention: 90), user: a)
        #expect(try await storage.backups(user: b).isEmpty)
        await #expect(throws: VaultError.notFound) { try await storage.backup(id: backup.id, user: b) }
        await #expect(throws: VaultError.notFound) { try await storage.deleteBackup(id: backup.id, user: b) }
        #expect(try await storage.settings(user: b) == .defaults)
        #expect(try await storage.usage(user: b) == 0)
        #expect(try await storage.backup(id: backup.id, user: a).1 == Data("A's ciphertext".utf8))
        #expect(try await storage.settings(user: a).retentionDays == 90)
    }

    /// The client's hash must match; a changed blob is caught by a verifying read and by the
    /// operator's check (the server sends the recorded hash; the client checks it).
    @Test(arguments: StorageKind.enabled) func integrity(kind: StorageKind) async throws {
        let storage: any VaultStorage
        let tamper: @Sendable (String) async throws -> Void
        switch kind {
        case .sqlite:
            let dir = temporaryFolder("hawala-vault")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent("vault.sqlite").path
            storage = try SQLiteVaultStorage(path: path)
            tamper = { id in
                try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE chunk SET data = ? WHERE backupId = ? AND idx = 1", arguments: [Data(repeating: 0, count: 100_000 - 65536), id]) }
            }
        case .postgres:
            let url = try await TestPostgres.newDatabase()
            storage = try await PostgresVaultStorage.open(url: url)
            let database = String(URLComponents(string: url)!.path.dropFirst())
            tamper = { id in try await TestPostgres.execute("UPDATE vault_chunk SET data = decode(repeat('00', \(100_000 - 65536)), 'hex') WHERE backup_id = '\(id)' AND idx = 1", database: database) }
        }
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        await #expect(throws: VaultError.hashMismatch) {
            try await storage.addBackup(data, type: .manual, encryptionMethod: "hawala-v1", sha256: String(repeating: "0", count: 64), user: user, now: Date())
        }
        #expect(try await storage.backups(user: user).isEmpty)  // nothing half-stored
        let digest = hexString(Data(SHA256Digest(data)))
        let backup = try await storage.addBackup(data, type: .manual, encryptionMethod: "hawala-v1", sha256: digest.uppercased(), user: user, now: Date())
        #expect(backup.sha256 == digest && backup.sizeBytes == 100_000 && backup.status == .complete)
        #expect(try await storage.usage(user: user) == 100_000)
        #expect(try await storage.backup(id: backup.id, user: user).1 == data)
        // A blob changed behind the server's back is refused, not served.
        try await tamper(backup.id)
        await #expect(throws: VaultError.corrupted(backup.id)) { try await storage.backup(id: backup.id, user: user) }
        // The operator's check finds it, with what each user still has intact.
        let other = try await storage.user(token: try await storage.addUser("v", now: Date()))
        let intact = try await storage.addBackup(Data("fine".utf8), type: .auto, encryptionMethod: "opaque", sha256: nil, user: other, now: Date())
        var steps: [Int] = []
        let report = try await VaultCheck.run(storage: storage) { done, total in steps.append(done); #expect(total == 2) }
        #expect(steps == [1, 2] && report.checked == 2 && report.bytes == 4)
        #expect(report.damaged.map(\.backup.id) == [backup.id] && report.damaged.map(\.user.name) == ["u"])
        #expect(report.intactNewest.keys.sorted() == ["v"] && abs(report.intactNewest["v"]!.timeIntervalSince(intact.createdAt)) < 0.001)
        #expect(report.repairAdvice.map(\.user) == ["u"] && report.repairAdvice[0].newestIntact == nil)
    }

    /// Retention runs on upload by server time, and spares the newest complete backup.
    @Test(arguments: StorageKind.enabled) func pruneOnUpload(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        try await storage.setSettings(settings(.daily, retention: 7), user: user)
        let start = utc("2027-01-01T00:00:00Z")
        for day in 0..<10 {
            _ = try await storage.addBackup(Data([UInt8(day)]), type: .auto, encryptionMethod: "hawala-v1", sha256: nil, user: user, now: start.addingTimeInterval(Double(day) * 86_400))
        }
        // Day 9's upload keeps days 2…9 (day 2 is exactly 7 days old); what is stored follows.
        #expect(try await storage.backups(user: user).count == 8)
        #expect(try await storage.usage(user: user) == 8)
        // Long silence: only the newest remains.
        #expect(try await storage.prune(user: user, now: start.addingTimeInterval(100 * 86_400)).count == 7)
        #expect(try await storage.backups(user: user).map(\.createdAt) == [start.addingTimeInterval(9 * 86_400)])
        #expect(try await storage.usage(user: user) == 1)
        try await storage.deleteBackup(id: try await storage.backups(user: user)[0].id, user: user)
        #expect(try await storage.usage(user: user) == 0)
    }

    @Test(arguments: StorageKind.enabled) func credentialBackup(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        #expect(try await storage.credentialStatus(user: user) == CredentialBackupStatus(exists: false, createdAt: nil, lastVerifiedAt: nil))
        await #expect(throws: VaultError.notFound) { try await storage.credentialBackup(user: user, now: Date()) }
        let created = utc("2027-03-01T10:00:00Z"), read = utc("2027-03-02T10:00:00Z")
        try await storage.setCredentialBackup(Data("envelope".utf8), user: user, now: created, quota: 100)
        #expect(try await storage.credentialBackup(user: user, now: read) == Data("envelope".utf8))
        #expect(try await storage.credentialStatus(user: user) == CredentialBackupStatus(exists: true, createdAt: created, lastVerifiedAt: read))
    }

    /// The credential envelope counts in the quota like a backup: a replacement is charged only
    /// what it adds, and backups then fit in what is left.
    @Test(arguments: StorageKind.enabled) func credentialCountsInTheQuota(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let user = try await storage.user(token: try await storage.addUser("u", now: Date()))
        try await storage.setCredentialBackup(Data(count: 60), user: user, now: Date(), quota: 100)
        #expect(try await storage.usage(user: user) == 60)
        try await storage.setCredentialBackup(Data(count: 90), user: user, now: Date(), quota: 100)
        #expect(try await storage.usage(user: user) == 90)
        await #expect(throws: VaultError.quotaExceeded(limit: 100)) {
            try await storage.setCredentialBackup(Data(count: 101), user: user, now: Date(), quota: 100)
        }
        #expect(try await storage.credentialBackup(user: user, now: Date()).count == 90, "the refused one replaced nothing")
        await #expect(throws: VaultError.quotaExceeded(limit: 100)) {
            try await storage.addBackup(Data(count: 11), type: .manual, encryptionMethod: "opaque", sha256: nil, user: user, now: Date(), quota: 100)
        }
        _ = try await storage.addBackup(Data(count: 10), type: .manual, encryptionMethod: "opaque", sha256: nil, user: user, now: Date(), quota: 100)
        try await storage.setCredentialBackup(Data(count: 5), user: user, now: Date(), quota: 100)
        #expect(try await storage.usage(user: user) == 15, "a smaller envelope gives room back")
    }

    /// Servers sharing one database run the day's retention pass once between them: the
    /// second to ask for a day hears it is taken; a pass that failed leaves the day to the
    /// next one to ask. On PostgreSQL no two passes run at once, even for different days.
    @Test(arguments: StorageKind.enabled) func dailyPassRunsOnceADay(kind: StorageKind) async throws {
        let storages = try await kind.makeStorages(count: 2)
        defer { Task { for storage in storages { await storage.close() } } }
        let runs = Counter()
        #expect(try await storages[0].dailyPass(day: "2027-03-01", now: Date()) { runs.add() })
        #expect(try await !storages[1].dailyPass(day: "2027-03-01", now: Date()) { runs.add() })
        #expect(try await !storages[0].dailyPass(day: "2027-03-01", now: Date()) { runs.add() })
        #expect(runs.value == 1)
        await #expect(throws: VaultError.database(reason: "pruning failed")) {
            try await storages[1].dailyPass(day: "2027-03-02", now: Date()) { () throws(VaultError) in throw .database(reason: "pruning failed") }
        }
        #expect(try await storages[0].dailyPass(day: "2027-03-02", now: Date()) { runs.add() }, "the failed day is free again")
        #expect(runs.value == 2)
        guard kind == .postgres else { return }
        // A pass still running (day 3, on the first server) keeps the second from starting day 4.
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await storages[0].dailyPass(day: "2027-03-03", now: Date()) {
                startedContinuation.yield()
                for await _ in release { break }
            }
        }
        for await _ in started { break }
        #expect(try await !storages[1].dailyPass(day: "2027-03-04", now: Date()) { runs.add() }, "two passes at once")
        releaseContinuation.yield()
        #expect(try await first.value)
        #expect(try await storages[1].dailyPass(day: "2027-03-04", now: Date()) { runs.add() })
    }
}

/// A count shared with `@Sendable` closures.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

/// SHA-256 for the tests, through the same library the storage uses.
func SHA256Digest(_ data: Data) -> [UInt8] { Array(SHA256.hash(data: data)) }
