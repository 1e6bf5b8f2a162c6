import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// `hawala backup credential …` (seed 001): an opaque credential encrypted under a new 24-word
/// recovery phrase.
struct CredentialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credential",
        abstract: "Encrypt a credential under a new 24-word recovery phrase, or recover it.",
        discussion: "The envelope is AES-256-GCM under Argon2id (64 MiB, 3 passes) of the phrase, with its version and parameters authenticated.",
        subcommands: [CredentialCreate.self, CredentialRecover.self])
}

struct CredentialCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Encrypt a credential file under a new 24-word recovery phrase shown in the terminal.",
        discussion: "The phrase is shown once in a 4×6 grid, then checked with a quiz; the envelope is written only after the quiz passes.")
    @Option(name: .customLong("in"), help: ArgumentHelp("The credential to protect.", valueName: "path")) var input: String
    @Option(help: ArgumentHelp("The envelope file to write.", valueName: "path")) var out: String

    func run() throws {
        let url = URL(fileURLWithPath: out)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw CLIError("\(out) already exists; choose another name") }
        let blob = try CredentialEnvelope.readFile(input)
        try CredentialEnvelope.checkSealable(blob)
        let phrase = try RecoveryPhrase.newShownAndChecked(nothingDone: "nothing was written")
        BackupPasswords.progress("encrypting (Argon2id, 64 MiB)…")
        let envelope = try CredentialEnvelope.seal(blob, phrase: phrase)
        try AtomicFile.write(SecretBytes(envelope), to: url)
        print("wrote \(out): keep the 24 words, they are the only way to open it")
    }
}

struct CredentialRecover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Decrypt a credential backup with its 24-word recovery phrase.",
        discussion: "The words come from --phrase-file, or are typed one by one at the terminal, each checked against the word list.")
    @Option(name: .customLong("in"), help: ArgumentHelp("The envelope file.", valueName: "path")) var input: String
    @Option(help: ArgumentHelp("Where to write the credential.", valueName: "path")) var out: String
    @Option(name: .customLong("phrase-file"), help: ArgumentHelp("File holding the 24 words (\"-\" = standard input).", valueName: "path")) var phraseFile: String?

    func run() throws {
        let url = URL(fileURLWithPath: out)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw CLIError("\(out) already exists; choose another name") }
        let envelope = try CredentialEnvelope.readFile(input).unsafeCopy()
        let phrase = try RecoveryPhrase.read(phraseFile: phraseFile)
        BackupPasswords.progress("decrypting (Argon2id)…")
        try AtomicFile.write(try CredentialEnvelope.open(envelope, phrase: phrase), to: url)
        print("recovered the credential into \(out)")
    }
}

/// The recovery phrase of a credential backup: made and shown once, or read back.
enum RecoveryPhrase {
    /// Generates a phrase, shows it in a grid at the terminal and checks it with a quiz;
    /// cancelling throws, saying `nothingDone`.
    static func newShownAndChecked(nothingDone: String) throws -> Mnemonic {
        let terminal = try Terminal.required("the recovery phrase is shown and checked at a terminal")
        let phrase = try CredentialEnvelope.newPhrase()
        terminal.line("Your recovery phrase: \(phrase.wordCount) words that alone can open this credential backup.")
        terminal.line("Write them down in order and keep them offline. Hawala does not keep them.")
        var flow = SeedBackupFlow(mnemonic: phrase, start: .words)
        guard try BackupFlowRenderer.run(&flow, on: terminal, grid: true, allowLater: false) else {
            throw CLIError("cancelled; \(nothingDone)")
        }
        return phrase
    }

    /// The words from `phraseFile`, or typed one by one at the terminal (the recovery flow's
    /// word entry: each checked against the word list, with suggestions, then the checksum).
    static func read(phraseFile: String?) throws -> Mnemonic {
        if let phraseFile { return try WalletSession.mnemonicFromFile(phraseFile) }
        let terminal = try Terminal.required("pass the words with --phrase-file")
        var flow = RecoveryFlow(purpose: CredentialEnvelope.phraseEntry)
        guard let phrase = try RecoveryRenderer.run(&flow, on: terminal, network: nil, passphraseFile: nil, refuse: { _ in })?.mnemonic else {
            throw CLIError("cancelled")
        }
        return phrase
    }
}
