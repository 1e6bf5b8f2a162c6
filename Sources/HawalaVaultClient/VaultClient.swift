import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaKeys
import HawalaText
import HawalaVault
import HawalaVaultAPI
import OpenAPIRuntime

/// A client of a Hawala vault for one token: every call hash-checks what crosses the network
/// and fails with a `VaultClientError` (the vault's refusal, or why it could not be reached).
public struct VaultClient: Sendable {
    /// Backup ids may be given by their first characters, at least this many.
    public static let minimumIDPrefix = 8

    public let url: URL
    private let client: Client

    /// A client for the vault at `url` with `token` (sent as `Authorization: Bearer`).
    public init(url: URL, token: SecretBytes) {
        self.url = url
        let text = token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        client = Client(serverURL: url, transport: VaultTransport.make(), middlewares: [BearerMiddleware(token: text), RefusalMiddleware()])
    }

    /// The vault's URL for a login: http(s) with a host, and plain http only to this machine
    /// (127.0.0.0/8, ::1, localhost) unless `allowPlainHTTP`.
    public static func loginURL(_ text: String, allowPlainHTTP: Bool) throws(VaultClientError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme), let host = url.host else {
            throw .invalidURL(text)
        }
        if scheme == "http", !isLoopback(host), !allowPlainHTTP { throw .plainHTTP(url: text) }
        return url
    }

    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return h == "localhost" || h == "::1" || (h.hasPrefix("127.") && parts.count == 4 && parts.allSatisfy { UInt8($0) != nil })
    }

    /// Checks that the vault answers like a Hawala vault and accepts the token.
    public func checkLogin() async throws(VaultClientError) {
        do {
            _ = try await backups()
        } catch .refused(let refusal) where ![401, 429, 503].contains(refusal.status) {
            throw .notAVault(url: url.absoluteString, status: refusal.status)
        }
    }

    /// The backups in the vault, newest first.
    public func backups() async throws(VaultClientError) -> [Backup] {
        try await call { try await client.listBackups().ok.body.json.map(Self.backup) }
    }

    /// A backup id as typed: the whole id, or an unambiguous prefix of at least
    /// `minimumIDPrefix` characters.
    public func backupID(_ typed: String) async throws(VaultClientError) -> String {
        let prefix = typed.lowercased()
        guard prefix.count < 36 else { return typed }
        guard prefix.count >= Self.minimumIDPrefix else { throw .backupIDTooShort }
        let matches = try await backups().filter { $0.id.lowercased().hasPrefix(prefix) }
        guard let first = matches.first else { throw .noSuchBackup(id: typed) }
        guard matches.count == 1 else { throw .ambiguousBackupID(prefix: typed, matches: matches.count) }
        return first.id
    }

    /// The backup a typed id names (as `backupID` reads it), and whether it is the only backup
    /// the vault holds: what a person sees before deleting it.
    public func deletionPreview(_ typed: String) async throws(VaultClientError) -> (backup: Backup, isLast: Bool) {
        let id = try await backupID(typed)
        let all = try await backups()
        guard let backup = all.first(where: { $0.id == id }) else { throw .noSuchBackup(id: id) }
        return (backup, all.count == 1)
    }

    /// Uploads a `.hawala` file with its SHA-256 (the vault refuses it if it arrives otherwise);
    /// `progress` sees (bytes handed to the network, total).
    public func upload(_ data: Data, kind: Backup.Kind, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws(VaultClientError) -> Backup {
        let sha = Self.sha256Hex(data)
        return try await call {
            Self.backup(try await client.uploadBackup(query: .init(_type: kind == .auto ? .auto : .manual), headers: .init(X_hyphen_Content_hyphen_SHA256: sha),
                                                      body: .binary(UploadBody.make(data, progress: progress))).created.body.json)
        }
    }

    /// Downloads a backup (at most `limit` bytes: by default the largest `.hawala` file) and
    /// checks it against the SHA-256 the vault sent with it.
    /// - Throws: `.tooLarge` for a backup over `limit` (its size is known before the download).
    public func download(_ id: String, limit: Int = HawalaFormat.maximumFileBytes) async throws(VaultClientError) -> Data {
        let ok: Operations.downloadBackup.Output.Ok
        do {
            ok = try await call { try await client.downloadBackup(path: .init(backupId: id)).ok }
        } catch .refused(let refusal) where refusal.status == 404 {
            throw .noSuchBackup(id: id)
        }
        let body: HTTPBody
        do { body = try ok.body.binary } catch { throw .malformedAnswer("not a backup's bytes") }
        if case .known(let size) = body.length, size > limit { throw .tooLarge(limit: limit) }
        let data: Data
        do {
            data = try await Data(collecting: body, upTo: limit)
        } catch {
            throw .cutShort
        }
        guard Self.sha256Hex(data) == ok.headers.X_hyphen_Content_hyphen_SHA256 else { throw .hashMismatch }
        return data
    }

    public func delete(_ id: String) async throws(VaultClientError) {
        do {
            try await call { _ = try await client.deleteBackup(path: .init(backupId: id)).noContent }
        } catch .refused(let refusal) where refusal.status == 404 {
            throw .noSuchBackup(id: id)
        }
    }

    public func settings() async throws(VaultClientError) -> BackupSettings {
        try await call { Self.settings(try await client.getSettings().ok.body.json) }
    }

    /// Saves `settings` (the vault validates them) and returns what it stored.
    public func updateSettings(_ settings: BackupSettings) async throws(VaultClientError) -> BackupSettings {
        let body = Components.Schemas.BackupSettings(
            autoBackupEnabled: settings.autoBackupEnabled, backupFrequency: .init(rawValue: settings.backupFrequency.rawValue) ?? .daily,
            backupTimeUtc: settings.backupTimeUtc, retentionDays: settings.retentionDays,
            includeMessages: settings.includeMessages, wifiOnly: settings.wifiOnly)
        return try await call { Self.settings(try await client.putSettings(body: .json(body)).ok.body.json) }
    }

    /// Stores a credential envelope (`CredentialEnvelope`), replacing the one the vault holds.
    public func uploadCredentialBackup(_ envelope: Data) async throws(VaultClientError) {
        try await call { _ = try await client.uploadCredentialBackup(body: .binary(HTTPBody(envelope))).noContent }
    }

    public func credentialBackupStatus() async throws(VaultClientError) -> CredentialBackupStatus {
        try await call {
            let status = try await client.getCredentialBackupStatus().ok.body.json
            return CredentialBackupStatus(exists: status.exists, createdAt: status.createdAt, lastVerifiedAt: status.lastVerifiedAt)
        }
    }

    /// The credential envelope (the vault counts every recovery), at most `limit` bytes: by
    /// default the largest envelope a client still opens.
    public func recoverCredentialBackup(limit: Int = CredentialEnvelopeFormat.maximumLegacyEnvelopeBytes) async throws(VaultClientError) -> Data {
        let body: HTTPBody
        do {
            body = try await call { try await client.recoverCredentials().ok.body.binary }
        } catch .refused(let refusal) where refusal.status == 404 {
            throw .noCredentialBackup
        }
        do {
            return try await Data(collecting: body, upTo: limit)
        } catch {
            throw .cutShort
        }
    }

    // MARK: Logins with the words

    /// Binds the account to `key` (replacing the key bound before): the words it is made from
    /// then log in to this vault on any device.
    /// - Throws: `VaultClientError.refused` (403: an append-only token; 409: the key is another
    ///   account's).
    public func bindLoginKey(_ key: VaultLoginKey) async throws(VaultClientError) {
        try await call { _ = try await client.bindLoginKey(body: .json(.init(publicKey: hexString(key.publicKey)))).noContent }
    }

    /// Whether the account has a login key.
    public func hasLoginKey() async throws(VaultClientError) -> Bool { try await loginKeyStatus().bound }

    /// Whether the account has a login key, and whether the vault takes logins with the words.
    public func loginKeyStatus() async throws(VaultClientError) -> (bound: Bool, offered: Bool) {
        try await call {
            let status = try await client.getLoginKey().ok.body.json
            return (status.bound, status.offered)
        }
    }

    /// Revokes every other token of the account (a lost device's, an agent's); how many.
    public func revokeOtherTokens() async throws(VaultClientError) -> Int {
        try await call { try await client.revokeOtherTokens().ok.body.json.revoked }
    }

    /// A new token for the account `key` is bound to, proven by signing the vault's challenge.
    /// - Throws: `VaultClientError.wordsLoginRefused` when no account holds the key (or the
    ///   challenge expired), `.refused` for the rest (403: logins with the words are off).
    public static func logIn(url: URL, key: VaultLoginKey) async throws(VaultClientError) -> SecretBytes {
        let client = Client(serverURL: url, transport: VaultTransport.make(), middlewares: [RefusalMiddleware()])
        let publicKey = hexString(key.publicKey)
        do {
            let challenge = try await client.loginChallenge(body: .json(.init(publicKey: publicKey))).ok.body.json.challenge
            let signature = key.sign(WordsLogin.message(challengeHex: challenge))
            let token = try await client.loginWithWords(body: .json(.init(publicKey: publicKey, challenge: challenge, signature: hexString(signature))))
                .ok.body.json.token
            return SecretBytes(utf8: token)
        } catch {
            let failure = VaultTransport.error(error)
            if case .refused(let refusal) = failure, refusal.status == 401 { throw .wordsLoginRefused(url: url.absoluteString) }
            throw failure
        }
    }

    /// Runs a generated-client call; every failure becomes a `VaultClientError`.
    private func call<T>(_ body: () async throws -> T) async throws(VaultClientError) -> T {
        do {
            return try await body()
        } catch {
            throw VaultTransport.error(error)
        }
    }

    private static func backup(_ b: Components.Schemas.Backup) -> Backup {
        Backup(id: b.id, createdAt: b.createdAt, sizeBytes: b.sizeBytes, type: b._type == .auto ? .auto : .manual,
               status: Backup.Status(rawValue: b.status.rawValue) ?? .failed, encryptionMethod: b.encryptionMethod, sha256: b.sha256)
    }

    private static func settings(_ s: Components.Schemas.BackupSettings) -> BackupSettings {
        BackupSettings(autoBackupEnabled: s.autoBackupEnabled, backupFrequency: BackupSettings.Frequency(rawValue: s.backupFrequency.rawValue) ?? .daily,
                       backupTimeUtc: s.backupTimeUtc, retentionDays: s.retentionDays, includeMessages: s.includeMessages, wifiOnly: s.wifiOnly)
    }
}

extension VaultClient {
    /// Lowercase hex SHA-256, as the vault's `X-Content-SHA256`.
    public static func sha256Hex(_ data: Data) -> String {
        hexString(Hash.sha256(Array(data)))
    }
}
