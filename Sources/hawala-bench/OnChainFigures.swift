import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaText
import HawalaWallet

/// Issue 49's on-chain figures, each beside its reference measured in the same run.
enum OnChainFigures {
    static func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

    /// Coin selection among 10,000 coins: p50 and p95 of 200 selections of random targets.
    static func selection() throws {
        var generator = SystemRandomNumberGenerator()
        let coins = (0..<10_000).map { n in
            SelectableCoin(outpoint: OutPoint(hash: Hash.sha256(Array(String(n).utf8)), vout: 0),
                           value: Sats(clamping: UInt64.random(in: 1_000...5_000_000, using: &generator)), inputWeight: 272)
        }
        var times: [Double] = []
        for _ in 0..<200 {
            let target = Sats(clamping: UInt64.random(in: 10_000...500_000_000, using: &generator))
            let selection = CoinSelection(baseWeight: 42 + 124, target: target, feeRate: try FeeRate(UInt64.random(in: 1...50)),
                                          longTermFeeRate: try FeeRate(10), changeOutputWeight: 124, changeSpendWeight: 272, dust: Sats(294))
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try selection.select(from: coins, unit: "sat")
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        print(String(format: "coin selection among 10,000 coins (200 runs)   p50 %.1f ms, p95 %.1f ms", percentile(times, 0.5), percentile(times, 0.95)))
    }

    /// A 100-input P2WPKH transaction signed as the wallet signs (each key derived from the seed,
    /// BIP143, low-S DER), against libsecp256k1 signing 100 digests with keys at hand.
    static func signing() throws {
        let keys = HDWallet(mnemonic: try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"))
        let account = try keys.masterKey().derive(path: DerivationPath("m/84'/1'/0'")).publicKey
        let onChain = try OnChainAccount(walletID: "bench", walletName: "bench", network: OnChainNetwork(coin: .bitcoin, kind: .regtest),
                                         path: DerivationPath("m/84'/1'/0'"), accountKey: account)
        let coins = try (0..<100).map { i -> OnChainCoin in
            let place = KeyPlace(.receive, UInt32(i))
            return OnChainCoin(outpoint: OutPoint(hash: Hash.sha256([UInt8(i)]), vout: 0), value: Sats(100_000), place: place,
                               script: try onChain.script(at: place).bytes, confirmations: 1, fromSelf: false, frozen: false)
        }
        let recipient = try onChain.script(at: KeyPlace(.receive, 1000))
        let weight = 42 + 100 * 272 + recipient.outputWeight + 2 * 4  // two more bytes of input count
        let fee = try FeeRate(1).fee(weight: weight)
        let plan = SendPlan(network: onChain.network, recipient: recipient.address(on: onChain.network), recipientScript: recipient,
                            amount: Sats(clamping: 10_000_000 - fee.value), fee: fee, feeRate: try FeeRate(1), change: nil, changePlace: nil,
                            inputs: coins, outputs: [TxOutput(value: 10_000_000 - fee.value, script: recipient.bytes)], vsize: (weight + 3) / 4)
        let runs = 20
        var start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<runs { _ = try onChain.signed(plan, keys: keys) }
        let ours = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(runs)
        let privateKeys = try coins.map { try keys.privateKey(at: try onChain.path(of: $0.place)) }
        let digests = (0..<100).map { Hash.sha256([UInt8($0), 1]) }
        start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<runs { for i in 0..<100 { _ = try Secp256k1.signDER(digest: digests[i], privateKey: privateKeys[i]) } }
        let reference = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(runs)
        print(String(format: "100-input transaction signed (keys derived)    %.1f ms; libsecp256k1's 100 signatures %.1f ms (ratio %.1f)",
                     ours, reference, ours / reference))
    }

    /// A first sync of 1,000 transactions over 1,000 regtest blocks against the node's own
    /// `scantxoutset` for the same descriptors, on a Litecoin Core node at `url`.
    static func sync(url: String, cookie: String) async throws {
        let rpc = try CoreRPC(url: url, auth: .cookieFile(cookie), timeout: .seconds(600))
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-bench-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = try WalletStore(home: WalletHome(directory: home), create: true)
        let keyring = try store.newKeyring(password: SecretBytes(utf8: "bench password 1"), parameters: KDFParameters(passes: 1, memoryKiB: 8192))
        let wallet = try store.add(mnemonic: try Mnemonic(text: "legal winner thank year wave sausage worth useful legal winner thank yellow"),
                                   passphrase: SecretBytes([]), name: "bench", network: .testnet, keyring: keyring)
        _ = try await rpc.call("createwallet", ["bench"])
        let miner = try await rpc.call("getnewaddress", ["", "bech32"]) as! String
        _ = try await rpc.call("generatetoaddress", [150, miner])
        let settings = { (chain: String) in NodeSettings(kind: .core, location: url, auth: .cookieFile(cookie), chain: chain, gapLimit: 20) }
        _ = try await OnChainWallet.connect(wallet: wallet, coin: .litecoin, source: rpc, node: settings, store: store)
        let onChain = try OnChainWallet.open(wallet, coin: .litecoin, store: store)
        FileHandle.standardError.write(Data("setting up 1,000 payments in 1,000 blocks…\n".utf8))
        for i in 0..<1000 {
            let address = try onChain.account.address(at: KeyPlace(.receive, UInt32(i)))
            _ = try await rpc.call("sendtoaddress", [address, 0.001])
            _ = try await rpc.call("generatetoaddress", [1, miner])
        }
        var start = DispatchTime.now().uptimeNanoseconds
        let summary = try await onChain.sync(firstScan: .everyBlock)
        let ours = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let ledger = try onChain.ledger()
        guard ledger.payments.count == 1000 else { throw OnChainError.badAnswer("the sync found \(ledger.payments.count) payments, not 1,000") }
        let descriptors: [[String: Any]] = try Keychain.allCases.map {
            ["desc": try onChain.account.descriptor($0, fingerprint: wallet.fingerprint), "range": 1100]
        }
        start = DispatchTime.now().uptimeNanoseconds
        let scan = try await rpc.call("scantxoutset", ["start", descriptors]) as? [String: Any]
        let reference = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let found = (scan?["unspents"] as? [Any])?.count ?? -1
        print(String(format: "first sync, 1,000 payments in %d blocks        %.2f s; node's scantxoutset (%d coins, no history) %.2f s (ratio %.1f)",
                     summary.blocksRead, ours, found, reference, ours / reference))
    }
}
