import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The on-chain wallet against a real Litecoin Core on regtest: what arrives is seen, what is
/// sent arrives, the fee is the one shown, and the chain's changes (reorgs) are followed.
@Suite struct OnChainRegtestTests {
    @Test func receiveSeeItArriveSpendItFeeExact() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let (address, index) = try wallet.onChain.nextReceiveAddress()
        #expect(address.hasPrefix("rltc1q") && index == 0)
        let funding = try await node.pay(address, 150_000_000)

        // Unconfirmed at once, then confirmed.
        _ = try await wallet.onChain.sync()
        var ledger = try wallet.onChain.ledger()
        #expect(ledger.unconfirmed == Sats(150_000_000) && ledger.confirmed == .zero)
        #expect(try wallet.onChain.nextReceiveAddress().index == 1)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        ledger = try wallet.onChain.ledger()
        #expect(ledger.confirmed == Sats(150_000_000) && ledger.unconfirmed == .zero)
        #expect(ledger.payments.map(\.txid.description) == [funding])
        #expect(ledger.payments.first?.confirmations == 1 && ledger.payments.first?.amount == 150_000_000)

        // Send: the node's mempool holds it with the fee the plan showed.
        let payee = try await node.newAddress()
        let (plan, txid, transaction) = try await wallet.send(to: payee, .exact(Sats(50_000_000)), feeRate: 3)
        let total = try Sats(50_000_000) + plan.fee
        let feeAtThree = try FeeRate(3).fee(weight: plan.vsize * 4)
        #expect(plan.change != nil && plan.total == total)
        #expect(transaction.vsize <= plan.vsize && plan.fee == feeAtThree)
        let entry = try await node.rpc.call("getmempoolentry", [txid.description]) as! [String: Any]
        let fees = entry["fees"] as! [String: Any]
        #expect(UInt64(((fees["base"] as! Double) * 100_000_000).rounded()) == plan.fee.value)
        #expect(entry["vsize"] as? Int == transaction.vsize)
        let decoded = try await node.rpc.call("decoderawtransaction", [hexString(transaction.serialized())]) as! [String: Any]
        #expect(decoded["txid"] as? String == txid.description)
        #expect((decoded["vin"] as! [[String: Any]]).allSatisfy { ($0["sequence"] as? Int) == 0xFFFF_FFFD })
        // The wallet's own change counts at once (unconfirmed), the coin it spent no longer.
        ledger = try wallet.onChain.ledger()
        #expect(ledger.confirmed == .zero && ledger.unconfirmed == plan.change)

        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        ledger = try wallet.onChain.ledger()
        #expect(try await node.received(payee) == 50_000_000)
        #expect(ledger.confirmed.value == 150_000_000 - 50_000_000 - plan.fee.value)
        let sent = try #require(ledger.payments.first)
        #expect(sent.txid == txid && sent.amount == -Int64(50_000_000 + plan.fee.value) && sent.fee == plan.fee && sent.confirmations == 1)
        #expect(ledger.payments.count == 2)
    }

    @Test func sendAllLeavesNothingAndBoundsAreKept() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        for amount: UInt64 in [30_000_000, 20_000_000, 12_345] {
            _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, amount)
            _ = try await wallet.onChain.sync()
        }
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let payee = try await node.newAddress()

        // Dust: Litecoin Core's 30 litoshi/vB dust rate makes 2,940 the smallest P2WPKH output.
        #expect(throws: OnChainError.dust(amount: Sats(2_939), minimum: Sats(2_940), unit: "litoshi")) {
            try wallet.onChain.plan(to: payee, amount: .exact(Sats(2_939)), feeRate: try FeeRate(1))
        }
        // Needed: the amount and the fee of spending all three coins (42 + 124 + 3 × 272 weight units = 246 vB at 1/vB).
        #expect(throws: OnChainError.insufficientFunds(needed: Sats(60_000_246), available: Sats(50_012_345), unit: "litoshi")) {
            try wallet.onChain.plan(to: payee, amount: .exact(Sats(60_000_000)), feeRate: try FeeRate(1))
        }
        for rate: UInt64 in [0, 10_001] { #expect(throws: OnChainError.feeRateOutOfRange(rate)) { try FeeRate(rate) } }
        // Another network's address: refused before anything is built.
        #expect(throws: OnChainError.self) { try wallet.onChain.plan(to: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", amount: .all, feeRate: try FeeRate(1)) }

        let (plan, txid, _) = try await wallet.send(to: payee, .all, feeRate: 5)
        #expect(plan.change == nil && plan.inputs.count == 3 && plan.amount.value == 50_012_345 - plan.fee.value)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let ledger = try wallet.onChain.ledger()
        #expect(ledger.coins.isEmpty && ledger.confirmed == .zero && ledger.unconfirmed == .zero)
        #expect(try await node.received(payee) == plan.amount.value)
        #expect(ledger.payments.first?.txid == txid)
    }

    @Test func gapLimitAndRestoreFromTheWords() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let account = wallet.onChain.account
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 19)), 1_000_000)
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 45)), 2_000_000)
        try await node.mine(1)

        // Index 19 is inside the first window of 20; 45 is past 19 + 1 + 20.
        _ = try await wallet.onChain.sync()
        #expect(try wallet.onChain.ledger().confirmed == Sats(1_000_000))
        #expect(try wallet.onChain.nextReceiveAddress().index == 20)

        // A wider gap reads the chain again and finds it.
        _ = try await OnChainWallet.connect(wallet: wallet.summary, coin: .litecoin, source: node.rpc, node: {
            NodeSettings(kind: .core, location: node.url, auth: .cookieFile(node.cookie), chain: $0, gapLimit: 30)
        }, store: wallet.store)
        let wider = try OnChainWallet.open(wallet.summary, coin: .litecoin, store: wallet.store)
        _ = try await wider.sync()
        #expect(try wider.ledger().confirmed == Sats(3_000_000))

        // Restored from the words in another store: the same coins and history after a sync.
        let restored = try await RegtestWallet(node: node, gapLimit: 30)
        _ = try await restored.onChain.sync()
        let a = try restored.onChain.ledger(), b = try wider.ledger()
        #expect(Set(a.payments.map(\.txid)) == Set(b.payments.map(\.txid)))
        #expect(a.confirmed == b.confirmed && a.coins.map(\.outpoint).sorted { $0.description < $1.description } == b.coins.map(\.outpoint).sorted { $0.description < $1.description })
    }

    /// A first sync from the node's coin set (what a long chain gets): the same coins and
    /// balance as reading every block, a coin far past the window found, change of a payment made
    /// before included; then blocks from the tip on, as any sync.
    @Test func aFirstSyncFromTheNodesCoinSetFindsTheSameCoins() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let account = wallet.onChain.account
        let spentLater = try await node.pay(try account.address(at: KeyPlace(.receive, 0)), 50_000_000)
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 3)), 7_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync(firstScan: .everyBlock)
        _ = try await wallet.send(to: try await node.newAddress(), .exact(Sats(20_000_000)))
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        // Far past any gap window (reading every block misses it): the scan of the coin set looks
        // at the first thousand keys of each keychain.
        let far = try await node.pay(try account.address(at: KeyPlace(.receive, 400)), 1_000_000)
        try await node.mine(1)
        let full = try await RegtestWallet(node: node)
        _ = try await full.onChain.sync(firstScan: .everyBlock)

        let fresh = try await RegtestWallet(node: node)
        let summary = try await fresh.onChain.sync(firstScan: .coinSet)
        #expect(summary.fromCoinSet && summary.blocksRead == 0)
        let a = try fresh.onChain.ledger(), b = try wallet.onChain.ledger()
        _ = try await wallet.onChain.sync()
        let held = try wallet.onChain.ledger()
        #expect(a.confirmed == (try held.confirmed + Sats(1_000_000)), "\(a.confirmed) vs \(held.confirmed); every block: \(b.confirmed)")
        #expect(Set(a.coins.map(\.outpoint)) == Set(held.coins.map(\.outpoint) + [OutPoint(hash: try #require(Txid(far)).hash, vout: a.coins.first { $0.outpoint.txid.description == far }?.outpoint.vout ?? 9)]))
        #expect(try fresh.onChain.nextReceiveAddress().index == 401)
        // Only where coins are: the funding that a payment spent is not in the history.
        let everyBlock = try full.onChain.ledger()
        #expect(everyBlock.payments.contains { $0.txid.description == spentLater } && !a.payments.contains { $0.txid.description == spentLater })
        // Then as any sync: a new payment found from the next block on.
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 401)), 2_000_000)
        try await node.mine(1)
        let next = try await fresh.onChain.sync()
        #expect(!next.fromCoinSet && (1...2).contains(next.blocksRead), "\(next)")
        #expect(try fresh.onChain.ledger().confirmed == (try held.confirmed + Sats(3_000_000)))
    }

    /// Confirmed coins pay first: a second payment takes a confirmed coin, not the first's
    /// unconfirmed change — which it takes only when nothing confirmed is left.
    @Test func confirmedCoinsPayFirst() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let account = wallet.onChain.account
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 0)), 40_000_000)
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 1)), 40_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        _ = try await wallet.send(to: try await node.newAddress(), .exact(Sats(10_000_000)))
        let second = try wallet.onChain.plan(to: try await node.newAddress(), amount: .exact(Sats(5_000_000)), feeRate: try FeeRate(2))
        #expect(second.inputs.allSatisfy { $0.confirmations > 0 }, "\(second.inputs)")
        _ = try await wallet.onChain.broadcast(try wallet.onChain.sign(second, keys: wallet.keys))
        let third = try wallet.onChain.plan(to: try await node.newAddress(), amount: .exact(Sats(5_000_000)), feeRate: try FeeRate(2))
        #expect(third.inputs.allSatisfy { $0.confirmations == 0 && $0.fromSelf }, "only change is left: \(third.inputs)")
    }

    /// Two payments planned from the same coin (two PSBTs of it, say): the second is refused in
    /// words naming why, not the node's "rejecting replacement".
    @Test func aCoinSpentByAnEarlierPaymentIsSaidSo() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, 40_000_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let first = try wallet.onChain.plan(to: try await node.newAddress(), amount: .exact(Sats(10_000_000)), feeRate: try FeeRate(2))
        let second = try wallet.onChain.plan(to: try await node.newAddress(), amount: .exact(Sats(10_000_000)), feeRate: try FeeRate(2))
        _ = try await wallet.onChain.broadcast(try wallet.onChain.sign(first, keys: wallet.keys))
        let signed = try wallet.onChain.sign(second, keys: wallet.keys)
        await #expect(throws: OnChainError.unsupported("a coin it spends is already spent by another payment (an earlier one, or another PSBT of the same coins); nothing was sent — sync, then make it again")) {
            try await wallet.onChain.broadcast(signed)
        }
    }

    @Test func aKeyPaidBeforeTheWindowReachedItIsFound() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let account = wallet.onChain.account
        // Index 30 is paid first, outside the first window (0…19); index 15, paid later, moves the window past it.
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 30)), 3_000_000)
        try await node.mine(1)
        _ = try await node.pay(try account.address(at: KeyPlace(.receive, 15)), 1_500_000)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        #expect(try wallet.onChain.ledger().confirmed == Sats(4_500_000))
        #expect(try wallet.onChain.nextReceiveAddress().index == 31)
    }

    @Test func aReorgTakesConfirmationsBack() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let txid = try await node.pay(try wallet.onChain.nextReceiveAddress().address, 7_000_000)
        let block = try #require(try await node.mine(1).first)
        try await node.mine(2)
        _ = try await wallet.onChain.sync()
        #expect(try wallet.onChain.ledger().payments.first?.confirmations == 3)

        // The block that held it disappears: the transaction is back in the mempool, unconfirmed.
        _ = try await node.rpc.call("invalidateblock", [block])
        let summary = try await wallet.onChain.sync()
        #expect(summary.reorgedBlocks == 3)
        var ledger = try wallet.onChain.ledger()
        #expect(ledger.payments.first?.txid.description == txid && ledger.payments.first?.confirmations == 0)
        #expect(ledger.confirmed == .zero && ledger.unconfirmed == Sats(7_000_000))

        // A longer chain confirms it again, in another block.
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        ledger = try wallet.onChain.ledger()
        #expect(ledger.confirmed == Sats(7_000_000) && ledger.payments.first?.confirmations == 1)

        // Gone for good: the block comes back (its chain is longer now), the other copy of the chain goes.
        _ = try await node.rpc.call("reconsiderblock", [block])
        _ = try await wallet.onChain.sync()
        ledger = try wallet.onChain.ledger()
        #expect(ledger.confirmed == Sats(7_000_000) && ledger.payments.count == 1)
    }

    @Test func aNodeOfAnotherNetworkOrCoinIsRefusedAndNothingSaved() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        let (store, keyring) = try newStore()
        let mainnet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "main", network: .mainnet, keyring: keyring)
        let refusal = try await #require(throws: OnChainError.self) {
            try await OnChainWallet.connect(wallet: mainnet, coin: .litecoin, source: node.rpc, node: {
                NodeSettings(kind: .core, location: node.url, auth: .cookieFile(node.cookie), chain: $0, gapLimit: 20)
            }, store: store)
        }
        #expect(refusal.description == "the node at \(node.url) is on Litecoin regtest, but this account is on Litecoin: nothing was read from it")
        #expect(try OnChainWallet.savedNode(wallet: mainnet, coin: .litecoin, store: store) == nil)
        let testnet = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "test", network: .testnet, keyring: keyring)
        await #expect(throws: OnChainError.nodeOnWrongNetwork(url: node.url, nodeSays: "Litecoin regtest", account: "Bitcoin's test networks")) {
            try await OnChainWallet.connect(wallet: testnet, coin: .bitcoin, source: node.rpc, node: {
                NodeSettings(kind: .core, location: node.url, auth: .cookieFile(node.cookie), chain: $0, gapLimit: 20)
            }, store: store)
        }
        #expect(try OnChainWallet.savedNode(wallet: testnet, coin: .bitcoin, store: store) == nil)
        // A wrong cookie is a refused login, named.
        let wrongCookie = temporaryFolder("cookie")
        try Data("__cookie__:wrong".utf8).write(to: wrongCookie)
        let rpc = try CoreRPC(url: node.url, auth: .cookieFile(wrongCookie.path))
        await #expect(throws: OnChainError.nodeUnreachable(url: node.url, why: "it refused the login (check the cookie or credentials file)")) { try await rpc.tip() }
    }
}
