import GRDB
import HawalaKeys

extension WalletStore {
    /// Re-derives what the store keeps in the clear for `wallet` — the account keys, the master
    /// fingerprint and the cached receive addresses — from its sealed secret, and compares.
    /// Whoever can write `wallets.sqlite` could swap in their own addresses; a difference is
    /// `WalletError.tampered` and nothing of the cache may be shown.
    public func verifyCachedKeys(of wallet: WalletSummary, keyring: Keyring) throws {
        // A watch-only wallet has no secret to derive from: its key sealed to the wallet vouches
        // for the stored one and for its id.
        guard wallet.kind != .watchOnly else { return try verifyWatchOnlyKey(of: wallet, keyring: keyring) }
        let expected = try publicCache(secret: try secret(of: wallet, keyring: keyring), network: wallet.network)
        let what = "the cached addresses and keys of wallet \"\(wallet.name)\""
        let (accounts, addresses) = try read { db in
            (try AccountRecord.firsts(of: wallet.id).fetchAll(db), try AddressRecord.receiving(of: wallet.id).fetchAll(db))
        }
        guard expected.fingerprint == wallet.fingerprint else { throw WalletError.tampered(what) }
        var storedAccounts: [String: (path: String, xpub: String?)] = [:]
        for account in accounts { storedAccounts[account.chain] = (account.path, account.xpub) }
        guard storedAccounts.count == expected.accounts.count else { throw WalletError.tampered(what) }
        for account in expected.accounts {
            guard let stored = storedAccounts[account.chain.name], stored.path == account.path, stored.xpub == account.xpub else {
                throw WalletError.tampered(what)
            }
        }
        var byKey: [String: DerivedAddress] = [:]
        for (offset, a) in expected.addresses.enumerated() { byKey["\(a.chain)/\(offset % WalletStore.cachedAddressCount)"] = a }
        guard addresses.count == byKey.count else { throw WalletError.tampered(what) }
        for stored in addresses {
            guard let a = byKey["\(stored.chain)/\(stored.addressIndex)"], a.path == stored.path, a.address == stored.address, a.publicKey == stored.publicKey else {
                throw WalletError.tampered(what)
            }
        }
    }

    /// A watch-only wallet's stored account key is the one sealed to it when it was made, and
    /// its id is that key's: else `WalletError.tampered`.
    func verifyWatchOnlyKey(of wallet: WalletSummary, keyring: Keyring) throws {
        let what = "the account key of watch-only wallet \"\(wallet.name)\""
        let (record, account) = try read { db in (try WalletRecord.fetchOne(db, key: wallet.id), try AccountRecord.firsts(of: wallet.id).fetchAll(db)) }
        guard let record, account.count == 1, let stored = account[0].xpub, case .public(let storedKey, _) = try? ExtendedKey(stored) else {
            throw WalletError.tampered(what)
        }
        let sealed = try WalletStore.open(keyring, Array(record.sealedSecret), try record.secretContext(), what: what)
        let plain = String(decoding: sealed.unsafeCopy(), as: UTF8.self)
        guard case .public(let sealedKey, let version)? = try? ExtendedKey(plain),
              sealedKey.serialized(version: .xpub) == storedKey.serialized(version: .xpub),
              WalletStore.watchOnlyID(plain: plain, network: version.isTestnet ? .testnet : .mainnet) == wallet.id else {
            throw WalletError.tampered(what)
        }
    }
}
