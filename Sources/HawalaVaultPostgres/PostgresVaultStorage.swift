import Foundation
import HawalaVault
import HawalaVaultStorage
import Logging
import PostgresNIO

/// `VaultStorage` in PostgreSQL through postgres-nio, for deployments beyond one machine:
/// several `hawala-vault serve` processes may share one database. Same rules as the SQLite
/// storage (and the same test suite): every change in one transaction, every query scoped to
/// the caller's user, only token hashes stored, backups in 64 KiB chunks.
public final class PostgresVaultStorage: VaultStorage {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    let logger = Logger(label: "hawala.vault.postgres")

    private init(_ configuration: PostgresClient.Configuration) {
        // The pool's own warnings (e.g. a lease just before run() starts) would only be noise;
        // a server that can't be reached is reported by `open` and by each failing call.
        var poolLogger = Logger(label: "hawala.vault.postgres.pool")
        poolLogger.logLevel = .error
        let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Connects to `url` (see `PostgresURL`) and creates or upgrades the schema. Fails with a
    /// clear error when the server can't be reached within `timeout`.
    public static func open(url: String, timeout: Duration = .seconds(10)) async throws(VaultError) -> PostgresVaultStorage {
        let target = try PostgresURL(url)
        let storage = PostgresVaultStorage(target.configuration)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await storage.migrate() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw VaultError.noConnection(seconds: timeout.components.seconds)
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await storage.close()
            throw .databaseUnavailable(target: target.redacted, reason: PostgresVaultStorage.describe(error))
        }
        return storage
    }

    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// Creates the tables once; concurrent servers starting together serialize on an
    /// advisory lock.
    private func migrate() async throws {
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(7346193)", logger: logger)
            let size = BackupChunking.chunkSize
            let statements: [PostgresQuery] = [
                """
                CREATE TABLE IF NOT EXISTS vault_user (
                    id BIGSERIAL PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    created_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS vault_backup (
                    id TEXT PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES vault_user(id) ON DELETE CASCADE,
                    created_at DOUBLE PRECISION NOT NULL,
                    size_bytes BIGINT NOT NULL,
                    type TEXT NOT NULL CHECK (type IN ('auto', 'manual')),
                    status TEXT NOT NULL CHECK (status IN ('complete', 'partial', 'failed')),
                    encryption_method TEXT NOT NULL,
                    sha256 TEXT NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS vault_backup_by_user ON vault_backup (user_id, created_at DESC)",
                "ALTER TABLE vault_user ADD COLUMN IF NOT EXISTS backups_version BIGINT NOT NULL DEFAULT 0",
                """
                CREATE TABLE IF NOT EXISTS vault_settings (
                    user_id BIGINT PRIMARY KEY REFERENCES vault_user(id) ON DELETE CASCADE,
                    json TEXT NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS vault_credential (
                    user_id BIGINT PRIMARY KEY REFERENCES vault_user(id) ON DELETE CASCADE,
                    envelope BYTEA NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    last_verified_at DOUBLE PRECISION)
                """,
                // Backups are stored in 64 KiB chunks, streamed in and out; a database from before
                // keeps its blobs in vault_backup.data: they are split here, once. Ciphertext
                // doesn't compress, so TOAST doesn't try.
                """
                CREATE TABLE IF NOT EXISTS vault_chunk (
                    backup_id TEXT NOT NULL REFERENCES vault_backup(id) ON DELETE CASCADE,
                    idx INTEGER NOT NULL,
                    data BYTEA NOT NULL,
                    PRIMARY KEY (backup_id, idx))
                """,
                "ALTER TABLE vault_chunk ALTER COLUMN data SET STORAGE EXTERNAL",
                PostgresQuery(unsafeSQL: """
                    DO $$ BEGIN
                    IF EXISTS (SELECT 1 FROM information_schema.columns
                               WHERE table_schema = current_schema() AND table_name = 'vault_backup' AND column_name = 'data') THEN
                        INSERT INTO vault_chunk (backup_id, idx, data)
                        SELECT b.id, g, substring(b.data FROM g * \(size) + 1 FOR \(size))
                        FROM vault_backup b, generate_series(0, GREATEST(length(b.data) - 1, 0) / \(size)) AS g;
                        ALTER TABLE vault_backup DROP COLUMN data;
                    END IF;
                    END $$
                    """),
                "CREATE INDEX IF NOT EXISTS vault_backup_partial ON vault_backup (created_at) WHERE status = 'partial'",
                // A user may hold several tokens, each with a scope; a revoked user is one with
                // no token. A database from before keeps one token per user in vault_user.
                """
                CREATE TABLE IF NOT EXISTS vault_token (
                    hash BYTEA PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES vault_user(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL CHECK (scope IN ('full', 'append-only')),
                    created_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS vault_token_by_user ON vault_token (user_id)",
                PostgresQuery(unsafeSQL: """
                    DO $$ BEGIN
                    IF EXISTS (SELECT 1 FROM information_schema.columns
                               WHERE table_schema = current_schema() AND table_name = 'vault_user' AND column_name = 'token_hash') THEN
                        INSERT INTO vault_token (hash, user_id, scope, created_at)
                        SELECT token_hash, id, 'full', created_at FROM vault_user WHERE NOT revoked;
                        ALTER TABLE vault_user DROP COLUMN token_hash, DROP COLUMN revoked;
                    END IF;
                    END $$
                    """),
                // What each user stores, kept with every change (the quota check reads one row).
                PostgresQuery(unsafeSQL: """
                    DO $$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                                   WHERE table_schema = current_schema() AND table_name = 'vault_user' AND column_name = 'used_bytes') THEN
                        ALTER TABLE vault_user ADD COLUMN used_bytes BIGINT NOT NULL DEFAULT 0;
                        UPDATE vault_user u SET used_bytes = (SELECT COALESCE(SUM(size_bytes), 0) FROM vault_backup b
                                                              WHERE b.user_id = u.id AND b.status = 'complete');
                    END IF;
                    END $$
                    """),
                // The credential envelope counts in the quota like a backup: `counted` marks a
                // database whose users' used_bytes include their envelopes (added once, with them).
                PostgresQuery(unsafeSQL: """
                    DO $$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                                   WHERE table_schema = current_schema() AND table_name = 'vault_credential' AND column_name = 'counted') THEN
                        ALTER TABLE vault_credential ADD COLUMN counted BOOLEAN NOT NULL DEFAULT TRUE;
                        UPDATE vault_user u SET used_bytes = used_bytes + COALESCE((SELECT length(envelope) FROM vault_credential c
                                                                                   WHERE c.user_id = u.id), 0);
                    END IF;
                    END $$
                    """),
                // The days whose retention pass a server has claimed (one server a day).
                "CREATE TABLE IF NOT EXISTS vault_daily_pass (day TEXT PRIMARY KEY, started_at DOUBLE PRECISION NOT NULL)",
                // Logins with the words: a user's login key (one), and the challenges outstanding.
                """
                CREATE TABLE IF NOT EXISTS vault_login_key (
                    user_id BIGINT PRIMARY KEY REFERENCES vault_user(id) ON DELETE CASCADE,
                    public_key BYTEA NOT NULL UNIQUE,
                    bound_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS vault_login_challenge (
                    challenge BYTEA PRIMARY KEY,
                    public_key BYTEA NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS vault_login_challenge_by_key ON vault_login_challenge (public_key, expires_at)",
            ]
            for statement in statements { try await db.query(statement, logger: logger) }
        }
    }

    // MARK: Users

    public func addUser(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        try VaultStorageSupport.checkUserName(name)
        let token = VaultStorageSupport.newToken()
        try await transaction { db in
            let id = try await db.query("""
                INSERT INTO vault_user (name, created_at) VALUES (\(name), \(now.timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id
                """, logger: logger).decode(Int64.self).collect().first ?? 0
            // The row is locked until commit: a concurrent add of the same name waits here.
            let held = try await db.query("SELECT COUNT(*) FROM vault_token WHERE user_id = \(id)", logger: logger).decode(Int64.self).collect().first ?? 0
            guard held == 0 else { throw VaultError.userExists(name) }
            try await insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    public func addToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        let token = VaultStorageSupport.newToken()
        try await transaction { db in
            let id = try await userID(db, name: name, lock: false)
            try await insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    public func revokeUser(_ name: String) async throws(VaultError) {
        try await transaction { db in
            let id = try await userID(db, name: name, lock: true)
            try await db.query("DELETE FROM vault_token WHERE user_id = \(id)", logger: logger)
            // The words' binding goes too: whoever holds the name next starts without it.
            try await db.query("DELETE FROM vault_login_key WHERE user_id = \(id)", logger: logger)
        }
    }

    public func rotateToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String {
        let token = VaultStorageSupport.newToken()
        try await transaction { db in
            let id = try await userID(db, name: name, lock: true)
            try await db.query("DELETE FROM vault_token WHERE user_id = \(id)", logger: logger)
            try await insertToken(db, token, userId: id, scope: scope, now: now)
        }
        return token
    }

    /// The id of the user named `name` (`noSuchUser` otherwise), its row locked when `lock`.
    private func userID(_ db: PostgresConnection, name: String, lock: Bool) async throws -> Int64 {
        let query: PostgresQuery = lock ? "SELECT id FROM vault_user WHERE name = \(name) FOR UPDATE" : "SELECT id FROM vault_user WHERE name = \(name)"
        guard let id = try await db.query(query, logger: logger).decode(Int64.self).collect().first else { throw VaultError.noSuchUser(name) }
        return id
    }

    private func insertToken(_ db: PostgresConnection, _ token: String, userId: Int64, scope: VaultScope, now: Date) async throws {
        try await db.query("""
            INSERT INTO vault_token (hash, user_id, scope, created_at)
            VALUES (\(VaultStorageSupport.tokenHash(token)), \(userId), \(scope.rawValue), \(now.timeIntervalSince1970))
            """, logger: logger)
    }

    public func users() async throws(VaultError) -> [VaultUserInfo] {
        let rows = try await run { db in
            try await db.query("""
                SELECT u.name, u.created_at,
                    (SELECT COUNT(*) FROM vault_token t WHERE t.user_id = u.id AND t.scope = 'full'),
                    (SELECT COUNT(*) FROM vault_token t WHERE t.user_id = u.id AND t.scope = 'append-only'),
                    COUNT(b.id), COALESCE(SUM(b.size_bytes), 0)::BIGINT
                FROM vault_user u LEFT JOIN vault_backup b ON b.user_id = u.id AND b.status = 'complete' GROUP BY u.id ORDER BY u.name
                """, logger: logger).decode((String, Double, Int64, Int64, Int64, Int64).self).collect()
        }
        return rows.map { VaultUserInfo(name: $0.0, createdAt: Date(timeIntervalSince1970: $0.1), fullTokens: Int($0.2), appendOnlyTokens: Int($0.3),
                                        backups: Int($0.4), bytes: $0.5) }
    }

    public func user(token: String) async throws(VaultError) -> VaultUser {
        let hash = VaultStorageSupport.tokenHash(token)
        let rows = try await run { db in
            try await db.query("""
                SELECT u.id, u.name, u.backups_version, t.scope FROM vault_token t JOIN vault_user u ON u.id = t.user_id WHERE t.hash = \(hash)
                """, logger: logger).decode((Int64, String, Int64, String).self).collect()
        }
        guard let (id, name, version, scope) = rows.first else { throw .unauthorized }
        return VaultUser(id: id, name: name, backupsVersion: version, scope: VaultScope(stored: scope))
    }

    // MARK: Backups

    public func beginUpload(type: Backup.Kind, encryptionMethod: String, user: VaultUser, now: Date) async throws(VaultError) -> String {
        let id = VaultStorageSupport.newBackupID()
        try await run { db in
            try await db.query("""
                INSERT INTO vault_backup (id, user_id, created_at, size_bytes, type, status, encryption_method, sha256)
                VALUES (\(id), \(user.id), \(now.timeIntervalSince1970), 0, \(type.rawValue), 'partial', \(encryptionMethod), '')
                """, logger: logger)
        }
        return id
    }

    public func appendChunk(_ chunk: Data, index: Int, upload: String, user: VaultUser) async throws(VaultError) {
        // The completing commit waits for the WAL flush, which covers these records too.
        let inserted = try await transaction { db in
            try await db.query("SET LOCAL synchronous_commit = off", logger: logger)
            return try await db.query("""
                INSERT INTO vault_chunk (backup_id, idx, data)
                SELECT id, \(index), \(chunk) FROM vault_backup WHERE id = \(upload) AND user_id = \(user.id) AND status = 'partial'
                RETURNING idx
                """, logger: logger).collect().count
        }
        guard inserted == 1 else { throw .notFound }
    }

    public func completeUpload(_ id: String, sizeBytes: Int64, sha256: String, user: VaultUser, quota: Int64, now: Date) async throws(VaultError) -> Backup {
        let rows = try await transaction { db in
            // The user's row lock serialises this user's uploads: the quota is checked and
            // charged in one transaction, also across servers sharing the database.
            let used = try await db.query("SELECT used_bytes FROM vault_user WHERE id = \(user.id) FOR UPDATE", logger: logger)
                .decode(Int64.self).collect().first ?? 0
            guard used + sizeBytes <= quota else { throw VaultError.quotaExceeded(limit: quota) }
            let rows = try await db.query("""
                UPDATE vault_backup SET status = 'complete', size_bytes = \(sizeBytes), sha256 = \(sha256), created_at = \(now.timeIntervalSince1970)
                WHERE id = \(id) AND user_id = \(user.id) AND status = 'partial'
                RETURNING id, created_at, size_bytes, type, status, encryption_method, sha256
                """, logger: logger).decode(BackupRow.self).collect()
            if !rows.isEmpty { try await bumpBackupsVersion(db, user: user, bytes: sizeBytes) }
            return rows
        }
        guard let row = rows.first else { throw .notFound }
        return try PostgresVaultStorage.backup(row)
    }

    public func abandonUpload(_ id: String, user: VaultUser) async {
        _ = try? await run { db in
            try await db.query("DELETE FROM vault_backup WHERE id = \(id) AND user_id = \(user.id) AND status = 'partial'", logger: logger)
        }
    }

    @discardableResult
    public func removeAbandonedUploads(startedBefore: Date) async throws(VaultError) -> Int {
        try await run { db in
            try await db.query("DELETE FROM vault_backup WHERE status = 'partial' AND created_at < \(startedBefore.timeIntervalSince1970) RETURNING id",
                               logger: logger).collect().count
        }
    }

    public func backups(user: VaultUser) async throws(VaultError) -> [Backup] {
        let rows = try await run { db in
            try await db.query("""
                SELECT id, created_at, size_bytes, type, status, encryption_method, sha256 FROM vault_backup
                WHERE user_id = \(user.id) AND status = 'complete' ORDER BY created_at DESC, id DESC
                """, logger: logger).decode(BackupRow.self).collect()
        }
        return try rows.map(PostgresVaultStorage.backup)
    }

    public func storedBackup(id: String, user: VaultUser) async throws(VaultError) -> Backup {
        let rows = try await run { db in
            try await db.query("""
                SELECT id, created_at, size_bytes, type, status, encryption_method, sha256 FROM vault_backup
                WHERE id = \(id) AND user_id = \(user.id) AND status = 'complete'
                """, logger: logger).decode(BackupRow.self).collect()
        }
        guard let row = rows.first else { throw .notFound }
        return try PostgresVaultStorage.backup(row)
    }

    public func chunk(_ index: Int, of id: String, user: VaultUser) async throws(VaultError) -> Data? {
        try await run { db in
            try await db.query("""
                SELECT c.data FROM vault_chunk c JOIN vault_backup b ON b.id = c.backup_id
                WHERE c.backup_id = \(id) AND c.idx = \(index) AND b.user_id = \(user.id) AND b.status = 'complete'
                """, logger: logger).decode(Data.self).collect().first
        }
    }

    public func deleteBackup(id: String, user: VaultUser) async throws(VaultError) {
        let deleted = try await transaction { db in
            let sizes = try await db.query("DELETE FROM vault_backup WHERE id = \(id) AND user_id = \(user.id) AND status = 'complete' RETURNING size_bytes",
                                           logger: logger).decode(Int64.self).collect()
            if let size = sizes.first { try await bumpBackupsVersion(db, user: user, bytes: -size) }
            return sizes.count
        }
        guard deleted == 1 else { throw .notFound }
    }

    public func usage(user: VaultUser) async throws(VaultError) -> Int64 {
        let rows = try await run { db in
            try await db.query("SELECT used_bytes FROM vault_user WHERE id = \(user.id)", logger: logger)
                .decode(Int64.self).collect()
        }
        return rows.first ?? 0
    }

    @discardableResult
    public func prune(user: VaultUser, now: Date) async throws(VaultError) -> [Backup] {
        let retention = try await settings(user: user).retentionDays
        let cutoff = VaultSchedule.retentionCutoff(retentionDays: retention, now: now).timeIntervalSince1970
        return try await transaction { db in
            // The user's row lock makes two servers pruning at once agree on the newest; only
            // what retention may delete is read (through the (user_id, created_at) index), and
            // the newest complete backup, which it spares.
            try await db.query("SELECT id FROM vault_user WHERE id = \(user.id) FOR UPDATE", logger: logger)
            let old = try await db.query("""
                SELECT id, created_at, size_bytes, type, status, encryption_method, sha256 FROM vault_backup
                WHERE user_id = \(user.id) AND created_at < \(cutoff) AND status = 'complete'
                """, logger: logger).decode(BackupRow.self).collect()
            guard !old.isEmpty else { return [] }
            let newest = try await db.query("""
                SELECT id, created_at, size_bytes, type, status, encryption_method, sha256 FROM vault_backup
                WHERE user_id = \(user.id) AND status = 'complete' ORDER BY created_at DESC, id DESC LIMIT 1
                """, logger: logger).decode(BackupRow.self).collect()
            let candidates = try (old + newest).map(PostgresVaultStorage.backup)
            let unique = candidates.enumerated().filter { i, b in !candidates[..<i].contains { $0.id == b.id } }.map(\.element)
            let removed = VaultSchedule.expired(unique, retentionDays: retention, now: now)
            for backup in removed {
                try await db.query("DELETE FROM vault_backup WHERE id = \(backup.id) AND user_id = \(user.id)", logger: logger)
            }
            if !removed.isEmpty { try await bumpBackupsVersion(db, user: user, bytes: -removed.reduce(0) { $0 + $1.sizeBytes }) }
            return removed
        }
    }

    /// Marks the user's backup list changed; inside the transaction that changes it.
    /// Marks the user's backup list changed, `bytes` more (or fewer) stored; inside the
    /// transaction that changes it.
    private func bumpBackupsVersion(_ db: PostgresConnection, user: VaultUser, bytes: Int64) async throws {
        try await db.query("UPDATE vault_user SET backups_version = backups_version + 1, used_bytes = used_bytes + \(bytes) WHERE id = \(user.id)", logger: logger)
    }

    @discardableResult
    public func pruneAll(now: Date) async throws(VaultError) -> Int {
        let users = try await run { db in
            try await db.query("SELECT id, name FROM vault_user", logger: logger).decode((Int64, String).self).collect()
        }
        var count = 0
        for (id, name) in users { count += try await prune(user: VaultUser(id: id, name: name), now: now).count }
        return count
    }

    public func storedBackups() async throws(VaultError) -> [StoredBackup] {
        let rows = try await run { db in
            try await db.query("""
                SELECT u.id, u.name, b.id, b.created_at, b.size_bytes, b.type, b.status, b.encryption_method, b.sha256
                FROM vault_backup b JOIN vault_user u ON u.id = b.user_id WHERE b.status = 'complete' ORDER BY b.created_at, b.id
                """, logger: logger).decode((Int64, String, String, Double, Int64, String, String, String, String).self).collect()
        }
        var stored: [StoredBackup] = []
        for r in rows {
            stored.append(StoredBackup(user: VaultUser(id: r.0, name: r.1), backup: try PostgresVaultStorage.backup((r.2, r.3, r.4, r.5, r.6, r.7, r.8))))
        }
        return stored
    }

    private typealias BackupRow = (String, Double, Int64, String, String, String, String)

    private static func backup(_ row: BackupRow) throws(VaultError) -> Backup {
        guard let type = Backup.Kind(rawValue: row.3), let status = Backup.Status(rawValue: row.4) else {
            throw .unreadableRecord(.backup)
        }
        return Backup(id: row.0, createdAt: Date(timeIntervalSince1970: row.1), sizeBytes: row.2, type: type, status: status,
                      encryptionMethod: row.5, sha256: row.6)
    }

    // MARK: Settings and credentials

    public func settings(user: VaultUser) async throws(VaultError) -> BackupSettings {
        let rows = try await run { db in
            try await db.query("SELECT json FROM vault_settings WHERE user_id = \(user.id)", logger: logger).decode(String.self).collect()
        }
        guard let json = rows.first else { return .defaults }
        guard let settings = try? JSONDecoder().decode(BackupSettings.self, from: Data(json.utf8)) else { throw .unreadableRecord(.settings) }
        return settings
    }

    public func setSettings(_ settings: BackupSettings, user: VaultUser) async throws(VaultError) {
        try settings.validate()
        guard let json = try? String(decoding: JSONEncoder().encode(settings), as: UTF8.self) else { throw .database(reason: "cannot encode settings") }
        try await transaction { db in
            try await db.query("""
                INSERT INTO vault_settings (user_id, json) VALUES (\(user.id), \(json))
                ON CONFLICT (user_id) DO UPDATE SET json = EXCLUDED.json
                """, logger: logger)
        }
    }

    public func setCredentialBackup(_ envelope: Data, user: VaultUser, now: Date, quota: Int64) async throws(VaultError) {
        try await transaction { db in
            // The user's row lock serializes this with uploads completing on other servers.
            let used = try await db.query("SELECT used_bytes FROM vault_user WHERE id = \(user.id) FOR UPDATE", logger: logger)
                .decode(Int64.self).collect().first ?? 0
            let previous = try await db.query("SELECT length(envelope)::BIGINT FROM vault_credential WHERE user_id = \(user.id)", logger: logger)
                .decode(Int64.self).collect().first ?? 0
            let change = Int64(envelope.count) - previous
            guard change <= 0 || used + change <= quota else { throw VaultError.quotaExceeded(limit: quota) }
            try await db.query("UPDATE vault_user SET used_bytes = used_bytes + \(change) WHERE id = \(user.id)", logger: logger)
            try await db.query("""
                INSERT INTO vault_credential (user_id, envelope, created_at, last_verified_at) VALUES (\(user.id), \(envelope), \(now.timeIntervalSince1970), NULL)
                ON CONFLICT (user_id) DO UPDATE SET envelope = EXCLUDED.envelope, created_at = EXCLUDED.created_at, last_verified_at = NULL
                """, logger: logger)
        }
    }

    public func credentialBackup(user: VaultUser, now: Date) async throws(VaultError) -> Data {
        let rows = try await transaction { db in
            try await db.query("""
                UPDATE vault_credential SET last_verified_at = \(now.timeIntervalSince1970) WHERE user_id = \(user.id) RETURNING envelope
                """, logger: logger).decode(Data.self).collect()
        }
        guard let envelope = rows.first else { throw .notFound }
        return envelope
    }

    public func credentialStatus(user: VaultUser) async throws(VaultError) -> CredentialBackupStatus {
        let rows = try await run { db in
            try await db.query("SELECT created_at, last_verified_at FROM vault_credential WHERE user_id = \(user.id)", logger: logger)
                .decode((Double, Double?).self).collect()
        }
        guard let (created, verified) = rows.first else { return CredentialBackupStatus(exists: false, createdAt: nil, lastVerifiedAt: nil) }
        return CredentialBackupStatus(exists: true, createdAt: Date(timeIntervalSince1970: created),
                                      lastVerifiedAt: verified.map { Date(timeIntervalSince1970: $0) })
    }

    // MARK: The server's own work

    public func ping() async throws(VaultError) {
        try await run { db in _ = try await db.query("SELECT 1", logger: logger).decode(Int.self).collect() }
    }

    /// The pass holds a session advisory lock on its own connection while it runs, so no two
    /// servers run one at once; the day's row, inserted under that lock, makes it once a day.
    public func dailyPass(day: String, now: Date, _ pass: @Sendable () async throws(VaultError) -> Void) async throws(VaultError) -> Bool {
        let logger = self.logger
        return try await run { db in
            let locked = try await db.query("SELECT pg_try_advisory_lock(\(PostgresVaultStorage.dailyPassLock))", logger: logger)
                .decode(Bool.self).collect().first ?? false
            guard locked else { return false }
            do {
                let claimed = try await db.query("""
                    INSERT INTO vault_daily_pass (day, started_at) VALUES (\(day), \(now.timeIntervalSince1970)) ON CONFLICT (day) DO NOTHING RETURNING day
                    """, logger: logger).decode(String.self).collect()
                if !claimed.isEmpty {
                    do {
                        try await pass()
                    } catch {
                        // Not done: the next check (this server's or another's) tries again.
                        try await db.query("DELETE FROM vault_daily_pass WHERE day = \(day)", logger: logger)
                        throw error
                    }
                }
                _ = try await db.query("SELECT pg_advisory_unlock(\(PostgresVaultStorage.dailyPassLock))", logger: logger).decode(Bool.self).collect()
                return !claimed.isEmpty
            } catch {
                _ = try? await db.query("SELECT pg_advisory_unlock(\(PostgresVaultStorage.dailyPassLock))", logger: logger).decode(Bool.self).collect()
                throw error
            }
        }
    }

    /// The advisory lock key of the daily pass (the schema's migration holds 7346193).
    static let dailyPassLock: Int64 = 7346194

    // MARK: Access

    /// One statement (autocommit) on a pooled connection.
    func run<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(VaultError) -> T {
        do {
            return try await client.withConnection { try await body($0) }
        } catch let error as VaultError { throw error } catch { throw .database(reason: PostgresVaultStorage.describe(error)) }
    }

    /// `body` inside BEGIN … COMMIT on one connection; any error rolls back.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(VaultError) -> T {
        let logger = self.logger
        return try await run { db in
            try await db.query("BEGIN", logger: logger)
            do {
                let value = try await body(db)
                try await db.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await db.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// The server's message when there is one (PSQLError's description hides it).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// A `--db postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]` address;
/// `?host=/DIR` reaches a Unix socket in DIR (libpq's convention). The password comes from
/// `$PGPASSWORD`: one in the address (and so in argv, `ps`, shell history) is refused. TLS is
/// required by default for a host other than this machine.
public struct PostgresURL: Sendable {
    public let configuration: PostgresClient.Configuration
    /// The address without its password, for messages.
    public let redacted: String
    /// disable, prefer or require (a Unix socket: disable).
    public let sslMode: String

    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(VaultError) {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw .invalidField("db", "expected postgres://USER@HOST[:PORT]/DATABASE")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let user = components.user.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? "postgres"
        guard components.password == nil else {
            throw .invalidField("db", "a password in the address would show in the process list and shell history; set PGPASSWORD instead")
        }
        let password = environment["PGPASSWORD"]
        let database = String(components.path.drop(while: { $0 == "/" }))
        let port = components.port ?? 5432
        guard !database.isEmpty else { throw .invalidField("db", "the address names no database") }
        guard (1...65535).contains(port) else { throw .invalidField("db", "port out of range") }
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            configuration = .init(unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
            redacted = "postgres://\(user)@/\(database)?host=\(socketDirectory)"
            sslMode = "disable"
            return
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidField("db", "the address names no host") }
        let tls: PostgresClient.Configuration.TLS
        let local = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.")
        sslMode = query["sslmode"] ?? (local ? "prefer" : "require")
        switch sslMode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw .invalidField("db", "sslmode \(other) (expected disable, prefer or require)")
        }
        configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        redacted = "postgres://\(user)@\(host):\(port)/\(database)"
    }
}

extension AsyncSequence where Self: Sendable {
    /// Every element, in order (a query's rows).
    func collect() async throws -> [Element] {
        var all: [Element] = []
        for try await element in self { all.append(element) }
        return all
    }
}
