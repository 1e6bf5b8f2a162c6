import Foundation
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import Testing

/// Stuck is never final: a replacement (BIP125) the node's mempool accepts in the original's
/// place, and a child that pays for its parent (CPFP).
@Suite struct SpeedUpTests {
    static func litoshi(_ coins: Any?) -> UInt64 { UInt64(((coins as? Double ?? -1) * 100_000_000).rounded()) }

    @Test func aBumpReplacesThePaymentInTheMempool() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, 40_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let payee = try await node.newAddress()
        let (first, original, _) = try await wallet.send(to: payee, .exact(Sats(10_000_000)), feeRate: 1)

        let plan = try wallet.onChain.planBump(original, feeRate: try FeeRate(12))
        #expect(plan.replaces == original && plan.amount == Sats(10_000_000) && plan.fee > first.fee)
        #expect(plan.inputs.map(\.outpoint) == first.inputs.map(\.outpoint))
        let replacement = try wallet.onChain.sign(plan, keys: wallet.keys)
        let txid = try await wallet.onChain.broadcast(replacement, replacing: original)
        let pool = try await node.mempool()
        #expect(pool.contains(txid.description) && !pool.contains(original.description))
        let entry = try await node.rpc.call("getmempoolentry", [txid.description]) as! [String: Any]
        #expect(Self.litoshi((entry["fees"] as! [String: Any])["base"]) == plan.fee.value)
        #expect(plan.fee.value >= 12 * UInt64(replacement.vsize))
        // The wallet shows the replacement alone, at once and after a sync.
        for _ in 0..<2 {
            let ledger = try wallet.onChain.ledger()
            #expect(ledger.payments.map(\.txid).contains(txid) && !ledger.payments.map(\.txid).contains(original))
            #expect(ledger.unconfirmed.value == 40_000_000 - 10_000_000 - plan.fee.value)
            _ = try await wallet.onChain.sync()
        }
        // A confirmed payment, or one that is not the wallet's, is not bumped.
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        #expect(try await node.received(payee) == 10_000_000)
        #expect(throws: OnChainError.self) { try wallet.onChain.planBump(txid, feeRate: try FeeRate(20)) }
    }

    @Test func aBumpNeverCancelsALaterPaymentOnItsChange() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, 40_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let (_, first, _) = try await wallet.send(to: try await node.newAddress(), .exact(Sats(10_000_000)), feeRate: 1)
        // The second payment can only use the first one's unconfirmed change.
        let (_, second, _) = try await wallet.send(to: try await node.newAddress(), .exact(Sats(5_000_000)), feeRate: 1)
        let refusal = try #require(throws: OnChainError.self) { try wallet.onChain.planBump(first, feeRate: try FeeRate(20)) }
        #expect(refusal.description.contains("spends payment \(first)'s change"))
        // The later one can be bumped, and both stay in the mempool.
        let plan = try wallet.onChain.planBump(second, feeRate: try FeeRate(20))
        let txid = try await wallet.onChain.broadcast(try wallet.onChain.sign(plan, keys: wallet.keys), replacing: second)
        let pool = try await node.mempool()
        #expect(pool.contains(first.description) && pool.contains(txid.description) && !pool.contains(second.description))
    }

    @Test func aChildPaysForAnIncomingParent() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let parent = try #require(Txid(try await node.pay(try wallet.onChain.nextReceiveAddress().address, 25_000_000)))
        _ = try await wallet.onChain.sync()
        #expect(throws: OnChainError.self) { try wallet.onChain.planBump(parent, feeRate: try FeeRate(20)) }

        let plan = try await wallet.onChain.planChildPays(for: parent, feeRate: try FeeRate(25))
        #expect(plan.speedsUp == parent && plan.inputs.count == 1 && plan.inputs[0].outpoint.txid == parent)
        let child = try wallet.onChain.sign(plan, keys: wallet.keys)
        let txid = try await wallet.onChain.broadcast(child)
        // Together, parent and child pay at least 25 per vbyte.
        let entry = try await node.rpc.call("getmempoolentry", [txid.description]) as! [String: Any]
        let ancestorFees = Self.litoshi((entry["fees"] as! [String: Any])["ancestor"])
        let ancestorSize = try #require(entry["ancestorsize"] as? Int)
        #expect(ancestorFees >= 25 * UInt64(ancestorSize))
        #expect(Self.litoshi((entry["fees"] as! [String: Any])["base"]) == plan.fee.value)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let ledger = try wallet.onChain.ledger()
        #expect(ledger.confirmed.value == 25_000_000 - plan.fee.value && ledger.coins.count == 1)
        #expect(ledger.coins.first?.place.keychain == .change)
    }
}
