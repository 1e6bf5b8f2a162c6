import Foundation

/// What a vault client call can fail with. Every HTTP status the vault answers with is mapped
/// here, once (`VaultRefusal`), whatever the operation.
public enum VaultClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The vault answered with an error status.
    case refused(VaultRefusal)
    /// The server at this URL did not answer like a Hawala vault (a login check).
    case notAVault(url: String, status: Int)
    /// The login URL is plain http to another machine: the token would cross the network in the clear.
    case plainHTTP(url: String)
    /// Not an http(s) URL with a host.
    case invalidURL(String)
    case emptyToken
    /// No vault login is saved in the wallet store.
    case notLoggedIn
    /// The vault agent has no backup key: it was never enabled, or was disabled.
    case agentNotEnabled
    /// No backup with this id (or id prefix) for this token.
    case noSuchBackup(id: String)
    /// Fewer than `VaultClient.minimumIDPrefix` characters of a backup id.
    case backupIDTooShort
    case ambiguousBackupID(prefix: String, matches: Int)
    case noCredentialBackup
    /// The downloaded bytes do not match the SHA-256 the vault sent with them.
    case hashMismatch
    /// The download ended before its last byte.
    case cutShort
    /// The backup is larger than this client reads (`limit` bytes).
    case tooLarge(limit: Int)
    /// The vault could not be reached (connection refused, timeout, DNS…).
    case unreachable(url: String?, cause: String)
    /// The vault's TLS certificate is not trusted by this machine.
    case untrustedCertificate(url: String?)
    /// The vault answered something this client cannot read.
    case malformedAnswer(String)
    /// No account of the vault at `url` is bound to these words (or the challenge expired).
    case wordsLoginRefused(url: String)

    public var description: String {
        switch self {
        case .refused(let refusal): refusal.description
        case let .notAVault(url, status): "\(url) does not answer like a Hawala vault (HTTP \(status))"
        case .plainHTTP(let url): "\(url) is plain http: the token and your backups would cross the network unencrypted; use https"
        case .invalidURL(let url): "\(url) is not an http(s) URL"
        case .emptyToken: "the token is empty"
        case .notLoggedIn: "not logged in to a vault"
        case .agentNotEnabled: "the vault agent is not enabled"
        case .noSuchBackup(let id): "no backup \(id) in the vault"
        case .backupIDTooShort: "give at least \(VaultClient.minimumIDPrefix) characters of the backup id"
        case let .ambiguousBackupID(prefix, matches): "\(prefix) is the start of \(matches) backup ids; give more of it"
        case .noCredentialBackup: "no credential backup in the vault"
        case .hashMismatch: "the downloaded backup does not match its SHA-256"
        case .cutShort: "the download was cut short"
        case .tooLarge(let limit): "the backup is larger than \(limit >> 20) MiB, the most a backup file can hold"
        case let .unreachable(url, cause): "cannot reach the vault\(url.map { " at \($0)" } ?? "") (\(cause))"
        case .untrustedCertificate(let url):
            "the vault\(url.map { " at \($0)" } ?? "") presented a TLS certificate this machine does not trust (self-signed, or from an unknown authority); "
                + "install its authority in the system's trust store"
        case .malformedAnswer(let what): "the vault's answer could not be read (\(what))"
        case .wordsLoginRefused(let url):
            "no account of the vault at \(url) logs in with these words (an account is bound to them at a login with a token, "
                + "on a device where this wallet was, at this same address)"
        }
    }
}

/// An error status from the vault, with what it said.
public struct VaultRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The operation refused.
    public let operation: VaultOperation
    public let status: Int
    /// The vault's `{"error": …}` text, when it sent one.
    public let reason: String?
    /// Seconds, from `Retry-After` (429, 503).
    public let retryAfter: Int?

    public init(operation: VaultOperation, status: Int, reason: String?, retryAfter: Int?) {
        self.operation = operation
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
    }

    public var description: String {
        let said = reason.map { ": \($0)" } ?? ""
        switch status {
        case 401: return "the vault refused the token (HTTP 401)\(said)"
        case 409 where operation == .upload: return "the vault refused the upload (it arrived damaged) (HTTP 409)\(said)"
        case 429: return "the vault refused \(operation.noun): too many attempts; retry in \(retryAfter ?? 60) s"
        case 503: return "the vault is unavailable for now (its storage does not answer); nothing was done; retry in \(retryAfter ?? 10) s"
        default: return "the vault refused \(operation.noun) (HTTP \(status))\(said)"
        }
    }
}

/// The vault's operations, named for messages.
public enum VaultOperation: String, Sendable, Equatable {
    case list, upload, download, delete, readSettings, changeSettings, credentialBackup, credentialStatus, credentialRecovery
    case bindLoginKey, loginWithWords, revokeTokens, other

    init(operationID: String) {
        self = switch operationID {
        case "listBackups": .list
        case "uploadBackup": .upload
        case "downloadBackup": .download
        case "deleteBackup": .delete
        case "getSettings": .readSettings
        case "putSettings": .changeSettings
        case "uploadCredentialBackup": .credentialBackup
        case "getCredentialBackupStatus": .credentialStatus
        case "recoverCredentials": .credentialRecovery
        case "bindLoginKey", "unbindLoginKey": .bindLoginKey
        case "loginChallenge", "loginWithWords": .loginWithWords
        case "revokeOtherTokens": .revokeTokens
        default: .other
        }
    }

    var noun: String {
        switch self {
        case .upload: "the upload"
        case .delete: "the deletion"
        case .changeSettings: "the change"
        case .credentialBackup: "the credential backup"
        case .credentialRecovery: "the recovery"
        case .bindLoginKey: "binding the words"
        case .loginWithWords: "the login with the words"
        case .revokeTokens: "revoking the other tokens"
        case .list, .download, .readSettings, .credentialStatus, .other: "the request"
        }
    }
}
