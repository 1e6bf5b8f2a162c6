import GRDB
import HawalaKeys

extension WalletStore {
    /// Re-derives what the store keeps in the clear for `wallet` — the account keys, the master
    /// fingerprint and the cached receive addresses — from its sealed secret, and compares.
    /// Whoever can write `wallets.sqlite` could swap in their own addresses; a difference is
    /// `WalletError.tampered` and nothing of the cache may be shown.
    public func verifyCachedKeys(of wallet: WalletSummary, keyring: Keyring) throws {
        let expected = try publicCache(secret: try secret(of: wallet, keyring: keyring), network: wallet.network)
        let what = "the cached addresses and keys of wallet \"\(wallet.name)\""
        let (accounts, addresses) = try read { db in
            (try Row.fetchAll(db, sql: "SELECT chain, path, xpub FROM account WHERE walletId = ? AND accountIndex = 0", arguments: [wallet.id]),
             try Row.fetchAll(db, sql: """
                 SELECT chain, addressIndex, path, address, publicKey FROM address
                 WHERE walletId = ? AND accountIndex = 0 AND change = 0 ORDER BY chain, addressIndex
                 """, arguments: [wallet.id]))
        }
        guard expected.fingerprint == wallet.fingerprint else { throw WalletError.tampered(what) }
        var storedAccounts: [String: (path: String, xpub: String?)] = [:]
        for row in accounts { storedAccounts[row["chain"]] = (row["path"], row["xpub"]) }
        guard storedAccounts.count == expected.accounts.count else { throw WalletError.tampered(what) }
        for account in expected.accounts {
            guard let stored = storedAccounts[account.chain.name], stored.path == account.path, stored.xpub == account.xpub else {
                throw WalletError.tampered(what)
            }
        }
        var byKey: [String: DerivedAddress] = [:]
        for (offset, a) in expected.addresses.enumerated() { byKey["\(a.chain)/\(offset % WalletStore.cachedAddressCount)"] = a }
        guard addresses.count == byKey.count else { throw WalletError.tampered(what) }
        for row in addresses {
            let key = "\(row["chain"] as String)/\(row["addressIndex"] as Int)"
            guard let a = byKey[key], a.path == row["path"], a.address == row["address"], a.publicKey == row["publicKey"] else {
                throw WalletError.tampered(what)
            }
        }
    }
}
