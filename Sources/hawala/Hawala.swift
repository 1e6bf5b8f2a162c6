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
        version: HawalaVersion.string + HawalaVersion.build,
        subcommands: [WalletCommand.self, AppCommand.self, BackupCommand.self, LightningCommand.self, OnChainCommand.self, ConnectCommand.self, MCPCommand.self, VaultCommand.self, MnemonicCommand.self, DeriveCommand.self, XpubCommand.self, AddressCommand.self, ChainsCommand.self]
    )
}

enum HawalaVersion {
    static let string = "0.1.0"
    /// What `--version` adds: whether this build has the Breez Spark SDK (the `spark:` backend).
    #if canImport(HawalaSpark)
    static let build = " (with the Breez Spark SDK)"
    #else
    static let build = " (without the Breez Spark SDK: `make run` sets it up, or it does not exist for this machine)"
    #endif
}
