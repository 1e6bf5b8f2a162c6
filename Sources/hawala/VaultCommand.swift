import ArgumentParser
import AsyncHTTPClient
import NIOCore
import Foundation
import HTTPTypes
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaVault
import HawalaVaultAPI
import HawalaWallet
import OpenAPIAsyncHTTPClient

/// `hawala vault …`: the encrypted backup service and its client.
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "The vault client: encrypted backups kept on a hawala-vault server.",
        discussion: """
            The server (`hawala-vault serve`, a separate program) stores only ciphertext (.hawala \
            files sealed with the backup password) and never sees a key. Client commands need `hawala vault login` first; the token is kept \
            in the wallet store sealed under the wallet password, so they unlock the wallet \
            (prompt or --password-file).
            """,
        subcommands: [VaultServerMoved.self, VaultLogin.self, VaultBackup.self, VaultList.self,
                      VaultRestore.self, VaultDelete.self, VaultSettingsCommand.self, VaultCredentialsCommand.self, VaultAgentCommand.self])
}

/// `hawala vault serve` / `hawala vault user`: the server is its own program now. Said in one
/// line to whoever still types the old command.
struct VaultServerMoved: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", shouldDisplay: false, aliases: ["user"])
    @Argument(parsing: .allUnrecognized) var rest: [String] = []

    func run() throws {
        throw CLIError("the vault server is its own program: run `hawala-vault serve` (and `hawala-vault user …` for its users)")
    }
}

// MARK: - Client side

/// The saved vault login, opened for one command.
struct VaultSession {
    let store: WalletStore
    let keyring: Keyring
    let client: Client

    static func open(password: PasswordOptions) throws -> VaultSession {
        let store = try WalletSession.store(create: false)
        guard let url = try store.globalSetting("vault.url").flatMap(URL.init(string:)) else {
            throw CLIError("not logged in to a vault: run `hawala vault login --url URL`")
        }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        guard let token = try store.sealedSetting("vault.token", keyring: keyring) else {
            throw CLIError("not logged in to a vault: run `hawala vault login --url URL`")
        }
        let text = token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return VaultSession(store: store, keyring: keyring,
                            client: Client(serverURL: url, transport: VaultTransport.make(), middlewares: [VaultBearer(token: text)]))
    }

    /// One line for an answer the vault refused.
    /// The backups in the vault, newest first.
    static func backups(_ client: Client) throws -> [Components.Schemas.Backup] {
        switch try blocking({ try await client.listBackups() }) {
        case .ok(let r): return try r.body.json
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
    }

    /// A backup id as typed: the whole id, or an unambiguous prefix of at least 8 characters
    /// (as `ln show` takes payment ids).
    static func backupID(_ typed: String, client: Client) throws -> String {
        let prefix = typed.lowercased()
        guard prefix.count < 36 else { return typed }
        guard prefix.count >= 8 else { throw CLIError("give at least 8 characters of the backup id (see `hawala vault list`)") }
        let matches = try backups(client).filter { $0.id.lowercased().hasPrefix(prefix) }
        guard let first = matches.first else { throw CLIError("no backup \(typed) in the vault (see `hawala vault list`)") }
        guard matches.count == 1 else { throw CLIError("\(typed) is the start of \(matches.count) backup ids; give more of it") }
        return first.id
    }

    static func refused(_ what: String, _ status: Int, _ body: Components.Schemas._Error?) -> CLIError {
        CLIError("the vault refused \(what) (HTTP \(status))\(body.map { ": \($0.error)" } ?? "")")
    }
}

/// The client's `Authorization: Bearer`.
struct VaultBearer: ClientMiddleware {
    let token: String
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

struct VaultLogin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Save the vault's URL and your token (sealed under the wallet password); checks both.",
        discussion: "On a machine with no wallet yet (a new device), the password chosen here (or from --password-file) becomes the wallet password, so `vault list` and `vault restore` can bring the wallets back.")
    @Option(help: "The vault's URL, e.g. https://vault.example.com.") var url: String
    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the token (\"-\" = stdin); otherwise a prompt.", valueName: "path")) var tokenFile: String?
    @Flag(help: "Allow plain http to a host other than this machine (the token and backups would cross the network unencrypted).") var insecure = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard let u = URL(string: url), ["https", "http"].contains(u.scheme?.lowercased() ?? ""), u.host != nil else {
            throw ValidationError("--url must be an http(s) URL")
        }
        try WalletSession.checkOneStdin(password.passwordFile, tokenFile)
    }

    /// Plain http only to this machine: 127.0.0.0/8, ::1, localhost.
    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return h == "localhost" || h == "::1" || (h.hasPrefix("127.") && h.split(separator: ".").count == 4 && h.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    func run() throws {
        if let u = URL(string: url), u.scheme?.lowercased() == "http", !VaultLogin.isLoopback(u.host ?? ""), !insecure {
            throw CLIError("\(url) is plain http: the token and your backups would cross the network unencrypted; use https (or pass --insecure)")
        }
        let token = try tokenFile.map { try Input.readSecretFile($0, what: "token") } ?? (try Terminal.required("pass --token-file").askSecret("Vault token: "))
        guard token.count > 0 else { throw CLIError("the token is empty") }
        let text = token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let client = Client(serverURL: URL(string: url)!, transport: VaultTransport.make(), middlewares: [VaultBearer(token: text)])
        switch try blocking({ try await client.listBackups() }) {
        case .ok: break
        case .unauthorized: throw CLIError("the vault does not accept this token")
        case .tooManyRequests(let r): throw CLIError("the vault refused: too many attempts; retry in \(r.headers.Retry_hyphen_After ?? 60) s")
        case .undocumented(let status, _): throw CLIError("\(url) does not answer like a Hawala vault (HTTP \(status))")
        }
        // A new device has no store yet: the password chosen now becomes the wallet password.
        let store = try WalletSession.store(create: true)
        let keyring = try WalletSession.keyringForChange(store, file: password.passwordFile)
        try store.setSealedSetting("vault.token", secret: token, keyring: keyring)
        try store.setSealedSetting("vault.url", secret: nil, plain: url, keyring: keyring)
        print("logged in to \(url)")
    }
}

struct VaultBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Export every wallet as a .hawala file and upload it (hash-checked).")
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup file's password.", valueName: "path")) var backupPasswordFile: String?
    @Flag(help: "JSON output: the uploaded backup, as one object of `vault list --json`.") var json = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() throws {
        let session = try VaultSession.open(password: password)
        let wallets = try session.store.exportWallets(names: nil, keyring: session.keyring)
        guard !wallets.isEmpty else { throw WalletError.noWallets }
        let backupPassword = try BackupPasswords.new(file: backupPasswordFile)
        let payload = try BackupPayload(app: "hawala \(HawalaVersion.string)", wallets: wallets, current: try session.store.current()?.name).encoded()
        // Written and read back like `backup export`, in a private temporary folder.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("backup.hawala")
        BackupPasswords.progress("encrypting and reading back (Argon2id)…")
        try BackupFile.write(payload, to: file, password: backupPassword)
        let data = try Data(contentsOf: file)
        let sha = SHA256Hex.of(data)
        let client = session.client
        switch try blocking({ try await client.uploadBackup(query: .init(_type: .manual), headers: .init(X_hyphen_Content_hyphen_SHA256: sha), body: .binary(UploadProgress.body(data))) }) {
        case .created(let r):
            let b = try r.body.json
            if json { b.json.print() } else { print("uploaded backup \(b.id) (\(b.sizeBytes) bytes, \(wallets.count) wallet\(wallets.count == 1 ? "" : "s"))") }
        case .badRequest(let r): throw VaultSession.refused("the upload", 400, try? r.body.json)
        case .conflict(let r): throw VaultSession.refused("the upload (it arrived damaged)", 409, try? r.body.json)
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .contentTooLarge(let r): throw VaultSession.refused("the upload", 413, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the upload", 429, try? r.body.json)
        case .code507(let r): throw VaultSession.refused("the upload", 507, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the upload", status, nil)
        }
    }
}

/// Hex SHA-256.
enum SHA256Hex {
    static func of(_ data: Data) -> String { hexString(Hash.sha256(Array(data))) }
}

struct VaultList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The backups in the vault, newest first.",
        discussion: "JSON: an array of backups, each {id, createdAt, sizeBytes, type (manual|auto), status, encryptionMethod, sha256}.")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let client = try VaultSession.open(password: password).client
        let backups = try VaultSession.backups(client)
        if json {
            JSONValue.array(backups.map(\.json)).print()
            return
        }
        if backups.isEmpty { Output.error("no backups in the vault") }
        for b in backups { print("\(b.id)  \(ISO8601.string(b.createdAt))  \(b.sizeBytes) bytes  \(b._type.rawValue)  \(b.status.rawValue)") }
    }
}

struct VaultRestore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Download a backup, check its hash, decrypt it and import it after a preview (as `backup import`).")
    @Argument(help: "The backup id (from `hawala vault list`; its first 8 characters or more are enough).") var id: String
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup file's password.", valueName: "path")) var backupPasswordFile: String?
    @Option(name: .customLong("on-conflict"), help: "skip, keep-both or replace.") var onConflict: ConflictPolicy?
    @Flag(help: "Import without asking (conflicts still need --on-conflict).") var yes = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() throws {
        let client = try VaultSession.open(password: password).client
        let id = try VaultSession.backupID(self.id, client: client)
        let data: Data
        switch try blocking({ try await client.downloadBackup(path: .init(backupId: id)) }) {
        case .ok(let r):
            let body = try r.body.binary
            do {
                data = try blocking { try await Data(collecting: body, upTo: 1 << 30) }
            } catch {
                throw CLIError("the download was cut short; nothing was imported (try again; if it persists, the vault's operator can run `hawala-vault check`)")
            }
            guard SHA256Hex.of(data) == r.headers.X_hyphen_Content_hyphen_SHA256 else {
                throw CLIError("the downloaded backup does not match its SHA-256; nothing was imported")
            }
        case .notFound: throw CLIError("no backup \(id) in the vault (see `hawala vault list`)")
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("\(id).hawala")
        try AtomicFile.write(SecretBytes(data), to: file)
        var arguments = [file.path]
        if let backupPasswordFile { arguments += ["--backup-password-file", backupPasswordFile] }
        if let passwordFile = password.passwordFile { arguments += ["--password-file", passwordFile] }
        if let onConflict { arguments += ["--on-conflict", onConflict.rawValue] }
        let importer = try BackupImport.parse(arguments)
        try importer.run()
    }
}

struct VaultDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a backup from the vault.",
        discussion: "At a terminal it asks first, naming the backup's date and size and saying when it is the last one; --yes deletes without asking (scripts).")
    @Argument(help: "The backup id (or its first 8 characters or more).") var id: String
    @Flag(help: "Delete without asking.") var yes = false
    @OptionGroup var password: PasswordOptions

    func run() throws {
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the deletion; pass --yes to delete without asking", code: .usage) }
        let client = try VaultSession.open(password: password).client
        let id = try VaultSession.backupID(self.id, client: client)
        if !yes {
            let backups = try VaultSession.backups(client)
            guard let backup = backups.first(where: { $0.id == id }) else { throw CLIError("no backup \(id) in the vault") }
            let terminal = try Terminal.required("pass --yes")
            terminal.line("Backup \(id): \(ISO8601.string(backup.createdAt)), \(backup.sizeBytes) bytes, \(backup._type.rawValue).")
            if backups.count == 1 { terminal.line("It is the only backup in the vault: after this, the vault holds none.") }
            guard try terminal.confirm("Delete it?") else { throw CLIError("not deleted") }
        }
        switch try blocking({ try await client.deleteBackup(path: .init(backupId: id)) }) {
        case .noContent: print("deleted \(id)")
        case .notFound: throw CLIError("no backup \(id) in the vault")
        case .forbidden(let r): throw VaultSession.refused("the deletion", 403, try? r.body.json)
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
    }
}

struct VaultSettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show the vault's backup settings, or change one: settings set KEY VALUE.",
        discussion: "Keys: autoBackupEnabled (true|false: the agent uploads on schedule), backupFrequency (daily|weekly|monthly), backupTimeUtc (HH:mm, UTC), retentionDays (7–365: older automatic backups are pruned), wifiOnly (true|false: skip metered connections), includeMessages (true|false: kept for other clients; Hawala's backups hold no messages).")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false
    @Argument(help: "set KEY VALUE") var change: [String] = []

    func validate() throws {
        guard change.isEmpty || (change.count == 3 && change[0] == "set") else { throw ValidationError("use: hawala vault settings set KEY VALUE") }
    }

    func run() throws {
        let client = try VaultSession.open(password: password).client
        var settings: Components.Schemas.BackupSettings
        switch try blocking({ try await client.getSettings() }) {
        case .ok(let r): settings = try r.body.json
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
        if change.count == 3 {
            let (key, value) = (change[1], change[2])
            func bool() throws -> Bool {
                guard let b = Bool(value) else { throw CLIError("\(key) takes true or false") }
                return b
            }
            switch key {
            case "autoBackupEnabled": settings.autoBackupEnabled = try bool()
            case "includeMessages": settings.includeMessages = try bool()
            case "wifiOnly": settings.wifiOnly = try bool()
            case "backupTimeUtc": settings.backupTimeUtc = value
            case "retentionDays":
                guard let days = Int(value) else { throw CLIError("retentionDays takes a number of days") }
                settings.retentionDays = days
            case "backupFrequency":
                guard let f = Components.Schemas.BackupSettings.backupFrequencyPayload(rawValue: value) else {
                    throw CLIError("backupFrequency takes daily, weekly or monthly")
                }
                settings.backupFrequency = f
            default: throw CLIError("unknown setting \(key)", code: .usage)
            }
            let updated = settings
            switch try blocking({ try await client.putSettings(body: .json(updated)) }) {
            case .ok(let r): settings = try r.body.json
            case .badRequest(let r): throw CLIError((try? r.body.json.error) ?? "invalid setting")
            case .forbidden(let r): throw VaultSession.refused("the change", 403, try? r.body.json)
            case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
            case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
            case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
            }
        }
        let fields: [(String, JSONValue)] = [
            ("autoBackupEnabled", .bool(settings.autoBackupEnabled)), ("backupFrequency", .string(settings.backupFrequency.rawValue)),
            ("backupTimeUtc", .string(settings.backupTimeUtc)), ("retentionDays", .int(settings.retentionDays)),
            ("includeMessages", .bool(settings.includeMessages)), ("wifiOnly", .bool(settings.wifiOnly)),
        ]
        if json { JSONValue.object(fields).print(); return }
        for (k, v) in fields { print("\(k): \(v.render())") }
    }
}

/// An upload body handed to the HTTP client in 256 KiB pieces, showing "uploading… N%" on a
/// terminal's stderr as the client takes them (so the figure follows the network, not the disk).
enum UploadProgress {
    static func body(_ data: Data) -> HTTPBody {
        let total = data.count
        let show = isatty(STDERR_FILENO) == 1 && total >= 1 << 20
        let cursor = Cursor()
        let pieces = AsyncStream<ArraySlice<UInt8>>(unfolding: {
            guard let (start, end) = cursor.next(total: total, piece: 256 << 10) else { return nil }
            if show {
                FileHandle.standardError.write(Data("\ruploading… \(end * 100 / total)% of \(total / 1024) KiB".utf8))
                if end == total { FileHandle.standardError.write(Data("\n".utf8)) }
            }
            return ArraySlice(data[start..<end])
        })
        return HTTPBody(pieces, length: .known(Int64(total)), iterationBehavior: .single)
    }

    /// The next piece's bounds (the stream is read by one consumer; the lock keeps it Sendable).
    private final class Cursor: @unchecked Sendable {
        private let lock = NSLock()
        private var offset = 0
        func next(total: Int, piece: Int) -> (Int, Int)? {
            lock.lock(); defer { lock.unlock() }
            guard offset < total else { return nil }
            defer { offset = min(offset + piece, total) }
            return (offset, min(offset + piece, total))
        }
    }
}

/// The vault client's HTTP transport: one shared client that fails at once when the vault
/// can't be reached (no silent reconnect loop), 10 s to connect, 60 s without a byte read, 30
/// minutes for a whole request (large uploads on slow links).
enum VaultTransport {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool.retryConnectionEstablishment = false
        // A redirect is answered as it is, never followed: the token must not travel to another
        // origin, and a redirected login must not look like a vault.
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    static func make() -> AsyncHTTPClientTransport { AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .minutes(30))) }

    /// "cannot reach the vault at URL (connection refused)" for a transport failure.
    static func describe(_ error: ClientError) -> String {
        let place = error.baseURL.map { " at \($0.absoluteString)" } ?? ""
        let cause: String
        switch error.underlyingError {
        case let io as IOError: cause = String(cString: strerror(io.errnoCode)).lowercased()
        case let http as HTTPClientError: cause = "\(http)"
        case let other where "\(other)".contains("CERTIFICATE_VERIFY_FAILED"):
            // NIOSSL's error text names BoringSSL's source file; the person needs the reason.
            return "the vault\(place) presented a TLS certificate this machine does not trust (self-signed, or from an unknown authority); "
                + "install its authority in the system's trust store"
        case let other: cause = "\(other)"
        }
        return "cannot reach the vault\(place) (\(cause))"
    }
}

extension Components.Schemas.Backup {
    /// `{id, createdAt, sizeBytes, type, status, encryptionMethod, sha256}` (`vault list`, `vault backup`).
    var json: JSONValue {
        .object([("id", .string(id)), ("createdAt", .string(ISO8601.string(createdAt))), ("sizeBytes", .int(Int(sizeBytes))),
                 ("type", .string(_type.rawValue)), ("status", .string(status.rawValue)),
                 ("encryptionMethod", .string(encryptionMethod)), ("sha256", .string(sha256))])
    }
}
