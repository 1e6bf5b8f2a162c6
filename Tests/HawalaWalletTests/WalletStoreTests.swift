import Foundation
import GRDB
import HawalaCrypto
import HawalaBackup
import HawalaKeys
@testable import HawalaLightning
import Testing
@testable import HawalaWallet
import HawalaTestSupport

@Suite("Wallet store")
struct WalletStoreTests {
    @Test func createListReopenAndUnlock() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let mnemonic = try Mnemonic(text: abandonAbout)
        let wallet = try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        #expect(wallet.name == "Main" && wallet.isCurrent && wallet.fingerprint == "73c5da0a")
        #expect(wallet.backup.state == .notBackedUp)
        #expect(wallet.accounts.map(\.chain) == Chain.all.filter { $0.network == .mainnet }.map(\.name))

        // Files are private.
        var info = stat()
        stat(home.directory.path, &info)
        #expect(info.st_mode & 0o777 == 0o700)
        stat(home.databaseURL.path, &info)
        #expect(info.st_mode & 0o777 == 0o600)

        // A second process sees the same: reopen.
        let reopened = try WalletStore(home: home, create: false)
        #expect(try reopened.list() == [wallet])
        let unlocked = try reopened.unlock(password: password("correct horse"))
        let (words, passphrase) = try reopened.secrets(of: wallet, keyring: unlocked)
        #expect(words == mnemonic && passphrase.isEmpty)
        // Cached addresses match the key core's derivation; past the cache, the xpub continues it.
        let keys = HDWallet(mnemonic: mnemonic)
        for chain in Chain.all where chain.network == .mainnet {
            #expect(try reopened.addresses(wallet: wallet, chain: chain, count: 20) == keys.addresses(chain: chain, count: 20))
        }
        #expect(try reopened.addresses(wallet: wallet, chain: .bitcoin, count: 50) == keys.addresses(chain: .bitcoin, count: 50))
        #expect(throws: WalletError.self) { try reopened.addresses(wallet: wallet, chain: .solana, count: 21) }
        #expect(try reopened.appliedMigrations() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17"])
    }

    /// The addresses and keys kept in the clear are re-derived from the sealed secret and
    /// compared: one swapped address or account key is found.
    /// The export version moves with every write to what a backup holds, and with nothing
    /// else: the vault agent trusts an unmoved version to skip its snapshot.
    /// The idle lock: 1 to 120 minutes, 5 unless saved; what is saved and doesn't read is the default.
    @Test func theIdleLockIsBoundedAndKept() throws {
        let (store, _) = try newStore()
        #expect(try store.idleLock() == .default && IdleLock.default.minutes == 5 && IdleLock.default.seconds == 300)
        #expect(throws: IdleLock.OutOfRange()) { try IdleLock(minutes: 0) }
        #expect(throws: IdleLock.OutOfRange()) { try IdleLock(minutes: 121) }
        try store.setIdleLock(try IdleLock(minutes: 120))
        #expect(try store.idleLock().minutes == 120)
        try store.setGlobalSetting("app.idleLockMinutes", to: "soon")
        #expect(try store.idleLock() == .default)
        #expect(IdleLock.OutOfRange().description == "the app locks after 1 to 120 minutes without use")
    }

    @Test func theExportVersionFollowsWhatABackupHolds() throws {
        let (store, keyring) = try newStore()
        var last = try store.exportVersion()
        func moved(_ expected: Bool, _ what: String, _ write: () throws -> Void) throws {
            try write()
            let now = try store.exportVersion()
            #expect((now != last) == expected, "\(what): \(last) → \(now)")
            last = now
        }
        var main: WalletSummary!
        try moved(true, "add") { main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring) }
        try moved(true, "add another") { _ = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Other", network: .testnet, keyring: keyring) }
        try moved(true, "current") { try store.use("Other") }
        try moved(true, "rename") { try store.rename("Other", to: "Second") }
        try moved(true, "backup recorded") { try store.recordBackup(of: main) }
        let key = try ImportedPrivateKey(text: SecretBytes(utf8: "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"), chain: .bitcoin)
        try moved(true, "imported key") { _ = try store.importKey(key, into: main, label: "paper", keyring: keyring) }
        try moved(true, "payment") {
            try store.savePayment(Payment(id: "p1", type: .receive, status: .completed, amountMsat: 1000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                          details: Payment.Details(description: "tea")), walletID: main.id)
        }
        try moved(true, "wallet setting") { try store.setSetting("ln.fiat", to: "USD", walletID: main.id) }
        try moved(true, "next receive address") { _ = try store.addressRequest(wallet: main, chain: nil, advance: true) { keyring } }
        try moved(false, "last sync time") { try store.setSetting("ln.syncedAt", to: "1700000000", walletID: main.id) }
        try moved(false, "store-wide setting") { try store.setGlobalSetting("app.idleLock", to: "300") }
        try moved(false, "sealed store setting") { try store.setSealedSetting("vault.token", secret: SecretBytes(utf8: "t"), keyring: keyring) }
        try moved(true, "password") { _ = try store.changePassword(from: keyring, to: SecretBytes(utf8: "another good password"), parameters: fastKDF()) }
        try moved(true, "delete") { try store.delete("Second", keyring: try store.unlock(password: SecretBytes(utf8: "another good password"))) }
    }

    @Test func cachedKeysAreVerified() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let test = try store.add(mnemonic: try Mnemonic.generate(), passphrase: SecretBytes(utf8: "p"), name: "Test", network: .testnet, keyring: keyring)
        let seed = try store.add(secret: .seed(SecretBytes([UInt8](repeating: 9, count: 32))), name: "Seed", network: .mainnet, keyring: keyring)
        for w in [main, test, seed] { try store.verifyCachedKeys(of: w, keyring: keyring) }
        let raw = try DatabaseQueue(path: home.databaseURL.path)
        try raw.write { try $0.execute(sql: "UPDATE address SET address = 'bc1qattackerattackerattackerattacker' WHERE walletId = ? AND chain = 'bitcoin' AND addressIndex = 3", arguments: [main.id]) }
        #expect(throws: WalletError.tampered("the cached addresses and keys of wallet \"Main\"")) { try store.verifyCachedKeys(of: main, keyring: keyring) }
        try store.verifyCachedKeys(of: test, keyring: keyring)
        try raw.write { try $0.execute(sql: "UPDATE account SET xpub = 'xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V' WHERE walletId = ? AND chain = 'bitcoin-testnet'", arguments: [test.id]) }
        #expect(throws: WalletError.self) { try store.verifyCachedKeys(of: test, keyring: keyring) }
    }

    /// The cache is authenticated at every unlock: a changed address or account key makes the
    /// unlock fail naming the wallet; a password change carries the tags over; a wallet from
    /// before tags existed is re-derived and tagged at its first unlock (and a tampered one of
    /// those is caught by the re-derivation).
    @Test func cacheTagsAreCheckedAtUnlock() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        _ = try store.add(secret: .seed(SecretBytes([UInt8](repeating: 9, count: 32))), name: "Seed", network: .mainnet, keyring: keyring)
        let changed = try store.changePassword(from: try store.unlock(password: password("correct horse")), to: password("battery staple"), parameters: fastKDF())
        _ = changed
        _ = try store.unlock(password: password("battery staple"))
        let raw = try DatabaseQueue(path: home.databaseURL.path)
        let original = try raw.read { try String.fetchOne($0, sql: "SELECT address FROM address WHERE walletId = ? AND chain = 'ethereum' AND addressIndex = 0", arguments: [main.id]) }
        try raw.write { try $0.execute(sql: "UPDATE address SET address = '0x000000000000000000000000000000000000dEaD' WHERE walletId = ? AND chain = 'ethereum' AND addressIndex = 0", arguments: [main.id]) }
        #expect(throws: WalletError.tampered("the cached addresses and keys of wallet \"Main\"")) { try store.unlock(password: password("battery staple")) }
        // Put back: it unlocks again. A tag removed (as by a store from before tags) is re-made
        // after a full re-derivation; with a swapped address, that re-derivation refuses.
        try raw.write { try $0.execute(sql: "UPDATE address SET address = ? WHERE walletId = ? AND chain = 'ethereum' AND addressIndex = 0", arguments: [original, main.id]) }
        _ = try store.unlock(password: password("battery staple"))
        try raw.write { try $0.execute(sql: "UPDATE wallet SET cacheTag = NULL") }
        _ = try store.unlock(password: password("battery staple"))
        #expect(try raw.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM wallet WHERE cacheTag IS NULL") } == 0)
        try raw.write { try $0.execute(sql: "UPDATE wallet SET cacheTag = NULL WHERE id = ?", arguments: [main.id]) }
        try raw.write { try $0.execute(sql: "UPDATE account SET path = ? WHERE walletId = ? AND chain = 'ethereum'", arguments: ["m/44'/60'/1'", main.id]) }
        #expect(throws: WalletError.tampered("the cached addresses and keys of wallet \"Main\"")) { try store.unlock(password: password("battery staple")) }
    }

    /// The watch-only export from the stored account keys equals the one from the words, on
    /// every Bitcoin-family chain of both networks.
    @Test func watchOnlyExportNeedsNoWords() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let mnemonic = try Mnemonic(text: abandonAbout)
        let passphrase = SecretBytes(utf8: "TREZOR")
        let keys = HDWallet(mnemonic: mnemonic, passphrase: passphrase)
        for network in [Network.mainnet, .testnet] {
            let wallet = try store.add(mnemonic: mnemonic, passphrase: passphrase, name: network.rawValue, network: network, keyring: keyring)
            let chains = Chain.all.filter { $0.network == network && $0.isBitcoinFamily }
            #expect(!chains.isEmpty)
            for chain in chains {
                #expect(try store.accountExport(wallet: wallet, chain: chain) == keys.accountExport(chain: chain), "\(chain.name)")
            }
            #expect(throws: WalletError.self) { try store.accountExport(wallet: wallet, chain: .ethereum) }
        }
    }

    @Test func idIsDeterministicAndPassphraseMakesAnotherWallet() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let mnemonic = try Mnemonic(text: abandonAbout)
        let a = try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: nil, network: .mainnet, keyring: keyring)
        let b = try store.add(mnemonic: mnemonic, passphrase: SecretBytes(utf8: "TREZOR"), name: nil, network: .mainnet, keyring: keyring)
        #expect(a.id != b.id && a.name == "Wallet 1" && b.name == "Wallet 2" && b.hasPassphrase)
        // Same words, same passphrase, same network: the overwrite guard refuses and changes nothing.
        #expect(throws: WalletError.alreadyExists(name: "Wallet 1")) {
            try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Again", network: .mainnet, keyring: keyring)
        }
        #expect(try store.list().count == 2)
        #expect(try store.existingWallet(mnemonic: mnemonic, passphrase: SecretBytes([]), network: .mainnet) == "Wallet 1")
        // The network is part of a wallet's identity: the same words on testnet are another wallet.
        #expect(try store.existingWallet(mnemonic: mnemonic, passphrase: SecretBytes([]), network: .testnet) == nil)
        let t = try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Test", network: .testnet, keyring: keyring)
        #expect(t.id != a.id && t.fingerprint == a.fingerprint)
        #expect(try store.existingWallet(mnemonic: mnemonic, passphrase: SecretBytes([]), network: .testnet) == "Test")
        #expect(try store.secrets(of: t, keyring: keyring).mnemonic.phrase == abandonAbout)
        // Its folders beside the database (the Spark SDK's state) go with it; another wallet's stay.
        let sparkState = store.home.walletFolder("spark", walletID: t.id), kept = store.home.walletFolder("spark", walletID: a.id)
        for folder in [sparkState, kept] { try FileManager.default.createDirectory(at: folder.appendingPathComponent("regtest/logs"), withIntermediateDirectories: true) }
        try store.delete("Test", keyring: keyring)
        #expect(!FileManager.default.fileExists(atPath: sparkState.path) && FileManager.default.fileExists(atPath: kept.path))
        // The id does not depend on the store: another store computes the same one.
        let other = try WalletStore(home: temporaryHome(), create: true)
        let otherKeyring = try other.newKeyring(password: password("another horse"), parameters: fastKDF())
        #expect(try other.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: nil, network: .mainnet, keyring: otherKeyring).id == a.id)
        let (_, secret) = try store.secrets(of: b, keyring: keyring)
        #expect(secret == SecretBytes(utf8: "TREZOR"))
    }

    @Test func wrongPasswordChangesNothing() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        #expect(throws: WalletError.wrongPassword) { try store.unlock(password: password("wrong horse")) }
        // A keyring from a wrong password cannot delete, import or change the password.
        let forged = try Keyring(password: password("wrong horse"), parameters: keyring.parameters)
        #expect(throws: WalletError.wrongPassword) { try store.delete("Main", keyring: forged) }
        #expect(throws: WalletError.wrongPassword) { try store.changePassword(from: forged, to: password("fresh battery staple"), parameters: fastKDF()) }
        #expect(try store.list().map(\.name) == ["Main"])
        _ = try store.unlock(password: password("correct horse"))
    }

    @Test func changePasswordResealsEverything() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes(utf8: " spaced "), name: "Main", network: .mainnet, keyring: keyring)
        let key = try ImportedPrivateKey(text: SecretBytes(utf8: "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"), chain: .ethereum)
        let imported = try store.importKey(key, into: wallet, label: "hot", keyring: keyring)
        try store.setSealedSetting("vault.token", secret: SecretBytes(utf8: "hwv_token"), plain: "https://vault.example", keyring: keyring)
        let newKeyring = try store.changePassword(from: keyring, to: password("battery staple"), parameters: fastKDF())
        // Sealed settings (the vault token) follow the password too.
        #expect(try store.sealedSetting("vault.token", keyring: newKeyring) == SecretBytes(utf8: "hwv_token"))
        #expect(try store.globalSetting("vault.token") == "https://vault.example")
        #expect(throws: WalletError.tampered("the saved vault.token")) { try store.sealedSetting("vault.token", keyring: keyring) }
        #expect(throws: WalletError.wrongPassword) { try store.unlock(password: password("correct horse")) }
        let unlocked = try store.unlock(password: password("battery staple"))
        let (mnemonic, passphrase) = try store.secrets(of: wallet, keyring: unlocked)
        #expect(mnemonic == (try Mnemonic(text: abandonAbout)) && passphrase == SecretBytes(utf8: " spaced "))
        #expect(try store.importedKey(imported, keyring: newKeyring) == key.secret)
        #expect(throws: WalletError.weakPassword("the wallet password must have at least 8 characters")) {
            try store.changePassword(from: unlocked, to: password("short"), parameters: fastKDF())
        }
    }

    @Test func tamperedCiphertextIsReported() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let db = try DatabaseQueue(path: home.databaseURL.path)
        try db.write { db in
            var sealed = try Data.fetchOne(db, sql: "SELECT sealedSecret FROM wallet")!
            sealed[sealed.count - 1] ^= 0x01
            try db.execute(sql: "UPDATE wallet SET sealedSecret = ?", arguments: [sealed])
        }
        #expect(throws: WalletError.tampered("the sealed secret of \"Main\"")) { try store.secrets(of: wallet, keyring: keyring) }
        // A sealed value copied to another wallet's row fails too (its context names the owner).
        let other = try store.add(mnemonic: try Mnemonic.generate(), passphrase: SecretBytes([]), name: "Other", network: .mainnet, keyring: keyring)
        try db.write { db in
            try db.execute(sql: "UPDATE wallet SET sealedSecret = (SELECT sealedSecret FROM wallet WHERE id = ?) WHERE id = ?", arguments: [other.id, wallet.id])
        }
        #expect(throws: WalletError.tampered("the sealed secret of \"Main\"")) { try store.secrets(of: wallet, keyring: keyring) }
        _ = try store.secrets(of: other, keyring: keyring)
    }

    /// A seed-only wallet (SLIP-39 shares from another wallet): sealed as a seed, no words, no
    /// Cardano account; it survives a password change; relabelling it as BIP39 fails authentication.
    @Test func seedWallets() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let seed = SecretBytes(bytes(fromHex: "000102030405060708090a0b0c0d0e0f")!)  // BIP32 test vector 1
        let wallet = try store.add(secret: .seed(seed), name: "Trezor", network: .mainnet, keyring: keyring)
        #expect(wallet.kind == .seed && wallet.wordCount == 0 && wallet.fingerprint == "3442193e")
        #expect(!wallet.accounts.contains { $0.chain == "cardano" } && wallet.accounts.contains { $0.chain == "solana" })
        #expect(throws: WalletError.noWords("Trezor")) { try store.secrets(of: wallet, keyring: keyring) }
        guard case .seed(let back) = try store.secret(of: wallet, keyring: keyring) else { Issue.record("not a seed"); return }
        #expect(back == seed)
        #expect(try store.existingWallet(secret: .seed(seed), network: wallet.network) == "Trezor")
        let newKeyring = try store.changePassword(from: keyring, to: password("another horse"), parameters: fastKDF())
        guard case .seed(let again) = try store.secret(of: wallet, keyring: newKeyring) else { Issue.record("not a seed"); return }
        #expect(again == seed)
        let db = try DatabaseQueue(path: home.databaseURL.path)
        try db.write { try $0.execute(sql: "UPDATE wallet SET kind = 'bip39', wordCount = 12") }
        #expect(throws: WalletError.tampered("the sealed secret of \"Trezor\"")) { try store.secret(of: wallet, keyring: newKeyring) }
    }

    @Test func hostileKDFParametersAreRefusedBeforeDeriving() throws {
        let home = temporaryHome()
        let store = try WalletStore(home: home, create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let db = try DatabaseQueue(path: home.databaseURL.path)
        for (column, value) in [("memoryKiB", 64 * 1024 * 1024), ("memoryKiB", 16), ("passes", 0), ("passes", 1000)] {
            try db.write { try $0.execute(sql: "UPDATE keyring SET passes = 1, memoryKiB = 8192") }
            try db.write { try $0.execute(sql: "UPDATE keyring SET \(column) = ?", arguments: [value]) }
            #expect(throws: WalletError.self) { try store.unlock(password: password("correct horse")) }
        }
    }

    @Test func useRenameDelete() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let first = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "One", network: .mainnet, keyring: keyring)
        let second = try store.add(mnemonic: try Mnemonic.generate(wordCount: 24), passphrase: SecretBytes([]), name: "Two", network: .testnet, keyring: keyring)
        #expect(try store.current()?.id == second.id)
        #expect(second.accounts.map(\.chain) == ["bitcoin-testnet"])
        try store.use("One")
        #expect(try store.current()?.id == first.id)
        #expect(throws: WalletError.noSuchWallet("Three")) { try store.use("Three") }
        #expect(throws: WalletError.nameTaken("Two")) { try store.rename("One", to: "Two") }
        #expect(throws: WalletError.self) { try store.rename("One", to: "  ") }
        try store.rename("One", to: "Savings")
        let key = try ImportedPrivateKey(text: SecretBytes(utf8: "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"), chain: .bitcoin)
        try store.importKey(key, into: try store.wallet(named: "Savings"), label: nil, keyring: keyring)
        #expect(throws: WalletError.importedAccountExists(address: key.address)) {
            try store.importKey(key, into: try store.wallet(named: "Savings"), label: nil, keyring: keyring)
        }
        try store.delete("Savings", keyring: keyring)
        #expect(try store.list().map(\.name) == ["Two"])
        #expect(try store.current()?.name == "Two")
        // Nothing of the deleted wallet is left.
        let db = try DatabaseQueue(path: store.home.databaseURL.path)
        for table in ["account", "address", "importedAccount"] {
            #expect(try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table) WHERE walletId = ?", arguments: [first.id]) } == 0)
        }
    }

    @Test func backupStatus() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let day1 = Date(timeIntervalSince1970: 1_700_000_000), day2 = day1.addingTimeInterval(86_400 * 3)
        try store.recordBackup(of: wallet, at: day1)
        #expect(try store.current()?.backup.summary == "backed up 2023-11-14")
        try store.recordBackup(of: wallet, at: day2)
        #expect(try store.current()?.backup.summary == "backed up 2023-11-14, last verified 2023-11-17")
    }

    /// The other backup methods (file, vault, paper, shares) are recorded with their last time,
    /// per wallet, shown in one order, and never move what a backup holds.
    @Test func backupMethods() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let other = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Other", network: .testnet, keyring: keyring)
        let day1 = Date(timeIntervalSince1970: 1_700_000_000), day2 = day1.addingTimeInterval(86_400)
        let version = try store.exportVersion()
        try store.recordBackup(.vault, walletIDs: nil, at: day2)
        try store.recordBackup(.file, walletIDs: [main.id], at: day1)
        try store.recordBackup(.file, walletIDs: [main.id], at: day2)  // the last time is kept
        try store.recordBackup(.words, walletIDs: nil, at: day2)  // the quiz alone records the words
        #expect(try store.exportVersion() == version, "recording an upload must not make the next one due")
        let mainStatus = try store.wallet(named: "Main").backup
        #expect(mainStatus.others == [BackupRecord(method: .file, lastAt: day2), BackupRecord(method: .vault, lastAt: day2)])
        #expect(mainStatus.summary == "words not checked; file 2023-11-15, vault 2023-11-15")
        #expect(!mainStatus.isBackedUp, "the reminder is about the words")
        try store.recordBackup(of: main, at: day1)
        #expect(try store.wallet(named: "Main").backup.summary == "backed up 2023-11-14; also file 2023-11-15, vault 2023-11-15")
        #expect(try store.wallet(named: "Main").backup.methods.map(\.method) == [.words, .file, .vault])
        #expect(try store.wallet(named: "Other").backup.summary == "words not checked; vault 2023-11-15")
        // Shares made are recorded by the split itself; an unknown name records nothing.
        _ = try store.shamirSplit(other, groupThreshold: 1, groups: [SLIP39.Group(threshold: 2, count: 3)], passphrase: SecretBytes([]), keyring: keyring)
        #expect(try store.wallet(named: "Other").backup.others.map(\.method) == [.vault, .shares])
        store.noteBackup(.paper, wallets: ["Nobody"])
        #expect(try store.wallet(named: "Other").backup.others.map(\.method) == [.vault, .shares])
        let json = try store.wallet(named: "Main").json.compact
        #expect(json.contains(#""methods":[{"method":"words","lastAt":"2023-11-14T22:13:20Z"},{"method":"file""#), "\(json)")
        try store.delete("Other", keyring: keyring)
        #expect(try store.wallet(named: "Main").backup.others.count == 2)
    }

    /// Leaving a wallet with payments still pending is confirmed (open invoices don't count).
    @Test func switchingAwayFromPendingPayments() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        _ = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Other", network: .testnet, keyring: keyring)
        try store.use("Main")
        #expect(try store.switchWarning(to: "Other") == nil)
        try store.savePayment(Payment(id: "inv", type: .receive, status: .pending, amountMsat: 1000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                      details: Payment.Details(description: "an open invoice"), idempotencyKey: Payment.invoiceKeyPrefix + "x"), walletID: main.id)
        #expect(try store.switchWarning(to: "Other") == nil, "an invoice waiting for its payer is not a payment")
        for id in ["p1", "p2"] {
            try store.savePayment(Payment(id: id, type: .send, status: .pending, amountMsat: 1000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                          details: Payment.Details(description: "tea")), walletID: main.id)
        }
        let warning = try #require(try store.switchWarning(to: "Other"))
        #expect(warning == WalletSwitchWarning(from: "Main", to: "Other", pendingPayments: 2))
        #expect(warning.description.hasPrefix("\u{201C}Main\u{201D} has 2 payments still pending."))
        #expect(try store.switchWarning(to: "Main") == nil, "staying is no switch")
        #expect(throws: WalletError.noSuchWallet("Nobody")) { try store.switchWarning(to: "Nobody") }
    }

    @Test func missingStoreIsNotCreatedByReaders() throws {
        let home = temporaryHome()
        #expect(throws: WalletError.noWallets) { try WalletStore(home: home, create: false) }
        #expect(!FileManager.default.fileExists(atPath: home.directory.path))
    }

    @Test func twoWritersAtOnce() throws {
        let home = temporaryHome()
        let setup = try WalletStore(home: home, create: true)
        let keyring = try setup.newKeyring(password: password("correct horse"), parameters: fastKDF())
        try setup.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        // Separate connections, as two processes would have, adding wallets concurrently.
        let mnemonics = try (0..<8).map { _ in try Mnemonic.generate() }
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let store = try! WalletStore(home: home, create: false)
            _ = try! store.add(mnemonic: mnemonics[i], passphrase: SecretBytes([]), name: "W\(i)", network: .mainnet, keyring: keyring)
        }
        #expect(try setup.list().count == 9)
    }

    @Test func homeFromEnvironment() {
        #expect(WalletHome.fromEnvironment(["HAWALA_HOME": "/x/y", "XDG_DATA_HOME": "/d", "HOME": "/h"]).directory.path == "/x/y")
        #expect(WalletHome.fromEnvironment(["XDG_DATA_HOME": "/d", "HOME": "/h"]).directory.path == "/d/hawala")
        #expect(WalletHome.fromEnvironment(["XDG_DATA_HOME": "relative", "HOME": "/h"]).directory.path == "/h/.local/share/hawala")
    }
}

@Suite("Imported keys")
struct ImportedKeyTests {
    @Test func formats() throws {
        // WIF of private key 1 (compressed) → the well-known address of 1·G.
        let wif = try ImportedPrivateKey(text: SecretBytes(utf8: "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn\n"), chain: .bitcoin)
        #expect(wif.address == "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")
        #expect(try ImportedPrivateKey(text: SecretBytes(utf8: "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"), chain: .bitcoinLegacy).address == "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH")
        // The Ethereum account of the well-known test key.
        let eth = try ImportedPrivateKey(text: SecretBytes(utf8: "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"), chain: .ethereum)
        #expect(eth.address == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        // Solana: the 64-byte keypair and its 32-byte seed give the same address.
        let seed = [UInt8](repeating: 7, count: 32)
        let pub = Ed25519.publicKey(seed: SecretBytes(seed))
        let fromPair = try ImportedPrivateKey(text: SecretBytes(utf8: Base58.encode(seed + pub)), chain: .solana)
        let fromSeed = try ImportedPrivateKey(text: SecretBytes(utf8: Base58.encode(seed)), chain: .solana)
        #expect(fromPair.address == fromSeed.address && fromPair.address == Base58.encode(pub))
    }

    /// An uncompressed WIF (`5…`) is a legacy key: P2PKH of its 65-byte public key (the Bitcoin
    /// wiki's WIF example; addresses checked with PyPI's bip-utils). Anywhere else it is refused
    /// with the chain that takes it; it survives the store and a backup as it was.
    @Test func uncompressedLegacyKeys() throws {
        let uncompressed = SecretBytes(utf8: "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ")
        let key = try ImportedPrivateKey(text: uncompressed, chain: .bitcoinLegacy)
        #expect(key.address == "1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S" && !key.compressed && key.publicKey.hasPrefix("04") && key.publicKey.count == 130)
        let compressed = try ImportedPrivateKey(text: SecretBytes(utf8: "KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617"), chain: .bitcoinLegacy)
        #expect(compressed.address == "1LoVGDgRs9hTfTNJNuXKSpywcbdvwRXpmK" && compressed.compressed && compressed.secret == key.secret)
        for chain in [Chain.bitcoin, .bitcoinTaproot, .bitcoinNestedSegwit] {
            #expect(throws: ImportedPrivateKey.Error.malformed("an uncompressed WIF key has only a legacy address: import it on bitcoin-legacy (P2PKH), not \(chain.name)")) {
                try ImportedPrivateKey(text: uncompressed, chain: chain)
            }
        }
        #expect(throws: ImportedPrivateKey.Error.self) { try ImportedPrivateKey(secret: key.secret, chain: .bitcoin, compressed: false) }
        // Stored and read back.
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let account = try store.importKey(key, into: wallet, label: "paper", keyring: keyring)
        #expect(!account.compressed && account.address == key.address)
        let listed = try store.wallet(named: "Main").importedAccounts
        #expect(listed == [account])
        let exported = try store.exportWallets(names: nil, keyring: keyring)[0].importedAccounts[0]
        #expect(!exported.compressed && exported.key == key.secret)
    }

    @Test func refusals() {
        let cases: [(String, Chain)] = [
            ("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", .bitcoin),  // uncompressed WIF on a SegWit chain
            ("KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn", .litecoin),  // Bitcoin WIF on Litecoin
            ("KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWm", .bitcoin),  // checksum
            ("0x00", .ethereum),
            ("0000000000000000000000000000000000000000000000000000000000000000", .ethereum),  // zero key
            ("", .ethereum),
            ("abc", .xrp),
        ]
        for (text, chain) in cases {
            #expect(throws: ImportedPrivateKey.Error.self, "\(text) on \(chain.name)") { try ImportedPrivateKey(text: SecretBytes(utf8: text), chain: chain) }
        }
        let seed = [UInt8](repeating: 7, count: 32)
        #expect(throws: ImportedPrivateKey.Error.self) { try ImportedPrivateKey(text: SecretBytes(utf8: Base58.encode(seed + [UInt8](repeating: 1, count: 32))), chain: .solana) }
    }
}
