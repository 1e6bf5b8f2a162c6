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
        #expect(enough.isEnough && enough.words == "your Bitcoin on-chain coins (20,000 sat confirmed) can pay it")
    }
}
