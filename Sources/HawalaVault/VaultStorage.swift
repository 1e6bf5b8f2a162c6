import Foundation

/// Where the vault keeps users, tokens, backups and settings. One protocol, an SQLite
/// implementation (`SQLiteVaultStorage`) and, for deployments beyond one machine, PostgreSQL;
/// both must pass the same test suite. Every call that touches a user's data takes the user
/// resolved from the caller's token, so no query can reach another user's rows.
public protocol VaultStorage: Sendable {
    /// Adds a user and returns its new bearer token (only a hash of it is stored).
    func addUser(_ name: String, now: Date) throws(VaultError) -> String
    /// Revokes every token of `name`.
    func revokeUser(_ name: String) throws(VaultError)
    /// The user a token belongs to.
    func user(token: String) throws(VaultError) -> VaultUser

    /// Stores a backup in one transaction: it is listed only once every byte is stored, so an
    /// upload cut by a crash never appears. `sha256` (hex), when the client sent one, must
    /// match the bytes. Retention runs after the insert.
    func addBackup(_ data: Data, type: Backup.Kind, encryptionMethod: String, sha256: String?, user: VaultUser, now: Date) throws(VaultError) -> Backup
    /// The user's backups, newest first.
    func backups(user: VaultUser) throws(VaultError) -> [Backup]
    /// A backup and its bytes, checked against the recorded SHA-256.
    func backup(id: String, user: VaultUser) throws(VaultError) -> (Backup, Data)
    func deleteBackup(id: String, user: VaultUser) throws(VaultError)
    /// Total bytes the user stores (for the quota).
    func usage(user: VaultUser) throws(VaultError) -> Int64
    /// Applies the user's retention now; returns the deleted backups.
    @discardableResult
    func prune(user: VaultUser, now: Date) throws(VaultError) -> [Backup]
    /// Retention for every user (the server's daily pass); returns how many were deleted.
    @discardableResult
    func pruneAll(now: Date) throws(VaultError) -> Int

    func settings(user: VaultUser) throws(VaultError) -> BackupSettings
    func setSettings(_ settings: BackupSettings, user: VaultUser) throws(VaultError)

    /// The credential backup envelope (opaque, sealed by the client).
    func setCredentialBackup(_ envelope: Data, user: VaultUser, now: Date) throws(VaultError)
    func credentialBackup(user: VaultUser, now: Date) throws(VaultError) -> Data
    func credentialStatus(user: VaultUser) throws(VaultError) -> CredentialBackupStatus
}

/// A user as the storage knows it.
public struct VaultUser: Sendable, Equatable {
    public let id: Int64
    public let name: String
}
