import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import Testing
@testable import HawalaWallet

/// A watch-only wallet: one account's public key, no secret. Only an account key of the chain
/// is taken; nothing asks to back it up; and its key is authenticated like every wallet's cache
/// — swapped in the database, or a words wallet turned into one, the unlock refuses.
@Suite struct WatchOnlyWalletTests {
    let export: AccountExport

    init() throws {
        export = try HDWallet(mnemonic: try Mnemonic(text: abandonAbout)).accountExport(chain: Chain.bitcoinTestnet)
    }

    @Test func onlyAnAccountKeyOfTheChainIsTaken() throws {
        let (store, keyring) = try newStore()
        let watching = try store.addWatchOnly(try WatchOnlyKey(descriptor: export.multipathDescriptor), chain: .bitcoinTestnet, name: "Watch", keyring: keyring)
        #expect(watching.kind == .watchOnly && watching.fingerprint == "73c5da0a" && watching.backup.isBackedUp)
        #expect(watching.accounts.map(\.path) == ["m/84'/1'/0'"])
        #expect(throws: WalletError.watchOnly("Watch")) { try store.secret(of: watching, keyring: keyring) }
        #expect(throws: WalletError.alreadyExists(name: "Watch")) {
            try store.addWatchOnly(try WatchOnlyKey(key: export.xpub), chain: .bitcoinTestnet, name: "Again", keyring: keyring)
        }
        // A mainnet account's key for a testnet account, a branch key, an origin of another purpose.
        let mainnet = try HDWallet(mnemonic: try Mnemonic(text: abandonAbout)).accountExport(chain: Chain.bitcoin)
        #expect(throws: WalletError.self) { try store.addWatchOnly(try WatchOnlyKey(key: mainnet.xpub), chain: .bitcoinTestnet, name: "X", keyring: keyring) }
        let branch = try HDWallet(mnemonic: try Mnemonic(text: abandonAbout)).masterKey().derive(path: try DerivationPath("m/84'/1'/0'/0")).publicKey
        #expect(throws: WalletError.self) {
            try store.addWatchOnly(try WatchOnlyKey(key: branch.serialized(version: .tpub)), chain: .bitcoinTestnet, name: "X", keyring: keyring)
        }
        let legacyOrigin = export.keyOrigin.replacingOccurrences(of: "84h", with: "44h") + export.accountKey
        #expect(throws: WalletError.self) { try store.addWatchOnly(try WatchOnlyKey(key: legacyOrigin), chain: .bitcoinTestnet, name: "X", keyring: keyring) }
        #expect(try store.list().map(\.name) == ["Watch"])
    }

    @Test func aSwappedKeyIsFoundAtUnlock() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let watching = try store.addWatchOnly(try WatchOnlyKey(key: export.xpub), chain: .bitcoinTestnet, name: "Watch", keyring: keyring)
        let main = try store.add(mnemonic: try Mnemonic(text: "legal winner thank year wave sausage worth useful legal winner thank yellow"),
                                 passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        _ = try store.unlock(password: password("correct horse"))
        let raw = try DatabaseQueue(path: home.databaseURL.path)
        // Another account key in place of the watched one, its tag removed as by an old store.
        let other = try HDWallet(mnemonic: try Mnemonic(text: "legal winner thank year wave sausage worth useful legal winner thank yellow"))
            .accountExport(chain: Chain.bitcoinTestnet).accountKey
        let stored = try raw.read { try String.fetchOne($0, sql: "SELECT xpub FROM account WHERE walletId = ?", arguments: [watching.id]) }
        try raw.write {
            try $0.execute(sql: "UPDATE account SET xpub = ? WHERE walletId = ?", arguments: [other, watching.id])
            try $0.execute(sql: "UPDATE wallet SET cacheTag = NULL WHERE id = ?", arguments: [watching.id])
        }
        #expect(throws: WalletError.tampered("the account key of watch-only wallet \"Watch\"")) { try store.unlock(password: password("correct horse")) }
        try raw.write { try $0.execute(sql: "UPDATE account SET xpub = ? WHERE walletId = ?", arguments: [stored, watching.id]) }
        _ = try store.unlock(password: password("correct horse"))
        // A words wallet made to look watch-only: its sealed secret is not a watched key.
        try raw.write { try $0.execute(sql: "UPDATE wallet SET kind = 'watchOnly', cacheTag = NULL WHERE id = ?", arguments: [main.id]) }
        #expect(throws: WalletError.self) { try store.unlock(password: password("correct horse")) }
        try raw.write { try $0.execute(sql: "UPDATE wallet SET kind = 'bip39' WHERE id = ?", arguments: [main.id]) }
        // A password change re-seals the watched key with the rest.
        let changed = try store.changePassword(from: try store.unlock(password: password("correct horse")), to: password("battery staple"), parameters: fastKDF())
        try store.verifyCachedKeys(of: try store.wallet(named: "Watch"), keyring: changed)
    }
}
