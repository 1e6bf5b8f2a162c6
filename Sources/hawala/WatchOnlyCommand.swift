import ArgumentParser
import HawalaKeys
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
