import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaText
import HawalaVault
import HawalaVaultAgent
import HawalaVaultClient
import HawalaWallet

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

struct VaultAgentEnable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Keep a backup key sealed under the wallet password and write the first snapshot.")
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the password the snapshots are sealed with.", valueName: "path")) var backupPasswordFile: String?

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() async throws {
        let store = try WalletSession.store(create: false)
        try VaultAgent.checkCanEnable(store: store)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let backupPassword = try BackupPasswords.new(file: backupPasswordFile)
        BackupPasswords.progress("deriving the backup key (Argon2id)…")
        let autoBackupOn = try await VaultAgent.enable(store: store, keyring: keyring, key: try BackupKey.derive(password: backupPassword),
                                                      app: "hawala \(HawalaVersion.string)")
        print("vault agent enabled: snapshot in \(AgentOutbox.snapshotURL(home: store.home).path)")
        if autoBackupOn == true {
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
        try VaultAgent.disable(store: store, keyring: keyring)
        print("vault agent disabled")
    }
}

struct VaultAgentRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the agent in the foreground (the default), or one due check with --once.",
        discussion: "Exit status with --once: 0 when nothing was due or the backup was uploaded, 1 when the check or the upload failed.")
    @Flag(help: "Run one due check and exit (for cron).") var once = false
    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the vault token (default: systemd's credential hawala-vault-token).", valueName: "path")) var tokenFile: String?

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let agent = try VaultAgent.open(store: store, token: try VaultAgentRun.token(file: tokenFile)) { line in
            Output.error("\(Date().iso8601) vault agent: \(line)")
        }
        if once {
            if case .failed = await agent.check(now: Date()) { throw ExitCode(1) }
            return
        }
        await agent.run()
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
