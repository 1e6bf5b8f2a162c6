import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// A single private key's coins — at each of its addresses, and an old uncompressed key's —
/// swept into the wallet in one payment a real Litecoin Core accepts; bad keys refused in words
/// that never repeat them.
@Suite struct SweepTests {
    @Test func everyCoinOfAKeyIsSweptIntoTheWallet() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let network = wallet.onChain.account.network

        // The node's own key (WIF, as `dumpprivkey` writes it) and its four addresses, each paid.
        let nodeAddress = try await node.rpc.call("getnewaddress", ["", "bech32"]) as! String
        let wif = try await node.rpc.call("dumpprivkey", [nodeAddress]) as! String
        let key = try SingleKey(wif: SecretBytes(Array("  \(wif)\n".utf8)), network: network)
        #expect("\(key)" == "<redacted>" && key.compressed)
        let outputs = try key.outputs()
        #expect(outputs.count == 4 && outputs.first { $0.kind == .nativeSegwit }?.script.address(on: network) == nodeAddress)
        for (i, output) in outputs.enumerated() { _ = try await node.pay(output.script.address(on: network), UInt64(1_000_000 * (i + 1))) }
        try await node.mine(1)

        let plan = try await wallet.onChain.planSweep(key, feeRate: try FeeRate(2))
        #expect(plan.coins.count == 4 && Set(plan.coins.map(\.kind)) == Set(ScriptKind.allCases))
        #expect(try plan.destination == wallet.onChain.nextReceiveAddress().address)
        #expect(plan.amount.value + plan.fee.value == 10_000_000)
        let txid = try await wallet.onChain.sweep(plan, key: key)
        let entry = try await node.rpc.call("getmempoolentry", [txid.description]) as! [String: Any]
        let fees = entry["fees"] as! [String: Any]
        #expect(UInt64(((fees["base"] as! Double) * 100_000_000).rounded()) == plan.fee.value)
        #expect((entry["vsize"] as! Int) <= plan.vsize)
        #expect(try wallet.onChain.ledger().unconfirmed == plan.amount)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        #expect(try wallet.onChain.ledger().confirmed == plan.amount)
        // Nothing left at the key: said so.
        await #expect(throws: OnChainError.self) { _ = try await wallet.onChain.planSweep(key, feeRate: try FeeRate(2)) }

        // An uncompressed key (an old paper wallet): its legacy address alone.
        let secret = (0..<32).map { UInt8($0 + 1) }
        let old = try SingleKey(wif: SecretBytes(Array(Base58.encodeCheck([0xEF] + secret).utf8)), network: network)
        #expect(try !old.compressed && old.outputs().map(\.kind) == [.legacy])
        let oldAddress = try #require(try old.outputs().first).script.address(on: network)
        let validated = try await node.rpc.call("validateaddress", [oldAddress]) as! [String: Any]
        #expect(validated["isvalid"] as? Bool == true)
        _ = try await node.pay(oldAddress, 2_000_000)
        try await node.mine(1)
        let oldPlan = try await wallet.onChain.planSweep(old, feeRate: try FeeRate(3))
        #expect(oldPlan.coins.count == 1 && oldPlan.coins[0].kind == .legacy)
        let oldTxid = try await wallet.onChain.sweep(oldPlan, key: old)
        #expect(try await node.mempool().contains(oldTxid.description))
    }

    @Test func keysThatDoNotReadAreRefusedWithoutBeingRepeated() throws {
        let regtest = OnChainNetwork(coin: .litecoin, kind: .regtest)
        let secret = [UInt8](repeating: 7, count: 32)
        let mainnetKey = Base58.encodeCheck([0xB0] + secret + [0x01])
        for (text, words) in [("not a key at all", "holds no private key in WIF"),
                              (mainnetKey, "this is a key of Litecoin; this account is on Litecoin regtest"),
                              (Base58.encodeCheck([0xEF] + secret + [0x02]), "holds no WIF private key"),
                              (Base58.encodeCheck([0xEF] + [UInt8](repeating: 0xFF, count: 32) + [0x01]), "not a valid private key")] {
            do {
                _ = try SingleKey(wif: SecretBytes(Array(text.utf8)), network: regtest)
                Issue.record("\(words): read")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
                #expect(!"\(error)".contains(text), "the key was repeated")
            }
        }
        #expect(try SingleKey(wif: SecretBytes(Array(mainnetKey.utf8)), network: OnChainNetwork(coin: .litecoin, kind: .main)).compressed)
    }
}
