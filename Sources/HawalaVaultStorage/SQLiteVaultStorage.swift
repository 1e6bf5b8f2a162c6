import Foundation
import HawalaVault
import GRDB

/// `VaultStorage` in one SQLite file through GRDB (WAL, one immediate transaction per change).
public final class SQLiteVaultStorage: VaultStorage {
    private let db: DatabasePool
    private let reserve: DiskReserve

    /// `reserveBytes`: a file of that size is kept beside the database (`PATH-reserve`) and
    /// given up when the disk fills, so deleting backups — which needs a little room in the
    /// WAL — still works and frees space (made again at the next start). 0: none.
    public init(path: String, reserveBytes: Int64 = 0) throws(VaultError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(15)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // Debian's libsqlite3 is built with SECURE_DELETE: a deleted backup's pages would be
            // overwritten with zeros, through the WAL, so deleting a backup larger than the disk
            // reserve failed on a full disk. What is freed here is ciphertext the client sealed:
            // zeroing it buys nothing (decision 0010).
            try db.execute(sql: "PRAGMA secure_delete = OFF")
            // A reader waits for a lock at most 3 s (a writer, 15 s): in WAL mode readers only
            // wait when another process holds the database exclusively, and a request should then
            // hear "unavailable" soon rather than hang.
            if db.configuration.readonly { try db.execute(sql: "PRAGMA busy_timeout = 3000") }
        }
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        do {
            db = try DatabasePool(path: path, configuration: configuration)
            try SQLiteVaultStorage.migrator.migrate(db)
            // What is acknowledged is on disk: every commit (an upload's 201 follows it) syncs
            // the WAL. GRDB's WAL default, NORMAL, may lose the last commits on a power cut. The
            // pool's one writer connection is the only one that commits.
            try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw .databaseUnavailable(target: path, reason: "\(error)")
        }
        reserve = DiskReserve(path: path + "-reserve", bytes: reserveBytes)
        reserve.make()
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("vault-v1") { db in
            try db.execute(sql: """
                CREATE TABLE user (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    tokenHash BLOB NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    revoked INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE backup (
                    id TEXT PRIMARY KEY,
                    userId INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    createdAt REAL NOT NULL,
                    sizeBytes INTEGER NOT NULL,
                    type TEXT NOT NULL CHECK (type IN ('auto', 'manual')),
                    status TEXT NOT NULL CHECK (status IN ('complete', 'partial', 'failed')),
                    encryptionMethod TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    data BLOB NOT NULL);
                CREATE INDEX backup_by_user ON backup (userId, createdAt DESC);
                CREATE TABLE settings (
                    userId INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    json TEXT NOT NULL);
                CREATE TABLE credential (
                    userId INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    envelope BLOB NOT NULL,
                    createdAt REAL NOT NULL,
                    lastVerifiedAt REAL);
                """)
        }
        migrator.registerMigration("vault-v2-backups-version") { db in
            try db.execute(sql: "ALTER TABLE user ADD COLUMN backupsVersion INTEGER NOT NULL DEFAULT 0")
        }
        // Blobs move into 64 KiB chunks (streamed in and out); existing backups are split in SQL.
        migrator.registerMigration("vault-v3-chunks") { db in
            let size = BackupChunking.chunkSize
            try db.execute(sql: """
                CREATE TABLE chunk (
                    backupId TEXT NOT NULL REFERENCES backup(id) ON DELETE CASCADE,
                    idx INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (backupId, idx));
                WITH RECURSIVE part(backupId, idx) AS (
                    SELECT id, 0 FROM backup
                    UNION ALL
                    SELECT part.backupId, part.idx + 1 FROM part JOIN backup ON backup.id = part.backupId
                    WHERE (part.idx + 1) * \(size) < length(backup.data))
                INSERT INTO chunk (backupId, idx, data)
                SELECT part.backupId, part.idx, substr(backup.data, part.idx * \(size) + 1, \(size))
                FROM part JOIN backup ON backup.id = part.backupId;
                ALTER TABLE backup DROP COLUMN data;
                CREATE INDEX backup_partial ON backup (createdAt) WHERE status = 'partial';
                """)
        }
        // A user may hold several tokens, each with a scope (an unattended agent's is
        // append-only); a revoked user is one with no token. The user table is rebuilt without
        // its token columns (SQLite can't drop a UNIQUE column); migrations run with foreign
        // keys off, so the backups' references survive.
        migrator.registerMigration("vault-v4-tokens") { db in
            try db.execute(sql: """
                CREATE TABLE token (
                    hash BLOB PRIMARY KEY,
                    userId INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL CHECK (scope IN ('full', 'append-only')),
                    createdAt REAL NOT NULL) WITHOUT ROWID;
                CREATE INDEX token_by_user ON token (userId);
                INSERT INTO token (hash, userId, scope, createdAt) SELECT tokenHash, id, 'full', createdAt FROM user WHERE revoked = 0;
                CREATE TABLE user_new (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    backupsVersion INTEGER NOT NULL DEFAULT 0);
                INSERT INTO user_new (id, name, createdAt, backupsVersion) SELECT id, name, createdAt, backupsVersion FROM user;
                DROP TABLE user;
                ALTER TABLE user_new RENAME TO user;
                """)
        }
        // What each user stores, kept with every change (the quota check reads one row instead
        // of summing every backup the user has).
        migrator.registerMigration("vault-v5-used-bytes") { db in
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN usedBytes INTEGER NOT NULL DEFAULT 0;
                UPDATE user SET usedBytes = (SELECT COALESCE(SUM(sizeBytes), 0) FROM backup WHERE backup.userId = user.id AND status = 'complete');
                """)
        }
        // The credential envelope counts in the quota like a backup; the daily pass (retention)
        // is claimed once a day by whichever server sharing the database gets there first.
        migrator.registerMigration("vault-v6-credential-quota") { db in
            try db.execute(sql: """
                UPDATE user SET usedBytes = usedBytes + COALESCE((SELECT length(envelope) FROM credential WHERE credential.userId = user.id), 0);
                CREATE TABLE dailyPass (day TEXT PRIMARY KEY, startedAt REAL NOT NULL);
                """)
        }
        // Logins with the words: a user's login key (one), and the challenges outstanding.
        migrator.registerMigration("vault-v7-login-keys") { db in
            try db.execute(sql: """
                CREATE TABLE loginKey (
                    userId INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    publicKey BLOB NOT NULL UNIQUE,
                    boundAt REAL NOT NULL);
                CREATE TABLE loginChallenge (
                    challenge BLOB PRIMARY KEY,
                    publicKey BLOB NOT NULL,
                    expiresAt REAL NOT NULL);
                CREATE INDEX loginChallenge_by_key ON loginChallenge (publicKey, expiresAt);
                """)
        }
        return migrator
    }

    /// Marks the user's backup list changed, `bytes` more (or fewer) stored; inside the
    /// transaction that changes it.
    private static func bumpBackupsVersion(_ db: Database, user: VaultUser, bytes: Int64) throws {
        try db.execute(sql: "UPDATE user SET backupsVersion = backupsVersion + 1, usedBytes = usedBytes + ? WHERE id = ?", arguments: [bytes, user.id])
    }

    // MARK: Users

    public func addUser(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        try VaultStorageSupport.checkUserName(name)
        let token = VaultStorageSupport.newToken()
        try await write { db in
            let id: Int64
            if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [name]) {
                guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM token WHERE userId = ?", arguments: [existing]) == 0 else {
                    throw VaultError.userExists(name)
                }
                id = existing
            } else {
                try db.execute(sql: "INSERT INTO user (name, createdAt) VALUES (?, ?)", arguments: [name, now.timeIntervalSince1970])
                id = db.lastInsertedRowID
            }
            try SQLiteVaultStorage.insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    public func addToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        let token = VaultStorageSupport.newToken()
        try await write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [name]) else { throw VaultError.noSuchUser(name) }
            try SQLiteVaultStorage.insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    public func revokeUser(_ name: String) async throws(VaultError) {
        try await write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [name]) else { throw VaultError.noSuchUser(name) }
            try db.execute(sql: "DELETE FROM token WHERE userId = ?", arguments: [id])
            // The words' binding goes too: whoever holds the name next starts without it.
            try db.execute(sql: "DELETE FROM loginKey WHERE userId = ?", arguments: [id])
        }
    }

    public func rotateToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        let token = VaultStorageSupport.newToken()
        try await write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [name]) else { throw VaultError.noSuchUser(name) }
            try db.execute(sql: "DELETE FROM token WHERE userId = ?", arguments: [id])
            try SQLiteVaultStorage.insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    private static func insertToken(_ db: Database, _ token: String, userId: Int64, scope: VaultScope, now: Date) throws {
        try db.execute(sql: "INSERT INTO token (hash, userId, scope, createdAt) VALUES (?, ?, ?, ?)",
                       arguments: [VaultStorageSupport.tokenHash(token), userId, scope.rawValue, now.timeIntervalSince1970])
    }

    /// The writer's `PRAGMA synchronous` (2: FULL), for the durability test.
    func synchronousLevel() throws -> Int {
        try db.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    public func users() async throws(VaultError) -> [VaultUserInfo] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT u.name, u.createdAt,
                    (SELECT COUNT(*) FROM token t WHERE t.userId = u.id AND t.scope = 'full') AS fullTokens,
                    (SELECT COUNT(*) FROM token t WHERE t.userId = u.id AND t.scope = 'append-only') AS appendOnlyTokens,
                    COUNT(b.id) AS backups, COALESCE(SUM(b.sizeBytes), 0) AS bytes
                FROM user u LEFT JOIN backup b ON b.userId = u.id AND b.status = 'complete' GROUP BY u.id ORDER BY u.name
                """).map { VaultUserInfo(name: $0["name"], createdAt: Date(timeIntervalSince1970: $0["createdAt"]), fullTokens: $0["fullTokens"],
                                         appendOnlyTokens: $0["appendOnlyTokens"], backups: $0["backups"], bytes: $0["bytes"]) }
        }
    }

    public func user(token: String) async throws(VaultError) -> VaultUser {
        let user = try await read { db -> VaultUser? in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT u.id, u.name, u.backupsVersion, t.scope FROM token t JOIN user u ON u.id = t.userId WHERE t.hash = ?
                """), arguments: [VaultStorageSupport.tokenHash(token)])
                .map { VaultUser(id: $0["id"], name: $0["name"], backupsVersion: $0["backupsVersion"], scope: VaultScope(stored: $0["scope"])) }
        }
        guard let user else { throw .unauthorized }
        return user
    }

    // MARK: Backups

    public func beginUpload(type: Backup.Kind, encryptionMethod: String, user: VaultUser, now: Date) async throws(VaultError) -> String {
        let id = VaultStorageSupport.newBackupID()
        try await write(durable: false) { db in
            try db.execute(sql: """
                INSERT INTO backup (id, userId, createdAt, sizeBytes, type, status, encryptionMethod, sha256)
                VALUES (?, ?, ?, 0, ?, 'partial', ?, '')
                """, arguments: [id, user.id, now.timeIntervalSince1970, type.rawValue, encryptionMethod])
        }
        return id
    }

    public func appendChunk(_ chunk: Data, index: Int, upload: String, user: VaultUser) async throws(VaultError) {
        try await write(durable: false) { db in
            try db.cachedStatement(sql: """
                INSERT INTO chunk (backupId, idx, data)
                SELECT id, ?, ? FROM backup WHERE id = ? AND userId = ? AND status = 'partial'
                """).execute(arguments: [index, chunk, upload, user.id])
            guard db.changesCount == 1 else { throw VaultError.notFound }
        }
    }

    public func completeUpload(_ id: String, sizeBytes: Int64, sha256: String, user: VaultUser, quota: Int64, now: Date) async throws(VaultError) -> Backup {
        try await write { db -> Backup in
            // Checked and charged in the one write transaction (SQLite has one writer at a time);
            // its synchronous commit also makes the chunks written before it durable.
            let used = try Int64.fetchOne(db.cachedStatement(sql: "SELECT usedBytes FROM user WHERE id = ?"), arguments: [user.id]) ?? 0
            guard used + sizeBytes <= quota else { throw VaultError.quotaExceeded(limit: quota) }
            try db.execute(sql: """
                UPDATE backup SET status = 'complete', sizeBytes = ?, sha256 = ?, createdAt = ?
                WHERE id = ? AND userId = ? AND status = 'partial'
                """, arguments: [sizeBytes, sha256, now.timeIntervalSince1970, id, user.id])
            guard db.changesCount == 1 else { throw VaultError.notFound }
            try SQLiteVaultStorage.bumpBackupsVersion(db, user: user, bytes: sizeBytes)
            guard let row = try Row.fetchOne(db, sql: "\(SQLiteVaultStorage.columns) WHERE id = ?", arguments: [id]) else { throw VaultError.notFound }
            return try SQLiteVaultStorage.backup(row)
        }
    }

    public func abandonUpload(_ id: String, user: VaultUser) async {
        try? await write(durable: false) { db in
            try db.execute(sql: "DELETE FROM backup WHERE id = ? AND userId = ? AND status = 'partial'", arguments: [id, user.id])
        }
    }

    @discardableResult
    public func removeAbandonedUploads(startedBefore: Date) async throws(VaultError) -> Int {
        try await write(freesSpace: true) { db in
            try db.execute(sql: "DELETE FROM backup WHERE status = 'partial' AND createdAt < ?", arguments: [startedBefore.timeIntervalSince1970])
            return db.changesCount
        }
    }

    private static let columns = "SELECT id, createdAt, sizeBytes, type, status, encryptionMethod, sha256 FROM backup"

    public func backups(user: VaultUser) async throws(VaultError) -> [Backup] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "\(SQLiteVaultStorage.columns) WHERE userId = ? AND status = 'complete' ORDER BY createdAt DESC, id DESC"),
                             arguments: [user.id]).map(SQLiteVaultStorage.backup)
        }
    }

    public func storedBackup(id: String, user: VaultUser) async throws(VaultError) -> Backup {
        let found = try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "\(SQLiteVaultStorage.columns) WHERE id = ? AND userId = ? AND status = 'complete'"),
                             arguments: [id, user.id]).map(SQLiteVaultStorage.backup)
        }
        guard let found else { throw .notFound }
        return found
    }

    public func chunk(_ index: Int, of id: String, user: VaultUser) async throws(VaultError) -> Data? {
        try await read { db in
            try Data.fetchOne(db.cachedStatement(sql: """
                SELECT chunk.data FROM chunk JOIN backup ON backup.id = chunk.backupId
                WHERE chunk.backupId = ? AND chunk.idx = ? AND backup.userId = ? AND backup.status = 'complete'
                """), arguments: [id, index, user.id])
        }
    }

    public func deleteBackup(id: String, user: VaultUser) async throws(VaultError) {
        try await write(freesSpace: true) { db in
            guard let size = try Int64.fetchOne(db, sql: "SELECT sizeBytes FROM backup WHERE id = ? AND userId = ? AND status = 'complete'",
                                                arguments: [id, user.id]) else { throw VaultError.notFound }
            try db.execute(sql: "DELETE FROM backup WHERE id = ? AND userId = ? AND status = 'complete'", arguments: [id, user.id])
            try SQLiteVaultStorage.bumpBackupsVersion(db, user: user, bytes: -size)
        }
    }

    public func usage(user: VaultUser) async throws(VaultError) -> Int64 {
        try await read { try Int64.fetchOne($0.cachedStatement(sql: "SELECT usedBytes FROM user WHERE id = ?"), arguments: [user.id]) ?? 0 }
    }

    @discardableResult
    public func prune(user: VaultUser, now: Date) async throws(VaultError) -> [Backup] {
        let retention = try await settings(user: user).retentionDays
        let cutoff = VaultSchedule.retentionCutoff(retentionDays: retention, now: now)
        return try await write(freesSpace: true) { db -> [Backup] in
            // Only what retention may delete (older than the cutoff, through the (userId,
            // createdAt) index) and the newest complete backup, which it spares: an upload does
            // not read every row the user has.
            let columns = SQLiteVaultStorage.columns
            let old = try Row.fetchAll(db.cachedStatement(sql: "\(columns) WHERE userId = ? AND createdAt < ? AND status = 'complete'"),
                                       arguments: [user.id, cutoff.timeIntervalSince1970]).map(SQLiteVaultStorage.backup)
            guard !old.isEmpty else { return [] }
            let newest = try Row.fetchAll(db.cachedStatement(sql: "\(columns) WHERE userId = ? AND status = 'complete' ORDER BY createdAt DESC, id DESC LIMIT 1"),
                                          arguments: [user.id]).map(SQLiteVaultStorage.backup)
            let removed = VaultSchedule.expired(old + newest.filter { n in !old.contains { $0.id == n.id } }, retentionDays: retention, now: now)
            for b in removed { try db.execute(sql: "DELETE FROM backup WHERE id = ? AND userId = ?", arguments: [b.id, user.id]) }
            if !removed.isEmpty { try SQLiteVaultStorage.bumpBackupsVersion(db, user: user, bytes: -removed.reduce(0) { $0 + $1.sizeBytes }) }
            return removed
        }
    }

    @discardableResult
    public func pruneAll(now: Date) async throws(VaultError) -> Int {
        let users = try await read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM user").map { VaultUser(id: $0["id"], name: $0["name"]) } }
        var count = 0
        for user in users { count += try await prune(user: user, now: now).count }
        return count
    }

    public func storedBackups() async throws(VaultError) -> [StoredBackup] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT u.id AS userId, u.name, b.id, b.createdAt, b.sizeBytes, b.type, b.status, b.encryptionMethod, b.sha256
                FROM backup b JOIN user u ON u.id = b.userId WHERE b.status = 'complete' ORDER BY b.createdAt, b.id
                """).map { StoredBackup(user: VaultUser(id: $0["userId"], name: $0["name"]), backup: try SQLiteVaultStorage.backup($0)) }
        }
    }

    static func backup(_ row: Row) throws(VaultError) -> Backup {
        guard let type = Backup.Kind(rawValue: row["type"]), let status = Backup.Status(rawValue: row["status"]) else {
            throw .unreadableRecord(.backup)
        }
        return Backup(id: row["id"], createdAt: Date(timeIntervalSince1970: row["createdAt"]), sizeBytes: row["sizeBytes"], type: type,
                      status: status, encryptionMethod: row["encryptionMethod"], sha256: row["sha256"])
    }

    // MARK: Settings and credentials

    public func settings(user: VaultUser) async throws(VaultError) -> BackupSettings {
        let json = try await read { try String.fetchOne($0.cachedStatement(sql: "SELECT json FROM settings WHERE userId = ?"), arguments: [user.id]) }
        guard let json else { return .defaults }
        guard let settings = try? JSONDecoder().decode(BackupSettings.self, from: Data(json.utf8)) else { throw .unreadableRecord(.settings) }
        return settings
    }

    public func setSettings(_ settings: BackupSettings, user: VaultUser) async throws(VaultError) {
        try settings.validate()
        guard let json = try? JSONEncoder().encode(settings) else { throw .database(reason: "cannot encode settings") }
        try await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO settings (userId, json) VALUES (?, ?)", arguments: [user.id, String(decoding: json, as: UTF8.self)])
        }
    }

    public func setCredentialBackup(_ envelope: Data, user: VaultUser, now: Date, quota: Int64) async throws(VaultError) {
        try await write { db in
            let previous = try Int64.fetchOne(db, sql: "SELECT length(envelope) FROM credential WHERE userId = ?", arguments: [user.id]) ?? 0
            let used = try Int64.fetchOne(db.cachedStatement(sql: "SELECT usedBytes FROM user WHERE id = ?"), arguments: [user.id]) ?? 0
            let change = Int64(envelope.count) - previous
            guard change <= 0 || used + change <= quota else { throw VaultError.quotaExceeded(limit: quota) }
            try db.execute(sql: "INSERT OR REPLACE INTO credential (userId, envelope, createdAt, lastVerifiedAt) VALUES (?, ?, ?, NULL)",
                           arguments: [user.id, envelope, now.timeIntervalSince1970])
            try db.execute(sql: "UPDATE user SET usedBytes = usedBytes + ? WHERE id = ?", arguments: [change, user.id])
        }
    }

    public func credentialBackup(user: VaultUser, now: Date) async throws(VaultError) -> Data {
        let envelope = try await write { db -> Data? in
            let envelope = try Data.fetchOne(db, sql: "SELECT envelope FROM credential WHERE userId = ?", arguments: [user.id])
            if envelope != nil {
                try db.execute(sql: "UPDATE credential SET lastVerifiedAt = ? WHERE userId = ?", arguments: [now.timeIntervalSince1970, user.id])
            }
            return envelope
        }
        guard let envelope else { throw .notFound }
        return envelope
    }

    public func credentialStatus(user: VaultUser) async throws(VaultError) -> CredentialBackupStatus {
        try await read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT createdAt, lastVerifiedAt FROM credential WHERE userId = ?"), arguments: [user.id]) else {
                return CredentialBackupStatus(exists: false, createdAt: nil, lastVerifiedAt: nil)
            }
            return CredentialBackupStatus(exists: true, createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                                          lastVerifiedAt: (row["lastVerifiedAt"] as Double?).map { Date(timeIntervalSince1970: $0) })
        }
    }

    // MARK: The server's own work

    public func ping() async throws(VaultError) {
        _ = try await read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyPass") }
    }

    /// The day's claim is a row: one SQLite writer at a time, so one claimant a day. Several
    /// processes on one SQLite file never run the pass at once either: the claim comes first.
    public func dailyPass(day: String, now: Date, _ pass: @Sendable () async throws(VaultError) -> Void) async throws(VaultError) -> Bool {
        let claimed = try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO dailyPass (day, startedAt) VALUES (?, ?)", arguments: [day, now.timeIntervalSince1970])
            return db.changesCount == 1
        }
        guard claimed else { return false }
        do {
            try await pass()
        } catch {
            // Not done: the next check (this server's or another's) tries again.
            try? await write { try $0.execute(sql: "DELETE FROM dailyPass WHERE day = ?", arguments: [day]) }
            throw error
        }
        return true
    }

    // MARK: Access

    /// Runs reads of one statement each. A single SELECT is atomic on its own, so no
    /// BEGIN/COMMIT is spent around it (two extra statements per request otherwise).
    /// Every database call runs on GRDB's own queues and is awaited: a lock held by another
    /// process (busy timeout, 15 s) never blocks the server's event loops.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(VaultError) -> T {
        do { return try await db.unsafeRead(body) } catch let error as VaultError { throw error } catch { throw .database(reason: "\(error)") }
    }

    /// One immediate transaction. A `durable` commit syncs the WAL (`synchronous = FULL`); the
    /// others (an upload's chunks) don't wait for the disk: the completing commit's sync covers
    /// every WAL frame written before it. A full disk is `diskFull`; a write that `freesSpace`
    /// (a delete) then gives up the reserve file and is tried once more.
    func write<T: Sendable>(durable: Bool = true, freesSpace: Bool = false,
                                    _ body: @escaping @Sendable (Database) throws -> T) async throws(VaultError) -> T {
        do {
            return try await attempt(durable: durable, body)
        } catch .diskFull where freesSpace && reserve.release() {
            return try await attempt(durable: durable, body)
        }
    }

    private func attempt<T: Sendable>(durable: Bool, _ body: @escaping @Sendable (Database) throws -> T) async throws(VaultError) -> T {
        do {
            return try await db.writeWithoutTransaction { db in
                // Set for every transaction, never left to the previous one: a failed reset
                // must not leave the next acknowledged commit unsynced.
                try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let error as VaultError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw .diskFull
        } catch {
            throw .database(reason: "\(error)")
        }
    }
}

/// A file holding disk space in reserve, given up when the disk is full.
struct DiskReserve: Sendable {
    let path: String
    let bytes: Int64

    /// Creates the file with its blocks allocated, unless it exists; silently nothing when
    /// there is no room (the disk is already full) or `bytes` is 0.
    func make() {
        guard bytes > 0, !FileManager.default.fileExists(atPath: path) else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let allocated = DiskReserve.allocate(fd, bytes) && fsync(fd) == 0
        close(fd)
        if !allocated { unlink(path) }
    }

    /// Removes the file; whether there was one to remove.
    func release() -> Bool { unlink(path) == 0 }

    /// Gives the open file `bytes` of blocks on disk (not a sparse file: the point is the room).
    private static func allocate(_ fd: Int32, _ bytes: Int64) -> Bool {
        #if os(Linux)
        return posix_fallocate(fd, 0, off_t(bytes)) == 0
        #else
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var written: Int64 = 0
        while written < bytes {
            let n = zeros.withUnsafeBytes { write(fd, $0.baseAddress, Int(min(Int64(zeros.count), bytes - written))) }
            guard n > 0 else { return false }
            written += Int64(n)
        }
        return true
        #endif
    }
}
