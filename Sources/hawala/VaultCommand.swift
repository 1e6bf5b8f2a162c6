import HawalaFormat
import ArgumentParser
import Foundation
import HawalaBackup
import HawalaVault
import HawalaVaultAgent
import HawalaVaultClient
import HawalaWallet

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

/// The saved vault login, opened for one command.
struct VaultSession {
    let store: WalletStore
    let keyring: Keyring
    let client: VaultClient

    static func open(passwordFile: String?) throws -> VaultSession {
        let store = try WalletSession.store(create: false)
        let (client, keyring) = try SavedVaultLogin.open(store: store) { try WalletSession.unlock(store, file: passwordFile) }
        return VaultSession(store: store, keyring: keyring, client: client)
    }

    /// The client's failure in this command line's words (hints name its commands and flags).
    static func words(_ error: VaultClientError) -> CLIError {
        switch error {
        case .noSuchBackup, .backupIDTooShort: CLIError("\(error) (see `hawala vault list`)")
        case .plainHTTP: CLIError("\(error) (or pass --insecure)")
        case .notLoggedIn: CLIError("\(error): run `hawala vault login --url URL`")
        case .agentNotEnabled: CLIError("\(error): run `hawala vault agent enable`")
        case .refused(let refusal) where refusal.status == 401: CLIError("\(error); ask its operator for a new token, then run `hawala vault login`")
        case .refused(let refusal) where refusal.status == 400 && refusal.operation == .changeSettings && refusal.reason != nil:
            CLIError(refusal.reason ?? "")  // the vault's own words for a value it does not take
        case .cutShort: CLIError("the download was cut short; nothing was imported (try again; if it persists, the vault's operator can run `hawala-vault check`)")
        case .hashMismatch: CLIError("the downloaded backup does not match its SHA-256; nothing was imported")
        default: CLIError(error.description)
        }
    }
}

struct VaultLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Save the vault's URL and your token (sealed under the wallet password); checks both.",
        discussion: "On a machine with no wallet yet (a new device), the password chosen here (or from --password-file) becomes the wallet password, so `vault list` and `vault restore` can bring the wallets back.")
    @Option(help: "The vault's URL, e.g. https://vault.example.com.") var url: String
    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the token (\"-\" = stdin); otherwise a prompt.", valueName: "path")) var tokenFile: String?
    @Flag(help: "Allow plain http to a host other than this machine (the token and backups would cross the network unencrypted).") var insecure = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (try? VaultClient.loginURL(url, allowPlainHTTP: true)) != nil else { throw ValidationError("--url must be an http(s) URL") }
        try WalletSession.checkOneStdin(password.passwordFile, tokenFile)
    }

    func run() async throws {
        try await VaultLogin.logIn(url, tokenFile: tokenFile, insecure: insecure, passwordFile: password.passwordFile)
    }

    /// Checks the URL and the token against the vault, then saves them (see the discussion).
    static func logIn(_ text: String, tokenFile: String?, insecure: Bool, passwordFile: String?) async throws {
        let url = try VaultClient.loginURL(text, allowPlainHTTP: insecure)
        let token = try tokenFile.map { try Input.readSecretFile($0, what: "token") } ?? (try Terminal.required("pass --token-file").askSecret("Vault token: "))
        let client = try await SavedVaultLogin.check(url: url, token: token)
        // A new device has no store yet: the password chosen now becomes the wallet password.
        let store = try WalletSession.store(create: true)
        let keyring = try WalletSession.keyringForChange(store, file: passwordFile)
        try SavedVaultLogin.save(client: client, token: token, store: store, keyring: keyring)
        print("logged in to \(text)")
    }
}

struct VaultBackup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Export every wallet as a .hawala file and upload it (hash-checked).")
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup file's password.", valueName: "path")) var backupPasswordFile: String?
    @Flag(help: "JSON output: the uploaded backup, as one object of `vault list --json`.") var json = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() async throws {
        try VaultManualBackup.check(store: try WalletSession.store(create: false))
        let session = try VaultSession.open(passwordFile: password.passwordFile)
        let backupPassword = try BackupPasswords.new(file: backupPasswordFile)
        BackupPasswords.progress("encrypting and reading back (Argon2id)…")
        let (backup, count) = try await VaultManualBackup.run(store: session.store, keyring: session.keyring, backupPassword: backupPassword,
                                                             app: "hawala \(HawalaVersion.string)", progress: Output.transferProgress("uploading…"))
        if json { backup.json.print() } else { print("uploaded backup \(backup.id) (\(backup.sizeBytes) bytes, \(count) wallet\(count == 1 ? "" : "s"))") }
    }
}

struct VaultList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The backups in the vault, newest first.",
        discussion: "JSON: an array of backups, each {id, createdAt, sizeBytes, type (manual|auto), status, encryptionMethod, sha256}.")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let backups = try await VaultSession.open(passwordFile: password.passwordFile).client.backups()
        if json {
            JSONValue.array(backups.map(\.json)).print()
            return
        }
        if backups.isEmpty { Output.error("no backups in the vault") }
        for b in backups { print("\(b.id)  \(b.createdAt.iso8601)  \(b.sizeBytes) bytes  \(b.type.rawValue)  \(b.status.rawValue)") }
    }
}

struct VaultRestore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Download a backup, check its hash, decrypt it and import it after a preview (as `backup import`).")
    @Argument(help: "The backup id (from `hawala vault list`; its first 8 characters or more are enough).") var id: String
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup file's password.", valueName: "path")) var backupPasswordFile: String?
    @Option(name: .customLong("on-conflict"), help: "skip, keep-both or replace.") var onConflict: ConflictPolicy?
    /// Accepted for scripts written when it existed: nothing else is ever asked.
    @Flag(help: .hidden) var yes = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() async throws {
        try await VaultRestore.restore(id, passwordFile: password.passwordFile, backupPasswordFile: backupPasswordFile, onConflict: onConflict)
    }

    /// Downloads the backup `id` (or an id prefix) and imports it as `backup import` does.
    static func restore(_ id: String, passwordFile: String?, backupPasswordFile: String?, onConflict: ConflictPolicy?) async throws {
        let client = try VaultSession.open(passwordFile: passwordFile).client
        let id = try await client.backupID(id)
        let data = try await client.download(id)
        try BackupImport.run(source: "\(id).hawala", passwordFile: passwordFile, backupPasswordFile: backupPasswordFile,
                             onConflict: onConflict, dryRun: false) { try BackupFile.read(data, password: $0) }
    }
}

struct VaultDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a backup from the vault.",
        discussion: "At a terminal it asks first, naming the backup's date and size and saying when it is the last one; --yes deletes without asking (scripts).")
    @Argument(help: "The backup id (or its first 8 characters or more).") var id: String
    @Flag(help: "Delete without asking.") var yes = false
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the deletion; pass --yes to delete without asking", code: .usage) }
        let client = try VaultSession.open(passwordFile: password.passwordFile).client
        let id: String
        if yes {
            id = try await client.backupID(self.id)
        } else {
            let (backup, isLast) = try await client.deletionPreview(self.id)
            id = backup.id
            let terminal = try Terminal.required("pass --yes")
            terminal.line("Backup \(id): \(backup.createdAt.iso8601), \(backup.sizeBytes) bytes, \(backup.type.rawValue).")
            if isLast { terminal.line("It is the only backup in the vault: after this, the vault holds none.") }
            guard try terminal.confirm("Delete it?") else { throw CLIError("not deleted") }
        }
        try await client.delete(id)
        print("deleted \(id)")
    }
}

struct VaultSettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show the vault's backup settings, or change one: settings set KEY VALUE.",
        discussion: "Keys: autoBackupEnabled (true|false: the agent uploads on schedule), backupFrequency (daily|weekly|monthly), backupTimeUtc (HH:mm, UTC), retentionDays (7–365: older automatic backups are pruned), wifiOnly (true|false: skip metered connections), includeMessages (true|false: kept for other clients; Hawala's backups hold no messages).")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false
    @Argument(help: "set KEY VALUE") var change: [String] = []

    func validate() throws {
        guard change.isEmpty || (change.count == 3 && change[0] == "set") else { throw ValidationError("use: hawala vault settings set KEY VALUE") }
    }

    func run() async throws {
        let client = try VaultSession.open(passwordFile: password.passwordFile).client
        var settings = try await client.settings()
        if change.count == 3 {
            do {
                try settings.set(change[1], to: change[2])
            } catch {
                throw CLIError(error.description, code: error == .unknownKey(change[1]) ? .usage : .failure)
            }
            settings = try await client.updateSettings(settings)
        }
        if json { settings.json.print(); return }
        for (k, v) in settings.fields { print("\(k): \(v.render())") }
    }
}
