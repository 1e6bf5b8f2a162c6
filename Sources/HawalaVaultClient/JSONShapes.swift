import Foundation
import HawalaText
import HawalaVault

// The documented `--json` shapes of the vault's objects (docs/reference.md: vault list, vault settings).

extension Backup: JSONRepresentable {
    /// `{id, createdAt, sizeBytes, type, status, encryptionMethod, sha256}` (`vault list`, `vault backup`).
    public var json: JSONValue {
        .object([("id", .string(id)), ("createdAt", .string(createdAt.iso8601)), ("sizeBytes", .int(Int(sizeBytes))),
                 ("type", .string(type.rawValue)), ("status", .string(status.rawValue)),
                 ("encryptionMethod", .string(encryptionMethod)), ("sha256", .string(sha256))])
    }
}

extension BackupSettings: JSONRepresentable {
    /// The settings in their documented order, as `vault settings` shows them.
    public var fields: [(String, JSONValue)] {
        [("autoBackupEnabled", .bool(autoBackupEnabled)), ("backupFrequency", .string(backupFrequency.rawValue)),
         ("backupTimeUtc", .string(backupTimeUtc)), ("retentionDays", .int(retentionDays)),
         ("includeMessages", .bool(includeMessages)), ("wifiOnly", .bool(wifiOnly))]
    }

    /// `{autoBackupEnabled, backupFrequency, backupTimeUtc, retentionDays, includeMessages, wifiOnly}`.
    public var json: JSONValue { .object(fields) }
}

extension CredentialBackupStatus: JSONRepresentable {
    /// `{exists, createdAt, lastVerifiedAt}`, the dates null when unknown (`vault credentials status`).
    public var json: JSONValue {
        let date: (Date?) -> JSONValue = { $0.map { .string($0.iso8601) } ?? .null }
        return .object([("exists", .bool(exists)), ("createdAt", date(createdAt)), ("lastVerifiedAt", date(lastVerifiedAt))])
    }
}
