import Foundation
import HawalaCrypto
import HawalaKeys
@testable import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// Another program's PSBT that spends one of the wallet's coins beside its own (what the Spark
/// SDK hands its `CpfpSigner` for an exit's fee child): Hawala signs and finalizes only its coin's
/// input, the other program signs the rest, and Litecoin Core accepts the whole.
@Suite struct ForeignPSBTTests {
    @Test func onlyTheWalletsCoinIsSignedAndTheNodeAcceptsTheWhole() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, 30_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let ours = try #require(try wallet.onChain.ledger().coins.first)

        // The node's own coin beside ours, in a PSBT the node makes (no key origins of ours).
        let theirs = try #require((try await node.rpc.call("listunspent") as? [[String: Any]])?.first { ($0["amount"] as? Double ?? 0) >= 1 })
        let payee = try await node.newAddress()
        let theirValue = UInt64(((theirs["amount"] as! Double) * 100_000_000).rounded())
        let inputs: [[String: Any]] = [["txid": theirs["txid"] as! String, "vout": theirs["vout"] as! Int],
                                       ["txid": ours.outpoint.txid.description, "vout": Int(ours.outpoint.vout)]]
        let total = theirValue + ours.value.value - 10_000
        let created = try await node.rpc.call("createpsbt", [inputs, [[payee: Double(total) / 100_000_000]]]) as! String
        let processed = try await node.rpc.call("walletprocesspsbt", [created]) as! [String: Any]
        #expect(processed["complete"] as? Bool == false)
        let psbt = try PSBT(file: Array((processed["psbt"] as! String).utf8))

        // A coin that isn't in the PSBT: nothing signed. Ours: its input alone, final.
        let other = OnChainCoin(outpoint: OutPoint(hash: [UInt8](repeating: 9, count: 32), vout: 0), value: ours.value, place: ours.place, script: ours.script,
                                confirmations: 1, fromSelf: false, frozen: false)
        #expect(throws: OnChainError.self) { try wallet.onChain.signInputs(of: psbt, spending: [other], spendingAtMost: ours.value, keys: try wallet.keys) }
        // It pays all of our coin away: refused under a smaller limit, nothing signed.
        do {
            _ = try wallet.onChain.signInputs(of: psbt, spending: [ours], spendingAtMost: Sats(10_000), keys: try wallet.keys)
            Issue.record("a PSBT taking the whole coin was signed under a 10,000 limit")
        } catch {
            #expect("\(error)".contains("would take 30,000,000 litoshi of the wallet's coins, more than the 10,000"), "\(error)")
        }
        let (signed, count) = try wallet.onChain.signInputs(of: psbt, spending: [ours], spendingAtMost: ours.value, keys: try wallet.keys)
        #expect(count == 1)
        #expect(signed.inputs[0] == psbt.inputs[0], "the other program's input was changed")
        let finalized = try await node.rpc.call("finalizepsbt", [signed.base64]) as! [String: Any]
        #expect(finalized["complete"] as? Bool == true, "\(finalized)")
        let accepted = try await node.rpc.call("testmempoolaccept", [[finalized["hex"] as! String]]) as! [[String: Any]]
        #expect(accepted.first?["allowed"] as? Bool == true, "\(accepted)")

        // A file that lies about the coin's amount: refused, nothing signed.
        var lying = psbt
        lying.inputs[1].removeAll { $0.type == 0x01 }
        var value = ByteWriter()
        value.uint64(ours.value.value + 1)
        value.varBytes(ours.script)
        lying.inputs[1].append(PSBT.Pair(type: 0x01, keyData: [], value: value.data))
        #expect(throws: OnChainError.self) { try wallet.onChain.signInputs(of: lying, spending: [ours], spendingAtMost: ours.value, keys: try wallet.keys) }
    }
}
