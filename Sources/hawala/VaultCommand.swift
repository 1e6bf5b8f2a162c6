import ArgumentParser
import Foundation
import HawalaBackup
import HawalaText
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
        subcommands: [VaultServerMoved.self, VaultLogin.self, VaultBindWords.self, VaultRevokeOthers.self, VaultBackup.self, VaultList.self,
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
        case .refused(let refusal) where refusal.status == 401:
            CLIError("\(error); log in again with your words (`hawala vault login --url URL --with-words`) or a new token from its operator")
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
        commandName: "login", abstract: "Log in to a vault: with a token, or with your words alone; the login is saved sealed under the wallet password.",
        discussion: """
            With a token: the URL and the token are checked, then saved; the account is bound to \
            the current wallet's words for this vault (unless it has words bound already), so \
            they alone log in here later. On a machine with no wallet yet (a new device), the \
            password chosen here (or from --password-file) becomes the wallet password, so \
            `vault list` and `vault restore` can bring the wallets back.
            With --with-words, after `hawala wallet restore` on a new device: the wallet's words \
            sign the vault's challenge for a new token (no operator needed); --revoke-others \
            then stops the lost device's tokens. Use the same URL as when the words were bound.
            """)
    @Option(help: "The vault's URL, e.g. https://vault.example.com.") var url: String
    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the token (\"-\" = stdin); otherwise a prompt.", valueName: "path")) var tokenFile: String?
    @Flag(name: .customLong("with-words"), help: "Log in with the wallet's words instead of a token.") var withWords = false
    @Option(help: "With --with-words: the wallet whose words log in (default: the current wallet).") var wallet: String?
    @Flag(name: .customLong("revoke-others"), help: "Then revoke every other token of the account (a lost device's, an agent's).") var revokeOthers = false
    @Flag(help: "Allow plain http to a host other than this machine (the token and backups would cross the network unencrypted).") var insecure = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (try? VaultClient.loginURL(url, allowPlainHTTP: true)) != nil else { throw ValidationError("--url must be an http(s) URL") }
        try WalletSession.checkOneStdin(password.passwordFile, tokenFile)
        if withWords, tokenFile != nil { throw ValidationError("give --with-words or --token-file, not both") }
        if wallet != nil, !withWords { throw ValidationError("--wallet goes with --with-words") }
    }

    func run() async throws {
        let client: VaultClient
        if withWords {
            let url = try VaultClient.loginURL(self.url, allowPlainHTTP: insecure)
            let store = try WalletSession.store(create: false)
            let summary = try store.wallet(named: wallet)
            let keyring = try WalletSession.unlock(store, file: password.passwordFile)
            client = try await VaultWordsLogin.logIn(url: url, store: store, wallet: summary, keyring: keyring)
            print("logged in to \(self.url) with the words of \"\(summary.name)\"")
        } else {
            client = try await VaultLogin.logIn(url, tokenFile: tokenFile, insecure: insecure, passwordFile: password.passwordFile)
        }
        if revokeOthers {
            let revoked = try await client.revokeOtherTokens()
            print("revoked \(revoked) other token\(revoked == 1 ? "" : "s"): only this device's login works now")
        }
    }

    /// Checks the URL and the token against the vault, then saves them and binds the words
    /// (see the discussion).
    @discardableResult
    static func logIn(_ text: String, tokenFile: String?, insecure: Bool, passwordFile: String?) async throws -> VaultClient {
        let url = try VaultClient.loginURL(text, allowPlainHTTP: insecure)
        let token = try tokenFile.map { try Input.readSecretFile($0, what: "token") } ?? (try Terminal.required("pass --token-file").askSecret("Vault token: "))
        let client = try await SavedVaultLogin.check(url: url, token: token)
        // A new device has no store yet: the password chosen now becomes the wallet password.
        let store = try WalletSession.store(create: true)
        let keyring = try WalletSession.keyringForChange(store, file: passwordFile)
        try SavedVaultLogin.save(client: client, token: token, store: store, keyring: keyring)
        print("logged in to \(text)")
        VaultBindWords.say(await VaultWordsLogin.bind(client: client, store: store, keyring: keyring))
        return client
    }
}

struct VaultBindWords: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bind-words", abstract: "Let the current wallet's words log in to the vault (replacing words bound before).",
        discussion: "A login with a token binds the words by itself when the account has none; this chooses the wallet (switch first with `hawala wallet use`).")
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let session = try VaultSession.open(passwordFile: password.passwordFile)
        let outcome = await VaultWordsLogin.bind(client: session.client, store: session.store, keyring: session.keyring, replace: true)
        VaultBindWords.say(outcome)
        switch outcome {
        case .notOffered, .failed: throw ExitCode(1)
        default: break
        }
        if case .noWallet = outcome { throw CLIError("no wallet here: its words are what would log in") }
    }

    /// What binding did, in a line.
    static func say(_ outcome: VaultWordsLogin.Binding) {
        switch outcome {
        case .bound(let wallet): print("the words of \"\(wallet)\" now log in to this vault too: `hawala vault login --url URL --with-words`")
        case .alreadyBound, .noWallet: break
        case .notOffered(let why): Output.error("note: your words can't log in to this vault (\(why))")
        case .failed(let why): Output.error("note: your words were not bound to this vault (\(why)); `hawala vault bind-words` tries again")
        }
    }
}

struct VaultRevokeOthers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-others", abstract: "Revoke every other token of the vault account (a lost device's, an agent's): only this login keeps working.")
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let revoked = try await VaultSession.open(passwordFile: password.passwordFile).client.revokeOtherTokens()
        print("revoked \(revoked) other token\(revoked == 1 ? "" : "s")")
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
    @Flag(help: "JSON on stdout, as `backup import --json`: what the import actually brought.") var json = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() async throws {
        try await VaultRestore.restore(id, passwordFile: password.passwordFile, backupPasswordFile: backupPasswordFile, onConflict: onConflict, json: json)
    }

    /// Downloads the backup `id` (or an id prefix) and imports it as `backup import` does.
    static func restore(_ id: String, passwordFile: String?, backupPasswordFile: String?, onConflict: ConflictPolicy?, json: Bool = false) async throws {
        let client = try VaultSession.open(passwordFile: passwordFile).client
        let id = try await client.backupID(id)
        let data = try await client.download(id)
        try BackupImport.run(source: "\(id).hawala", passwordFile: passwordFile, backupPasswordFile: backupPasswordFile,
                             onConflict: onConflict, dryRun: false, json: json) { try BackupFile.read(data, password: $0) }
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
