import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaVaultAPI
import OpenAPIRuntime

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

struct VaultCredentialsBackup: ParsableCommand {
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

    func run() throws {
        let client = try VaultSession.open(password: password).client
        let credential: SecretBytes
        if let input {
            var bytes = try BlobFile.read(input)
            defer { SecretBytes.wipe(&bytes) }
            credential = SecretBytes(bytes)
        } else {
            credential = try BackupPasswords.existing(file: backupPasswordFile)
        }
        guard credential.count > 0 else { throw CLIError("the credential is empty") }
        let phrase = try RecoveryPhrase.newShownAndChecked(nothingDone: "nothing was uploaded")
        BackupPasswords.progress("encrypting (Argon2id, 64 MiB)…")
        let envelope = Data(try CredentialEnvelope.seal(credential, phrase: phrase))
        switch try blocking({ try await client.uploadCredentialBackup(body: .binary(HTTPBody(envelope))) }) {
        case .noContent: print("the credential backup is in the vault: keep the 24 words, they are the only way to open it")
        case .badRequest(let r): throw VaultSession.refused("the credential backup", 400, try? r.body.json)
        case .forbidden(let r): throw VaultSession.refused("the credential backup", 403, try? r.body.json)
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .contentTooLarge(let r): throw VaultSession.refused("the credential backup", 413, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the credential backup", status, nil)
        }
    }
}

struct VaultCredentialsStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Whether the vault holds a credential backup, when it was made and last opened.",
        discussion: "JSON: exists, createdAt, lastVerifiedAt (null when never).")
    @OptionGroup var password: PasswordOptions
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let client = try VaultSession.open(password: password).client
        let status: Components.Schemas.CredentialBackupStatus
        switch try blocking({ try await client.getCredentialBackupStatus() }) {
        case .ok(let r): status = try r.body.json
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r): throw VaultSession.refused("the request", 429, try? r.body.json)
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
        let date: (Date?) -> JSONValue = { $0.map { .string(ISO8601.string($0)) } ?? .null }
        if json {
            JSONValue.object([("exists", .bool(status.exists)), ("createdAt", date(status.createdAt)), ("lastVerifiedAt", date(status.lastVerifiedAt))]).print()
            return
        }
        guard status.exists else { print("no credential backup in the vault (make one: hawala vault credentials backup)"); return }
        print("credential backup made \(status.createdAt.map(ISO8601.string) ?? "at an unknown time")")
        print(status.lastVerifiedAt.map { "last opened \(ISO8601.string($0))" } ?? "never opened since")
    }
}

struct VaultCredentialsRecover: ParsableCommand {
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

    func run() throws {
        if let out, FileManager.default.fileExists(atPath: out) { throw CLIError("\(out) already exists; choose another name") }
        let client = try VaultSession.open(password: password).client
        let envelope: Data
        switch try blocking({ try await client.recoverCredentials() }) {
        case .ok(let r):
            let body = try r.body.binary
            envelope = try blocking { try await Data(collecting: body, upTo: CredentialEnvelope.maximumBlobBytes + 4096) }
        case .notFound: throw CLIError("no credential backup in the vault")
        case .unauthorized(let r): throw VaultSession.refused("the token", 401, try? r.body.json)
        case .tooManyRequests(let r):
            throw CLIError("the vault refused: too many recoveries; retry in \(r.headers.Retry_hyphen_After ?? 60) s")
        case .undocumented(let status, _): throw VaultSession.refused("the request", status, nil)
        }
        let phrase = try RecoveryPhrase.read(phraseFile: phraseFile)
        BackupPasswords.progress("decrypting (Argon2id)…")
        let credential: SecretBytes
        do { credential = try CredentialEnvelope.open(Array(envelope), phrase: phrase) } catch let e as CredentialEnvelope.Error { throw CLIError(e.description) }
        guard let out else {
            print("the recovery phrase opens the credential backup (\(credential.count) bytes)")
            return
        }
        try AtomicFile.write(credential, to: URL(fileURLWithPath: out))
        print("recovered the credential into \(out)")
    }
}
