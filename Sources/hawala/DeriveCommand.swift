import ArgumentParser
import HawalaKeys
import HawalaText
import HawalaWallet

struct DeriveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "derive",
        abstract: "Derive addresses from a mnemonic read from standard input (first line).",
        discussion: """
            The mnemonic may be in any of the ten BIP39 languages; the language is detected. \
            Large counts use every core.
            """)

    /// Bounds what one run may be asked to produce.
    static let maximumCount = 1_000_000

    @Option(help: "Chain: \(Chain.all.map(\.name).joined(separator: ", ")).")
    var chain: Chain

    @Option(help: "Account number.")
    var account: UInt32 = 0

    @Option(help: "0 for receiving addresses, 1 for change.")
    var change: UInt32 = 0

    @Option(help: "First address index.")
    var from: UInt32 = 0

    @Option(help: "How many addresses.")
    var count: Int = 1

    @OptionGroup var seed: SeedOptions

    @Flag(help: "JSON output: an array of {chain, path, address, publicKey}.")
    var json = false

    func validate() throws {
        guard change <= 1 else { throw ValidationError("--change must be 0 or 1") }
        guard account < 0x8000_0000 else { throw ValidationError("--account must be below 2147483648") }
        guard (1...DeriveCommand.maximumCount).contains(count) else { throw ValidationError("--count must be between 1 and \(DeriveCommand.maximumCount)") }
        guard UInt64(from) + UInt64(count) <= 0x8000_0000 else { throw ValidationError("--from + --count must stay below 2147483648") }
    }

    func run() throws {
        let wallet = try seed.wallet()
        let addresses = try wallet.addresses(chain: chain, account: account, change: change, from: from, count: count)
        if json {
            JSONValue.array(addresses.map(\.json)).print()
        } else {
            print(addresses.map { "\($0.path) \($0.address)" }.joined(separator: "\n"))
        }
    }
}

struct XpubCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xpub",
        abstract: "Export a Bitcoin-family account's extended public key and output descriptor.",
        discussion: "Reads the mnemonic from standard input, or with --wallet uses a stored wallet (no words, no password). The descriptor imports into Bitcoin Core, Sparrow and Electrum as a watch-only wallet; `hawala wallet export-watch-only` prints both branches.")

    @Option(help: "Chain: \(Chain.all.filter(\.isBitcoinFamily).map(\.name).joined(separator: ", ")).")
    var chain: Chain

    @Option(help: "Account number.")
    var account: UInt32 = 0

    @Option(help: "A stored wallet instead of words on standard input (account 0).")
    var wallet: String?

    @OptionGroup var seed: SeedOptions

    @Flag(help: "JSON output: {chain, path, xpub, descriptor, fingerprint, keyOrigin, accountKey, changeDescriptor, multipathDescriptor}.")
    var json = false

    func validate() throws {
        guard chain.isBitcoinFamily else { throw ValidationError("--chain \(chain.name) has no extended public key; use a Bitcoin-family chain") }
        guard account < 0x8000_0000 else { throw ValidationError("--account must be below 2147483648") }
        if wallet != nil, account != 0 { throw ValidationError("a stored wallet keeps account 0 only; pass the words on standard input for --account \(account)") }
        if wallet != nil, seed.passphraseFile != nil { throw ValidationError("--passphrase-file applies to words on standard input, not to --wallet") }
    }

    func run() throws {
        let export: AccountExport
        if let wallet {
            let store = try WalletSession.store(create: false)
            export = try store.accountExport(wallet: try store.wallet(named: wallet), chain: chain)
        } else {
            export = try seed.wallet().accountExport(chain: chain, account: account)
        }
        if json {
            export.json.print()
        } else {
            print(export.xpub)
            print(export.descriptor)
        }
    }
}

struct AddressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "address",
        abstract: "Work with addresses.",
        subcommands: [Validate.self])

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an address for a chain: encoding, checksum, prefix, version, network and length.",
            discussion: "Prints \"valid\" and exits 0, or gives the reason on stderr and exits 1.")

        @Option(help: "Chain: \(Chain.all.map(\.name).joined(separator: ", ")).")
        var chain: Chain

        @Argument(help: "The address.")
        var address: String

        func run() throws {
            do {
                try Address.validate(address, chain: chain)
                print("valid")
            } catch {
                throw CLIError("invalid \(chain.name) address: \(error)")
            }
        }
    }
}

struct ChainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chains",
        abstract: "List the supported chains with their derivation paths.")

    @Flag(help: "JSON output: an array of {name, displayName, network, path, curve, watchOnly}.") var json = false

    func run() throws {
        if json {
            JSONValue.array(Chain.all.map(\.json)).print()
            return
        }
        for chain in Chain.all {
            print("\(chain.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(chain.pathTemplate.padding(toLength: 20, withPad: " ", startingAt: 0)) \(chain.displayName)")
        }
    }
}
