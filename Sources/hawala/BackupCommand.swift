import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// `hawala backup …`: encrypted backup files a user can hold.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Encrypted .hawala backup files (export, inspect, import), credential backups, paper sheets and SLIP-39 shares.",
        discussion: "The format is documented in docs/hawala-format.md: Argon2id (256 MiB, 3 passes) wraps a random file key; the payload is AES-256-GCM in 64 KiB chunks; the whole header is authenticated.",
        subcommands: [BackupExport.self, BackupInspect.self, BackupImport.self, CredentialCommand.self, PaperCommand.self, ShamirCommand.self])
}

struct BackupExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export wallets to an encrypted .hawala file.",
        discussion: "The file is written atomically and read back before success is reported. Suggested name: hawala-backup-YYYY-MM-DD.hawala (used when --out is a folder); a file name without .hawala gets it. An existing file is never replaced.")

    @Option(help: "Export only this wallet.") var wallet: String?
    @Flag(help: "Export every wallet (the default).") var all = false
    @Option(help: ArgumentHelp("The file to write, or a folder for the suggested name.", valueName: "path")) var out: String
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the password for the backup file.", valueName: "path")) var backupPasswordFile: String?

    func validate() throws {
        if wallet != nil && all { throw ValidationError("--wallet and --all cannot be combined") }
        try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile)
    }

    func run() throws {
        guard let target = BackupExporter.destination(URL(fileURLWithPath: out)) else {
            throw CLIError("\(BackupExporter.fileName(URL(fileURLWithPath: out)).path) already exists; choose another name (a backup is never replaced)")
        }
        let store = try WalletSession.store(create: false)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let (payload, count) = try BackupExporter.payload(store: store, keyring: keyring, names: wallet.map { [$0] }, app: "hawala \(HawalaVersion.string)")
        let backupPassword = try BackupPasswords.new(file: backupPasswordFile)
        BackupPasswords.progress("encrypting and reading back (Argon2id, 256 MiB, twice)…")
        let url = try BackupFile.export(payload, to: target, password: backupPassword)
        store.noteBackup(.file, wallets: wallet.map { [$0] })
        print("wrote \(url.path) (\(count) wallet\(count == 1 ? "" : "s"), verified by reading it back)")
    }
}

struct BackupInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Show a .hawala file's header (no password needed).")
    @Argument(help: "The .hawala file.") var file: String
    @Flag(help: "JSON output: {version, flags, kdf: {name, passes, memoryKiB}, createdAt, chunkSize, sizeBytes}.") var json = false

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let header = try BackupFile.inspect(url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let created = Date(timeIntervalSince1970: TimeInterval(header.createdAt)).iso8601
        if json { header.json(sizeBytes: size).print(); return }
        print("version: \(header.version)")
        print("key derivation: Argon2id, \(header.kdfMemoryKiB / 1024) MiB, \(header.kdfPasses) passes")
        print("created: \(created)")
        print("size: \(size) bytes")
    }
}

struct BackupImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import wallets from a .hawala file, after a preview.",
        discussion: "Nothing is written before the preview. A wallet whose name is taken here is handled as --on-conflict says: skip it, keep both (the incoming one under a new name), or replace the one here; in a terminal you are asked, never silently. The same wallet (same words, passphrase and network) is never kept twice: it is skipped or replaced. The current wallet stays current.")

    @Argument(help: "The .hawala file.") var file: String
    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp("File holding the backup file's password.", valueName: "path")) var backupPasswordFile: String?
    @OptionGroup var password: PasswordOptions
    @Option(name: .customLong("on-conflict"), help: "skip, keep-both or replace.") var onConflict: ConflictPolicy?
    @Flag(name: .customLong("dry-run"), help: "Show the preview and stop.") var dryRun = false
    @Flag(help: "JSON on stdout (the preview on stderr): {source, wallets, restored, outcomes: [{wallet, outcome, existing, taken}]}.") var json = false

    func validate() throws { try WalletSession.checkOneStdin(password.passwordFile, backupPasswordFile) }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        _ = try BackupFile.inspect(url)  // refuse a non-.hawala file before asking for anything
        try BackupImport.run(source: url.lastPathComponent, passwordFile: password.passwordFile, backupPasswordFile: backupPasswordFile,
                             onConflict: onConflict, dryRun: dryRun, json: json) { try BackupFile.read(url, password: $0) }
    }

    /// Decrypts (with the backup password), previews, asks a policy per conflict, imports.
    static func run(source: String, passwordFile: String?, backupPasswordFile: String?, onConflict: ConflictPolicy?, dryRun: Bool, json: Bool = false,
                    decrypt: (SecretBytes) throws -> SecretBytes) throws {
        // With --json, the person's lines go to stderr and the outcome alone to stdout.
        let say: (String) -> Void = json ? { Output.error($0) } : { print($0) }
        let backupPassword = try BackupPasswords.existing(file: backupPasswordFile)
        BackupPasswords.progress("decrypting (Argon2id)…")
        let payload = try BackupPayload.decode(try decrypt(backupPassword))
        let home = WalletHome.fromEnvironment()
        let plan = try BackupImportPlan(payload: payload, store: try home.existing() ? try WalletStore(home: home, create: false) : nil)

        say("\(payload.wallets.count) wallet\(payload.wallets.count == 1 ? "" : "s") in \(source) (made by \(payload.app)):")
        for row in plan.rows {
            say("  \(row.summary)")
            if let conflict = row.conflict { say("    conflict: \(conflict)") }
        }
        if dryRun {
            // Nothing imported: said so in the same shape.
            if json { JSONValue.object([("source", .string(source)), ("wallets", .int(payload.wallets.count)), ("restored", .int(0)), ("outcomes", .array([]))]).print() }
            return
        }

        let policies: [String: ConflictPolicy]
        if onConflict == nil, !plan.conflicts.isEmpty, let terminal = Terminal.open() {
            var resolution = ConflictResolution(plan: plan)
            try ConflictRenderer.run(&resolution, on: terminal)
            policies = resolution.policies
        } else {
            policies = try plan.policies(onConflict.map { .forAll($0) } ?? ConflictChoices.none)
        }
        let store = try WalletSession.store(create: true)
        let keyring = try WalletSession.keyringForChange(store, file: passwordFile)
        let outcomes = try plan.apply(policies: policies, store: store, keyring: keyring)
        for outcome in outcomes { say(outcome.description) }
        if json {
            JSONValue.object([("source", .string(source)), ("wallets", .int(payload.wallets.count)),
                              ("restored", .int(outcomes.filter(\.broughtSomething).count)), ("outcomes", .array(outcomes.map(\.json)))]).print()
        }
    }
}
