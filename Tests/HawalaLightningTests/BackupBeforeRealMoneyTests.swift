import Foundation
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaWallet
import Testing

/// Backup before real money (docs/decisions/0018): on real bitcoin, nothing is received or paid
/// until the words are checked or the risk is accepted in words; test networks go ahead.
@Suite("Backup before real money")
struct BackupBeforeRealMoneyTests {
    @Test func theRule() throws {
        let (store, wallet) = try storeWithWallet()
        #expect(!wallet.backup.isBackedUp)
        #expect(throws: BackupBeforeRealMoney.Refusal.backupFirst(wallet: "Main")) { try BackupBeforeRealMoney.check(.spark(.mainnet), wallet: wallet, store: store) }
        for test in [BackendSpec.spark(.regtest), .devnet(path: "/x")] { try BackupBeforeRealMoney.check(test, wallet: wallet, store: store) }
        // Typed otherwise: refused, nothing saved; typed as asked (case and spaces aside): saved.
        for typed in ["yes", "y", "I accept", "I accept the risk!", ""] {
            #expect(throws: BackupBeforeRealMoney.Refusal.notAccepted) { try BackupBeforeRealMoney.accept(typed: typed, wallet: wallet, store: store) }
        }
        #expect(BackupBeforeRealMoney.riskAcceptedAt(wallet: wallet, store: store) == nil)
        try BackupBeforeRealMoney.accept(typed: "  i accept  THE risk\n", wallet: wallet, store: store, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(BackupBeforeRealMoney.riskAcceptedAt(wallet: wallet, store: store) == Date(timeIntervalSince1970: 1_800_000_000))
        try BackupBeforeRealMoney.check(.spark(.mainnet), wallet: wallet, store: store)
        // Words checked (read again from the store: a session opened before still sees it).
        let (other, fresh) = try storeWithWallet()
        try other.recordBackup(of: fresh)
        try BackupBeforeRealMoney.check(.spark(.mainnet), wallet: fresh, store: other)
    }

    /// The gate stands before anything reaches the network: an invoice, a payment, a
    /// withdrawal, a deposit address are refused on real bitcoin without a backup.
    @Test func nothingIsReceivedOrPaidBeforeTheBackup() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryFolder("devnet").appendingPathComponent("ledger.sqlite").path
        let backend = try DevnetBackend(ledgerPath: ledger)
        let realMoney = LightningWallet(store: store, wallet: wallet, backend: backend, network: BackendSpec.spark(.mainnet).description)
        let refused = LightningError.backupFirst(wallet: "Main")
        #expect(throws: refused) { try realMoney.checkBackupBeforeRealMoney() }
        let address = PaymentInput.lightningAddress(user: "a", domain: "b.example", url: URL(string: "https://b.example/.well-known/lnurlp/a")!)
        await #expect(throws: refused) { _ = try await realMoney.prepare(address, text: "a@b.example", amountSats: 10, comment: nil, maxFeeSats: nil, lnurl: nil) }
        await #expect(throws: refused) { _ = try await realMoney.prepareOnChain(address: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", amount: .sats(1_000)) }
        let test = LightningWallet(store: store, wallet: wallet, backend: backend, network: BackendSpec.devnet(path: ledger).description)
        try test.checkBackupBeforeRealMoney()
    }
}
