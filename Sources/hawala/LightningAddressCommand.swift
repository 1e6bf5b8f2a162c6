import ArgumentParser
import Foundation
import HawalaDevnet
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

// `hawala ln address`, `ln withdraw`, `ln devnet serve` and `ln devnet voucher`: a Lightning
// address of one's own (LUD-16), LNURL-withdraw (LUD-03), and devnet's LNURL server.

struct LightningAddressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "address", abstract: "Your Lightning address: show it, register a name, or give it up.",
        discussion: """
            A Lightning address (name@domain) is reusable: anyone pays it any amount, any number of \
            times, with a comment; payments arrive as ordinary received payments. On Spark it is \
            served by Breez's LNURL server; on devnet by `hawala ln devnet serve` (name@127.0.0.1:PORT, \
            while that server runs).
            """,
        subcommands: [LightningAddressShow.self, LightningAddressRegister.self, LightningAddressDelete.self],
        defaultSubcommand: LightningAddressShow.self)
}

struct LightningAddressShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the wallet's Lightning address and its LNURL.",
        discussion: "JSON: {address, name, description, lnurl, url}, or null when the wallet has none.")
    @OptionGroup var options: LightningOptions
    @Flag(help: "Also draw the LNURL as a QR code.") var qr = false
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let info = try await options.open(signing: false).closing { try await $0.backend.lightningAddress() }
        guard let info else {
            if json { print("null"); return }
            Output.error("this wallet has no Lightning address yet; register one with `hawala ln address register NAME`")
            return
        }
        if json { info.json.print(); return }
        print(info.address)
        print(info.lnurl)
        if qr { for line in TextQR.terminalLines(try TextQR.encode(info.lnurl.uppercased(), caseInsensitive: true)) { print(line) } }
    }
}

struct LightningAddressRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register", abstract: "Register NAME as the wallet's Lightning address (needs the wallet password).",
        discussion: "The name is checked first: a-z, 0-9, -, _ and ., at most 64; a name another wallet holds is refused. A new name replaces the wallet's earlier one. JSON as `ln address show`.")
    @OptionGroup var options: LightningOptions
    @Argument(help: "The name before the @.") var name: String
    @Option(help: "What payers see.") var description: String = ""
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let info = try await options.open(signing: true).closing { try await $0.registerAddress(name: name, description: description) }
        if json { info.json.print(); return }
        print(info.address)
        Output.error("registered: anyone can pay \(info.address)")
    }
}

struct LightningAddressDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Give the wallet's Lightning address up (needs the wallet password).")
    @OptionGroup var options: LightningOptions
    @Flag(help: "Give it up without asking.") var yes = false
    @Flag(help: "JSON output: {deleted}.") var json = false

    func run() async throws {
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to give it up without asking", code: .usage) }
        let gone = try await options.open(signing: true).closing { session -> String in
            let known = try? await session.backend.lightningAddress()
            if !yes {
                let terminal = try Terminal.required("pass --yes")
                terminal.line("Once given up, the name is free for anyone: payments to \(known?.address ?? "it") would then go to them.")
                guard try terminal.confirm("Give it up?") else { throw CLIError("kept") }
            }
            try await session.backend.deleteLightningAddress()
            return known?.address ?? "the Lightning address"
        }
        if json { JSONValue.object([("deleted", .string(gone))]).print(); return }
        print("deleted \(gone)")
    }
}

struct LightningWithdraw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw", abstract: "Receive from an LNURL-withdraw link: a voucher, an ATM, a service (needs the wallet password).",
        discussion: """
            Shows what the service offers (its minimum, maximum and description) and asks before \
            receiving unless --yes; then makes an invoice, hands it to the service, and waits at \
            most --timeout seconds for the payment (exit 1 after, the invoice stays valid until it \
            expires). JSON: the payment object.
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: "The LNURL (lnurl1… or lnurlw://…).") var input: String
    @Option(help: "Amount in sat (default: the most offered).", transform: SatsArgument.parse) var amount: Sats?
    @Option(help: "Seconds to wait for the payment.") var timeout: UInt64 = 60
    @Flag(help: "Receive without asking.") var yes = false
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 3600 seconds") }
    }

    func run() async throws {
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to receive without asking", code: .usage) }
        let payment = try await options.open(signing: true, reachesLNURL: true).closing { session -> Payment in
            let parsed = try PaymentInput.parse(input, allowLoopbackHTTP: session.spec.allowsLoopbackHTTP)
            let offer = try await session.withdrawOffer(parsed)
            let sats = try offer.amountSats(amount)
            if yes {
                Output.error(offer.summary)
                if let note = offer.remainderNote(sats: sats) { Output.error("note: \(note)") }
            } else {
                let terminal = try Terminal.required("pass --yes")
                terminal.line(offer.summary)
                if let note = offer.remainderNote(sats: sats) { terminal.line("Note: \(note).") }
                guard try terminal.confirm("Receive \(AmountText.sats(sats))?") else { throw CLIError("not received") }
            }
            do {
                return try await session.withdraw(offer, amountSats: sats, timeout: .seconds(Int64(timeout)))
            } catch LightningError.timeout {
                throw CLIError("not paid within \(timeout) s; the invoice stays valid until it expires, and a payment still arrives in the history")
            }
        }
        if json { payment.json.print(); return }
        print("received \(satsText(payment.amountMsat, .down)) (payment \(payment.id))")
    }
}

/// The devnet ledger a devnet command works on: `--backend devnet[:PATH]`, else the current
/// wallet's when it is on devnet, else the one under the wallets' home.
func devnetLedgerPath(_ backend: String?) throws -> String {
    let home = WalletHome.fromEnvironment()
    if let backend {
        guard case .devnet(let path) = try BackendSpec.parse(backend, home: home.directory) else {
            throw CLIError("a devnet ledger is devnet or devnet:PATH, not \(backend)", code: .usage)
        }
        return path
    }
    if let store = try? WalletSession.store(create: false), let wallet = try? store.wallet(named: nil),
       let saved = try? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id),
       case .devnet(let path)? = try? BackendSpec.parse(saved, home: home.directory) {
        return path
    }
    return BackendSpec.defaultDevnetLedger(home: home.directory)
}

struct LightningDevnetServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the devnet ledger's Lightning addresses and vouchers on 127.0.0.1 (until Ctrl-C).",
        discussion: """
            LUD-16/LUD-06 for the ledger's Lightning addresses (name@127.0.0.1:PORT) and LUD-03 for \
            its withdraw vouchers, on this machine only. Wallets on the ledger register addresses \
            while it runs. The ledger: --backend devnet:PATH, else the current wallet's devnet \
            ledger, else the one under the wallets' home.
            """)
    @Option(help: "The port to listen on (127.0.0.1).") var port: Int
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        let server = try DevnetLNURLServer(ledgerPath: try devnetLedgerPath(backend), port: port)
        let base = server.service.base
        do {
            try await server.run {
                print("devnet LNURL server on \(base)")
                flushOutput()
            }
        } catch {
            if "\(error)".contains("Address already in use") { throw CLIError("port \(port) is in use; choose another") }
            throw error
        }
    }
}

struct LightningDevnetVoucher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voucher", abstract: "Make a withdraw voucher of test money (an LNURL) on the devnet ledger.",
        discussion: "Prints the voucher's LNURL; any devnet wallet redeems it once with `hawala ln withdraw`. Needs `hawala ln devnet serve` running on the ledger.")
    @Option(help: "Amount in sat (up to this much is withdrawn).", transform: SatsArgument.parse) var amount: Sats
    @Option(help: "What the voucher says it is for.") var description: String = "devnet voucher"
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func run() throws {
        print(try DevnetVouchers.issue(ledgerPath: try devnetLedgerPath(backend), sats: amount, description: description))
    }
}

struct LightningDevnetLogin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Make a login challenge (an LNURL-auth link) of devnet's test service.",
        discussion: "Prints the LNURL; `hawala ln auth` signs in with it once, and `--check K1` then prints the key that signed in. Needs `hawala ln devnet serve` running on the ledger.")
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?
    @Option(help: "Print the key that signed in with this challenge (k1), instead of making one.") var check: String?

    func run() throws {
        let ledger = try devnetLedgerPath(backend)
        if let check {
            guard let key = try DevnetLogins.signedIn(ledgerPath: ledger, k1: check) else { throw CLIError("nobody has signed in with this challenge") }
            print(key)
            return
        }
        let (lnurl, k1) = try DevnetLogins.issue(ledgerPath: ledger)
        print(lnurl)
        Output.error("challenge \(k1)")
    }
}
