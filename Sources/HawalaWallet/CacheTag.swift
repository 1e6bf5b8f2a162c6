import Foundation
import GRDB
import HawalaCrypto

/// Authenticates what the store keeps in the clear for a wallet — the master fingerprint, the
/// account keys and the cached receive addresses — so that whoever can write `wallets.sqlite`
/// can't swap in their own addresses unnoticed. The tag is an AES-GCM seal under the keyring
/// (the wallet password's key) of nothing, with the cache's SHA-256 as authenticated data: only
/// the password's holder can make one, and any change to the cache makes it fail to open.
/// Checked at every unlock (cheap: one hash, one AES-GCM open per wallet); a full re-derivation
/// (`verifyCachedKeys`) runs when asked for and for a wallet with no tag yet.
enum CacheTag {
    /// The public part of one wallet, in a fixed order.
    struct Cache {
        var fingerprint: String
        var accounts: [(chain: String, path: String, xpub: String?)]
        var addresses: [(chain: String, index: Int, path: String, address: String, publicKey: String)]

        /// SHA-256 over every field, each length-prefixed, accounts and addresses sorted.
        var digest: [UInt8] {
            var input: [UInt8] = []
            func add(_ text: String) {
                let bytes = Array(text.utf8)
                input += withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Array($0) }
                input += bytes
            }
            add("hawala-cache-v1")
            add(fingerprint)
            for a in accounts.sorted(by: { $0.chain < $1.chain }) { add(a.chain); add(a.path); add(a.xpub ?? "-") }
            for a in addresses.sorted(by: { ($0.chain, $0.index) < ($1.chain, $1.index) }) {
                add(a.chain); add(String(a.index)); add(a.path); add(a.address); add(a.publicKey)
            }
            return Hash.sha256(input)
        }
    }

    static func context(wallet: String, digest: [UInt8]) -> [UInt8] { Array("hawala/cache/\(wallet)/".utf8) + digest }

    static func make(_ cache: Cache, wallet: String, keyring: Keyring) throws -> [UInt8] {
        try keyring.seal(SecretBytes([]), context: context(wallet: wallet, digest: cache.digest))
    }

    /// The cache of `wallet` as stored now.
    static func stored(wallet: String, db: Database) throws -> Cache {
        guard let fingerprint = try WalletRecord.fetchOne(db, key: wallet)?.fingerprint else { throw WalletError.noSuchWallet(wallet) }
        let accounts = try AccountRecord.firsts(of: wallet).fetchAll(db).map { (chain: $0.chain, path: $0.path, xpub: $0.xpub) }
        let addresses = try AddressRecord.receiving(of: wallet).fetchAll(db)
            .map { (chain: $0.chain, index: $0.addressIndex, path: $0.path, address: $0.address, publicKey: $0.publicKey) }
        return Cache(fingerprint: fingerprint, accounts: accounts, addresses: addresses)
    }

    /// Whether `tag` authenticates the stored cache of `wallet`.
    static func matches(_ tag: [UInt8], wallet: String, keyring: Keyring, db: Database) throws -> Bool {
        (try? keyring.open(tag, context: context(wallet: wallet, digest: try stored(wallet: wallet, db: db).digest))) != nil
    }

    /// Re-seals the tag of `wallet` under a new keyring (a password change), checking it first.
    static func reseal(wallet: String, from old: Keyring, to new: Keyring, db: Database) throws {
        guard var record = try WalletRecord.fetchOne(db, key: wallet), let tag = record.cacheTag else { return }
        let cache = try stored(wallet: wallet, db: db)
        guard (try? old.open(Array(tag), context: context(wallet: wallet, digest: cache.digest))) != nil else {
            throw WalletError.tampered("the cached addresses and keys of a wallet")
        }
        record.cacheTag = Data(try make(cache, wallet: wallet, keyring: new))
        try record.update(db, columns: [WalletRecord.Columns.cacheTag])
    }
}

extension WalletStore {
    /// Checks every wallet's cache tag (`WalletError.tampered` naming the wallet when one fails:
    /// nothing of that cache may be shown). A wallet without a tag (made before tags existed) is
    /// re-derived and compared in full, then tagged.
    func checkCacheTags(keyring: Keyring) throws {
        let rows = try read { db in
            try WalletRecord.fetchAll(db).map { wallet -> (String, String, Data?, Bool) in
                (wallet.id, wallet.name, wallet.cacheTag,
                 try wallet.cacheTag.map { try CacheTag.matches(Array($0), wallet: wallet.id, keyring: keyring, db: db) } ?? false)
            }
        }
        for (id, name, tag, matches) in rows where !matches {
            guard tag == nil, let summary = try list().first(where: { $0.id == id }) else {
                throw WalletError.tampered("the cached addresses and keys of wallet \"\(name)\"")
            }
            try verifyCachedKeys(of: summary, keyring: keyring)
            try writeTransaction { db in
                let made = try CacheTag.make(try CacheTag.stored(wallet: id, db: db), wallet: id, keyring: keyring)
                _ = try WalletRecord.filter(key: id).filter(WalletRecord.Columns.cacheTag == nil).updateAll(db, WalletRecord.Columns.cacheTag.set(to: Data(made)))
            }
        }
    }
}
