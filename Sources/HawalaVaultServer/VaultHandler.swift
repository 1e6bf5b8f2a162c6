import Foundation
import HawalaFormat
import HawalaVault
import HawalaVaultAPI
import OpenAPIRuntime

/// The OpenAPI operations over a `VaultStorage`. The caller comes from `VaultRequest.user`
/// (set by the auth middleware), so every storage call is scoped to the caller.
struct VaultHandler: APIProtocol {
    let storage: VaultStorage
    let limits: VaultLimits
    let counters: VaultMetrics
    let recoveries: RateLimiter

    private func caller() throws -> VaultUser {
        guard let user = VaultRequest.user else { throw VaultError.unauthorized }
        return user
    }

    private static func error(_ message: String, field: String? = nil) -> Components.Schemas._Error {
        Components.Schemas._Error(error: message, field: field)
    }

    static func schema(_ b: Backup) -> Components.Schemas.Backup {
        Components.Schemas.Backup(id: b.id, createdAt: b.createdAt, sizeBytes: b.sizeBytes, _type: b.type == .auto ? .auto : .manual,
                                  status: Components.Schemas.Backup.statusPayload(rawValue: b.status.rawValue) ?? .failed,
                                  encryptionMethod: b.encryptionMethod, sha256: b.sha256)
    }

    /// Reads a request body up to the limit; nil when it is larger.
    private func collect(_ body: HTTPBody) async throws -> Data? {
        if case .known(let length) = body.length, length > limits.maximumUpload { return nil }
        // The runtime's only error while collecting an in-memory stream is "too many bytes".
        do { return try await Data(collecting: body, upTo: Int(limits.maximumUpload)) } catch { return nil }
    }

    // MARK: Backups

    func uploadBackup(_ input: Operations.uploadBackup.Input) async throws -> Operations.uploadBackup.Output {
        let user = try caller()
        guard case .binary(let body) = input.body, let data = try await collect(body) else {
            return .contentTooLarge(.init(body: .json(Self.error("the upload is larger than the limit of \(limits.maximumUpload) bytes"))))
        }
        guard !data.isEmpty else { return .badRequest(.init(body: .json(Self.error("the backup is empty", field: "body")))) }
        // A .hawala file is recognised by its header only; the server can't open it.
        let method = HawalaFormat.looksLikeHawalaFile(data) ? HawalaFormat.encryptionMethod : "opaque"
        do {
            let backup = try await storage.addBackup(data, type: input.query._type == .auto ? .auto : .manual, encryptionMethod: method,
                                               sha256: input.headers.X_hyphen_Content_hyphen_SHA256, user: user, now: Date(), quota: limits.quota)
            counters.backupStored()
            return .created(.init(body: .json(Self.schema(backup))))
        } catch VaultError.quotaExceeded(let limit) {
            return .code507(.init(body: .json(Self.error("the upload would exceed the quota of \(limit) bytes"))))
        } catch VaultError.hashMismatch {
            return .conflict(.init(body: .json(Self.error("the upload's SHA-256 does not match the one sent", field: "X-Content-SHA256"))))
        }
    }

    func listBackups(_ input: Operations.listBackups.Input) async throws -> Operations.listBackups.Output {
        .ok(.init(body: .json(try await storage.backups(user: try caller()).map(Self.schema))))
    }

    func downloadBackup(_ input: Operations.downloadBackup.Input) async throws -> Operations.downloadBackup.Output {
        do {
            let (backup, data) = try await storage.backup(id: input.path.backupId, user: try caller())
            return .ok(.init(headers: .init(X_hyphen_Content_hyphen_SHA256: backup.sha256), body: .binary(HTTPBody(data))))
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no such backup"))))
        }
    }

    func deleteBackup(_ input: Operations.deleteBackup.Input) async throws -> Operations.deleteBackup.Output {
        do {
            try await storage.deleteBackup(id: input.path.backupId, user: try caller())
            return .noContent(.init())
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no such backup"))))
        }
    }

    func restoreBackup(_ input: Operations.restoreBackup.Input) async throws -> Operations.restoreBackup.Output {
        guard case .json(let request) = input.body else { return .badRequest(.init(body: .json(Self.error("a JSON body is needed")))) }
        do {
            let (backup, data) = try await storage.backup(id: request.backupId, user: try caller())
            // The server can't decrypt: the client fills in restoredItems and conflicts.
            return .ok(.init(body: .json(.init(backup: Self.schema(backup), ciphertext: Base64EncodedData(data),
                                               result: .init(success: true, restoredItems: 0, conflicts: [], requiresReauth: false)))))
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no such backup"))))
        }
    }

    // MARK: Settings

    func getSettings(_ input: Operations.getSettings.Input) async throws -> Operations.getSettings.Output {
        .ok(.init(body: .json(Self.schema(try await storage.settings(user: try caller())))))
    }

    func putSettings(_ input: Operations.putSettings.Input) async throws -> Operations.putSettings.Output {
        guard case .json(let s) = input.body else { return .badRequest(.init(body: .json(Self.error("a JSON body is needed")))) }
        let settings = BackupSettings(autoBackupEnabled: s.autoBackupEnabled, backupFrequency: BackupSettings.Frequency(rawValue: s.backupFrequency.rawValue)!,
                                      backupTimeUtc: s.backupTimeUtc, retentionDays: s.retentionDays, includeMessages: s.includeMessages, wifiOnly: s.wifiOnly)
        do {
            let user = try caller()
            try await storage.setSettings(settings, user: user)
            try await storage.prune(user: user, now: Date())
            return .ok(.init(body: .json(Self.schema(settings))))
        } catch let VaultError.invalidField(field, why) {
            return .badRequest(.init(body: .json(Self.error("\(field): \(why)", field: field))))
        }
    }

    static func schema(_ s: BackupSettings) -> Components.Schemas.BackupSettings {
        Components.Schemas.BackupSettings(autoBackupEnabled: s.autoBackupEnabled, backupFrequency: .init(rawValue: s.backupFrequency.rawValue)!,
                                          backupTimeUtc: s.backupTimeUtc, retentionDays: s.retentionDays, includeMessages: s.includeMessages, wifiOnly: s.wifiOnly)
    }

    // MARK: Credentials

    func uploadCredentialBackup(_ input: Operations.uploadCredentialBackup.Input) async throws -> Operations.uploadCredentialBackup.Output {
        guard case .binary(let body) = input.body, let data = try await collect(body) else {
            return .contentTooLarge(.init(body: .json(Self.error("the upload is larger than the limit of \(limits.maximumUpload) bytes"))))
        }
        guard !data.isEmpty else { return .badRequest(.init(body: .json(Self.error("the envelope is empty", field: "body")))) }
        try await storage.setCredentialBackup(data, user: try caller(), now: Date())
        return .noContent(.init())
    }

    func getCredentialBackupStatus(_ input: Operations.getCredentialBackupStatus.Input) async throws -> Operations.getCredentialBackupStatus.Output {
        let status = try await storage.credentialStatus(user: try caller())
        return .ok(.init(body: .json(.init(exists: status.exists, createdAt: status.createdAt, lastVerifiedAt: status.lastVerifiedAt))))
    }

    /// Every recovery counts against the caller (the user of the token): the envelope is what a
    /// phrase guesser needs, so it is handed out slowly. Only the user's own recoveries count,
    /// so another user behind the same address can't use up a victim's budget.
    func recoverCredentials(_ input: Operations.recoverCredentials.Input) async throws -> Operations.recoverCredentials.Output {
        let user = try caller()
        if let retry = recoveries.retryAfter("user:\(user.id)") {
            return .tooManyRequests(.init(headers: .init(Retry_hyphen_After: retry), body: .json(Self.error("too many recoveries; retry in \(retry) s"))))
        }
        recoveries.recordFailure("user:\(user.id)")
        do {
            return .ok(.init(body: .binary(HTTPBody(try await storage.credentialBackup(user: user, now: Date())))))
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no credential backup"))))
        }
    }

    // MARK: Health, metrics

    func health(_ input: Operations.health.Input) async throws -> Operations.health.Output {
        if let trouble = counters.storageTrouble() { return .serviceUnavailable(.init(body: .plainText(HTTPBody("storage: \(trouble)\n")))) }
        return .ok(.init(body: .plainText("ok\n")))
    }

    func metrics(_ input: Operations.metrics.Input) async throws -> Operations.metrics.Output {
        .ok(.init(body: .plainText(HTTPBody(counters.text()))))
    }
}
