import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaVault
import HawalaVaultClient

/// `hawala vault credentials …` (seed 001): a credential sealed under a 24-word recovery phrase,
/// kept in the vault. The server holds only the envelope; the phrase never leaves the terminal.
struct VaultCredentialsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Keep a credential in the vault, sealed under a 24-word recovery phrase.",
        discussion: """
            By default the credential is the password of your vault backups, so a forgotten \
            backup password can be recovered with the 24 words (`recover --out FILE` writes it \
            to a file that `vault restore --backup-password-file` reads). With --in, any file of \
            up to 16 MiB. The envelope is AES-256-GCM under Argon2id (64 MiB, 3 passes) of the \
            phrase; the vault counts every recovery against your token and address.
            """,
        subcommands: [VaultCredentialsBackup.self, VaultCredentialsStatus.self, VaultCredentialsRecover.self])
}

struct VaultCredentialsBackup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Seal the credential under a new recovery phrase (shown once, then checked) and upload it.",
        discussion: "Replaces the credential backup the vault holds, if any.")
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("in"), help: ArgumentHelp("A file to keep instead of the backup password.", valueName: "path")) var input: String?
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup password to keep.", valueName: "path")) var backupPasswordFile: String?

    func validate() throws {
        try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile)
        if input != nil, backupPasswordFile != nil { throw ValidationError("--in and --backup-password-file exclude each other") }
    }

    func run() async throws {
        let client = try VaultSession.open(passwordFile: password.passwordFile).client
        let credential = try input.map { try CredentialEnvelope.readFile($0) } ?? BackupPasswords.existing(file: backupPasswordFile)
        try CredentialEnvelope.checkSealable(credential)
        let phrase = try RecoveryPhrase.newShownAndChecked(nothingDone: "nothing was uploaded")
        BackupPasswords.progress("encrypting (Argon2id, 64 MiB)…")
        let envelope = Data(try CredentialEnvelope.seal(credential, phrase: phrase))
        try await client.uploadCredentialBackup(envelope)
        print("the credential backup is in the vault: keep the 24 words, they are the only way to open it")
    }
}

struct VaultCredentialsStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Whether the vault holds a credential backup, when it was made and last opened.",
        discussion: "JSON: exists, createdAt, lastVerifiedAt (null when never).")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let client = try VaultSession.open(passwordFile: password.passwordFile).client
        let status = try await client.credentialBackupStatus()
        if json { status.json.print(); return }
        guard status.exists else { print("no credential backup in the vault (make one: hawala vault credentials backup)"); return }
        print("credential backup made \(status.createdAt.map(\.iso8601) ?? "at an unknown time")")
        print(status.lastVerifiedAt.map { "last opened \($0.iso8601)" } ?? "never opened since")
    }
}

struct VaultCredentialsRecover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Download the credential backup and open it with the 24 words.",
        discussion: """
            Without --out, only checks that the words open it (a rehearsal). The words come from \
            --phrase-file or are typed one by one at the terminal, each checked against the word list.
            """)
    @OptionGroup var password: PasswordOptions
    @Option(help: ArgumentHelp("Where to write the credential (mode 0600; must not exist).", valueName: "path")) var out: String?
    @Option(name: .customLong("phrase-file"), help: ArgumentHelp("File holding the 24 words (\"-\" = standard input).", valueName: "path")) var phraseFile: String?

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, phraseFile) }

    func run() async throws {
        if let out, FileManager.default.fileExists(atPath: out) { throw CLIError("\(out) already exists; choose another name") }
        let client = try VaultSession.open(passwordFile: password.passwordFile).client
        let envelope = try await client.recoverCredentialBackup()
        let phrase = try RecoveryPhrase.read(phraseFile: phraseFile)
        BackupPasswords.progress("decrypting (Argon2id)…")
        let credential = try CredentialEnvelope.open(Array(envelope), phrase: phrase)
        guard let out else {
            print("the recovery phrase opens the credential backup (\(credential.count) bytes)")
            return
        }
        try AtomicFile.write(credential, to: URL(fileURLWithPath: out))
        print("recovered the credential into \(out)")
    }
}
