import Foundation
import HawalaFormat
import HawalaVault
import HawalaVaultStorage
import HawalaVaultAPI
import OpenAPIRuntime

/// The OpenAPI operations over a `VaultStorage`. The caller comes from `VaultRequest.user`
/// (set by the auth middleware), so every storage call is scoped to the caller.
struct VaultHandler: APIProtocol {
    let storage: VaultStorage
    let limits: VaultLimits
    let counters: VaultMetrics
    let health: StorageHealth
    let recoveries: RateLimiter
    let transfers: TransferLimiter
    /// Challenges asked and logins with the words failed, per address (and wrong answers per account).
    let logins: RateLimiter

    func caller() throws -> VaultUser {
        guard let user = VaultRequest.user else { throw VaultError.unauthorized }
        return user
    }

    /// The caller, when its token may delete or replace what the user stored; nil for an
    /// append-only token.
    func destroyingCaller() throws -> VaultUser? {
        let user = try caller()
        return user.scope.mayDestroy ? user : nil
    }

    static var forbidden: Components.Responses.Forbidden { .init(body: .json(error(VaultError.forbidden.description))) }

    static func error(_ message: String, field: String? = nil) -> Components.Schemas._Error {
        Components.Schemas._Error(error: message, field: field)
    }

    static func schema(_ b: Backup) -> Components.Schemas.Backup {
        Components.Schemas.Backup(id: b.id, createdAt: b.createdAt, sizeBytes: b.sizeBytes, _type: b.type == .auto ? .auto : .manual,
                                  status: Components.Schemas.Backup.statusPayload(rawValue: b.status.rawValue) ?? .failed,
                                  encryptionMethod: b.encryptionMethod, sha256: b.sha256)
    }

    /// The answer when the caller already has as many transfers running as allowed.
    private var busy: Components.Responses.TooManyRequests {
        .init(headers: .init(Retry_hyphen_After: 5), body: .json(Self.error("too many transfers at once for this user (at most \(transfers.limit)); retry in 5 s")))
    }

    /// Reads a credential envelope (already in memory: the middleware read it whole, bounded)
    /// up to its limit; nil when it is larger.
    private func collectEnvelope(_ body: HTTPBody) async throws -> Data? {
        let limit = Int(limits.maximumCredential)
        if case .known(let length) = body.length, length > limit { return nil }
        // The runtime's only error while collecting an in-memory stream is "too many bytes".
        do { return try await Data(collecting: body, upTo: limit) } catch { return nil }
    }

    /// 507 for a full disk; `/healthz` says so for a minute.
    private func diskFull() -> Components.Schemas._Error {
        health.failed(.diskFull)
        return Self.error("the vault's disk is full; nothing was stored (deleting backups still works)")
    }

    // MARK: Backups

    /// Stored as it arrives, a chunk at a time (memory per upload: about two chunks); hashed
    /// on the way and checked against the declared SHA-256 before the backup is listed.
    func uploadBackup(_ input: Operations.uploadBackup.Input) async throws -> Operations.uploadBackup.Output {
        let user = try caller()
        guard case .binary(let body) = input.body else { return .badRequest(.init(body: .json(Self.error("an octet-stream body is needed", field: "body")))) }
        if case .known(let length) = body.length, length > limits.maximumUpload { return tooLarge }
        guard let permit = transfers.acquire(user: user.id) else { return .tooManyRequests(busy) }
        defer { withExtendedLifetime(permit) {} }
        do {
            // A .hawala file is recognised by its header only; the server can't open it.
            let backup = try await storage.addBackup(streaming: body, type: input.query._type == .auto ? .auto : .manual,
                                                     sha256: input.headers.X_hyphen_Content_hyphen_SHA256, user: user, now: Date(), quota: limits.quota,
                                                     maximumSize: limits.maximumUpload,
                                                     classify: { HawalaFormat.looksLikeHawalaFile($0) ? HawalaFormat.encryptionMethod : "opaque" })
            counters.backupStored()
            return .created(.init(body: .json(Self.schema(backup))))
        } catch VaultError.tooLarge {
            return tooLarge
        } catch let VaultError.invalidField(field, why) {
            return .badRequest(.init(body: .json(Self.error(why, field: field))))
        } catch VaultError.quotaExceeded(let limit) {
            return .code507(.init(body: .json(Self.error("the upload would exceed the quota of \(limit) bytes"))))
        } catch VaultError.hashMismatch {
            return .conflict(.init(body: .json(Self.error("the upload's SHA-256 does not match the one sent", field: "X-Content-SHA256"))))
        } catch VaultError.diskFull {
            return .code507(.init(body: .json(diskFull())))
        } catch VaultError.tooSlow(let rate) {
            return .requestTimeout(.init(body: .json(Self.error("the upload arrived too slowly (under \(rate) bytes a second on average)"))))
        }
    }

    private var tooLarge: Operations.uploadBackup.Output {
        .contentTooLarge(.init(body: .json(Self.error("the upload is larger than the limit of \(limits.maximumUpload) bytes"))))
    }

    func listBackups(_ input: Operations.listBackups.Input) async throws -> Operations.listBackups.Output {
        .ok(.init(body: .json(try await storage.backups(user: try caller()).map(Self.schema))))
    }

    /// Streamed from storage a chunk at a time, with the SHA-256 recorded at upload (as
    /// `Repr-Digest`, `ETag` and `X-Content-SHA256`) for the client to check end to end.
    func downloadBackup(_ input: Operations.downloadBackup.Input) async throws -> Operations.downloadBackup.Output {
        let user = try caller()
        guard VaultStorageSupport.isBackupID(input.path.backupId) else { return .notFound(.init(body: .json(Self.error("no such backup")))) }
        guard let permit = transfers.acquire(user: user.id) else { return .tooManyRequests(busy) }
        do {
            let (backup, chunks) = try await storage.download(id: input.path.backupId, user: user)
            let body = HTTPBody(PermittedChunks(base: chunks, permit: permit) { error in
                // The 200 is sent: the connection is closed short of Content-Length.
                VaultMetricsMiddleware.logger.error("download of backup \(backup.id) cut short: \(error)")
                health.failed(.failing)
            }, length: .known(backup.sizeBytes), iterationBehavior: .single)
            return .ok(.init(headers: .init(X_hyphen_Content_hyphen_SHA256: backup.sha256, Repr_hyphen_Digest: Self.reprDigest(backup.sha256),
                                            ETag: "\"\(backup.sha256)\""), body: .binary(body)))
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no such backup"))))
        }
    }

    /// `sha-256=:BASE64:` (RFC 9530) from a hex digest.
    static func reprDigest(_ hex: String) -> String {
        var bytes = [UInt8]()
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8 = c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48
            if let h = high { bytes.append(h << 4 | v); high = nil } else { high = v }
        }
        return "sha-256=:\(Data(bytes).base64EncodedString()):"
    }

    func deleteBackup(_ input: Operations.deleteBackup.Input) async throws -> Operations.deleteBackup.Output {
        guard let user = try destroyingCaller() else { return .forbidden(Self.forbidden) }
        guard VaultStorageSupport.isBackupID(input.path.backupId) else { return .notFound(.init(body: .json(Self.error("no such backup")))) }
        do {
            try await storage.deleteBackup(id: input.path.backupId, user: user)
            return .noContent(.init())
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no such backup"))))
        }
    }

    /// The backup's record and where to download its bytes. Restoring is the client's: the server
    /// holds ciphertext and can say nothing of what an import brings.
    func restoreBackup(_ input: Operations.restoreBackup.Input) async throws -> Operations.restoreBackup.Output {
        guard case .json(let request) = input.body else { return .badRequest(.init(body: .json(Self.error("a JSON body is needed")))) }
        guard VaultStorageSupport.isBackupID(request.backupId) else { return .notFound(.init(body: .json(Self.error("no such backup")))) }
        do {
            let backup = try await storage.storedBackup(id: request.backupId, user: try caller())
            return .ok(.init(body: .json(.init(backup: Self.schema(backup), download: "/vault/backups/\(backup.id)"))))
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
        guard let user = try destroyingCaller() else { return .forbidden(Self.forbidden) }
        let settings = BackupSettings(autoBackupEnabled: s.autoBackupEnabled, backupFrequency: BackupSettings.Frequency(rawValue: s.backupFrequency.rawValue)!,
                                      backupTimeUtc: s.backupTimeUtc, retentionDays: s.retentionDays, includeMessages: s.includeMessages, wifiOnly: s.wifiOnly)
        do {
            try await storage.setSettings(settings, user: user)
            try await storage.prune(user: user, now: Date())
            return .ok(.init(body: .json(Self.schema(settings))))
        } catch {
            // (The body throws only VaultError: matching the case in the catch clause itself
            // crashes Swift 6.3's SILGen.)
            guard case let .invalidField(field, why) = error else { throw error }
            return .badRequest(.init(body: .json(Self.error("\(field): \(why)", field: field))))
        }
    }

    static func schema(_ s: BackupSettings) -> Components.Schemas.BackupSettings {
        Components.Schemas.BackupSettings(autoBackupEnabled: s.autoBackupEnabled, backupFrequency: .init(rawValue: s.backupFrequency.rawValue)!,
                                          backupTimeUtc: s.backupTimeUtc, retentionDays: s.retentionDays, includeMessages: s.includeMessages, wifiOnly: s.wifiOnly)
    }

    // MARK: Credentials

    /// A credential envelope is small (`VaultLimits.maximumCredential`), counts in the quota
    /// and takes a transfer slot like a backup.
    func uploadCredentialBackup(_ input: Operations.uploadCredentialBackup.Input) async throws -> Operations.uploadCredentialBackup.Output {
        guard let user = try destroyingCaller() else { return .forbidden(Self.forbidden) }
        guard case .binary(let body) = input.body, let data = try await collectEnvelope(body) else {
            return .contentTooLarge(.init(body: .json(Self.error("a credential envelope is at most \(limits.maximumCredential) bytes"))))
        }
        guard !data.isEmpty else { return .badRequest(.init(body: .json(Self.error("the envelope is empty", field: "body")))) }
        guard let permit = transfers.acquire(user: user.id) else { return .tooManyRequests(busy) }
        defer { withExtendedLifetime(permit) {} }
        do {
            try await storage.setCredentialBackup(data, user: user, now: Date(), quota: limits.quota)
            return .noContent(.init())
        } catch VaultError.quotaExceeded(let limit) {
            return .code507(.init(body: .json(Self.error("the credential backup would exceed the quota of \(limit) bytes"))))
        } catch VaultError.diskFull {
            return .code507(.init(body: .json(diskFull())))
        }
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
        guard let permit = transfers.acquire(user: user.id) else { return .tooManyRequests(busy) }
        defer { withExtendedLifetime(permit) {} }
        do {
            return .ok(.init(body: .binary(HTTPBody(try await storage.credentialBackup(user: user, now: Date())))))
        } catch VaultError.notFound {
            return .notFound(.init(body: .json(Self.error("no credential backup"))))
        }
    }

    // MARK: Health

    /// Ok when the storage answers now and has not failed within the last minute; otherwise
    /// 503 in a few words (the reason is in the server's log, not here: anyone may ask).
    func health(_ input: Operations.health.Input) async throws -> Operations.health.Output {
        if let problem = await health.check(storage) {
            return .serviceUnavailable(.init(headers: .init(Retry_hyphen_After: StorageHealth.retryAfter), body: .plainText(HTTPBody(problem.text + "\n"))))
        }
        return .ok(.init(body: .plainText("ok\n")))
    }
}
