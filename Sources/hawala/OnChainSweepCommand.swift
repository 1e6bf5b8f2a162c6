import ArgumentParser
import Foundation
import HawalaLightning
import HawalaOnChain
import HawalaText

/// `hawala onchain sweep`: every coin of a single private key moved into the wallet.
struct OnChainSweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep", abstract: "Move every coin of a single private key (a paper wallet, another wallet's export) into this wallet.",
        discussion: """
            The key (WIF) is read from --key-file (- for standard input), never from the command \
            line, and kept nowhere: its coins go to this wallet's next receive address in one \
            payment, the fee taken from them. Its native SegWit, nested SegWit, legacy and Taproot \
            addresses are all looked at. Through a node, only confirmed coins are found. Needs no \
            wallet password.
            """)
    @OptionGroup var target: OnChainTarget
    @Option(help: "bitcoin or litecoin.") var chain: Coin
    @Option(name: .customLong("key-file"), help: ArgumentHelp("A file holding the private key in WIF (- for standard input).", valueName: "path")) var keyFile: String
    @Option(name: .customLong("fee-rate"), help: "Fee rate in base units per virtual byte.") var feeRate: UInt64?
    @Option(help: "fast, normal or slow (default normal).") var speed: Speed?
    @Flag(help: "Sweep without asking.") var yes = false
    @Flag(help: "JSON output: {txid, amountSats, feeSats, coins}.") var json = false

    func validate() throws {
        guard feeRate == nil || speed == nil else { throw ValidationError("give one of --fee-rate or --speed") }
    }

    func run() async throws {
        let wallet = try target.open(chain)
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the sweep; pass --yes to sweep without asking", code: .usage) }
        let key = try SingleKey(wif: try Input.readSecretFile(keyFile, what: "key"), network: wallet.account.network)
        let chosen = try await wallet.feeRate(feeRate.map(FeeChoice.custom) ?? .speed(speed ?? .normal))
        let plan = try await wallet.planSweep(key, feeRate: chosen.rate)
        let preview = ["Sweep a key into this wallet on \(wallet.account.network)"] + alignedRows(plan.previewRows(chain.text)) + (chosen.note.map { ["  " + $0] } ?? [])
        if yes {
            for line in preview { Output.error(line) }
        } else {
            let terminal = try Terminal.required("pass --yes")
            for line in preview { terminal.line(line) }
            guard try terminal.confirm("Move \(chain.text(plan.amount)) into this wallet?") else { throw CLIError("nothing was swept") }
        }
        let txid = try await wallet.sweep(plan, key: key)
        if json {
            JSONValue.object([("txid", .string(txid.description)), ("amountSats", .int(Int(plan.amount.value))), ("feeSats", .int(Int(plan.fee.value))),
                              ("coins", .int(plan.coins.count))]).print()
        } else {
            print("swept: \(txid)")
        }
    }
}
