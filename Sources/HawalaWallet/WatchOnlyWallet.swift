import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaText

extension WalletStore {
    /// Adds a watch-only wallet of one Bitcoin-family account (`chain`) from its public key, as
    /// the current wallet. It holds no secret: `secret(of:)` refuses, nothing asks to back it up,
    /// and backups of every wallet leave it out (its key makes it again). Its account key is
    /// authenticated under the keyring like every wallet's cache.
    @discardableResult
    public func addWatchOnly(_ key: WatchOnlyKey, chain: Chain, name: String, keyring: Keyring, now: Date = Date()) throws -> WalletSummary {
        guard chain.descriptorTemplate == "wpkh(KEY)" else { throw WalletError.noExtendedPublicKey(chain: chain.name) }
        guard (chain.network == .testnet) == key.isTestnet else {
            throw WalletError.watchOnlyNetwork(key: key.isTestnet ? "a test network's" : "a mainnet", chain: chain.name)
        }
        let network = chain.network
        let plain = key.accountKey.serialized(version: key.isTestnet ? .tpub : .xpub)
        let path = try Self.watchOnlyPath(key, chain: chain)
        let id = Self.watchOnlyID(plain: plain, network: network)
        let fingerprint = String(format: "%08x", key.origin?.fingerprint ?? 0)
        let accounts: [(chain: Chain, path: String, xpub: String?)] = [(chain, path.description, key.accountKey.serialized())]
        let prepared = PreparedWallet(
            id: id, fingerprint: fingerprint, network: network, kind: .watchOnly, wordCount: 0, language: .english, hasPassphrase: false,
            accounts: accounts, addresses: [],
            sealedSecret: try keyring.seal(SecretBytes(Array(plain.utf8)), context: WalletStore.context(wallet: id, "watch-only")),  // authenticated, not secret
            sealedPassphrase: nil,
            cacheTag: try CacheTag.make(CacheTag.Cache(fingerprint: fingerprint, accounts: accounts.map { ($0.chain.name, $0.path, $0.xpub) }, addresses: []),
                                        wallet: id, keyring: keyring))
        let chosenName = try WalletStore.validName(name)
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            try self.insert(prepared, name: chosenName, createdAt: now, db: db)
            // Nothing secret to lose: no reminder to back it up.
            try db.execute(sql: "UPDATE wallet SET backedUpAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
        return try wallet(id: id)
    }

    /// The account path of a watch-only key on `chain`: an account key (depth 3, hardened) of
    /// the chain's purpose and coin type — its origin's path, or the chain's with the key's own
    /// account number. Any other key would show addresses whose payments no PSBT of it could
    /// get signed.
    static func watchOnlyPath(_ key: WatchOnlyKey, chain: Chain) throws -> DerivationPath {
        let standard = try chain.accountPath(account: 0).components
        let account = key.accountKey.childNumber
        guard key.accountKey.depth == 3, account.isHardened else {
            throw WalletError.watchOnlyKeyNotAccount("a key of depth \(key.accountKey.depth); an account's key is at depth 3, like m/84'/0'/0'")
        }
        let path = key.origin?.path ?? DerivationPath(Array(standard.prefix(2)) + [account])
        guard path.components.count == 3, Array(path.components.prefix(2)) == Array(standard.prefix(2)), path.components[2] == account else {
            throw WalletError.watchOnlyKeyNotAccount("its path \(path) is not \(chain.displayName)'s native segwit account path (\(DerivationPath(Array(standard.prefix(2)))) then an account)")
        }
        return path
    }

    /// A watch-only wallet's id: its network and account key's, as UUID version 8 text.
    static func watchOnlyID(plain: String, network: Network) -> String {
        var digest = Hash.sha256(Array("hawala watch-only id v1 \(network.rawValue) \(plain)".utf8))
        digest[6] = (digest[6] & 0x0F) | 0x80  // version 8 (custom), RFC 9562
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = hexString(Array(digest.prefix(16)))
        return [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)].joined(separator: "-")
    }
}
