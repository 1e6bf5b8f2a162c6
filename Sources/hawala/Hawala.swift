import ArgumentParser
import HawalaKeys

/// The `hawala` command: a self-custodial wallet in the terminal.
struct Hawala: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hawala",
        abstract: "Hawala, a self-custodial wallet: encrypted wallets, addresses on ten chains, backups you can hold, Lightning invoices.",
        discussion: """
            Secrets never go on the command line: mnemonics come from standard input or a prompt \
            with echo off, passphrases from a file (--passphrase-file, "-" for standard input).

            Diagnostics: --log-level trace|debug|info|notice|warning|error|critical (before or after \
            the command; default warning) writes to stderr. Secrets are never logged.

            Exit codes: 0 success, 1 invalid input or failure, 2 usage error, 3 a Lightning payment \
            still pending (`ln pay`: not final; see `ln show`).
            """,
        version: HawalaVersion.string,
        subcommands: [WalletCommand.self, AppCommand.self, BackupCommand.self, LightningCommand.self, VaultCommand.self, MnemonicCommand.self, DeriveCommand.self, XpubCommand.self, AddressCommand.self, ChainsCommand.self]
    )
}

enum HawalaVersion {
    static let string = "0.1.0"
}

extension Chain: ExpressibleByArgument {
    public init?(argument: String) {
        guard let chain = Chain.named(argument) else { return nil }
        self = chain
    }

    public static var allValueStrings: [String] { Chain.all.map(\.name) }
}

extension Language: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { Language.allCases.map(\.rawValue) }
}

/// Options shared by the commands that read a mnemonic.
struct SeedOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp(
        "File holding the BIP39 passphrase, used exactly as written minus one trailing newline (\"-\" = stdin after the mnemonic line).",
        valueName: "path"))
    var passphraseFile: String?

    /// Reads the mnemonic (stdin or prompt) and the passphrase, and builds the wallet keys.
    func wallet() throws -> HDWallet {
        let phrase = try Input.readMnemonic()
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(phrase: phrase) } catch let e as MnemonicError { throw CLIError(e.description) }
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        return HDWallet(mnemonic: mnemonic, passphrase: passphrase)
    }
}
