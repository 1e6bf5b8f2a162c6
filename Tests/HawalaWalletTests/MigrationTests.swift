import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import Testing
@testable import HawalaWallet
import HawalaTestSupport

@Suite("Schema migrations")
struct MigrationTests {
    @Test func emptyDatabaseGetsEveryMigration() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        #expect(try store.appliedMigrations() == WalletStore.migrator.migrations)
        #expect(try store.list().isEmpty && !(try store.hasPassword()))
    }

    /// A store written by schema v1 keeps opening, migrating and unlocking in every later version.
    @Test func version1StoreOpensAndUnlocks() throws {
        let fixture = try #require(Bundle.module.url(forResource: "wallets-v1", withExtension: "sqlite", subdirectory: "Fixtures"))
        let home = temporaryHome()
        try FileManager.default.createDirectory(at: home.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture, to: home.databaseURL)
        let store = try WalletStore(home: home, create: false)
        #expect(try store.appliedMigrations() == WalletStore.migrator.migrations)
        let wallet = try store.wallet(named: "Fixture v1")
        let expectedFingerprint = try HDWallet(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes(utf8: "TREZOR")).masterFingerprint()
        #expect(wallet.fingerprint == expectedFingerprint.hexFingerprint)
        #expect(wallet.backup.summary == "backed up 2026-11-18")
        let keyring = try store.unlock(password: password("correct horse"))
        let (mnemonic, passphrase) = try store.secrets(of: wallet, keyring: keyring)
        #expect(mnemonic == (try Mnemonic(text: abandonAbout)) && passphrase == SecretBytes(utf8: "TREZOR"))
        let keys = HDWallet(mnemonic: mnemonic, passphrase: passphrase)
        #expect(try store.addresses(wallet: wallet, chain: .cardano, count: 3) == keys.addresses(chain: .cardano, count: 3))
        let imported = try #require(wallet.importedAccounts.first)
        #expect(imported.address == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(hexString(try store.importedKey(imported, keyring: keyring).unsafeCopy()) == "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
    }
}

extension UInt32 {
    var hexFingerprint: String { String(format: "%08x", self) }
}
