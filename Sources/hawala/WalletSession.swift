import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaWallet
import Logging

let log = Logger(label: "hawala")

enum WalletSession {
    /// The keyrings this command's stores handed out: a flow made of several commands
    /// (onboarding, a vault restore) asks for the password once, and main.swift refreshes the
    /// vault agent's snapshot with the newest one when the command is done.
    @TaskLocal static var unlocked: UnlockedKeyring?

    static func store(create: Bool) throws -> WalletStore {
        let home = WalletHome.fromEnvironment()
        log.debug("wallet store", metadata: ["home": "\(home.directory.path)"])
        return try WalletStore(home: home, create: create, unlocked: unlocked)
    }

    /// The password from the file or a prompt.
    static func readPassword(file: String?, prompt: String = "Wallet password: ") throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "password") }
        guard let terminal = Terminal.open() else {
            throw CLIError("no terminal to ask for the wallet password; pass --password-file", code: .usage)
        }
        return try terminal.askSecret(prompt)
    }

    /// How many passwords a person may type at the prompt before the command gives up.
    static let passwordAttempts = 3

    /// Unlocks the store: at a prompt a mistyped password is asked again, up to
    /// `passwordAttempts` times; a password file gets one try.
    static func unlock(_ store: WalletStore, file: String?) throws -> Keyring {
        try store.unlock(attempts: file == nil ? passwordAttempts : 1, password: {
            let password = try readPassword(file: file)
            log.debug("unlocking: argon2id")
            return password
        }, wrong: { left in Output.error("wrong password; try again (\(left) left)") })
    }

    /// The keyring for a change: the existing password, or — for the first wallet — a new one,
    /// asked twice at a prompt.
    static func keyringForChange(_ store: WalletStore, file: String?) throws -> Keyring {
        try store.keyringForChange(unlock: { try unlock(store, file: file) },
                                   newPassword: { try newPassword(file: file, purpose: "Choose a wallet password") })
    }

    /// A new password: from the file, or typed twice.
    static func newPassword(file: String?, purpose: String) throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "password") }
        guard let terminal = Terminal.open() else {
            throw CLIError("no terminal to ask for a new password; pass a password file", code: .usage)
        }
        terminal.line("\(purpose) (at least \(WalletStore.minimumPasswordLength) characters). It unlocks your wallets on this machine.")
        return try askNewSecret(on: terminal, prompt: "New password: ") { try WalletStore.checkStrength($0) }.secret
    }

    /// A new secret typed twice, asked again while `check` refuses it or the two entries differ.
    static func askNewSecret<T>(on terminal: Terminal, prompt: String, check: (SecretBytes) throws -> T) throws -> (secret: SecretBytes, checked: T) {
        while true {
            let first = try terminal.askSecret(prompt)
            let checked: T
            do { checked = try check(first) } catch {
                terminal.line("\(error); choose another.")
                continue
            }
            if try terminal.askSecret("Repeat it: ") == first { return (first, checked) }
            terminal.line("The two entries differ; choose the password again.")
        }
    }

    static func mnemonicFromFile(_ path: String) throws -> Mnemonic {
        let phrase = try Input.readSecretFile(path, what: "mnemonic")
        do { return try Mnemonic(phrase: phrase) } catch let e as MnemonicError { throw CLIError(e.description) }
    }

    /// "-" may stand for standard input once only.
    static func checkOneStdin(_ files: String?...) throws {
        if files.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("only one secret can come from standard input (\"-\")")
        }
    }
}

enum BackupPasswords {
    /// The backup password for a new file: from the file, or typed twice; checked for strength.
    /// At a terminal a refused or mistyped password is asked again.
    static func new(file: String?) throws -> SecretBytes {
        if let file {
            let password = try Input.readSecretFile(file, what: "backup password")
            report(try PasswordStrength.check(password))
            return password
        }
        let terminal = try Terminal.required("pass --backup-password-file")
        terminal.line("Choose a password for this backup file: four or more random words, or a long passphrase (at least \(PasswordStrength.minimumBits) bits by the estimate).")
        let (password, strength) = try WalletSession.askNewSecret(on: terminal, prompt: "Backup password: ") { try PasswordStrength.check($0) }
        report(strength)
        return password
    }

    private static func report(_ strength: PasswordStrength) {
        Output.error("backup password strength: \(strength.rating) (about \(strength.bits) bits)")
    }

    static func existing(file: String?) throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "backup password") }
        return try Terminal.required("pass --backup-password-file").askSecret("Backup password: ")
    }

    /// A note on stderr before a slow key derivation, when someone is watching.
    static func progress(_ text: String) {
        if isatty(STDERR_FILENO) == 1 { Output.error(text) }
    }
}
