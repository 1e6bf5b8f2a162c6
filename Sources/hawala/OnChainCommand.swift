import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaLightning
import HawalaOnChain
import HawalaText
import HawalaWallet

/// `hawala onchain`: the Bitcoin and Litecoin accounts as a wallet that sees and spends coins,
/// read from the person's own node.
struct OnChainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onchain",
        abstract: "Bitcoin and Litecoin on-chain: balances, history, receive and send, through your own node.",
        discussion: """
            Amounts are in the chain's base unit (sat for Bitcoin, litoshi for Litecoin). \
            First save a node for the chain (`hawala onchain node`), then `sync`. A testnet wallet's \
            accounts live on the test networks the node is on (testnet or regtest).
            """,
        subcommands: [OnChainNode.self, OnChainSync.self, OnChainReceive.self, OnChainBalance.self, OnChainHistory.self,
                      OnChainSend.self, OnChainSweep.self, OnChainBump.self, OnChainCPFP.self, OnChainPSBTCommand.self, OnChainUTXOs.self, OnChainLabel.self, OnChainLabels.self, OnChainFreeze.self, OnChainUnfreeze.self])
}

extension Coin: ExpressibleByArgument {}

extension ScriptKind: ExpressibleByArgument {
    public init?(argument: String) {
        guard let kind = ScriptKind.named(argument) else { return nil }
        self = kind
    }
    /// `taproot`, as people name it.
    var argumentName: String { displayName.lowercased().replacingOccurrences(of: " ", with: "-") }
    public var defaultValueDescription: String { argumentName }
    public static var allValueStrings: [String] { allCases.map(\.argumentName) }
    public static var allValueDescriptions: [String: String] { [:] }
}

/// The options every on-chain command shares.
struct OnChainTarget: ParsableArguments {
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?

    func summary() throws -> (WalletStore, WalletSummary) {
        let store = try WalletSession.store(create: false)
        return (store, try store.wallet(named: wallet))
    }

    /// The wallet's account on `coin`, through its saved node.
    func open(_ coin: Coin) throws -> OnChainWallet {
        let (store, summary) = try summary()
        do { return try OnChainWallet.open(summary, coin: coin, store: store) } catch OnChainError.noNode(let name) {
            throw CLIError("no node is set up for \(name) yet: hawala onchain node --chain \(coin.rawValue) --url http://127.0.0.1:PORT --cookie-file PATH")
        }
    }

    /// The account that holds payment `txid`: `coin`'s, or the one among those with a node that has it.
    func holder(of txid: Txid, _ coin: Coin?) throws -> OnChainWallet {
        let (store, summary) = try summary()
        _ = try coins(coin)
        return try OnChainWallet.holding(txid, wallet: summary, coin: coin, store: store)
    }

    /// A watch-only wallet can't sign: said before any preview, with what it can do instead.
    func refuseWatchOnly() throws {
        do { try summary().1.mustSign() } catch let error as WalletError {
            throw CLIError(error.description + " (hawala onchain psbt create makes the payment for it)")
        }
    }

    /// The coins with a saved node, or `coin` alone.
    func coins(_ coin: Coin?) throws -> [Coin] {
        if let coin { return [coin] }
        let (store, summary) = try summary()
        let saved = try OnChainWallet.chainsWithNode(wallet: summary, store: store)
        guard !saved.isEmpty else {
            throw CLIError("no node is set up yet: hawala onchain node --chain bitcoin|litecoin --url http://127.0.0.1:PORT --cookie-file PATH")
        }
        return saved
    }
}

struct OnChainNode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node", abstract: "Save the node a chain is read from, after checking it answers and is on the wallet's network.",
        discussion: """
            A Bitcoin Core or Litecoin Core node's RPC (no node wallet is used). Its credentials are \
            read from its cookie file (--cookie-file, e.g. ~/.bitcoin/.cookie) or from a file holding \
            user:password (--auth-file) when needed, never from the command line.

            Or an Electrum server (--electrum HOST:PORT:s for TLS, HOST:PORT:t for plain TCP): it \
            learns which addresses are yours, so prefer your own. A TLS server's certificate is \
            trusted as first seen; a changed one is refused until the server is saved again.
            """)
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(help: "The node's RPC address, e.g. http://127.0.0.1:8332.") var url: String?
    @Option(name: .customLong("cookie-file"), help: "The node's .cookie file.") var cookieFile: String?
    @Option(name: .customLong("auth-file"), help: "A file holding user:password for the node's RPC.") var authFile: String?
    @Option(help: ArgumentHelp("An Electrum server instead of a node (s: TLS, the default; t: plain TCP).", valueName: "HOST:PORT[:t|s]")) var electrum: String?
    @Option(name: .customLong("gap-limit"), help: "How many unused addresses in a row to look past.") var gapLimit: Int = NodeSettings.defaultGapLimit

    func validate() throws {
        guard (url == nil) != (electrum == nil) else { throw ValidationError("give one of --url or --electrum") }
        guard cookieFile == nil || authFile == nil else { throw ValidationError("give one of --cookie-file or --auth-file") }
        guard electrum == nil || (cookieFile == nil && authFile == nil) else { throw ValidationError("an Electrum server needs no --cookie-file or --auth-file") }
        guard NodeSettings.gapLimits.contains(gapLimit) else { throw ValidationError("--gap-limit must be between 1 and 10,000") }
    }

    func run() async throws {
        let (store, summary) = try target.summary()
        let auth: NodeAuth = cookieFile.map { .cookieFile(Self.absolute($0)) } ?? authFile.map { .authFile(Self.absolute($0)) } ?? .none
        let settings = { (chain: String) in
            NodeSettings(kind: electrum == nil ? .core : .electrum, location: url ?? electrum ?? "", auth: auth, chain: chain, gapLimit: gapLimit)
        }
        let source = try settings("").source()
        let saved = try await OnChainWallet.connect(wallet: summary, coin: chain, source: source, node: settings, store: store)
        let network = OnChainNetwork(coin: chain, kind: OnChainNetwork.Kind(rawValue: saved.chain) ?? .main)
        print("\(chain.displayName) of wallet \"\(summary.name)\" is read from \(saved.location) (\(network)); next: hawala onchain sync")
        if case .pinnedCertificate(let fingerprint) = saved.auth { print("Its TLS certificate is trusted from now on: SHA-256 \(fingerprint)") }
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
    }
}

struct OnChainSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Read the chain from the node: new blocks, the mempool, reorgs.")

    /// "Litecoin: block 300 of 1,000…" on the terminal, for syncs of 100 blocks or more; a line
    /// while the node scans its coin set.
    static func progress(_ name: String) -> @Sendable (SyncProgress) -> Void {
        { step in
            switch step {
            case .scanningCoins:
                FileHandle.standardError.write(Data("\r\(name): the node is looking for this wallet's coins (minutes on mainnet)…".utf8))
            case .blocks(let done, let total):
                guard total >= 100 else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[K\(name): block \(AmountText.grouped(UInt64(done))) of \(AmountText.grouped(UInt64(total)))…".utf8))
            case .addresses(let done, let total):
                guard total >= 100 else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[K\(name): address \(AmountText.grouped(UInt64(done))) of \(AmountText.grouped(UInt64(total)))…".utf8))
            }
        }
    }
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin (default: every chain with a node).") var chain: Coin?

    func run() async throws {
        for coin in try target.coins(chain) {
            let wallet = try target.open(coin)
            let onTerminal = isatty(STDERR_FILENO) == 1
            let summary = try await wallet.sync(progress: onTerminal ? Self.progress(coin.displayName) : nil)
            if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            let ledger = try wallet.ledger()
            let unit = coin.baseUnit
            var line = "\(wallet.account.network): synced to block \(AmountText.grouped(UInt64(summary.height))); "
                + "\(AmountText.grouped(ledger.confirmed)) \(unit) confirmed"
            if ledger.unconfirmed > .zero { line += ", \(AmountText.grouped(ledger.unconfirmed)) \(unit) incoming" }
            if summary.fromCoinSet { line += " (a first sync from the node's coin set: the coins held now, not the payments before that left none)" }
            if summary.reorgedBlocks > 0 { line += " (\(summary.reorgedBlocks) block\(summary.reorgedBlocks == 1 ? "" : "s") replaced by a reorg)" }
            print(line)
        }
    }
}

struct OnChainReceive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "receive", abstract: "The next unused receive address on the node's network.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(help: "The account's address type (taproot, nested-segwit and legacy: Bitcoin only).") var type: ScriptKind = .nativeSegwit
    @Flag(help: "JSON output: {address, index}.") var json = false

    func run() async throws {
        let (address, index) = try target.open(chain).nextReceiveAddress(kind: type)
        if json {
            JSONValue.object([("address", .string(address)), ("index", .int(Int(index)))]).print()
        } else {
            print(address)
        }
    }
}

struct OnChainBalance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "balance", abstract: "Confirmed and incoming coins, as of the last sync.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin (default: every chain with a node).") var chain: Coin?
    @Flag(help: "JSON output: {chain, confirmedSats, unconfirmedSats, utxos} (a list of them without --chain).") var json = false

    func run() async throws {
        var objects: [JSONValue] = []
        for coin in try target.coins(chain) {
            let wallet = try target.open(coin)
            let ledger = try wallet.ledger()
            objects.append(ledger.balanceJSON(coin: coin))
            guard !json else { continue }
            let unit = coin.baseUnit
            var line = "\(wallet.account.network): \(AmountText.grouped(ledger.confirmed)) \(unit)"
            if ledger.unconfirmed > .zero { line += " (+\(AmountText.grouped(ledger.unconfirmed)) \(unit) incoming)" }
            let frozen = ledger.coins.filter(\.frozen).count
            print(line + ", \(ledger.coins.count) coin\(ledger.coins.count == 1 ? "" : "s")" + (frozen > 0 ? " (\(frozen) frozen)" : ""))
        }
        if json { (chain == nil ? .array(objects) : objects[0]).print() }
    }
}

struct OnChainHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Payments in and out, newest first, with confirmations.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Flag(help: "JSON output: [{txid, amountSats, feeSats, confirmations, label}].") var json = false

    func run() async throws {
        let wallet = try target.open(chain)
        let ledger = try wallet.ledger()
        let labels = try wallet.labels()
        if json { return ledger.historyJSON(labels: labels).print() }
        if ledger.payments.isEmpty { return print("no payments yet") }
        for payment in ledger.payments {
            let sign = payment.amount < 0 ? "−" : "+"
            let status = payment.confirmations == 0 ? "unconfirmed" : "\(payment.confirmations) confirmation\(payment.confirmations == 1 ? "" : "s")"
            var line = "\(sign)\(AmountText.grouped(payment.amount.magnitude)) \(chain.baseUnit)  \(status)  \(payment.txid)"
            if payment.fee > .zero { line += "  fee \(AmountText.grouped(payment.fee))" }
            if let label = labels["tx:\(payment.txid)"] { line += "  \(label)" }
            print(line)
        }
    }
}

struct OnChainUTXOs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "utxos", abstract: "The coins this account holds.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Flag(help: "JSON output: [{outpoint, address, valueSats, confirmations, frozen, change}].") var json = false

    func run() async throws {
        let wallet = try target.open(chain)
        let ledger = try wallet.ledger()
        if json { return ledger.utxosJSON(network: wallet.account.network).print() }
        if ledger.coins.isEmpty { return print("no coins yet") }
        for coin in ledger.coins {
            print("\(coin.outpoint)  \(AmountText.grouped(coin.value)) \(chain.baseUnit)  \(coin.confirmations) conf\(coin.frozen ? "  frozen" : "")")
        }
    }
}

struct OnChainFreeze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "freeze", abstract: "Never spend this coin until it is unfrozen.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Argument(help: "The coin, TXID:OUTPUT.") var coin: String

    func run() async throws {
        try target.open(chain).setFrozen(try OutPoint(coin), true)
        print("frozen: \(coin)")
    }
}

struct OnChainUnfreeze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unfreeze", abstract: "Let this coin pay again.")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Argument(help: "The coin, TXID:OUTPUT.") var coin: String

    func run() async throws {
        try target.open(chain).setFrozen(try OutPoint(coin), false)
        print("unfrozen: \(coin)")
    }
}

struct OnChainSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Pay an address: a preview of the amount, the fee and the change first (needs the wallet password).",
        discussion: """
            The fee rate is the node's estimate for --speed (fast: about 10 minutes, normal: about an \
            hour, slow: within a day; default normal) or --fee-rate in base units per virtual byte \
            (1 to 10,000). Payments signal replace-by-fee, so a stuck one can be sped up. Sync first: \
            the coins are those of the last sync.
            """)
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(help: "The address to pay.") var to: String
    @Option(help: "The amount, in the chain's base unit.", transform: BaseUnitsArgument.parse) var amount: Sats?
    @Flag(help: "Send every spendable coin, the fee taken from it.") var all = false
    @Option(name: .customLong("fee-rate"), help: "Fee rate in base units per virtual byte.") var feeRate: UInt64?
    @Option(help: "fast, normal or slow (default normal).") var speed: Speed?
    @Flag(help: "Send without asking.") var yes = false
    @Flag(help: "JSON output: {txid, feeSats, vsize}.") var json = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (amount == nil) != !all else { throw ValidationError("give one of --amount or --all") }
        guard feeRate == nil || speed == nil else { throw ValidationError("give one of --fee-rate or --speed") }
        if let amount, amount == .zero { throw ValidationError("--amount must be at least 1") }
    }

    func run() async throws {
        let wallet = try target.open(chain)
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the payment; pass --yes to pay without asking", code: .usage) }
        let chosen = try await wallet.feeRate(feeRate.map(FeeChoice.custom) ?? .speed(speed ?? .normal))
        let plan = try wallet.plan(to: to, amount: all ? .all : .exact(amount!), feeRate: chosen.rate)
        let notes = (chosen.note.map { [$0] } ?? []) + plan.notes
        let (txid, transaction) = try await PlanSender(target: target, password: password, yes: yes)
            .send(plan, in: wallet, title: "Send on \(wallet.account.network)", notes: notes,
                  question: "Send \(AmountText.grouped(plan.total)) \(chain.baseUnit) in total?")
        if json {
            JSONValue.object([("txid", .string(txid.description)), ("feeSats", .int(Int(plan.fee.value))), ("vsize", .int(transaction.vsize))]).print()
        } else {
            print("sent: \(txid)")
        }
    }
}

extension Speed: ExpressibleByArgument {}

extension Txid: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// Shows a plan, asks (unless --yes), signs with the wallet's keys and broadcasts it.
struct PlanSender {
    let target: OnChainTarget
    let password: PasswordOptions
    let yes: Bool

    func send(_ plan: SendPlan, in wallet: OnChainWallet, title: String, notes: [String] = [], question: String) async throws -> (Txid, Transaction) {
        try target.refuseWatchOnly()
        let preview = [title] + alignedRows(plan.previewRows) + notes.map { "  " + $0 }
        if yes {
            for line in preview { Output.error(line) }
        } else {
            let terminal = try Terminal.required("pass --yes")
            for line in preview { terminal.line(line) }
            guard try terminal.confirm(question) else { throw CLIError("nothing was sent") }
        }
        let (store, summary) = try target.summary()
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let transaction = try wallet.sign(plan, keys: try store.secret(of: summary, keyring: keyring).keys)
        return (try await wallet.broadcast(transaction, replacing: plan.replaces), transaction)
    }
}

struct OnChainBump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump", abstract: "Speed up a payment of yours that is stuck: replace it with a higher fee (needs the wallet password).",
        discussion: """
            The replacement spends the same coins and pays the payee the same; the higher fee comes out \
            of the change (BIP125 replace-by-fee). Litecoin's nodes may not relay replacements: there, \
            `hawala onchain cpfp` is the surer way.
            """)
    @OptionGroup var target: OnChainTarget
    @Argument(help: "The payment's transaction id.") var txid: Txid
    @Option(help: "bitcoin or litecoin (default: the chain that has the payment).") var chain: Coin?
    @Option(name: .customLong("fee-rate"), help: "The new fee rate, in base units per virtual byte.") var feeRate: UInt64
    @Flag(help: "Send without asking.") var yes = false
    @Flag(help: "JSON output: {txid, feeSats} of the replacement.") var json = false
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        try target.refuseWatchOnly()
        let wallet = try target.holder(of: txid, chain)
        let plan = try wallet.planBump(txid, feeRate: try FeeRate(feeRate))
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to send without asking", code: .usage) }
        let unit = wallet.account.network.coin.baseUnit
        let notes = plan.notes + (wallet.account.network.coin == .litecoin ? ["A child instead: hawala onchain cpfp \(txid) --fee-rate \(feeRate)."] : [])
        let (newID, _) = try await PlanSender(target: target, password: password, yes: yes)
            .send(plan, in: wallet, title: "Speed up on \(wallet.account.network)", notes: notes,
                  question: "Pay \(AmountText.grouped(plan.fee)) \(unit) in fees instead?")
        if json { return JSONValue.object([("txid", .string(newID.description)), ("feeSats", .int(Int(plan.fee.value)))]).print() }
        print("replaced by: \(newID)")
    }
}

struct OnChainCPFP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cpfp", abstract: "Speed up an unconfirmed payment by paying for it with a child (needs the wallet password).",
        discussion: """
            Spends this wallet's coin from the payment — money coming in, or the change of your own \
            payment — back to the wallet, with a fee that brings both to the chosen rate (child pays for parent).
            """)
    @OptionGroup var target: OnChainTarget
    @Argument(help: "The unconfirmed payment's transaction id.") var txid: Txid
    @Option(help: "bitcoin or litecoin (default: the chain that has the payment).") var chain: Coin?
    @Option(name: .customLong("fee-rate"), help: "The rate for both together, in base units per virtual byte.") var feeRate: UInt64
    @Flag(help: "Send without asking.") var yes = false
    @Flag(help: "JSON output: {txid, feeSats} of the child.") var json = false
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        try target.refuseWatchOnly()
        let wallet = try target.holder(of: txid, chain)
        let plan = try await wallet.planChildPays(for: txid, feeRate: try FeeRate(feeRate))
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to send without asking", code: .usage) }
        let (childID, _) = try await PlanSender(target: target, password: password, yes: yes)
            .send(plan, in: wallet, title: "Speed up on \(wallet.account.network)", notes: plan.notes,
                  question: "Pay \(AmountText.grouped(plan.fee)) \(wallet.account.network.coin.baseUnit) in fees?")
        if json { return JSONValue.object([("txid", .string(childID.description)), ("feeSats", .int(Int(plan.fee.value)))]).print() }
        print("child: \(childID)")
    }
}

struct OnChainPSBTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "psbt", abstract: "Partially signed transactions (BIP174) for other signers: hardware wallets, watch-only wallets.",
        subcommands: [OnChainPSBTCreate.self, OnChainPSBTSign.self, OnChainPSBTBroadcast.self])
}

enum PSBTFile {
    static func read(_ path: String) throws -> PSBT {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError("cannot read \(path)") }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: PSBT.maximumBytes + 1) ?? Data()
        return try PSBT(file: [UInt8](data))
    }

    /// Base64 text, as Bitcoin Core and most wallets read it; atomically, never half-written.
    static func write(_ psbt: PSBT, to path: String, replace: Bool) throws {
        try AtomicFile.write(SecretBytes(Array((psbt.base64 + "\n").utf8)), to: URL(fileURLWithPath: path), replace: replace)
    }
}

struct OnChainPSBTCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "A payment as a PSBT file for another signer (no password: works on a watch-only wallet).")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(help: "The address to pay.") var to: String
    @Option(help: "The amount, in the chain's base unit.", transform: BaseUnitsArgument.parse) var amount: Sats?
    @Flag(help: "Every spendable coin, the fee taken from it.") var all = false
    @Option(name: .customLong("fee-rate"), help: "Fee rate in base units per virtual byte.") var feeRate: UInt64?
    @Option(help: "fast, normal or slow: the node's estimate (instead of --fee-rate).") var speed: Speed?
    @Option(help: "Where to write the PSBT (base64); an existing file is never replaced.") var out: String

    func validate() throws {
        guard (amount == nil) != !all else { throw ValidationError("give one of --amount or --all") }
        guard (feeRate == nil) != (speed == nil) else { throw ValidationError("give one of --fee-rate or --speed") }
        if let amount, amount == .zero { throw ValidationError("--amount must be at least 1") }
    }

    func run() async throws {
        let (_, summary) = try target.summary()
        let wallet = try target.open(chain)
        let chosen = try await wallet.feeRate(feeRate.map(FeeChoice.custom) ?? .speed(speed ?? .normal))
        let plan = try wallet.psbtPlan(to: to, amount: all ? .all : .exact(amount!), feeRate: chosen.rate)
        let psbt = try wallet.psbt(for: plan, fingerprint: summary.fingerprint)
        try PSBTFile.write(psbt, to: out, replace: false)
        for line in alignedRows(plan.previewRows) + (chosen.note.map { [$0] } ?? []) + plan.notes { Output.error(line) }
        print("wrote \(out): sign it with the wallet that holds the keys, then hawala onchain psbt broadcast \(out)")
    }
}

struct OnChainPSBTSign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Sign the inputs of a PSBT this wallet holds the keys of (needs the wallet password).",
        discussion: "Shows what it pays first. Finalized when every input is signed; written to --out, or back to FILE.")
    @OptionGroup var target: OnChainTarget
    @Argument(help: "The PSBT file (binary or base64).") var file: String
    @Option(help: "bitcoin or litecoin (default: the chain with a node, when there is one).") var chain: Coin?
    @Option(help: "Where to write the signed PSBT (default: FILE itself).") var out: String?
    @Flag(help: "Sign without asking.") var yes = false
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        try target.refuseWatchOnly()
        let psbt = try PSBTFile.read(file)
        let (store, summary) = try target.summary()
        let coins = try target.coins(chain)
        guard coins.count == 1 else { throw CLIError("which chain is this PSBT for? pass --chain bitcoin or --chain litecoin", code: .usage) }
        let wallet = try target.open(coins[0])
        let what = try wallet.summary(of: psbt, fingerprint: summary.fingerprint)
        guard what.signable > 0 else { throw CLIError("this wallet holds none of the keys this PSBT needs; nothing was signed") }
        let rows = ["Sign on \(wallet.account.network)"] + alignedRows(what.rows(unit: coins[0].baseUnit))
        // The contract signs from a script (no terminal) with what it pays written to stderr; at a
        // terminal it asks first, unless --yes.
        if yes || Terminal.open() == nil {
            for line in rows { Output.error(line) }
        } else {
            let terminal = try Terminal.required("pass --yes")
            for line in rows { terminal.line(line) }
            guard try terminal.confirm("Sign?") else { throw CLIError("not signed") }
        }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let (signed, count) = try wallet.sign(psbt, keys: try store.secret(of: summary, keyring: keyring).keys)
        try PSBTFile.write(signed, to: out ?? file, replace: true)
        print("signed \(count) input\(count == 1 ? "" : "s")\(signed.isFinalized ? "; ready to broadcast" : "") → \(out ?? file)")
    }
}

struct OnChainPSBTBroadcast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "broadcast", abstract: "Send a signed, finalized PSBT's transaction.")
    @OptionGroup var target: OnChainTarget
    @Argument(help: "The PSBT file (binary or base64).") var file: String
    @Option(help: "bitcoin or litecoin (default: the chain with a node, when there is one).") var chain: Coin?
    @Flag(help: "JSON output: {txid}.") var json = false

    func run() async throws {
        let psbt = try PSBTFile.read(file)
        let coins = try target.coins(chain)
        guard coins.count == 1 else { throw CLIError("which chain is this PSBT for? pass --chain bitcoin or --chain litecoin", code: .usage) }
        let txid = try await target.open(coins[0]).broadcast(psbt)
        if json { return JSONValue.object([("txid", .string(txid.description))]).print() }
        print("sent: \(txid)")
    }
}

struct OnChainLabel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label", abstract: "Label a payment, a coin or an address (an empty text removes the label).")
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Argument(help: "A transaction id, a coin (TXID:OUTPUT) or an address.") var what: String
    @Argument(help: "The label (at most 255 characters).") var text: String

    func run() async throws {
        let wallet = try target.open(chain)
        try wallet.setLabel(try WalletLabel.forTarget(what, label: text, on: wallet.account.network))
        print(text.isEmpty ? "label removed" : "labelled")
    }
}

struct OnChainLabels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels", abstract: "Labels as BIP-329 JSON lines, the file other wallets read.",
        subcommands: [Export.self, Import.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Write every label (and frozen coin) to FILE.")
        @OptionGroup var target: OnChainTarget
        @Option(help: "bitcoin or litecoin (default: the chain with a node, when there is one).") var chain: Coin?
        @Argument(help: "The file to write (never replaced); - for standard output.") var file: String

        func run() async throws {
            let coins = try target.coins(chain)
            guard coins.count == 1 else { throw CLIError("which chain's labels? pass --chain bitcoin or --chain litecoin", code: .usage) }
            let text = try target.open(coins[0]).exportLabels()
            if file == "-" { return print(text, terminator: "") }
            try AtomicFile.write(SecretBytes(Array(text.utf8)), to: URL(fileURLWithPath: file))
            print("wrote \(text.split(separator: "\n").count) labels to \(file)")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", abstract: "Read BIP-329 labels from FILE: all of them, or none on a bad line.")
        @OptionGroup var target: OnChainTarget
        @Option(help: "bitcoin or litecoin (default: the chain with a node, when there is one).") var chain: Coin?
        @Argument(help: "The JSON lines file.") var file: String

        func run() async throws {
            let coins = try target.coins(chain)
            guard coins.count == 1 else { throw CLIError("which chain's labels? pass --chain bitcoin or --chain litecoin", code: .usage) }
            guard let handle = FileHandle(forReadingAtPath: file) else { throw CLIError("cannot read \(file)") }
            defer { try? handle.close() }
            let data = try handle.read(upToCount: 64 * 1024 * 1024 + 1) ?? Data()
            guard data.count <= 64 * 1024 * 1024 else { throw CLIError("\(file) is larger than 64 MiB: not a label file") }
            let result = try target.open(coins[0]).importLabels(String(decoding: data, as: UTF8.self))
            print("imported \(result.imported) labels" + (result.frozen > 0 ? ", froze \(result.frozen) coins" : "")
                  + (result.skipped > 0 ? " (\(result.skipped) lines of other kinds skipped)" : ""))
        }
    }
}
