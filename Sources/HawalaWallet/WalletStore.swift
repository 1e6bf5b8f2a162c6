import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaText

/// The wallets of one user, in an SQLite database (GRDB) under `WalletHome`.
///
/// The public model — names, networks, accounts, cached addresses, backup status — is readable
/// without the password. BIP39 entropy (or, for seed wallets, the BIP32 seed), BIP39
/// passphrases and imported keys are sealed with
/// AES-256-GCM under the `Keyring` derived from the wallet password. Every change is one
/// immediate SQLite transaction: a process killed at any moment leaves the old state or the new.
public final class WalletStore: Sendable {
    public let home: WalletHome
    /// WAL: reads never wait for a writer, so one store serves a whole process (the app's
    /// pages) while another process (the CLI) writes.
    let db: DatabasePool
    /// Told of every keyring this store hands out (nil: nobody listens).
    public let unlocked: UnlockedKeyring?

    /// Receive addresses kept per chain at creation, so listing them needs no password.
    public static let cachedAddressCount = 20
    /// The shortest wallet password accepted (its strength is checked too: `checkStrength`).
    public static let minimumPasswordLength = PasswordUse.wallet.minimumLength

    /// Opens the store; creates it (folder 0700, file 0600) when `create` is true. `unlocked`
    /// hears of every keyring the store hands out (unlock, first password, password change).
    /// - Throws: `WalletError.noWallets` when it does not exist and `create` is false.
    public init(home: WalletHome = .fromEnvironment(), create: Bool, unlocked: UnlockedKeyring? = nil) throws {
        self.home = home
        self.unlocked = unlocked
        if try !home.existing() {
            guard create else { throw WalletError.noWallets }
            try home.prepare()
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(15)  // another process writing: wait, don't fail
        configuration.foreignKeysEnabled = true
        // A commit is on disk before it is reported: GRDB's WAL default (NORMAL) may lose the
        // last commits — a wallet just created — on a power cut.
        configuration.prepareDatabase { db in
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        let path = home.databaseURL.path
        // New files (database, journal) are private to the user.
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        // Creating and migrating happen under the home's lock: a second process waits, then
        // finds the schema in place (two first `wallet create`s at once used to collide).
        db = try home.withLock {
            // An empty file is not a new store: something truncated it. Leave it for the person
            // to look at rather than write a fresh, empty store over it.
            if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size == 0 {
                throw WalletError.damagedDatabase(path)
            }
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try WalletStore.migrator.migrate(pool)
                return pool
            } catch let error as DatabaseError {
                throw WalletError.database(path: path, reason: error.message ?? error.description)
            }
        }
        chmod(path, 0o600)
    }

    // MARK: Schema

    static var migrator: DatabaseMigrator { WalletSchema.migrator }

    /// A number that changes with every write to what `exportWallets` (and a backup's current
    /// wallet) reads. Equal numbers mean the same export; a different one may still give it.
    public func exportVersion() throws -> Int64 {
        try read { try Int64.fetchOne($0, sql: "SELECT n FROM exportVersion") ?? 0 }
    }

    /// The schema versions applied, oldest first (for tests and `status`).
    public func appliedMigrations() throws -> [String] {
        try db.read { try WalletStore.migrator.appliedMigrations($0) }
    }

    // MARK: Password

    /// Whether a wallet password has been set.
    public func hasPassword() throws -> Bool {
        try read { try KeyringRecord.fetchCount($0) == 1 }
    }

    /// Unlocks with `password` (one Argon2id run).
    /// - Throws: `WalletError.wrongPassword`; nothing changes.
    public func unlock(password: SecretBytes) throws -> Keyring {
        guard let record = try read({ try KeyringRecord.fetch($0) }) else { throw WalletError.noWallets }
        let keyring = try Keyring(password: password, parameters: try record.parameters())
        try keyring.check(verifier: Array(record.verifier))
        try checkCacheTags(keyring: keyring)
        unlocked?.record(keyring, home: home)
        return keyring
    }

    /// The keyring for a first wallet: a new password, checked for length. It is saved with the
    /// first change that uses it.
    public func newKeyring(password: SecretBytes, parameters: KDFParameters = KDFParameters()) throws -> Keyring {
        try WalletStore.checkStrength(password)
        let keyring = try Keyring(password: password, parameters: parameters)
        unlocked?.record(keyring, home: home)
        return keyring
    }

    /// Refuses a wallet password that is too short (`WalletError.weakPassword`).
    public static func checkStrength(_ password: SecretBytes) throws {
        do {
            _ = try PasswordStrength.check(password, for: .wallet)
        } catch {
            throw WalletError.weakPassword(error.description)
        }
    }

    // MARK: Reading the public model

    /// Every wallet, by creation time.
    public func list() throws -> [WalletSummary] {
        try read { db in
            let current = try SettingRecord.current(db)
            return try WalletRecord.byAge.fetchAll(db).map { try WalletStore.summary($0, db: db, current: current) }
        }
    }

    /// The wallet named `name`, or the current wallet when `name` is nil.
    public func wallet(named name: String?) throws -> WalletSummary {
        if let name {
            let summary = try read { db in
                try WalletRecord.named(name).fetchOne(db).map { try WalletStore.summary($0, db: db, current: try SettingRecord.current(db)) }
            }
            guard let summary else { throw WalletError.noSuchWallet(name) }
            return summary
        }
        guard let current = try current() else { throw WalletError.noWallets }
        return current
    }

    /// The current wallet, if any wallet exists.
    public func current() throws -> WalletSummary? {
        try read { db in
            guard let id = try SettingRecord.current(db) else { return nil }
            return try WalletRecord.fetchOne(db, key: id).map { try WalletStore.summary($0, db: db, current: id) }
        }
    }

    /// Addresses of `wallet` on `chain` (account 0, receive branch), from the cache or, past it,
    /// from the account's extended public key. No password needed.
    public func addresses(wallet: WalletSummary, chain: Chain, count: Int) throws -> [DerivedAddress] {
        guard count >= 1, count <= 100_000 else { throw WalletError.countOutOfRange(count, allowed: 1...100_000) }
        guard wallet.accounts.contains(where: { $0.chain == chain.name }) else {
            if wallet.kind == .seed, chain.curve == .ed25519Cardano {
                throw WalletError.noCardanoWithoutWords(wallet: wallet.name)
            }
            throw WalletError.noAccount(wallet: wallet.name, chain: chain.name, network: wallet.network)
        }
        let cached = try read { db in
            try AddressRecord.receiving(of: wallet.id)
                .filter(AddressRecord.Columns.chain == chain.name && AddressRecord.Columns.addressIndex < count).fetchAll(db)
                .map { DerivedAddress(chain: chain.name, path: $0.path, address: $0.address, publicKey: $0.publicKey) }
        }
        if cached.count >= count { return cached }
        guard chain.curve == .secp256k1,
              let xpub = try read({ try AccountRecord.first(of: wallet.id, chain: chain.name).fetchOne($0)?.xpub }),
              case .public(let accountKey, _) = try ExtendedKey(xpub) else {
            throw WalletError.passwordNeeded("\(chain.name) keeps \(cached.count) addresses without the password; more need it")
        }
        return try HDWallet.addresses(chain: chain, accountKey: accountKey, account: 0, change: 0, from: 0, count: count)
    }

    /// The watch-only export of `wallet`'s account 0 on a Bitcoin-family `chain`, from the stored
    /// account key and fingerprint: no password, no words.
    public func accountExport(wallet: WalletSummary, chain: Chain) throws -> AccountExport {
        guard chain.isBitcoinFamily else { throw WalletError.noExtendedPublicKey(chain: chain.name) }
        guard let account = try read({ try AccountRecord.first(of: wallet.id, chain: chain.name).fetchOne($0) }) else {
            throw WalletError.noAccount(wallet: wallet.name, chain: chain.name, network: wallet.network)
        }
        guard let xpub = account.xpub, case .public(let accountKey, _) = try ExtendedKey(xpub) else {
            throw WalletError.tampered("the stored \(chain.name) account key")
        }
        return try AccountExport(chain: chain, path: try DerivationPath(account.path), accountKey: accountKey, fingerprint: wallet.fingerprint)
    }

    /// What a watch-only wallet elsewhere needs: the account export of `chain`, or of every
    /// Bitcoin-family chain of `wallet` (the chains with an extended public key).
    public func watchOnlyExports(wallet: WalletSummary, chain: Chain? = nil) throws -> [AccountExport] {
        let chains = chain.map { [$0] } ?? wallet.accounts.compactMap { Chain.named($0.chain) }.filter(\.isBitcoinFamily)
        return try chains.map { try accountExport(wallet: wallet, chain: $0) }
    }

    /// Addresses of `wallet` on `chain` derived from its secret: past the cache for chains
    /// without an extended public key (Solana, Cardano).
    public func addresses(wallet: WalletSummary, chain: Chain, count: Int, keyring: Keyring) throws -> [DerivedAddress] {
        guard count >= 1, count <= 100_000 else { throw WalletError.countOutOfRange(count, allowed: 1...100_000) }
        guard wallet.accounts.contains(where: { $0.chain == chain.name }) else { return try addresses(wallet: wallet, chain: chain, count: count) }
        return try secret(of: wallet, keyring: keyring).keys.addresses(chain: chain, account: 0, change: 0, from: 0, count: count)
    }

    /// The name of the wallet these words and passphrase already are, if any (the overwrite
    /// guard, checked before asking for anything else).
    public func existingWallet(mnemonic: Mnemonic, passphrase: SecretBytes, network: Network) throws -> String? {
        try existingWallet(secret: .mnemonic(mnemonic, passphrase: passphrase), network: network)
    }

    /// The name of the wallet these keys already are on `network`, if any. A wallet's identity
    /// is its keys and its network: the same words on testnet are another wallet.
    public func existingWallet(secret: WalletSecret, network: Network) throws -> String? {
        let keys = secret.keys
        return try read { db in
            try WalletRecord.filter(keys: [WalletStore.walletID(keys, network: network), WalletStore.walletID(keys)])
                .filter(WalletRecord.Columns.network == network.rawValue).fetchOne(db)?.name
        }
    }

    // MARK: Changes

    /// Adds a wallet for `mnemonic` (and BIP39 `passphrase`) as the current wallet.
    /// - Throws: `WalletError.alreadyExists` when these keys are already a wallet (nothing is
    ///   changed: a restore never replaces another wallet), `.nameTaken`, `.invalidName`.
    @discardableResult
    public func add(mnemonic: Mnemonic, passphrase: SecretBytes, name: String?, network: Network,
                    keyring: Keyring, now: Date = Date()) throws -> WalletSummary {
        try add(secret: .mnemonic(mnemonic, passphrase: passphrase), name: name, network: network, keyring: keyring, now: now)
    }

    /// Adds a wallet for `secret` — words or a bare BIP32 seed — as the current wallet.
    /// A seed wallet has no Cardano account (Cardano's Icarus keys need the words).
    @discardableResult
    public func add(secret: WalletSecret, name: String?, network: Network, keyring: Keyring, now: Date = Date()) throws -> WalletSummary {
        let prepared = try prepare(secret: secret, network: network, keyring: keyring)
        let chosenName = try name.map(WalletStore.validName)
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            try self.insert(prepared, name: chosenName ?? WalletStore.freeName(db), createdAt: now, db: db)
        }
        return try wallet(id: prepared.id)
    }

    /// The wallet with `id`.
    func wallet(id: String) throws -> WalletSummary {
        let found = try read { db in
            try WalletRecord.fetchOne(db, key: id).map { try WalletStore.summary($0, db: db, current: try SettingRecord.current(db)) }
        }
        guard let found else { throw WalletError.noSuchWallet(id) }
        return found
    }

    /// Everything derived and sealed for a new wallet, computed before the transaction so the
    /// transaction itself is short.
    package struct PreparedWallet {
        package let id: String
        let fingerprint: String
        let network: Network
        let kind: WalletKind
        let wordCount: Int
        let language: Language
        let hasPassphrase: Bool
        let accounts: [(chain: Chain, path: String, xpub: String?)]
        let addresses: [DerivedAddress]
        let sealedSecret: [UInt8]
        let sealedPassphrase: [UInt8]?
        /// Authenticates the fingerprint, accounts and addresses above (`CacheTag`).
        let cacheTag: [UInt8]
    }

    /// What the store keeps in the clear for a wallet, derived from its secret: the master
    /// fingerprint, each account's path and xpub, and the cached receive addresses.
    func publicCache(secret: WalletSecret, network: Network) throws -> (fingerprint: String, accounts: [(chain: Chain, path: String, xpub: String?)], addresses: [DerivedAddress]) {
        let keys = secret.keys
        var accounts: [(chain: Chain, path: String, xpub: String?)] = []
        var addresses: [DerivedAddress] = []
        let master = try keys.masterKey()
        for chain in Chain.all where chain.network == network && (secret.kind == .bip39 || chain.curve != .ed25519Cardano) {
            let path = try chain.accountPath(account: 0)
            let xpub = chain.curve == .secp256k1 ? try master.derive(path: path).publicKey.serialized() : nil
            accounts.append((chain, path.description, xpub))
            addresses += try keys.addresses(chain: chain, count: WalletStore.cachedAddressCount)
        }
        return (String(format: "%08x", master.fingerprint), accounts, addresses)
    }

    package func prepare(secret: WalletSecret, network: Network, keyring: Keyring) throws -> PreparedWallet {
        let id = WalletStore.walletID(secret.keys, network: network)
        let (fingerprint, accounts, addresses) = try publicCache(secret: secret, network: network)
        let passphrase = secret.passphrase
        let sealedSecret: [UInt8] = switch secret {
        case let .mnemonic(mnemonic, _): try keyring.seal(mnemonic.entropy(), context: WalletStore.context(wallet: id, "entropy"))
        case let .seed(seed): try keyring.seal(seed, context: WalletStore.context(wallet: id, "seed"))
        }
        return PreparedWallet(
            id: id, fingerprint: fingerprint, network: network, kind: secret.kind,
            wordCount: secret.mnemonic?.wordCount ?? 0, language: secret.mnemonic?.language ?? .english, hasPassphrase: !passphrase.isEmpty,
            accounts: accounts, addresses: addresses, sealedSecret: sealedSecret,
            sealedPassphrase: passphrase.isEmpty ? nil : try keyring.seal(passphrase, context: WalletStore.context(wallet: id, "passphrase")),
            cacheTag: try CacheTag.make(CacheTag.Cache(fingerprint: fingerprint, accounts: accounts.map { ($0.chain.name, $0.path, $0.xpub) },
                                                       addresses: addresses.enumerated().map { ($1.chain, $0 % WalletStore.cachedAddressCount, $1.path, $1.address, $1.publicKey) }),
                                        wallet: id, keyring: keyring))
    }

    /// Inserts a prepared wallet as the current wallet, inside the caller's transaction.
    package func insert(_ p: PreparedWallet, name: String, createdAt: Date, db: Database) throws {
        if let existing = try WalletRecord.fetchOne(db, key: p.id) { throw WalletError.alreadyExists(name: existing.name) }
        if try WalletRecord.named(name).fetchCount(db) > 0 { throw WalletError.nameTaken(name) }
        try WalletRecord(id: p.id, name: name, createdAt: createdAt.timeIntervalSince1970, network: p.network.rawValue, kind: p.kind.rawValue,
                         wordCount: p.wordCount, language: p.language.rawValue, hasPassphrase: p.hasPassphrase, fingerprint: p.fingerprint,
                         sealedSecret: Data(p.sealedSecret), sealedPassphrase: p.sealedPassphrase.map { Data($0) }, cacheTag: Data(p.cacheTag)).insert(db)
        for account in p.accounts {
            try AccountRecord(walletId: p.id, chain: account.chain.name, accountIndex: 0, path: account.path, xpub: account.xpub).insert(db)
        }
        for (offset, a) in p.addresses.enumerated() {
            try AddressRecord(walletId: p.id, chain: a.chain, addressIndex: offset % WalletStore.cachedAddressCount, path: a.path,
                              address: a.address, publicKey: a.publicKey).insert(db)
        }
        try SettingRecord.setCurrent(p.id, db)
    }

    /// Makes `name` the current wallet (kept across runs).
    public func use(_ name: String) throws {
        try writeTransaction { db in
            guard let wallet = try WalletRecord.named(name).fetchOne(db) else { throw WalletError.noSuchWallet(name) }
            try SettingRecord.setCurrent(wallet.id, db)
        }
    }

    /// Renames a wallet.
    public func rename(_ old: String, to new: String) throws {
        let newName = try WalletStore.validName(new)
        try writeTransaction { db in
            guard var wallet = try WalletRecord.named(old).fetchOne(db) else { throw WalletError.noSuchWallet(old) }
            if old == newName { return }
            if try WalletRecord.named(newName).fetchCount(db) > 0 { throw WalletError.nameTaken(newName) }
            wallet.name = newName
            try wallet.update(db, columns: [WalletRecord.Columns.name])
        }
    }

    /// Deletes a wallet and everything of it (accounts, addresses, imported keys, payments,
    /// settings, and its folders beside the database: the Spark SDK's state and logs). The
    /// keyring proves the password was given. When it was the current wallet, the oldest
    /// remaining wallet becomes current.
    public func delete(_ name: String, keyring: Keyring) throws {
        var deleted: String?
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            guard let id = try WalletRecord.named(name).fetchOne(db)?.id else { throw WalletError.noSuchWallet(name) }
            deleted = id
            _ = try WalletRecord.deleteOne(db, key: id)
            if try SettingRecord.current(db) == id {
                if let next = try WalletRecord.byAge.fetchOne(db) {
                    try SettingRecord.setCurrent(next.id, db)
                } else {
                    _ = try SettingRecord.deleteOne(db, key: SettingRecord.currentKey)
                }
            }
        }
        // After the commit: a crash between leaves folders of no wallet, never a wallet without them.
        if let deleted {
            for folder in WalletHome.perWalletFolders {
                let url = home.walletFolder(folder, walletID: deleted)
                if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            }
        }
    }

    /// Imports a private key into `wallet` as an imported account; the key is sealed.
    @discardableResult
    public func importKey(_ key: ImportedPrivateKey, into wallet: WalletSummary, label: String?, keyring: Keyring, now: Date = Date()) throws -> ImportedAccount {
        let label = try WalletStore.validLabel(label)
        let id = UUID().uuidString.lowercased()
        let sealed = try keyring.seal(key.secret, context: WalletStore.context(imported: id))
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            guard try WalletRecord.exists(db, key: wallet.id) else { throw WalletError.noSuchWallet(wallet.name) }
            let same = ImportedAccountRecord.filter(ImportedAccountRecord.Columns.walletId == wallet.id && ImportedAccountRecord.Columns.chain == key.chain.name
                                                    && ImportedAccountRecord.Columns.address == key.address)
            if try same.fetchCount(db) > 0 { throw WalletError.importedAccountExists(address: key.address) }
            try ImportedAccountRecord(id: id, walletId: wallet.id, chain: key.chain.name, address: key.address, label: label,
                                      importedAt: now.timeIntervalSince1970, sealedKey: Data(sealed), compressed: key.compressed).insert(db)
        }
        return ImportedAccount(id: id, chain: key.chain.name, address: key.address, label: label, importedAt: Date(timeIntervalSince1970: now.timeIntervalSince1970),
                               compressed: key.compressed)
    }

    /// Re-seals every secret under `newPassword` and replaces the keyring, in one transaction.
    /// - Returns: the new keyring.
    @discardableResult
    public func changePassword(from keyring: Keyring, to newPassword: SecretBytes, parameters: KDFParameters = KDFParameters()) throws -> Keyring {
        try WalletStore.checkStrength(newPassword)
        let newKeyring = try Keyring(password: newPassword, parameters: parameters)
        let verifier = try newKeyring.makeVerifier()
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            for var wallet in try WalletRecord.fetchAll(db) {
                try CacheTag.reseal(wallet: wallet.id, from: keyring, to: newKeyring, db: db)
                let context = try wallet.secretContext()
                let secret = try WalletStore.open(keyring, Array(wallet.sealedSecret), context, what: "the sealed secret of a wallet")
                wallet.sealedSecret = Data(try newKeyring.seal(secret, context: context))
                if let sealed = wallet.sealedPassphrase {
                    let passphraseContext = WalletStore.context(wallet: wallet.id, "passphrase")
                    let passphrase = try WalletStore.open(keyring, Array(sealed), passphraseContext, what: "the sealed passphrase")
                    wallet.sealedPassphrase = Data(try newKeyring.seal(passphrase, context: passphraseContext))
                }
                try wallet.update(db, columns: [WalletRecord.Columns.sealedSecret, WalletRecord.Columns.sealedPassphrase])
            }
            for var account in try ImportedAccountRecord.fetchAll(db) {
                let context = WalletStore.context(imported: account.id)
                let key = try WalletStore.open(keyring, Array(account.sealedKey), context, what: "an imported key")
                account.sealedKey = Data(try newKeyring.seal(key, context: context))
                try account.update(db, columns: ["sealedKey"])
            }
            try WalletStore.resealExitStates(from: keyring, to: newKeyring, db: db)
            try WalletStore.resealConnectionKeys(from: keyring, to: newKeyring, db: db)
            try WalletStore.resealL402Tokens(from: keyring, to: newKeyring, db: db)
            try WalletStore.resealHoldPreimages(from: keyring, to: newKeyring, db: db)
            // Sealed store-wide settings (the vault token, the vault agent's key).
            for var setting in try SettingRecord.filter(SettingRecord.Columns.key.like("s.%")).fetchAll(db) {
                let name = setting.key.dropFirst(2)
                let context = Array("hawala/setting/\(name)".utf8)
                guard let sealed = Data(base64Encoded: setting.value) else { throw WalletError.tampered("the saved \(name)") }
                let secret = try WalletStore.open(keyring, Array(sealed), context, what: "the saved \(name)")
                setting.value = Data(try newKeyring.seal(secret, context: context)).base64EncodedString()
                try setting.update(db)
            }
            try KeyringRecord(passes: parameters.passes, memoryKiB: parameters.memoryKiB, salt: Data(parameters.salt), verifier: Data(verifier)).update(db)
        }
        unlocked?.record(newKeyring, home: home)
        return newKeyring
    }

    /// The wallet named `name` (nil: the current one), refused at once when it has no BIP39
    /// words to show, check or print (a wallet recovered from a seed): before any password.
    public func walletWithWords(named name: String?) throws -> WalletSummary {
        let wallet = try wallet(named: name)
        guard wallet.kind == .bip39 else { throw WalletError.noWords(wallet.name) }
        return wallet
    }

    /// The words and BIP39 passphrase of `wallet`.
    /// - Throws: `WalletError.noWords` for a seed wallet; `.tampered` when a sealed value fails
    ///   authentication.
    public func secrets(of wallet: WalletSummary, keyring: Keyring) throws -> (mnemonic: Mnemonic, passphrase: SecretBytes) {
        guard case let .mnemonic(mnemonic, passphrase) = try secret(of: wallet, keyring: keyring) else { throw WalletError.noWords(wallet.name) }
        return (mnemonic, passphrase)
    }

    /// What the keys of `wallet` derive from: its words and passphrase, or its seed.
    /// - Throws: `WalletError.tampered` when a sealed value fails authentication.
    public func secret(of wallet: WalletSummary, keyring: Keyring) throws -> WalletSecret {
        guard let record = try read({ try WalletRecord.fetchOne($0, key: wallet.id) }) else { throw WalletError.noSuchWallet(wallet.name) }
        guard record.kind != WalletKind.watchOnly.rawValue else { throw WalletError.watchOnly(wallet.name) }
        let secret = try WalletStore.open(keyring, Array(record.sealedSecret), try record.secretContext(), what: "the sealed secret of \"\(wallet.name)\"")
        if record.kind == WalletKind.seed.rawValue { return .seed(secret) }
        guard let language = Language(rawValue: record.language) else { throw WalletError.unreadableRecord(.language) }
        let mnemonic = try Mnemonic(entropy: secret, language: language)
        var passphrase = SecretBytes([])
        if let sealed = record.sealedPassphrase {
            passphrase = try WalletStore.open(keyring, Array(sealed), WalletStore.context(wallet: wallet.id, "passphrase"), what: "the sealed passphrase of \"\(wallet.name)\"")
        }
        return .mnemonic(mnemonic, passphrase: passphrase)
    }

    /// The private key of an imported account.
    public func importedKey(_ account: ImportedAccount, keyring: Keyring) throws -> SecretBytes {
        guard let sealed = try read({ try ImportedAccountRecord.fetchOne($0, key: account.id)?.sealedKey }) else {
            throw WalletError.noSuchImportedAccount(address: account.address)
        }
        return try WalletStore.open(keyring, Array(sealed), WalletStore.context(imported: account.id), what: "the imported key \(account.address)")
    }

    /// Records that the quiz was passed: the first time sets "backed up", every time "verified".
    public func recordBackup(of wallet: WalletSummary, at date: Date = Date()) throws {
        try writeTransaction { db in
            guard var record = try WalletRecord.fetchOne(db, key: wallet.id) else { return }
            record.backedUpAt = record.backedUpAt ?? date.timeIntervalSince1970
            record.lastVerifiedAt = date.timeIntervalSince1970
            try record.update(db, columns: [WalletRecord.Columns.backedUpAt, WalletRecord.Columns.lastVerifiedAt])
        }
    }

    /// Records that `method` (not the words: `recordBackup(of:)`) now keeps the wallets with
    /// these ids (nil: every wallet) — a file exported, a vault upload, a paper sheet, shares.
    /// The words are recorded by the quiz alone: `.words` records nothing here.
    public func recordBackup(_ method: BackupMethod, walletIDs: [String]?, at date: Date = Date()) throws {
        guard method != .words else { return }
        try writeTransaction { db in
            let ids = try walletIDs ?? String.fetchAll(db, WalletRecord.select(WalletRecord.Columns.id))
            for id in ids where try WalletRecord.exists(db, key: id) {
                try BackupMethodRecord(walletId: id, method: method.rawValue, lastAt: date.timeIntervalSince1970).insert(db, onConflict: .replace)
            }
        }
    }

    /// `recordBackup(_:walletIDs:)` once a backup was made of the wallets named (nil: every
    /// wallet). Never throws: the backup exists whether or not the list learns of it, so a failed
    /// record must not turn it into a failure (the list just shows one method less; the log says why).
    public func noteBackup(_ method: BackupMethod, wallets names: [String]?) {
        UnsavedWrite.attempt("the note of a \(method.rawValue) backup") {
            try recordBackup(method, walletIDs: names.map { try $0.map { try wallet(named: $0).id } })
        }
    }

    // MARK: Helpers

    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try db.read(body) } catch let error as DatabaseError { throw WalletStore.storageError(error) }
    }

    /// One immediate transaction: concurrent writers queue on SQLite's lock instead of failing.
    package func writeTransaction(_ body: (Database) throws -> Void) throws {
        do {
            try db.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try body(db)
                    return .commit
                }
            }
        } catch let error as DatabaseError { throw WalletStore.storageError(error) }
    }

    static func storageError(_ error: DatabaseError) -> WalletError {
        .database(path: nil, reason: error.message ?? error.description)
    }

    package func saveKeyringIfNew(_ keyring: Keyring, db: Database) throws {
        if let record = try KeyringRecord.fetch(db) {
            // Another process may have set a password since this keyring was made.
            guard Array(record.salt) == keyring.parameters.salt else { throw WalletError.passwordSetMeanwhile }
            try keyring.check(verifier: Array(record.verifier))
            return
        }
        let p = keyring.parameters
        try KeyringRecord(passes: p.passes, memoryKiB: p.memoryKiB, salt: Data(p.salt), verifier: Data(try keyring.makeVerifier())).insert(db)
    }

    /// The keyring must match the stored one (the password may have changed in another process).
    func checkKeyringIsCurrent(_ keyring: Keyring, db: Database) throws {
        guard let record = try KeyringRecord.fetch(db), Array(record.salt) == keyring.parameters.salt else { throw WalletError.wrongPassword }
        try keyring.check(verifier: Array(record.verifier))
    }

    package static func open(_ keyring: Keyring, _ sealed: [UInt8], _ context: [UInt8], what: String) throws -> SecretBytes {
        do { return try keyring.open(sealed, context: context) } catch { throw WalletError.tampered(what) }
    }

    static func context(wallet id: String, _ kind: String) -> [UInt8] { Array("hawala/wallet/v1/\(id)/\(kind)".utf8) }
    package static func context(imported id: String) -> [UInt8] { Array("hawala/imported/v1/\(id)".utf8) }

    /// UUID-formatted identifier from the seed (words and passphrase), revealing nothing of it.
    /// A wallet's id, deterministic from its keys and network. Mainnet ids (and testnet wallets
    /// made before the network was part of the identity) use the plain context, so stored ids and
    /// the secrets sealed under them stay valid.
    package static func walletID(_ keys: HDWallet, network: Network = .mainnet) -> String {
        var b = keys.identifier(context: network == .mainnet ? "hawala wallet id v1" : "hawala wallet id v1 \(network.rawValue)")
        b[6] = (b[6] & 0x0F) | 0x80  // version 8 (custom), RFC 9562
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = hexString(b)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// Names are 1–64 characters, no control or format characters (terminal escapes, bidi
    /// overrides), trimmed. Names from a backup file pass the same check before they are shown.
    public static func validName(_ name: String) throws -> String {
        try validText(name, what: "a wallet name")
    }

    /// A name made before names were counted in Unicode scalars (a backup of an older version,
    /// a name already stored): 64 characters then counted grapheme clusters, so it is taken as
    /// it is within 1,024 bytes — a file this version wrote itself always opens again.
    public static func validKeptName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= 64 || (trimmed.count <= 64 && trimmed.utf8.count <= 1_024) else {
            throw WalletError.invalidName("a wallet name has 1 to 64 characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw WalletError.invalidName("a wallet name cannot contain control characters")
        }
        return trimmed
    }

    /// An imported key's label, trimmed; nil when there is none. The rules of a wallet name.
    public static func validLabel(_ label: String?) throws -> String? {
        guard let label, !label.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return try validText(label, what: "a label")
    }

    /// 1 to 64 Unicode scalars once trimmed (what a limit counts, never graphemes), no control characters.
    private static func validText(_ text: String, what: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= 64 else { throw WalletError.invalidName("\(what) has 1 to 64 characters") }
        guard !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw WalletError.invalidName("\(what) cannot contain control characters")
        }
        return trimmed
    }

    package static func freeName(_ db: Database) throws -> String {
        let names = Set(try String.fetchAll(db, WalletRecord.select(WalletRecord.Columns.name)))
        var n = names.count + 1
        while names.contains("Wallet \(n)") { n += 1 }
        return "Wallet \(n)"
    }

    static func summary(_ wallet: WalletRecord, db: Database, current: String?) throws -> WalletSummary {
        let accounts = try AccountRecord.filter(AccountRecord.Columns.walletId == wallet.id).order(Column.rowID).fetchAll(db)
            .map { HDAccount(chain: $0.chain, index: UInt32(clamping: $0.accountIndex), path: $0.path, label: $0.label) }
        let imported = try ImportedAccountRecord.filter(ImportedAccountRecord.Columns.walletId == wallet.id)
            .order(ImportedAccountRecord.Columns.importedAt).fetchAll(db).map(\.account)
        let backedUpAt = wallet.backedUpAt.map(Date.init(timeIntervalSince1970:))
        let verifiedAt = wallet.lastVerifiedAt.map(Date.init(timeIntervalSince1970:))
        let others = try BackupMethodRecord.filter(BackupMethodRecord.Columns.walletId == wallet.id).fetchAll(db)
            .compactMap { row in BackupMethod(rawValue: row.method).map { BackupRecord(method: $0, lastAt: Date(timeIntervalSince1970: row.lastAt)) } }
        return WalletSummary(
            id: wallet.id, name: wallet.name, createdAt: Date(timeIntervalSince1970: wallet.createdAt),
            network: Network(rawValue: wallet.network) ?? .mainnet, kind: WalletKind(rawValue: wallet.kind) ?? .bip39, wordCount: wallet.wordCount,
            hasPassphrase: wallet.hasPassphrase, fingerprint: wallet.fingerprint,
            backup: BackupStatus(state: backedUpAt == nil ? .notBackedUp : .backedUp, backedUpAt: backedUpAt, lastVerifiedAt: verifiedAt, others: others),
            accounts: accounts, importedAccounts: imported, isCurrent: wallet.id == current)
    }
}
