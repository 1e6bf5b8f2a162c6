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

enum BlobFile {
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let limit = CredentialEnvelope.maximumBlobBytes + 1024
        let bytes = try FileDescriptorStream(fd: fd).read(limit + 1)
        guard bytes.count <= limit else { throw CLIError("\(path) is larger than \(CredentialEnvelope.maximumBlobBytes / (1024 * 1024)) MiB") }
        return bytes
    }
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
        var blob = try BlobFile.read(input)
        defer { SecretBytes.wipe(&blob) }
        let phrase = try RecoveryPhrase.newShownAndChecked(nothingDone: "nothing was written")
        BackupPasswords.progress("encrypting (Argon2id, 64 MiB)…")
        let envelope = try CredentialEnvelope.seal(SecretBytes(blob), phrase: phrase)
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
        let envelope = try BlobFile.read(input)
        let phrase = try RecoveryPhrase.read(phraseFile: phraseFile)
        BackupPasswords.progress("decrypting (Argon2id)…")
        let blob: SecretBytes
        do { blob = try CredentialEnvelope.open(envelope, phrase: phrase) } catch let e as CredentialEnvelope.Error { throw CLIError(e.description) }
        try AtomicFile.write(blob, to: url)
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
        while true {
            if let problem = flow.problem { terminal.line("  \(problem)") }
            switch flow.state {
            case .enteringWord(let position):
                let answer = try terminal.ask("Word \(position) of \(flow.wordCount): ")
                flow.send(answer.trimmingCharacters(in: .whitespaces) == "<" ? .back : .word(answer))
            case .checksumFailed:
                terminal.line("These words do not form a valid phrase (checksum mismatch): at least one is wrong.")
                flow.send(.edit(position: Int(try terminal.ask("Number of the word to correct: ").trimmingCharacters(in: .whitespaces)) ?? 0))
            case .done:
                if let phrase = flow.mnemonic { return phrase }
                throw CLIError("no phrase entered")
            default:
                throw CLIError("cancelled")
            }
        }
    }
}
