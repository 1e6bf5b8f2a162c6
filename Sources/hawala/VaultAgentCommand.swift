import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaVault
import HawalaVaultAPI
import HawalaWallet
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// `hawala vault agent`: scheduled backups without a password at backup time
/// (docs/decisions/0002). `enable` — with the user present — keeps a backup key sealed under the
/// wallet password; from then on every command that opens the wallet refreshes a .hawala snapshot
/// in `$HAWALA_HOME/outbox/`. The agent only uploads that ciphertext, on the vault's schedule.
struct VaultAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Back up to the vault on its schedule, unattended (run, --once for cron, enable, disable).",
        discussion: """
            `hawala vault agent enable` asks the wallet and backup passwords once and writes the \
            first snapshot; afterwards every command that opens the wallet with its password \
            refreshes the snapshot when the wallets changed. `hawala vault agent` (systemd unit in \
            contrib/) uploads the newest snapshot when the vault's settings say a backup is due \
            (autoBackupEnabled, backupFrequency, backupTimeUtc), skips while the connection is \
            metered and wifiOnly is set (NetworkManager), retries with backoff (1 min … 1 h) and \
            logs one line per run on stderr. The agent never holds a password or a key: it reads \
            the vault token from --token-file or from systemd's credential `hawala-vault-token` \
            ($CREDENTIALS_DIRECTORY).
            """,
        subcommands: [VaultAgentRun.self, VaultAgentEnable.self, VaultAgentDisable.self],
        defaultSubcommand: VaultAgentRun.self)
}

struct VaultAgentEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Keep a backup key sealed under the wallet password and write the first snapshot.")
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the password the snapshots are sealed with.", valueName: "path")) var backupPasswordFile: String?

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() throws {
        let store = try WalletSession.store(create: false)
        guard try store.globalSetting("vault.url") != nil else { throw CLIError("not logged in to a vault: run `hawala vault login --url URL` first") }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        guard !(try store.list()).isEmpty else { throw WalletError.noWallets }
        let backupPassword = try BackupPasswords.new(file: backupPasswordFile)
        BackupPasswords.progress("deriving the backup key (Argon2id)…")
        let key = try BackupKey.derive(password: backupPassword)
        try AgentOutbox.enable(store: store, keyring: keyring, key: key, app: "hawala \(HawalaVersion.string)")
        print("vault agent enabled: snapshot in \(AgentOutbox.snapshotURL(home: store.home).path)")
        // Only ask for what is not on yet (the settings are the vault's: a failure to read them
        // changes nothing here).
        let session = try VaultSession.open(password: password)
        let client = session.client
        let automatic: Bool? = try? blocking {
            if case .ok(let r) = try await client.getSettings() { return try r.body.json.autoBackupEnabled }
            return nil
        }
        if automatic == true {
            print("automatic backups are on in the vault's settings: run `hawala vault agent` (or its systemd unit) to upload them")
        } else {
            print("turn automatic backups on with `hawala vault settings set autoBackupEnabled true`, then run `hawala vault agent`")
        }
    }
}

struct VaultAgentDisable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Forget the agent's backup key and remove its snapshot.")
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let store = try WalletSession.store(create: false)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        try AgentOutbox.disable(store: store, keyring: keyring)
        try? FileManager.default.removeItem(at: VaultAgentState.url(home: store.home))
        print("vault agent disabled")
    }
}

struct VaultAgentRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the agent in the foreground (the default), or one due check with --once.",
        discussion: "Exit status with --once: 0 when nothing was due or the backup was uploaded, 1 when the check or the upload failed.")
    @Flag(help: "Run one due check and exit (for cron).") var once = false
    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the vault token (default: systemd's credential hawala-vault-token).", valueName: "path")) var tokenFile: String?

    func run() throws {
        let store = try WalletSession.store(create: false)
        guard let url = try store.globalSetting("vault.url").flatMap(URL.init(string:)) else {
            throw CLIError("not logged in to a vault: run `hawala vault login --url URL`")
        }
        guard let enabledAt = try AgentOutbox.enabledAt(store: store) else { throw CLIError("the vault agent is not enabled: run `hawala vault agent enable`") }
        let token = try VaultAgentRun.token(file: tokenFile)
        let text = token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let agent = VaultAgent(client: Client(serverURL: url, transport: VaultTransport.make(), middlewares: [VaultBearer(token: text)]),
                               home: store.home, enabledAt: enabledAt)
        if once {
            let outcome = try blocking { await agent.check(now: VaultAgent.now()) }
            if case .failed = outcome { throw ExitCode(1) }
            return
        }
        try blocking {
            while !Task.isCancelled {
                let outcome = await agent.check(now: VaultAgent.now())
                try await Task.sleep(for: .seconds(outcome.sleep(now: VaultAgent.now())))
            }
        }
    }

    /// The token: --token-file, or `$CREDENTIALS_DIRECTORY/hawala-vault-token` (systemd
    /// LoadCredential / LoadCredentialEncrypted).
    static func token(file: String?) throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "token") }
        if let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] {
            let path = directory + "/hawala-vault-token"
            if FileManager.default.fileExists(atPath: path) { return try Input.readSecretFile(path, what: "token") }
        }
        throw CLIError("the agent needs the vault token: --token-file PATH, or systemd's credential hawala-vault-token (see contrib/)")
    }
}

/// What the agent remembers between runs (`$HAWALA_HOME/agent-state.json`, written atomically):
/// no secret, only times and the last upload's identity.
struct VaultAgentState: Codable, Equatable {
    /// Backups are due at the first slot after this (the last completed run, or enabling).
    var since: Date?
    var lastUpload: Date?
    var lastUploadSHA256: String?
    var lastBackupID: String?
    var failures = 0
    var retryAt: Date?

    static func url(home: WalletHome) -> URL { home.directory.appendingPathComponent("agent-state.json") }

    static func load(home: WalletHome) -> VaultAgentState {
        guard let data = try? Data(contentsOf: url(home: home)) else { return VaultAgentState() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(VaultAgentState.self, from: data)) ?? VaultAgentState()
    }

    func save(home: WalletHome) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(SecretBytes(Array(try encoder.encode(self))), to: VaultAgentState.url(home: home), replace: true)
    }
}

/// One due check at a time; the outcome says how long to sleep.
struct VaultAgent: Sendable {
    let client: Client
    let home: WalletHome
    let enabledAt: Date

    enum Outcome {
        case notDue(until: Date), disabled, skipped(retry: Date), uploaded, unchanged, failed(retry: Date)

        /// Seconds until the next check: the due time or the retry, at most an hour (settings
        /// may change meanwhile), at least a second.
        func sleep(now: Date) -> Double {
            let next: Date = switch self {
            case .notDue(let until): until
            case .skipped(let retry), .failed(let retry): retry
            case .disabled, .uploaded, .unchanged: now.addingTimeInterval(3600)
            }
            return min(3600, max(1, next.timeIntervalSince(now)))
        }
    }

    /// The clock; `HAWALA_AGENT_NOW` (ISO 8601) replaces it in tests.
    static func now() -> Date {
        if let text = ProcessInfo.processInfo.environment["HAWALA_AGENT_NOW"], let date = ISO8601DateFormatter().date(from: text) { return date }
        return Date()
    }

    func check(now: Date) async -> Outcome {
        var state = VaultAgentState.load(home: home)
        if let retry = state.retryAt, retry > now {
            log("waiting to retry at \(ISO8601.string(retry)) (\(state.failures) failed attempt\(state.failures == 1 ? "" : "s"))")
            return .failed(retry: retry)
        }
        do {
            let settings: Components.Schemas.BackupSettings
            switch try await client.getSettings() {
            case .ok(let r): settings = try r.body.json
            case .unauthorized: throw CLIError("the vault does not accept the agent's token (HTTP 401)")
            case .tooManyRequests: throw CLIError("the vault asks to slow down (HTTP 429)")
            case .undocumented(let status, _): throw CLIError("the vault answered HTTP \(status)")
            }
            let model = BackupSettings(autoBackupEnabled: settings.autoBackupEnabled,
                                       backupFrequency: BackupSettings.Frequency(rawValue: settings.backupFrequency.rawValue) ?? .daily,
                                       backupTimeUtc: settings.backupTimeUtc, retentionDays: settings.retentionDays,
                                       includeMessages: settings.includeMessages, wifiOnly: settings.wifiOnly)
            guard var due = VaultSchedule.nextRun(settings: model, lastRun: state.lastUpload, now: state.since ?? enabledAt) else {
                log("automatic backups are off in the vault's settings (hawala vault settings set autoBackupEnabled true)")
                return .disabled
            }
            // Nothing in the vault yet (a first run, or every backup deleted): upload now rather
            // than at the next slot, which may be a day away.
            if due > now, case .ok(let r) = try await client.listBackups(), try r.body.json.isEmpty {
                due = now
            }
            guard due <= now else {
                log("next backup due at \(ISO8601.string(due))")
                return .notDue(until: due)
            }
            if settings.wifiOnly, Metered.current() == true {
                let retry = now.addingTimeInterval(15 * 60)
                log("backup due but skipped: the connection is metered and wifiOnly is set; checking again at \(ISO8601.string(retry))")
                return .skipped(retry: retry)
            }
            let snapshot = AgentOutbox.snapshotURL(home: home)
            guard let data = try? Data(contentsOf: snapshot) else {
                throw CLIError("no snapshot in \(snapshot.path): run `hawala vault agent enable`")
            }
            let sha = SHA256Hex.of(data)
            if sha == state.lastUploadSHA256 {
                state.since = now
                state.failures = 0
                state.retryAt = nil
                try state.save(home: home)
                log("backup due; the wallets have not changed since backup \(state.lastBackupID ?? "?"), nothing to upload")
                return .unchanged
            }
            let backup: Components.Schemas.Backup
            switch try await client.uploadBackup(query: .init(_type: .auto), headers: .init(X_hyphen_Content_hyphen_SHA256: sha), body: .binary(HTTPBody(data))) {
            case .created(let r): backup = try r.body.json
            case .badRequest(let r): throw CLIError("the vault refused the upload (HTTP 400): \((try? r.body.json.error) ?? "")")
            case .conflict: throw CLIError("the upload arrived damaged (HTTP 409)")
            case .unauthorized: throw CLIError("the vault does not accept the agent's token (HTTP 401)")
            case .contentTooLarge: throw CLIError("the snapshot is larger than the vault accepts (HTTP 413)")
            case .tooManyRequests: throw CLIError("the vault asks to slow down (HTTP 429)")
            case .code507(let r): throw CLIError("the vault has no room (HTTP 507)\((try? r.body.json.error).map { ": \($0)" } ?? "")")
            case .undocumented(let status, _): throw CLIError("the vault answered HTTP \(status)")
            }
            state = VaultAgentState(since: now, lastUpload: now, lastUploadSHA256: sha, lastBackupID: backup.id, failures: 0, retryAt: nil)
            try state.save(home: home)
            log("uploaded backup \(backup.id) (\(backup.sizeBytes) bytes)")
            return .uploaded
        } catch {
            state.failures += 1
            // 1, 2, 4 … minutes, at most an hour.
            let delay = min(3600, 60 * pow(2, Double(min(state.failures - 1, 6))))
            let retry = now.addingTimeInterval(delay)
            state.retryAt = retry
            try? state.save(home: home)
            log("backup failed: \(VaultAgent.describe(error)); retrying at \(ISO8601.string(retry))")
            return .failed(retry: retry)
        }
    }

    static func describe(_ error: Error) -> String {
        if let error = error as? CLIError { return error.message }
        if let error = error as? ClientError { return VaultTransport.describe(error) }
        return "\(error)"
    }

    /// One line per run, for the journal.
    private func log(_ line: String) { Output.error("\(ISO8601.string(Date())) vault agent: \(line)") }
}

/// Whether the connection is metered, from NetworkManager (D-Bus property `Metered`: 1 yes,
/// 3 guessed yes); nil when unknown. `HAWALA_METERED=yes|no` overrides it (tests, machines
/// without NetworkManager).
enum Metered {
    static func current() -> Bool? {
        switch ProcessInfo.processInfo.environment["HAWALA_METERED"] {
        case "yes": return true
        case "no": return false
        default: break
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
        process.arguments = ["--system", "get-property", "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                             "org.freedesktop.NetworkManager", "Metered"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        // "u 1": NMMetered (0 unknown, 1 yes, 2 no, 3 guess yes, 4 guess no).
        switch text.split(separator: " ").last.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) {
        case "1", "3": return true
        case "2", "4": return false
        default: return nil
        }
    }
}
