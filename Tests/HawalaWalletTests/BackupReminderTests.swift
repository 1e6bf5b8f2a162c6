import Foundation
import HawalaCrypto
import HawalaKeys
import Testing
@testable import HawalaWallet
import HawalaTestSupport

@Suite("Backup reminder")
struct BackupReminderTests {
    /// Every wallet that is not backed up is named, the current one first; backed-up ones never.
    @Test func namesEveryWalletNotBackedUp() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: SecretBytes(utf8: "correct horse battery"), parameters: fastKDF())
        let old = try store.add(mnemonic: try Mnemonic.generate(wordCount: 12), passphrase: SecretBytes([]), name: "Old", network: .mainnet, keyring: keyring)
        let safe = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Safe", network: .mainnet, keyring: keyring)
        try store.recordBackup(of: safe)
        #expect(BackupReminder(wallets: try store.list()).wallets.map(\.name) == ["Old"])
        let spare = try store.add(mnemonic: try Mnemonic.generate(wordCount: 12), passphrase: SecretBytes([]), name: "Spare", network: .testnet, keyring: keyring)
        try store.use(spare.name)
        let reminder = BackupReminder(wallets: try store.list())
        #expect(reminder.wallets.map(\.name) == ["Spare", "Old"] && !reminder.isOnlyCurrent)
        try store.recordBackup(of: old)
        #expect(BackupReminder(wallets: try store.list()).isOnlyCurrent)
        try store.recordBackup(of: spare)
        #expect(BackupReminder(wallets: try store.list()).isEmpty)
    }
}
