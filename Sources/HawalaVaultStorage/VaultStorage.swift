import Crypto
import Foundation
import HawalaText
import HawalaVault

/// Where the vault keeps users, tokens, backups and settings. One protocol, an SQLite
/// implementation (`SQLiteVaultStorage`) and, for deployments beyond one machine, PostgreSQL;
/// both must pass the same test suite. Every call that touches a user's data takes the user
/// resolved from the caller's token, so no query can reach another user's rows.
public protocol VaultStorage: Sendable {
    /// Adds a user with one bearer token of `scope` and returns the token (only a hash of it is
    /// stored). A revoked user's name (one with no token left) is given the new token, its
    /// backups kept; a name holding a token is `userExists`.
    func addUser(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String
    /// Gives an existing user another token of `scope` (`noSuchUser` otherwise): an unattended
    /// agent's append-only token beside the owner's full one.
    func addToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String
    /// Revokes every token of `name` and its words' login binding (`noSuchUser` when there is
    /// no such user); backups stay.
    func revokeUser(_ name: String) async throws(VaultError)
    /// Replaces every token of `name` (revoked or not) with one new token of `scope`, in one
    /// step: the old tokens stop working as the new one starts.
    func rotateToken(_ name: String, scope: VaultScope, now: Date) async throws(VaultError) -> String
    /// Every user, by name, with its tokens and what it stores.
    func users() async throws(VaultError) -> [VaultUserInfo]
    /// The user a token belongs to, with the token's scope and the user's `backupsVersion`.
    func user(token: String) async throws(VaultError) -> VaultUser

    /// Starts an upload: a `partial` backup, never listed, counted or pruned until
    /// `completeUpload`; returns its id. `now` dates it for `removeAbandonedUploads`.
    func beginUpload(type: Backup.Kind, encryptionMethod: String, user: VaultUser, now: Date) async throws(VaultError) -> String
    /// Stores chunk `index` of the user's partial upload `upload` (`notFound` when it is not
    /// one). Chunks need not be durable one by one: `completeUpload`'s commit makes them so.
    func appendChunk(_ chunk: Data, index: Int, upload: String, user: VaultUser) async throws(VaultError)
    /// Completes the user's partial upload in one transaction: `quota` (bytes the user may store
    /// in all) is checked and charged with it, so concurrent uploads can't together pass it
    /// (`quotaExceeded`); the backup is listed from then on, dated `now`.
    func completeUpload(_ id: String, sizeBytes: Int64, sha256: String, user: VaultUser, quota: Int64, now: Date) async throws(VaultError) -> Backup
    /// Removes the user's partial upload and its chunks (an upload refused or cut); errors are
    /// left to `removeAbandonedUploads`.
    func abandonUpload(_ id: String, user: VaultUser) async
    /// Removes partial uploads started before `startedBefore` (left by a crash); returns how many.
    @discardableResult
    func removeAbandonedUploads(startedBefore: Date) async throws(VaultError) -> Int
    /// The user's backups, newest first.
    func backups(user: VaultUser) async throws(VaultError) -> [Backup]
    /// One of the user's complete backups (`notFound` otherwise).
    func storedBackup(id: String, user: VaultUser) async throws(VaultError) -> Backup
    /// Chunk `index` of the user's complete backup `id`; nil past the last one.
    func chunk(_ index: Int, of id: String, user: VaultUser) async throws(VaultError) -> Data?
    func deleteBackup(id: String, user: VaultUser) async throws(VaultError)
    /// Total bytes the user stores (for the quota).
    func usage(user: VaultUser) async throws(VaultError) -> Int64
    /// Applies the user's retention now; returns the deleted backups.
    @discardableResult
    func prune(user: VaultUser, now: Date) async throws(VaultError) -> [Backup]
    /// Retention for every user (the server's daily pass); returns how many were deleted.
    @discardableResult
    func pruneAll(now: Date) async throws(VaultError) -> Int

    func settings(user: VaultUser) async throws(VaultError) -> BackupSettings
    func setSettings(_ settings: BackupSettings, user: VaultUser) async throws(VaultError)

    /// Keeps the credential backup envelope (opaque, sealed by the client), replacing the
    /// user's previous one. It counts in the user's `quota` like a backup (`quotaExceeded`).
    func setCredentialBackup(_ envelope: Data, user: VaultUser, now: Date, quota: Int64) async throws(VaultError)
    func credentialBackup(user: VaultUser, now: Date) async throws(VaultError) -> Data
    func credentialStatus(user: VaultUser) async throws(VaultError) -> CredentialBackupStatus

    // MARK: Logins with the words

    /// Binds `user` to `publicKey` (32 bytes: an Ed25519 key its wallet made from its words for
    /// this vault), replacing the key bound before; `conflict` when another user holds it.
    func bindLoginKey(_ publicKey: Data, user: VaultUser, now: Date) async throws(VaultError)
    /// Unbinds `user`'s login key (nothing when none).
    func unbindLoginKey(user: VaultUser) async throws(VaultError)
    /// `user`'s login key and when it was bound, if any.
    func loginKey(user: VaultUser) async throws(VaultError) -> (publicKey: Data, boundAt: Date)?
    /// Keeps `challenge` for `publicKey` until `expiresAt`: expired challenges go, and past
    /// `VaultStorageSupport.challengesPerKey` the key's oldest one. Kept only when a user holds
    /// the key: the caller answers alike either way (it tells no one which keys are bound), and
    /// a flood of made-up keys stores nothing.
    func addLoginChallenge(_ challenge: Data, publicKey: Data, expiresAt: Date, now: Date) async throws(VaultError)
    /// Takes `challenge` (it is removed, whatever follows): whether it was issued for
    /// `publicKey` and has not expired.
    func takeLoginChallenge(_ challenge: Data, publicKey: Data, now: Date) async throws(VaultError) -> Bool
    /// A new token for the user bound to `publicKey`, as strong as the strongest it holds
    /// (`VaultStorageSupport.wordsLoginScope`) — `unauthorized` when no user is, or when the
    /// user holds no token at all (revoked by the operator: the words don't undo that).
    func tokenForLoginKey(_ publicKey: Data, now: Date) async throws(VaultError) -> String
    /// Revokes every token of `user` but `keeping` (the caller's own); returns how many.
    func revokeOtherTokens(user: VaultUser, keeping token: String) async throws(VaultError) -> Int

    /// Every user's backups (metadata only, no bytes), oldest first: what an integrity check walks.
    func storedBackups() async throws(VaultError) -> [StoredBackup]

    /// Reads the database once: throws when it does not answer (what `/healthz` asks).
    func ping() async throws(VaultError)

    /// Runs `pass` (the daily retention) unless a process sharing this storage has claimed
    /// `day` (a UTC date, "2026-11-25") or is running a pass now; returns whether it ran. So
    /// several servers on one database prune once a day between them, never two at once.
    func dailyPass(day: String, now: Date, _ pass: @Sendable () async throws(VaultError) -> Void) async throws(VaultError) -> Bool

    /// Releases connections (PostgreSQL); nothing for SQLite.
    func close() async
}

/// A backup with the user it belongs to (for the operator's integrity check).
public struct StoredBackup: Sendable, Equatable {
    public let user: VaultUser
    public let backup: Backup

    public init(user: VaultUser, backup: Backup) {
        self.user = user
        self.backup = backup
    }
}

extension VaultStorage {
    public func close() async {}

    /// A user with one full token.
    public func addUser(_ name: String, now: Date) async throws(VaultError) -> String { try await addUser(name, scope: .full, now: now) }

    /// Replaces every token of `name` with one full token.
    public func rotateToken(_ name: String) async throws(VaultError) -> String { try await rotateToken(name, scope: .full, now: Date()) }
}

/// What a bearer token may do.
public enum VaultScope: String, Sendable, CaseIterable, Codable {
    /// Everything its user may do.
    case full
    /// Upload, list, download and read settings; never delete a backup, change the settings or
    /// replace the credential backup. What an unattended agent should hold: whoever steals it
    /// can add backups but not destroy the ones there (like restic rest-server's append-only).
    case appendOnly = "append-only"

    /// A scope read from storage; an unknown value grants the least.
    public init(stored: String) { self = VaultScope(rawValue: stored) ?? .appendOnly }

    /// Whether the token may delete backups or replace what the user stored (settings, the
    /// credential backup).
    public var mayDestroy: Bool { self == .full }
}

/// A user as the operator sees it (`hawala-vault user list`): never a token.
public struct VaultUserInfo: Sendable, Equatable {
    public let name: String
    public let createdAt: Date
    /// Tokens of each scope the user holds.
    public let fullTokens: Int
    public let appendOnlyTokens: Int
    public let backups: Int
    public let bytes: Int64

    /// No token left: nothing can reach the user's backups until the operator gives a new one.
    public var revoked: Bool { fullTokens + appendOnlyTokens == 0 }

    public init(name: String, createdAt: Date, fullTokens: Int, appendOnlyTokens: Int, backups: Int, bytes: Int64) {
        self.name = name
        self.createdAt = createdAt
        self.fullTokens = fullTokens
        self.appendOnlyTokens = appendOnlyTokens
        self.backups = backups
        self.bytes = bytes
    }
}

/// A user as the storage knows it, reached through one of its tokens.
public struct VaultUser: Sendable, Equatable {
    public let id: Int64
    public let name: String
    /// Changes (grows) in the same transaction as every change to the user's backups
    /// (upload, delete, prune), in every process sharing the database: an answer derived from
    /// the backup list stays valid while this is unchanged. Read with the token on each request.
    public let backupsVersion: Int64
    /// The scope of the token the request came with.
    public let scope: VaultScope

    public init(id: Int64, name: String, backupsVersion: Int64 = 0, scope: VaultScope = .full) {
        self.id = id
        self.name = name
        self.backupsVersion = backupsVersion
        self.scope = scope
    }
}

/// What every storage shares: token hashing, new ids, the user-name rule, digests.
public enum VaultStorageSupport {
    /// SHA-256 of a token: what a database keeps instead of the token.
    public static func tokenHash(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// Lower-case hex SHA-256 of a blob.
    public static func sha256Hex(_ data: Data) -> String { hexString(Data(SHA256.hash(data: data))) }

    /// A new bearer token: `hwv_` and 256 random bits.
    public static func newToken() -> String { "hwv_" + hexString(randomBytes(32)) }

    /// A new backup id: 128 random bits in hex.
    public static func newBackupID() -> String { hexString(randomBytes(16)) }

    /// Whether `text` is shaped like a backup id (32 lower-case hex digits): anything else names
    /// no backup, and never reaches a query (a NUL byte would end the id there).
    public static func isBackupID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// User names: 1–64 ASCII letters, digits, `- _ . @`.
    public static func checkUserName(_ name: String) throws(VaultError) {
        guard (1...64).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.@".contains($0)) }) else {
            throw .invalidField("name", "1–64 letters, digits, - _ . @")
        }
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature of `message` (a words login).
    /// The scope a login with the words gets: full when the user holds a full token, else
    /// append-only when it holds only those (the words never raise what the operator gave), nil
    /// when it holds none (revoked).
    public static func wordsLoginScope(_ held: [VaultScope]) -> VaultScope? {
        held.contains(.full) ? .full : held.isEmpty ? nil : .appendOnly
    }

    public static func isLoginSignature(_ signature: Data, publicKey: Data, message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// Challenges outstanding per login key: a flood of requests for one key replaces its own.
    public static let challengesPerKey = 4

    /// Random bytes from the system's CSPRNG.
    public static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
