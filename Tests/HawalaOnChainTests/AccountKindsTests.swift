import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// Taproot (BIP86), nested SegWit (BIP49) and legacy (BIP44) accounts beside the native SegWit
/// one: what arrives on any of them is seen, and one payment spends them all — accepted by a
/// real Litecoin Core on regtest, which checks every signature (Schnorr for Taproot).
@Suite struct AccountKindsTests {
    /// The testnet wallet's accounts of every kind on Litecoin regtest (Hawala gives these kinds
    /// on Bitcoin mainnet only; the engine is the same for every coin and network).
    static func everyKind(_ wallet: RegtestWallet) throws -> OnChainAccount {
        let master = try wallet.keys.masterKey()
        let primary = wallet.onChain.account
        let others: [(ScriptKind, Chain, String)] = [(.taproot, .bitcoinTaproot, "m/86'/1'/0'"), (.nestedSegwit, .bitcoinNestedSegwit, "m/49'/1'/0'"),
                                                     (.legacy, .bitcoinLegacy, "m/44'/1'/0'")]
        let branches = try [primary.branches[0]] + others.map { kind, chain, path in
            try OnChainAccount.Branch(kind: kind, chain: chain, path: try DerivationPath(path), accountKey: try master.derive(path: try DerivationPath(path)).publicKey)
        }
        return try OnChainAccount(walletID: primary.walletID, walletName: primary.walletName, network: primary.network, branches: branches)
    }

    @Test func everyKindIsSeenAndOnePaymentSpendsThemAll() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        let account = try Self.everyKind(wallet)
        let onChain = OnChainWallet(account: account, node: wallet.onChain.node, walletStore: wallet.store, source: node.rpc)

        // A node without tr() descriptors (Litecoin Core 0.21, Bitcoin Core before 22) can't scan
        // its coin set for Taproot coins: said so, nothing kept.
        do {
            _ = try await onChain.sync(firstScan: .coinSet)
            Issue.record("a coin-set scan without Taproot went through")
        } catch {
            #expect("\(error)".contains("tr() descriptors need Bitcoin Core 22 or later"), "\(error)")
        }

        var paid: [ScriptKind: UInt64] = [:]
        for (i, kind) in ScriptKind.allCases.enumerated() {
            let (address, index) = try onChain.nextReceiveAddress(kind: kind)
            #expect(index == 0)
            // The node derives the same address from the account's descriptor (it has no tr()
            // descriptors: Litecoin Core 0.21; the Taproot address is checked by BIP86's vectors).
            if kind != .taproot {
                let derived = try await node.rpc.call("deriveaddresses", [try account.descriptor(.receive, fingerprint: "73c5da0a", kind: kind), [0, 0]]) as! [String]
                #expect(derived == [address], "\(kind)")
            }
            let info = try await node.rpc.call("validateaddress", [address]) as! [String: Any]
            #expect(info["isvalid"] as? Bool == true && (info["witness_version"] as? Int) == (kind == .taproot ? 1 : kind == .nativeSegwit ? 0 : nil), "\(kind) \(info)")
            paid[kind] = UInt64(10_000_000 * (i + 1))
            _ = try await node.pay(address, paid[kind]!)
        }
        try await node.mine(1)
        _ = try await onChain.sync(firstScan: .everyBlock)
        var ledger = try onChain.ledger()
        #expect(ledger.confirmed == Sats(100_000_000))
        #expect(Set(ledger.coins.map(\.place.kind)) == Set(ScriptKind.allCases))
        for kind in ScriptKind.allCases { #expect(try onChain.nextReceiveAddress(kind: kind).index == 1, "\(kind)") }
        // The native SegWit account alone sees only its own coin.
        #expect(try wallet.onChain.ledger().confirmed == Sats(paid[.nativeSegwit]!))

        // A PSBT carries native SegWit coins only: planned from them, and said so when they can't pay.
        let payee = try await node.newAddress()
        #expect(try onChain.psbtPlan(to: payee, amount: .exact(Sats(5_000_000)), feeRate: try FeeRate(2)).inputs.allSatisfy { $0.place.kind == .nativeSegwit })
        do {
            _ = try onChain.psbtPlan(to: payee, amount: .exact(Sats(15_000_000)), feeRate: try FeeRate(2))
            Issue.record("a PSBT plan took coins of other kinds")
        } catch {
            #expect("\(error)".contains("a PSBT carries native SegWit coins only, and 90,000,000 litoshi more are in Taproot, legacy, nested SegWit coins"), "\(error)")
        }

        // A payment of part: the change goes to the native SegWit account.
        let part = try onChain.plan(to: payee, amount: .exact(Sats(95_000_000)), feeRate: try FeeRate(2))
        #expect(part.inputs.count == 4 && part.changePlace?.kind == .nativeSegwit)
        let signed = try onChain.sign(part, keys: try wallet.keys)
        #expect(signed.vsize <= part.vsize)
        let accepted = try await node.rpc.call("testmempoolaccept", [[hexString(signed.serialized())]]) as! [[String: Any]]
        #expect(accepted.first?["allowed"] as? Bool == true, "\(accepted)")

        // Everything, to the node: one transaction spending all four kinds, the fee the plan showed.
        let all = try onChain.plan(to: payee, amount: .all, feeRate: try FeeRate(3))
        let transaction = try onChain.sign(all, keys: try wallet.keys)
        let txid = try await onChain.broadcast(transaction)
        let entry = try await node.rpc.call("getmempoolentry", [txid.description]) as! [String: Any]
        let fees = entry["fees"] as! [String: Any]
        #expect(UInt64(((fees["base"] as! Double) * 100_000_000).rounded()) == all.fee.value)
        #expect(transaction.vsize <= all.vsize && all.vsize - transaction.vsize <= 4, "estimated \(all.vsize), signed \(transaction.vsize)")
        try await node.mine(1)
        _ = try await onChain.sync()
        ledger = try onChain.ledger()
        #expect(ledger.confirmed == .zero && ledger.coins.isEmpty)
        let received = try await node.received(payee)
        #expect(received == 100_000_000 - all.fee.value)
    }

    /// The wallet's Bitcoin accounts are the ones `hawala wallet receive` gives addresses for:
    /// the engine derives the same address at each kind's first index.
    @Test func theEngineGivesTheWalletsOwnAddresses() throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "main", network: .mainnet, keyring: keyring)
        let account = try OnChainAccount.of(wallet, coin: .bitcoin, kind: .main, store: store)
        #expect(account.kinds == [.nativeSegwit, .taproot, .nestedSegwit, .legacy])
        for branch in account.branches {
            let shown = try store.addresses(wallet: wallet, chain: branch.chain, count: 2, keyring: keyring).map(\.address)
            #expect(try [0, 1].map { try account.address(at: KeyPlace(.receive, UInt32($0), kind: branch.kind)) } == shown, "\(branch.kind)")
        }
        // BIP86's first receive address of the words "abandon … about".
        #expect(try account.address(at: KeyPlace(.receive, 0, kind: .taproot)) == "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr")
        #expect(try OnChainAccount.of(wallet, coin: .litecoin, kind: .main, store: store).kinds == [.nativeSegwit])
    }
}
