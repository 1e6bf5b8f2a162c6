import ArgumentParser
import Foundation
import HawalaDevnet
import HawalaLightning
import HawalaText

// `hawala ln deposits [claim|refund]`: bitcoin sent on-chain to the wallet's deposit addresses,
// and `ln devnet deposit|mine|fees`, devnet's chain.

struct LightningDeposits: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deposits", abstract: "Bitcoin sent on-chain to the wallet: waiting, claimed, not claimed (and why), sent elsewhere.",
        discussion: """
            A deposit waits for 3 confirmations, then is claimed into the Lightning balance by an \
            on-chain transaction whose fee the wallet pays, at most the cap of `hawala ln config \
            --max-claim-fee` (default: the network's recommended rate + 1 sat/vB). One whose claim \
            would cost more is "not claimed" with the fee it needs: claim it with a higher cap, or \
            send it elsewhere. Listing syncs first (needs the wallet password). JSON: an \
            array of {txid, vout, amountSat, state, …} (docs/reference.md).
            """,
        subcommands: [LightningDepositsList.self, LightningDepositsClaim.self, LightningDepositsRefund.self],
        defaultSubcommand: LightningDepositsList.self)
}

struct LightningDepositsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the wallet's deposits (after a sync).")
    @OptionGroup var options: LightningOptions
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let deposits = try await options.open(signing: true).closing { session -> [Deposit] in
            if case .offline(let reason, let last) = await session.lightning.sync(timeout: .seconds(10)) {
                // Never synced: "no deposits" would be a guess, not a fact.
                guard last != nil else { throw LightningError.notSyncedYet(network: session.spec.networkName, reason: reason) }
                Output.error("offline (\(reason)): the deposits as last known")
            }
            return try await session.backend.listDeposits()
        }
        if json { JSONValue.array(deposits.map(\.json)).print(); return }
        if deposits.isEmpty { Output.error("no deposits"); return }
        for d in deposits { print("\(d.outpoint)  \(AmountText.sats(d.amountSat))  \(d.stateText)") }
    }
}

struct LightningDepositsClaim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "claim", abstract: "Claim one confirmed deposit (needs the wallet password).",
        discussion: "With --max-fee, under that cap instead of the wallet's (network, network+N, N/vB or N sats). JSON: the deposit.")
    @OptionGroup var options: LightningOptions
    @Argument(help: "The deposit: TXID:VOUT.") var outpoint: String
    @Option(name: .customLong("max-fee"), help: "The most the claim may cost, this once.") var maxFee: String?
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let (txid, vout) = try Deposit.outpoint(outpoint)
        let cap = try maxFee.map { try ClaimFeePolicy(parsing: $0) }
        let deposit = try await options.open(signing: true).closing { session in
            try await session.backend.claimDeposit(txid: txid, vout: vout, policy: cap ?? LightningWallet.claimFeePolicy(store: session.store, walletID: session.wallet.id))
        }
        if json { deposit.json.print() } else { print("\(deposit.outpoint)  \(deposit.stateText)") }
        if case .notClaimed = deposit.state { throw ExitCode(1) }
    }
}

struct LightningDepositsRefund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund", abstract: "Send one unclaimed deposit to another Bitcoin address (needs the wallet password).",
        discussion: "The address must be on the wallet's network. The fee: --fee-rate sat/vB, or --speed (fast, medium, slow: the network's rates; medium by default). JSON: the deposit.")
    @OptionGroup var options: LightningOptions
    @Argument(help: "The deposit: TXID:VOUT.") var outpoint: String
    @Option(help: "The Bitcoin address to send it to.") var to: String
    @Option(name: .customLong("fee-rate"), help: "The fee rate, sat/vB.") var feeRate: UInt64?
    @Option(help: "fast, medium or slow.") var speed: OnChainSpeed?
    @Flag(help: "Send without asking.") var yes = false
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        if feeRate != nil && speed != nil { throw ValidationError("give one of --fee-rate or --speed") }
        if let feeRate, !PaymentLimits.feeRates.contains(feeRate) { throw ValidationError("--fee-rate: \(PaymentLimit.feeRate)") }
    }

    func run() async throws {
        _ = try Deposit.outpoint(outpoint)
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to send without asking", code: .usage) }
        let fee: DepositRefund.Fee = feeRate.map { .rate(satPerVbyte: $0) } ?? speed.map { .speed($0) } ?? .default
        let deposit = try await options.open(signing: true).closing { session in
            let refund = try await session.prepareRefund(outpoint: outpoint, to: to, fee: fee)
            if yes {
                for line in alignedRows(refund.rows) { Output.error(line) }
            } else {
                let terminal = try Terminal.required("pass --yes")
                for line in alignedRows(refund.rows) { terminal.line(line) }
                guard try terminal.confirm("Send it to \(to)? It will not come into Lightning.") else { throw CLIError("not sent") }
            }
            return try await session.refund(refund)
        }
        if json { deposit.json.print() } else { print("\(deposit.outpoint)  \(deposit.stateText)") }
    }
}

extension OnChainSpeed: ExpressibleByArgument {}

struct LightningDevnetDeposit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deposit", abstract: "Send test bitcoin on-chain to a devnet deposit address (unconfirmed until `ln devnet mine`).")
    @Argument(help: "A devnet deposit address (`hawala ln invoice --method bitcoin` on devnet).") var address: String
    @Argument(help: "Amount in sat.", transform: SatsArgument.parse) var sats: Sats
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func run() throws {
        print(try DevnetChain.deposit(ledgerPath: try devnetLedgerPath(backend), address: address, sats: sats))
        Output.error("sent \(AmountText.sats(sats)) to \(address), unconfirmed")
    }
}

struct LightningDevnetMine: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mine", abstract: "Mine devnet blocks (confirmations for deposits).")
    @Argument(help: "How many blocks.") var blocks: Int = 1
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func validate() throws { guard DevnetChain.blocksAtOnce.contains(blocks) else { throw ValidationError(PaymentLimit.blocks.description) } }

    func run() throws {
        print("height \(try DevnetChain.mine(ledgerPath: try devnetLedgerPath(backend), blocks: blocks))")
    }
}

struct LightningDevnetFees: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fees", abstract: "Show or set devnet's on-chain fee table (sat/vB), used by claims and refunds.")
    @Option(help: "Fast rate.") var fast: UInt64?
    @Option(help: "Medium rate.") var medium: UInt64?
    @Option(help: "Slow rate.") var slow: UInt64?
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func validate() throws {
        let given = [fast, medium, slow].compactMap { $0 }
        guard given.isEmpty || given.count == 3 else { throw ValidationError("give --fast, --medium and --slow together") }
        guard given.allSatisfy(PaymentLimits.feeRates.contains) else { throw ValidationError("\(PaymentLimit.feeRate)") }
        if let fast, let medium, let slow, !(fast >= medium && medium >= slow) { throw ValidationError("fast ≥ medium ≥ slow") }
    }

    func run() throws {
        let set = fast.flatMap { f in medium.flatMap { m in slow.map { (f, m, $0) } } }
        let fees = try DevnetChain.fees(ledgerPath: try devnetLedgerPath(backend), set: set)
        print("fast \(fees.fastest) sat/vB, medium \(fees.halfHour) sat/vB, slow \(fees.hour) sat/vB")
    }
}

struct LightningDevnetRates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates", abstract: "Show devnet's test prices of bitcoin, or move one (test money: never real prices).",
        discussion: "`hawala ln devnet rates USD 50000` sets 1 BTC = 50,000 USD on this ledger for every wallet on it (0 takes the currency out): what a budget in a currency counts payments at.")
    @Argument(help: "A currency code (USD, EUR…).") var currency: String?
    @Argument(help: "Its price of 1 BTC (0: none).") var price: String?
    @Option(help: ArgumentHelp("The ledger: devnet or devnet:PATH.", valueName: "spec")) var backend: String?

    func validate() throws {
        if let currency, currency.count != 3 || !currency.allSatisfy({ $0.isASCII && $0.isLetter }) { throw ValidationError("a currency is three letters, like USD") }
        if (currency == nil) != (price == nil) { throw ValidationError("give a currency and its price together") }
        if let price, Decimal(string: price, locale: Locale(identifier: "en_US_POSIX")).map({ $0 < 0 }) ?? true || !price.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw ValidationError("a price is a number, like 50000 or 49999.50")
        }
    }

    func run() async throws {
        let set = currency.flatMap { code in price.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }.map { (code.uppercased(), $0) } }
        for rate in try await DevnetBackend.rates(ledgerPath: try devnetLedgerPath(backend), set: set) {
            print("\(rate.currency) \(rate.btcPrice)")
        }
    }
}
