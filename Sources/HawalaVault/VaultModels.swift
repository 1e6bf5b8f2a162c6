import Foundation

/// One stored backup, as seed 001's `Backup` (the API's JSON shape).
public struct Backup: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable { case auto, manual }
    public enum Status: String, Sendable, Codable, CaseIterable { case complete, partial, failed }

    public let id: String
    /// Server receipt time (never the client's clock).
    public let createdAt: Date
    public let sizeBytes: Int64
    public let type: Kind
    public let status: Status
    /// "hawala-v1" for a .hawala file (AES-256-GCM, Argon2id), "opaque" otherwise.
    public let encryptionMethod: String
    /// Hex SHA-256 of the stored bytes: checked at upload, sent with every download for the
    /// client to check, re-checked by `VaultCheck`.
    public let sha256: String

    public init(id: String, createdAt: Date, sizeBytes: Int64, type: Kind, status: Status, encryptionMethod: String, sha256: String) {
        self.id = id
        self.createdAt = createdAt
        self.sizeBytes = sizeBytes
        self.type = type
        self.status = status
        self.encryptionMethod = encryptionMethod
        self.sha256 = sha256
    }
}

/// A user's backup settings (seed 001), checked field by field.
public struct BackupSettings: Sendable, Codable, Equatable {
    public enum Frequency: String, Sendable, Codable, CaseIterable { case daily, weekly, monthly }

    public var autoBackupEnabled: Bool
    public var backupFrequency: Frequency
    /// "HH:mm", UTC.
    public var backupTimeUtc: String
    /// 7–365.
    public var retentionDays: Int
    public var includeMessages: Bool
    public var wifiOnly: Bool

    public static let retentionRange = 7...365
    public static let defaults = BackupSettings(autoBackupEnabled: false, backupFrequency: .daily, backupTimeUtc: "03:00",
                                                retentionDays: 30, includeMessages: false, wifiOnly: true)

    public init(autoBackupEnabled: Bool, backupFrequency: Frequency, backupTimeUtc: String, retentionDays: Int, includeMessages: Bool, wifiOnly: Bool) {
        self.autoBackupEnabled = autoBackupEnabled
        self.backupFrequency = backupFrequency
        self.backupTimeUtc = backupTimeUtc
        self.retentionDays = retentionDays
        self.includeMessages = includeMessages
        self.wifiOnly = wifiOnly
    }

    /// Throws `VaultError.invalidField` naming the first field out of range.
    public func validate() throws(VaultError) {
        guard BackupSettings.retentionRange.contains(retentionDays) else {
            throw .invalidField("retentionDays", "must be between 7 and 365")
        }
        guard BackupSettings.minutes(backupTimeUtc) != nil else { throw .invalidField("backupTimeUtc", "must be HH:mm, 00:00 to 23:59") }
    }

    /// Minutes after midnight of an "HH:mm" time, or nil when malformed.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        return h * 60 + m
    }
}

/// Whether a credential backup exists (seed 001's `CredentialBackupStatus`).
public struct CredentialBackupStatus: Sendable, Codable, Equatable {
    public let exists: Bool
    public let createdAt: Date?
    public let lastVerifiedAt: Date?

    public init(exists: Bool, createdAt: Date?, lastVerifiedAt: Date?) {
        self.exists = exists
        self.createdAt = createdAt
        self.lastVerifiedAt = lastVerifiedAt
    }
}

/// Everything the vault refuses, as one line; the HTTP layer maps each to a status.
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 400, with the field named.
    case invalidField(String, String)
    /// 401: no such token (or revoked).
    case unauthorized
    /// 403: the token's scope does not allow it (an append-only token deleting a backup or
    /// changing what the user stored).
    case forbidden
    /// 404: not this user's, or gone.
    case notFound
    /// 409: a user of that name exists.
    case userExists(String)
    /// The operator named a user that does not exist.
    case noSuchUser(String)
    /// 413: larger than the request limit.
    case tooLarge(limit: Int64)
    /// 507: the user's quota would be exceeded.
    case quotaExceeded(limit: Int64)
    /// 400: the client's SHA-256 does not match the bytes received.
    case hashMismatch
    /// 500: a stored blob no longer matches its recorded hash.
    case corrupted(String)
    /// The upload's connection ended before its last byte; nothing was stored.
    case interrupted
    /// 507: the vault's disk is full (deleting backups still works).
    case diskFull
    /// The database `target` cannot be opened (the driver's `reason`).
    case databaseUnavailable(target: String, reason: String)
    /// No database connection became free within `seconds`.
    case noConnection(seconds: Int64)
    /// A database call failed (the driver's `reason`).
    case database(reason: String)
    /// A stored record holds a value this version cannot read.
    case unreadableRecord(VaultRecord)
    /// 408: a request's body arrived slower than `minimumBytesPerSecond` on average.
    case tooSlow(minimumBytesPerSecond: Int)
    /// 409: the login key is bound to another user of this vault.
    case loginKeyTaken

    /// The storage failed (the server's problem, 503), rather than refused the request.
    public var isStorageFailure: Bool {
        switch self {
        case .databaseUnavailable, .noConnection, .database: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .invalidField(field, why): "\(field): \(why)"
        case .unauthorized: "invalid or revoked token"
        case .forbidden: "this token is append-only: it may upload, list and download backups, but not delete them or change settings"
        case .notFound: "no such backup"
        case .userExists(let name): "a user named \"\(name)\" exists"
        case .noSuchUser(let name): "no such user \"\(name)\""
        case .tooLarge(let limit): "the upload is larger than the limit of \(limit) bytes"
        case .quotaExceeded(let limit): "the upload would exceed the quota of \(limit) bytes"
        case .hashMismatch: "the upload's SHA-256 does not match the one sent"
        case .corrupted(let id): "backup \(id) no longer matches its recorded SHA-256"
        case .interrupted: "the upload ended before its last byte"
        case .diskFull: "the vault's disk is full"
        case let .databaseUnavailable(target, reason): "cannot open the vault database \(target): \(reason)"
        case .noConnection(let seconds): "no connection within \(seconds) s"
        case .database(let reason): "vault database: \(reason)"
        case .unreadableRecord(let record): "the vault database holds \(record.rawValue)"
        case .tooSlow(let rate): "the request's body arrived too slowly (under \(rate) bytes a second)"
        case .loginKeyTaken: "these words already log in to another account of this vault"
        }
    }
}

/// A kind of stored record, for `VaultError.unreadableRecord`.
public enum VaultRecord: String, Sendable, Equatable {
    case backup = "a backup of unknown type or status"
    case settings = "settings it cannot read"
}

/// A login with the words: what a wallet signs to prove it holds the key bound to an account.
public enum WordsLogin {
    /// `hawala-vault-login/v1`, a line feed, the challenge in hex: a message no other protocol
    /// signs (an LNURL-auth `k1` is 32 raw bytes), for one challenge only.
    public static func message(challengeHex: String) -> Data { Data(("hawala-vault-login/v1\n" + challengeHex).utf8) }
}
