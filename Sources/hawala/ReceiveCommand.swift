import ArgumentParser
import HawalaKeys
import HawalaPaper
import HawalaText
import HawalaWallet

/// `hawala wallet receive`: an address to receive on, as a payment request and a QR code.
struct WalletReceive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "An address to receive on, with a BIP21 payment request and its QR code.",
        discussion: """
            The same address is shown until --new asks for the next one (this needs no node, so it \
            can't tell which addresses were used: `hawala onchain receive` can, through your node). Bitcoin and Litecoin get a BIP21 request \
            (bitcoin:ADDRESS?amount=…&label=…); other chains the address alone. No password, except for \
            Solana or Cardano addresses past the first 20.
            """)

    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "Chain (default: the wallet's Bitcoin chain).") var chain: Chain?
    @Option(help: ArgumentHelp("Amount to ask for, in coins (e.g. 0.0015).", valueName: "BTC")) var amount: String?
    @Option(help: "A label for the request (shown by the payer's wallet).") var label: String?
    @Option(help: "A message for the request.") var message: String?
    @Flag(help: "Give out the next address instead of the current one.") var new = false
    @Flag(help: "JSON output: {chain, index, path, address, uri}.") var json = false
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let amountSats: UInt64?
        do { amountSats = try amount.map { try BIP21.satoshis($0) } } catch { throw CLIError("--amount: \(error)") }
        let request = try store.addressRequest(wallet: summary, chain: chain, amountSats: amountSats, label: label, message: message, advance: new) {
            try WalletSession.unlock(store, file: password.passwordFile)
        }
        if json { request.json.print(); return }
        print("\(request.chain.name) \(request.address.path)")
        print(request.address.address)
        if request.uriAddsToAddress, let uri = request.uri { print(uri) }
        for line in TextQR.terminalLines(try TextQR.encode(request.qrText)) { print(line) }
    }
}
