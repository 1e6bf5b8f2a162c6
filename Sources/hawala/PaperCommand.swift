import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaPaper
import HawalaWallet

extension PaperBackup.Paper: ExpressibleByArgument {}

struct PaperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paper",
        abstract: "A printable recovery sheet (PDF): lines to write the words on, or the words with their SeedQRs.",
        discussion: "--blank needs no password: numbered lines, the wallet's name and fingerprint, and how to keep the sheet. --with-words prints the words and both SeedQR formats (Standard and Compact, English words only): the file then holds the secret in the clear — print it, then delete it.")

    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "Numbered lines to write on.") var blank = false
    @Flag(name: .customLong("with-words"), help: "The words themselves and their SeedQRs (needs the password).") var withWords = false
    @Option(help: "a4 or letter.") var paper: PaperBackup.Paper = .a4
    @Option(help: ArgumentHelp("The PDF to write.", valueName: "path")) var out: String
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard blank != withWords else { throw ValidationError("choose one of --blank and --with-words") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: out)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw CLIError("\(out) already exists; choose another name") }
        let store = try WalletSession.store(create: false)
        let summary = try store.walletWithWords(named: wallet)
        let content: PaperBackup.Content
        if withWords {
            let keyring = try WalletSession.unlock(store, file: password.passwordFile)
            let mnemonic = try store.secrets(of: summary, keyring: keyring).mnemonic
            if !SeedQR.supports(mnemonic) {
                Output.error("note: SeedQR is defined for 12 or 24 English words; the sheet has the words only")
            }
            content = .words(mnemonic)
        } else {
            content = .blank(wordCount: summary.wordCount)
        }
        // Drawn into a private temporary file, then renamed: no half-written sheet.
        let sheet = PaperBackup(walletName: summary.name, fingerprint: summary.fingerprint, paper: paper, content: content,
                                hasPassphrase: summary.hasPassphrase)
        try AtomicFile.write(to: url) { _, path in try sheet.render(to: path) }
        print("wrote \(out)")
        if withWords {
            store.noteBackup(.paper, wallets: [summary.name])
            Output.error("warning: \(out) holds the words in the clear; print it, then delete the file (shred -u \(out))")
        }
    }
}
