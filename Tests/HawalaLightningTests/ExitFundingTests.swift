import HawalaCrypto
import HawalaKeys
import HawalaLightning
@testable import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// An exit that needs funding names the on-chain Bitcoin that could pay it, from what the
/// wallet's on-chain account last saw: nothing set up, too little, enough.
@Suite struct ExitFundingTests {
    @Test func namesTheOnChainBalanceThatCanPay() throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let needed = Sats(12_000)
        let none = ExitFunding.of(needed, wallet: wallet, store: store)
        #expect(none.confirmed == nil && !none.isEnough && none.words.contains("set up your Bitcoin node"))
        #expect(none.json.compact == #"{"neededSat":12000,"onChainSat":null,"enough":false}"#)

        let node = NodeSettings(kind: .core, location: "http://127.0.0.1:9", auth: .none, chain: "regtest", gapLimit: 20)
        let onChain = OnChainStore(store: store, walletID: wallet.id, coin: .bitcoin)
        try onChain.save(node)
        let short = ExitFunding.of(needed, wallet: wallet, store: store)
        #expect(short.confirmed == .zero && short.words.contains("12,000 sat short"), "\(short.words)")

        // A confirmed coin of 20,000 sat at the wallet's first Bitcoin address.
        let account = try OnChainWallet.open(wallet, coin: .bitcoin, store: store).account
        let coin = Transaction(inputs: [TxInput(prevout: OutPoint(hash: [UInt8](repeating: 7, count: 32), vout: 0), sequence: 0xFFFF_FFFD)],
                               outputs: [TxOutput(value: 20_000, script: try account.script(at: KeyPlace(.receive, 0)).bytes)])
        try onChain.commit(from: 0, blocks: [(1, String(repeating: "0", count: 64))],
                           transactions: [StoredTransaction(transaction: coin, height: 1, blockHash: String(repeating: "0", count: 64), seenAt: 0)], gone: [])
        let enough = ExitFunding.of(needed, wallet: wallet, store: store)
        #expect(enough.isEnough && enough.words == "one of your confirmed Bitcoin on-chain coins (20,000 sat) can pay it")
        // Frozen, it can't: said so, not "short".
        try OnChainWallet.open(wallet, coin: .bitcoin, store: store).setFrozen(OutPoint(hash: coin.txid.hash, vout: 0), true)
        let frozen = ExitFunding.of(needed, wallet: wallet, store: store)
        #expect(!frozen.isEnough && frozen.words.contains("no single coin") && frozen.words.contains("unfreeze one"), "\(frozen.words)")
    }

    /// An exit that needs funding is paid from the smallest confirmed, unfrozen coin that
    /// covers it; its input in the backend's fee child is signed by the on-chain engine (a
    /// valid BIP143 signature of that coin's key), and nothing else is.
    @Test func theCoinThatPaysIsChosenAndItsInputSigned() async throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let onChain = OnChainStore(store: store, walletID: wallet.id, coin: .bitcoin)
        try onChain.save(NodeSettings(kind: .core, location: "http://127.0.0.1:9", auth: .none, chain: "regtest", gapLimit: 20))
        let account = try OnChainWallet.open(wallet, coin: .bitcoin, store: store).account
        let values: [UInt64] = [5_000, 20_000, 50_000]
        let funding = Transaction(inputs: [TxInput(prevout: OutPoint(hash: [UInt8](repeating: 7, count: 32), vout: 0), sequence: 0xFFFF_FFFD)],
                                  outputs: try values.enumerated().map { TxOutput(value: $0.element, script: try account.script(at: KeyPlace(.receive, UInt32($0.offset))).bytes) })
        let block = String(repeating: "0", count: 64)
        try onChain.commit(from: 0, blocks: [(1, block)], transactions: [StoredTransaction(transaction: funding, height: 1, blockHash: block, seenAt: 0)], gone: [])

        #expect(throws: ExitError.exitNeedsFunding(fundingSat: Sats(60_000))) { try ExitFunding.source(Sats(60_000), wallet: wallet, store: store, keyring: keyring) }
        let source = try ExitFunding.source(Sats(12_000), wallet: wallet, store: store, keyring: keyring)
        let chosen = try #require(source.coins.first)
        #expect(source.coins.count == 1 && chosen.txid == funding.txid.description && chosen.vout == 1 && chosen.valueSat == Sats(20_000))
        #expect(chosen.publicKeyHex == hexString(try account.publicKey(at: KeyPlace(.receive, 1)).compressed))
        // Frozen, it is passed over for the next that covers it.
        try OnChainWallet.open(wallet, coin: .bitcoin, store: store).setFrozen(OutPoint(hash: funding.txid.hash, vout: 1), true)
        #expect(try ExitFunding.source(Sats(12_000), wallet: wallet, store: store, keyring: keyring).coins.first?.vout == 2)

        // The backend's fee child: an anchor of its own and the chosen coin.
        let anchor = TxOutput(value: 240, script: [0x51, 0x02, 0x4e, 0x73])
        let child = Transaction(inputs: [TxInput(prevout: OutPoint(hash: [UInt8](repeating: 3, count: 32), vout: 0), sequence: 0xFFFF_FFFD),
                                         TxInput(prevout: OutPoint(hash: funding.txid.hash, vout: 1), sequence: 0xFFFF_FFFD)],
                                outputs: [TxOutput(value: 15_000, script: try account.script(at: KeyPlace(.change, 0)).bytes)])
        var psbt = PSBT(unsigned: child, spent: [], outputOrigins: [:])
        psbt.inputs = [[PSBT.Pair(type: PSBT.InputKey.witnessUTXO, keyData: [], value: PSBT.serialize(anchor))], []]
        let signedBytes = try await source.sign(psbt.bytes)
        let signed = try PSBT(bytes: signedBytes)
        #expect(signed.inputs[0] == psbt.inputs[0])
        let witness = try #require(signed.inputs[1].first { $0.type == PSBT.InputKey.finalScriptWitness }?.value)
        var reader = ByteReader(witness)
        #expect(try reader.varint() == 2)
        let signature = try reader.varBytes(), key = try reader.varBytes()
        #expect(hexString(key) == chosen.publicKeyHex && signature.last == 1)
        let digest = SegwitV0Sighash(child).digest(input: 1, scriptCode: SegwitV0Sighash.p2wpkhScriptCode(keyHash: Hash.hash160(key)), value: 20_000)
        #expect(Secp256k1.verify(der: Array(signature.dropLast()), digest: digest, publicKey: try Secp256k1.PublicKey(sec1: key)))
        // Signed, the coin is kept for the fee child: frozen, and labelled so.
        let after = try OnChainWallet.open(wallet, coin: .bitcoin, store: store)
        #expect(try after.ledger().coins.first { $0.outpoint.vout == 1 }?.frozen == true)
        #expect(try after.labels()["output:\(funding.txid):1"]?.contains("Spark exit") == true)

        // A child that would send the coin's value elsewhere: refused unsigned.
        var greedy = PSBT(unsigned: Transaction(inputs: child.inputs, outputs: [TxOutput(value: 15_000, script: [0x00, 0x14] + [UInt8](repeating: 9, count: 20))]),
                          spent: [], outputOrigins: [:])
        greedy.inputs = psbt.inputs
        try after.setFrozen(OutPoint(hash: funding.txid.hash, vout: 1), false)
        let again = try ExitFunding.source(Sats(12_000), wallet: wallet, store: store, keyring: keyring)
        await #expect(throws: OnChainError.self) { _ = try await again.sign(greedy.bytes) }
    }
}
