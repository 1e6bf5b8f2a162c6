import Foundation
import ArgumentParser
import HawalaKeys
import HawalaOnChain
import HawalaText
import HawalaWallet

/// `hawala wallet export-watch-only`: what another wallet needs to watch this one, from the
/// store (no words, no password).
struct WalletExportWatchOnly: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-watch-only",
        abstract: "Print a wallet's account keys and descriptors for a watch-only wallet elsewhere (no password).",
        discussion: """
            For each Bitcoin-family account: the SLIP-132 key (zpub, ypub, xpub…), the key origin, the \
            BIP389 descriptor with both branches (<0;1>/*) and the receive and change descriptors with \
            their checksums. Sparrow and Electrum take the key or the descriptor; Bitcoin Core's \
            importdescriptors takes the two single-branch descriptors (or the multipath one, from v29).
            """)

    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "Only this chain (default: every Bitcoin-family chain of the wallet).") var chain: Chain?
    @Flag(help: "JSON output: an array of the objects of `hawala xpub --json`.") var json = false

    func validate() throws {
        if let chain, !chain.isBitcoinFamily { throw ValidationError("--chain \(chain.name) has no extended public key; use a Bitcoin-family chain") }
    }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let exports = try store.watchOnlyExports(wallet: summary, chain: chain)
        if json { JSONValue.array(exports.map(\.json)).print(); return }
        print("Watch-only export of \"\(summary.name)\" (\(summary.network.rawValue)): public keys only; they show balances and addresses, and can't spend.")
        for e in exports {
            print("")
            print("\(e.chain) \(e.path)")
            print("  key:        \(e.xpub)")
            print("  key origin: \(e.keyOrigin)")
            print("  descriptor: \(e.multipathDescriptor)")
            print("  receive:    \(e.descriptor)")
            print("  change:     \(e.changeDescriptor)")
        }
    }
}

/// `hawala wallet import-watch-only`: a wallet of one account's public key, no secret.
struct WalletImportWatchOnly: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-watch-only",
        abstract: "Add a watch-only wallet from a descriptor or an extended public key: it sees coins and creates PSBTs, and holds no secret.",
        discussion: """
            Takes what `hawala wallet export-watch-only` prints (the descriptor, or the key with or \
            without its origin), or what Sparrow, Electrum and Bitcoin Core export for a native segwit \
            account. The key's network decides the wallet's (tpub/vpub: testnet). Then save a node \
            for it (`hawala onchain node --wallet NAME …`), sync, and `hawala onchain psbt create`; the \
            wallet with the words signs (`hawala onchain psbt sign`).
            """)

    @Option(help: "The new wallet's name.") var name: String
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(help: "A descriptor: wpkh([fingerprint/84h/0h/0h]xpub…/<0;1>/*)#checksum (- reads it from standard input).") var descriptor: String?
    @Option(help: "An extended public key (zpub, vpub, xpub, tpub), with or without [fingerprint/path] (- reads it from standard input).") var key: String?
    @Flag(help: "JSON output: {name, chain, network, path, fingerprint}.") var json = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (descriptor == nil) != (key == nil) else { throw ValidationError("give one of --descriptor or --key") }
    }

    func run() throws {
        // "-": from standard input, where ps and the shell's history don't see it.
        func text(_ given: String) throws -> String {
            guard given == "-" else { return given }
            let data = FileHandle.standardInput.readData(ofLength: WatchOnlyKey.maximumLength * 4 + 1)
            guard data.count <= WatchOnlyKey.maximumLength * 4 else { throw CLIError("standard input holds more than one descriptor or key") }
            return String(decoding: data, as: UTF8.self)
        }
        let parsed = try descriptor.map { try WatchOnlyKey(descriptor: try text($0)) } ?? WatchOnlyKey(key: try text(key ?? ""))
        let store = try WalletSession.store(create: true)
        let keyring = try WalletSession.keyringForChange(store, file: password.passwordFile)
        let summary = try OnChainWallet.importWatchOnly(parsed, coin: chain, name: name, store: store, keyring: keyring)
        let account = summary.accounts.first
        if json {
            return JSONValue.object([("name", .string(summary.name)), ("chain", .string(chain.rawValue)), ("network", .string(summary.network.rawValue)),
                                     ("path", .nullable(account?.path)), ("fingerprint", .string(summary.fingerprint))]).print()
        }
        print("added watch-only wallet \"\(summary.name)\" (\(chain.displayName), \(summary.network.rawValue)); it is now the current wallet; next: hawala onchain node --chain \(chain.rawValue) --url URL --cookie-file PATH")
    }
}
