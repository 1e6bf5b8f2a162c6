import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys

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
        try read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM keyring") == 1 }
    }

    /// Unlocks with `password` (one Argon2id run).
    /// - Throws: `WalletError.wrongPassword`; nothing changes.
    public func unlock(password: SecretBytes) throws -> Keyring {
        guard let row = try read({ try Row.fetchOne($0, sql: "SELECT * FROM keyring WHERE id = 1") }) else { throw WalletError.noWallets }
        let parameters = try WalletStore.parameters(row)
        let keyring = try Keyring(password: password, parameters: parameters)
        try keyring.check(verifier: WalletStore.bytes(row, "verifier"))
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
            let current = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'")
            return try Row.fetchAll(db, sql: "SELECT * FROM wallet ORDER BY createdAt, name").map { try WalletStore.summary($0, db: db, current: current) }
        }
    }

    /// The wallet named `name`, or the current wallet when `name` is nil.
    public func wallet(named name: String?) throws -> WalletSummary {
        if let name {
            guard let id = try read({ try String.fetchOne($0, sql: "SELECT id FROM wallet WHERE name = ?", arguments: [name]) }) else {
                throw WalletError.noSuchWallet(name)
            }
            return try wallet(id: id)
        }
        guard let current = try current() else { throw WalletError.noWallets }
        return current
    }

    /// The current wallet, if any wallet exists.
    public func current() throws -> WalletSummary? {
        try read { db in
            let id = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'")
            return try Row.fetchOne(db, sql: "SELECT * FROM wallet WHERE id = ?", arguments: [id]).map { try WalletStore.summary($0, db: db, current: id) }
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
            try Row.fetchAll(db, sql: """
                SELECT path, address, publicKey FROM address
                WHERE walletId = ? AND chain = ? AND accountIndex = 0 AND change = 0 AND addressIndex < ?
                ORDER BY addressIndex
                """, arguments: [wallet.id, chain.name, count])
                .map { DerivedAddress(chain: chain.name, path: $0["path"], address: $0["address"], publicKey: $0["publicKey"]) }
        }
        if cached.count >= count { return cached }
        guard chain.curve == .secp256k1,
              let xpub = try read({ try String.fetchOne($0, sql: "SELECT xpub FROM account WHERE walletId = ? AND chain = ? AND accountIndex = 0", arguments: [wallet.id, chain.name]) }),
              case .public(let accountKey, _) = try ExtendedKey(xpub) else {
            throw WalletError.passwordNeeded("\(chain.name) keeps \(cached.count) addresses without the password; more need it")
        }
        return try HDWallet.addresses(chain: chain, accountKey: accountKey, account: 0, change: 0, from: 0, count: count)
    }

    /// The watch-only export of `wallet`'s account 0 on a Bitcoin-family `chain`, from the stored
    /// account key and fingerprint: no password, no words.
    public func accountExport(wallet: WalletSummary, chain: Chain) throws -> AccountExport {
        guard chain.isBitcoinFamily else { throw WalletError.noExtendedPublicKey(chain: chain.name) }
        guard let row = try read({ try Row.fetchOne($0, sql: "SELECT path, xpub FROM account WHERE walletId = ? AND chain = ? AND accountIndex = 0",
                                                     arguments: [wallet.id, chain.name]) }) else {
            throw WalletError.noAccount(wallet: wallet.name, chain: chain.name, network: wallet.network)
        }
        guard let xpub: String = row["xpub"], case .public(let accountKey, _) = try ExtendedKey(xpub) else {
            throw WalletError.tampered("the stored \(chain.name) account key")
        }
        return try AccountExport(chain: chain, path: try DerivationPath(row["path"]), accountKey: accountKey, fingerprint: wallet.fingerprint)
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
            try String.fetchOne(db, sql: "SELECT name FROM wallet WHERE id IN (?, ?) AND network = ?",
                                arguments: [WalletStore.walletID(keys, network: network), WalletStore.walletID(keys), network.rawValue])
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
            try Row.fetchOne(db, sql: "SELECT * FROM wallet WHERE id = ?", arguments: [id]).map {
                try WalletStore.summary($0, db: db, current: try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'"))
            }
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
        if let existing = try String.fetchOne(db, sql: "SELECT name FROM wallet WHERE id = ?", arguments: [p.id]) {
            throw WalletError.alreadyExists(name: existing)
        }
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM wallet WHERE name = ?", arguments: [name])! > 0 {
            throw WalletError.nameTaken(name)
        }
        try db.execute(sql: """
            INSERT INTO wallet (id, name, createdAt, network, kind, wordCount, language, hasPassphrase, fingerprint, sealedSecret, sealedPassphrase, cacheTag)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [p.id, name, createdAt.timeIntervalSince1970, p.network.rawValue, p.kind.rawValue, p.wordCount,
                             p.language.rawValue, p.hasPassphrase, p.fingerprint, Data(p.sealedSecret), p.sealedPassphrase.map { Data($0) }, Data(p.cacheTag)])
        for account in p.accounts {
            try db.execute(sql: "INSERT INTO account (walletId, chain, accountIndex, path, xpub) VALUES (?, ?, 0, ?, ?)",
                           arguments: [p.id, account.chain.name, account.path, account.xpub])
        }
        let statement = try db.makeStatement(sql: """
            INSERT INTO address (walletId, chain, accountIndex, change, addressIndex, path, address, publicKey)
            VALUES (?, ?, 0, 0, ?, ?, ?, ?)
            """)
        for (offset, a) in p.addresses.enumerated() {
            try statement.execute(arguments: [p.id, a.chain, offset % WalletStore.cachedAddressCount, a.path, a.address, a.publicKey])
        }
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('current', ?)", arguments: [p.id])
    }

    /// Makes `name` the current wallet (kept across runs).
    public func use(_ name: String) throws {
        try writeTransaction { db in
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM wallet WHERE name = ?", arguments: [name]) else { throw WalletError.noSuchWallet(name) }
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('current', ?)", arguments: [id])
        }
    }

    /// Renames a wallet.
    public func rename(_ old: String, to new: String) throws {
        let newName = try WalletStore.validName(new)
        try writeTransaction { db in
            guard try String.fetchOne(db, sql: "SELECT id FROM wallet WHERE name = ?", arguments: [old]) != nil else { throw WalletError.noSuchWallet(old) }
            if old == newName { return }
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM wallet WHERE name = ?", arguments: [newName])! > 0 { throw WalletError.nameTaken(newName) }
            try db.execute(sql: "UPDATE wallet SET name = ? WHERE name = ?", arguments: [newName, old])
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
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM wallet WHERE name = ?", arguments: [name]) else { throw WalletError.noSuchWallet(name) }
            deleted = id
            try db.execute(sql: "DELETE FROM wallet WHERE id = ?", arguments: [id])
            let current = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'")
            if current == id {
                if let next = try String.fetchOne(db, sql: "SELECT id FROM wallet ORDER BY createdAt, name LIMIT 1") {
                    try db.execute(sql: "UPDATE setting SET value = ? WHERE key = 'current'", arguments: [next])
                } else {
                    try db.execute(sql: "DELETE FROM setting WHERE key = 'current'")
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
            guard try String.fetchOne(db, sql: "SELECT id FROM wallet WHERE id = ?", arguments: [wallet.id]) != nil else { throw WalletError.noSuchWallet(wallet.name) }
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM importedAccount WHERE walletId = ? AND chain = ? AND address = ?",
                                arguments: [wallet.id, key.chain.name, key.address])! > 0 {
                throw WalletError.importedAccountExists(address: key.address)
            }
            try db.execute(sql: """
                INSERT INTO importedAccount (id, walletId, chain, address, label, importedAt, sealedKey, compressed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, wallet.id, key.chain.name, key.address, label, now.timeIntervalSince1970, Data(sealed), key.compressed])
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
            for row in try Row.fetchAll(db, sql: "SELECT id, kind, sealedSecret, sealedPassphrase FROM wallet") {
                let id: String = row["id"]
                try CacheTag.reseal(wallet: id, from: keyring, to: newKeyring, db: db)
                let context = try WalletStore.secretContext(row)
                let secret = try WalletStore.open(keyring, WalletStore.bytes(row, "sealedSecret"), context, what: "the sealed secret of a wallet")
                let newSecret = try newKeyring.seal(secret, context: context)
                var newPassphrase: Data?
                if let sealed = row["sealedPassphrase"] as Data? {
                    let passphrase = try WalletStore.open(keyring, Array(sealed), WalletStore.context(wallet: id, "passphrase"), what: "the sealed passphrase")
                    newPassphrase = Data(try newKeyring.seal(passphrase, context: WalletStore.context(wallet: id, "passphrase")))
                }
                try db.execute(sql: "UPDATE wallet SET sealedSecret = ?, sealedPassphrase = ? WHERE id = ?", arguments: [Data(newSecret), newPassphrase, id])
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, sealedKey FROM importedAccount") {
                let id: String = row["id"]
                let key = try WalletStore.open(keyring, WalletStore.bytes(row, "sealedKey"), WalletStore.context(imported: id), what: "an imported key")
                try db.execute(sql: "UPDATE importedAccount SET sealedKey = ? WHERE id = ?",
                               arguments: [Data(try newKeyring.seal(key, context: WalletStore.context(imported: id))), id])
            }
            try WalletStore.resealExitStates(from: keyring, to: newKeyring, db: db)
            try WalletStore.resealConnectionKeys(from: keyring, to: newKeyring, db: db)
            try WalletStore.resealL402Tokens(from: keyring, to: newKeyring, db: db)
            // Sealed store-wide settings (the vault token, the vault agent's key).
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM setting WHERE key LIKE 's.%'") {
                let key: String = row["key"], value: String = row["value"]
                let context = Array("hawala/setting/\(key.dropFirst(2))".utf8)
                guard let sealed = Data(base64Encoded: value) else { throw WalletError.tampered("the saved \(key.dropFirst(2))") }
                let secret = try WalletStore.open(keyring, Array(sealed), context, what: "the saved \(key.dropFirst(2))")
                try db.execute(sql: "UPDATE setting SET value = ? WHERE key = ?",
                               arguments: [Data(try newKeyring.seal(secret, context: context)).base64EncodedString(), key])
            }
            try db.execute(sql: "UPDATE keyring SET kdf = 'argon2id', passes = ?, memoryKiB = ?, salt = ?, verifier = ? WHERE id = 1",
                           arguments: [parameters.passes, parameters.memoryKiB, Data(parameters.salt), Data(verifier)])
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
        guard let row = try read({ try Row.fetchOne($0, sql: "SELECT id, kind, language, sealedSecret, sealedPassphrase FROM wallet WHERE id = ?", arguments: [wallet.id]) }) else {
            throw WalletError.noSuchWallet(wallet.name)
        }
        let secret = try WalletStore.open(keyring, WalletStore.bytes(row, "sealedSecret"), try WalletStore.secretContext(row), what: "the sealed secret of \"\(wallet.name)\"")
        if row["kind"] as String == WalletKind.seed.rawValue { return .seed(secret) }
        guard let language = Language(rawValue: row["language"]) else { throw WalletError.unreadableRecord(.language) }
        let mnemonic = try Mnemonic(entropy: secret, language: language)
        var passphrase = SecretBytes([])
        if let sealed = row["sealedPassphrase"] as Data? {
            passphrase = try WalletStore.open(keyring, Array(sealed), WalletStore.context(wallet: wallet.id, "passphrase"), what: "the sealed passphrase of \"\(wallet.name)\"")
        }
        return .mnemonic(mnemonic, passphrase: passphrase)
    }

    /// The private key of an imported account.
    public func importedKey(_ account: ImportedAccount, keyring: Keyring) throws -> SecretBytes {
        guard let sealed = try read({ try Data.fetchOne($0, sql: "SELECT sealedKey FROM importedAccount WHERE id = ?", arguments: [account.id]) }) else {
            throw WalletError.noSuchImportedAccount(address: account.address)
        }
        return try WalletStore.open(keyring, Array(sealed), WalletStore.context(imported: account.id), what: "the imported key \(account.address)")
    }

    /// Records that the quiz was passed: the first time sets "backed up", every time "verified".
    public func recordBackup(of wallet: WalletSummary, at date: Date = Date()) throws {
        try writeTransaction { db in
            try db.execute(sql: "UPDATE wallet SET backedUpAt = COALESCE(backedUpAt, ?), lastVerifiedAt = ? WHERE id = ?",
                           arguments: [date.timeIntervalSince1970, date.timeIntervalSince1970, wallet.id])
        }
    }

    /// Records that `method` (not the words: `recordBackup(of:)`) now keeps the wallets with
    /// these ids (nil: every wallet) — a file exported, a vault upload, a paper sheet, shares.
    /// The words are recorded by the quiz alone: `.words` records nothing here.
    public func recordBackup(_ method: BackupMethod, walletIDs: [String]?, at date: Date = Date()) throws {
        guard method != .words else { return }
        try writeTransaction { db in
            let ids = try walletIDs ?? String.fetchAll(db, sql: "SELECT id FROM wallet")
            for id in ids {
                try db.execute(sql: """
                    INSERT INTO backupRecord (walletId, method, lastAt) SELECT id, ?, ? FROM wallet WHERE id = ?
                    ON CONFLICT (walletId, method) DO UPDATE SET lastAt = excluded.lastAt
                    """, arguments: [method.rawValue, date.timeIntervalSince1970, id])
            }
        }
    }

    /// `recordBackup(_:walletIDs:)` once a backup was made of the wallets named (nil: every
    /// wallet). Never throws: the backup exists whether or not the list learns of it, so a failed
    /// record must not turn it into a failure (the list just shows one method less).
    public func noteBackup(_ method: BackupMethod, wallets names: [String]?) {
        guard let ids = try? names.map({ try $0.map { try wallet(named: $0).id } }) else { return }
        try? recordBackup(method, walletIDs: ids)
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
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM keyring WHERE id = 1") {
            // Another process may have set a password since this keyring was made.
            guard WalletStore.bytes(row, "salt") == keyring.parameters.salt else { throw WalletError.passwordSetMeanwhile }
            try keyring.check(verifier: WalletStore.bytes(row, "verifier"))
            return
        }
        let p = keyring.parameters
        try db.execute(sql: "INSERT INTO keyring (id, kdf, passes, memoryKiB, salt, verifier) VALUES (1, 'argon2id', ?, ?, ?, ?)",
                       arguments: [p.passes, p.memoryKiB, Data(p.salt), Data(try keyring.makeVerifier())])
    }

    /// The keyring must match the stored one (the password may have changed in another process).
    func checkKeyringIsCurrent(_ keyring: Keyring, db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM keyring WHERE id = 1"),
              WalletStore.bytes(row, "salt") == keyring.parameters.salt else { throw WalletError.wrongPassword }
        try keyring.check(verifier: WalletStore.bytes(row, "verifier"))
    }

    static func parameters(_ row: Row) throws -> KDFParameters {
        guard (row["kdf"] as String?) == "argon2id" else { throw WalletError.invalidKDFParameters("unknown KDF") }
        let parameters = KDFParameters(passes: row["passes"], memoryKiB: row["memoryKiB"], salt: bytes(row, "salt"))
        try parameters.validate()
        return parameters
    }

    static func bytes(_ row: Row, _ column: String) -> [UInt8] {
        (row[column] as Data?).map { Array($0) } ?? []
    }

    package static func open(_ keyring: Keyring, _ sealed: [UInt8], _ context: [UInt8], what: String) throws -> SecretBytes {
        do { return try keyring.open(sealed, context: context) } catch { throw WalletError.tampered(what) }
    }

    static func context(wallet id: String, _ kind: String) -> [UInt8] { Array("hawala/wallet/v1/\(id)/\(kind)".utf8) }
    /// The sealing context of a wallet row's secret: its id and its kind.
    static func secretContext(_ row: Row) throws -> [UInt8] {
        switch WalletKind(rawValue: row["kind"]) {
        case .bip39: context(wallet: row["id"], "entropy")
        case .seed: context(wallet: row["id"], "seed")
        case nil: throw WalletError.unreadableRecord(.walletKind)
        }
    }
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

    private static func freeName(_ db: Database) throws -> String {
        let names = Set(try String.fetchAll(db, sql: "SELECT name FROM wallet"))
        var n = names.count + 1
        while names.contains("Wallet \(n)") { n += 1 }
        return "Wallet \(n)"
    }

    static func summary(_ row: Row, db: Database, current: String?) throws -> WalletSummary {
        let id: String = row["id"]
        let accounts = try Row.fetchAll(db, sql: "SELECT chain, accountIndex, path, label FROM account WHERE walletId = ? ORDER BY rowid", arguments: [id])
            .map { HDAccount(chain: $0["chain"], index: UInt32($0["accountIndex"] as Int64), path: $0["path"], label: $0["label"]) }
        let imported = try Row.fetchAll(db, sql: "SELECT id, chain, address, label, importedAt, compressed FROM importedAccount WHERE walletId = ? ORDER BY importedAt", arguments: [id])
            .map { ImportedAccount(id: $0["id"], chain: $0["chain"], address: $0["address"], label: $0["label"],
                                   importedAt: Date(timeIntervalSince1970: $0["importedAt"]), compressed: $0["compressed"]) }
        let backedUpAt = (row["backedUpAt"] as Double?).map(Date.init(timeIntervalSince1970:))
        let verifiedAt = (row["lastVerifiedAt"] as Double?).map(Date.init(timeIntervalSince1970:))
        let others = try Row.fetchAll(db, sql: "SELECT method, lastAt FROM backupRecord WHERE walletId = ?", arguments: [id])
            .compactMap { row in BackupMethod(rawValue: row["method"]).map { BackupRecord(method: $0, lastAt: Date(timeIntervalSince1970: row["lastAt"])) } }
        return WalletSummary(
            id: id, name: row["name"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            network: Network(rawValue: row["network"]) ?? .mainnet, kind: WalletKind(rawValue: row["kind"]) ?? .bip39, wordCount: row["wordCount"],
            hasPassphrase: row["hasPassphrase"], fingerprint: row["fingerprint"],
            backup: BackupStatus(state: backedUpAt == nil ? .notBackedUp : .backedUp, backedUpAt: backedUpAt, lastVerifiedAt: verifiedAt, others: others),
            accounts: accounts, importedAccounts: imported, isCurrent: id == current)
    }
}
