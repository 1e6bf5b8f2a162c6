import ArgumentParser
import Foundation
import HawalaLightning
import HawalaText
import HawalaWallet

// `hawala ln exit check|prepare|run`: leaving Spark without the operators, with the exit state
// the wallet keeps (and its backups carry).

struct LightningExit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit", abstract: "Leave Lightning without the operators: check, plan, run (needs the wallet password).",
        discussion: """
            A Spark wallet's funds can be put on-chain without the Spark operators, with the \
            wallet's words and its exit state. Hawala keeps that state sealed in the wallet at \
            every command that unlocks it and whenever it changes, and every backup (`.hawala` \
            file, vault) carries it: on a new device, restore the words and the backup, and `ln \
            exit check` answers without the operators. `check` says whether the wallet can leave now and what it would cost; \
            `prepare` plans it to an address; `run` builds the transactions, printed in the order \
            they are broadcast. Exit codes: 0 yes / done, 1 no or refused.
            """,
        subcommands: [LightningExitCheck.self, LightningExitPrepare.self, LightningExitRun.self],
        defaultSubcommand: LightningExitCheck.self)
}

/// What `check`, `prepare` and `run` share: the fee rate and where the funds go.
struct ExitOptions: ParsableArguments {
    @Option(name: .customLong("fee-rate"), help: "The fee rate, sat/vB (default: the network's fast rate).") var feeRate: UInt64?
    @Option(help: "The Bitcoin address the funds go to (default: the wallet's own first Bitcoin receive address).") var to: String?

    func validate() throws {
        if let feeRate, !PaymentLimits.feeRates.contains(feeRate) { throw ValidationError("--fee-rate: \(PaymentLimit.feeRate)") }
    }
}

/// The rows a person reads about a kept state and a plan (the library's words).
func exitRows(_ kept: KeptExitState?, _ plan: ExitPlan?) -> [(label: String, value: String)] {
    (kept.map { [("kept state", $0.summary())] } ?? []) + (plan?.summaryRows ?? [])
}

struct LightningExitCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Can this wallet leave now without the operators, at what cost, with how old a state.",
        discussion: """
            Exit status: 0 when the wallet can leave now; 1 when it can't (nothing to take out,             no kept state, funding Hawala can't sign: the headline says which) or the check             failed; 2 for a usage error. JSON: {canExit, stale, headline, kept, plan, problem}             (docs/reference.md).
            """)
    @OptionGroup var options: LightningOptions
    @OptionGroup var exit: ExitOptions
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let check = try await options.open(signing: true).closing { session in
            await session.exitCheck(satPerVbyte: exit.feeRate, destination: exit.to)
        }
        if json { check.json.print() } else {
            print(check.headline)
            for line in alignedRows(exitRows(check.kept, check.plan)) { print(line) }
            if check.isStale { Output.error("note: the kept state is over a week old; sync once (`hawala ln balance`) to keep a fresh one") }
        }
        if !check.canExit { throw ExitCode(1) }
    }
}

struct LightningExitPrepare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare", abstract: "Plan leaving with the kept exit state: what is recovered, the fees, what arrives (nothing is sent).",
        discussion: "JSON: the plan {recoverableSat, feeSat, fundingSat, receivedSat, satPerVbyte, destination, leaves, skipped}.")
    @OptionGroup var options: LightningOptions
    @OptionGroup var exit: ExitOptions
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let plan = try await options.open(signing: true).closing { session in
            try await session.prepareExit(satPerVbyte: exit.feeRate, destination: exit.to)
        }
        if json { plan.json.print(); return }
        for line in alignedRows(exitRows(nil, plan)) { print(line) }
        print("to leave: hawala ln exit run --to \(plan.destination) --fee-rate \(plan.satPerVbyte)")
    }
}

struct LightningExitRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Leave with the kept exit state: builds and signs the transactions, printed in broadcast order.",
        discussion: """
            Shows the plan and asks unless --yes. Each transaction is printed with its kind and \
            txid (and its hex, to broadcast with any Bitcoin node), in the order to broadcast \
            them; one that must wait says how many blocks after the one before. JSON: {plan, \
            transactions: [{kind, txid, hex, waitBlocks}]}.
            """)
    @OptionGroup var options: LightningOptions
    @OptionGroup var exit: ExitOptions
    @Flag(help: "Leave without asking.") var yes = false
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm; pass --yes to leave without asking", code: .usage) }
        let (plan, transactions) = try await options.open(signing: true).closing { session in
            let plan = try await session.prepareExit(satPerVbyte: exit.feeRate, destination: exit.to)
            if let refusal = plan.refusal { throw refusal }
            let rows = exitRows(nil, plan)
            if yes {
                for line in alignedRows(rows) { Output.error(line) }
            } else {
                let terminal = try Terminal.required("pass --yes")
                for line in alignedRows(rows) { terminal.line(line) }
                guard try terminal.confirm("Take \(AmountText.sats(plan.recoverableSat)) out of Lightning to \(plan.destination), without the operators?") else {
                    throw CLIError("nothing was done")
                }
            }
            return (plan, try await session.runExit(plan))
        }
        if json {
            JSONValue.object([("plan", plan.json), ("transactions", .array(transactions.map(\.json)))]).print()
            return
        }
        // Devnet's exit is on its test chain already (no hex to broadcast); Spark's is built only.
        let sent = !transactions.isEmpty && transactions.allSatisfy { $0.hex == nil }
        print(sent ? "sent on the test chain, in this order (`hawala ln devnet mine` confirms them):" : "broadcast in this order, each when its wait is over:")
        for (n, tx) in transactions.enumerated() {
            let wait = tx.waitBlocks.map { $0 > 0 ? " (after \($0) blocks)" : "" } ?? ""
            print("\(n + 1). \(tx.kind)  \(tx.txid)\(wait)")
            if let hex = tx.hex { print("   \(hex)") }
        }
    }
}
