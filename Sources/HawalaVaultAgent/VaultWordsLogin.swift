import Foundation
import HawalaCrypto
import HawalaVaultClient
import HawalaWallet

/// Your vault back with nothing but your words (seed 001's recovery after the device is lost):
/// an ordinary login binds the account to a key made from the current wallet's words for that
/// vault (`VaultLoginKey`); on a new device, after `wallet restore`, the same words sign the
/// vault's challenge for a new token — no operator, no token kept anywhere. One rule for every
/// face.
public enum VaultWordsLogin {
    /// `wallet`'s login key for the vault at `url` (its secret opened with `keyring`).
    public static func key(store: WalletStore, wallet: WalletSummary, keyring: Keyring, vault url: URL) throws -> VaultLoginKey {
        VaultLoginKey(seed: try store.secret(of: wallet, keyring: keyring).seed, vault: url)
    }

    /// What binding the words at a login did.
    public enum Binding: Sendable, Equatable {
        /// The account now logs in with this wallet's words.
        case bound(wallet: String)
        /// The account already had a login key (kept: another wallet's words may be bound).
        case alreadyBound
        /// No wallet here yet (a new device logging in to restore): nothing to bind.
        case noWallet
        /// The vault does not take it (an older vault, logins with the words off): said, not fatal.
        case notOffered(String)
        /// The vault takes it, but binding failed (the words bound to another account here, an
        /// append-only token, the network): said, not fatal — the login stands.
        case failed(String)
    }

    /// Binds the current wallet's words to the account of `client` when it has no login key yet
    /// (`replace`: even when it has one). Never fails a login: what happened is returned.
    public static func bind(client: VaultClient, store: WalletStore, keyring: Keyring, replace: Bool = false) async -> Binding {
        guard let wallet = try? store.wallet(named: nil) else { return .noWallet }
        let status: (bound: Bool, offered: Bool)
        do {
            status = try await client.loginKeyStatus()
        } catch .refused(let refusal) where refusal.status == 404 {
            return .notOffered("the vault is older than logins with the words")
        } catch {
            return .failed("\(error)")
        }
        guard status.offered else { return .notOffered("its operator turned logins with the words off") }
        if !replace, status.bound { return .alreadyBound }
        do {
            try await client.bindLoginKey(try key(store: store, wallet: wallet, keyring: keyring, vault: client.url))
            return .bound(wallet: wallet.name)
        } catch {
            return .failed("\(error)")
        }
    }

    /// Logs in with `wallet`'s words: a new token, checked and saved as the vault login.
    /// - Throws: `VaultClientError.wordsLoginRefused` when no account is bound to these words.
    public static func logIn(url: URL, store: WalletStore, wallet: WalletSummary, keyring: Keyring) async throws -> VaultClient {
        let token = try await VaultClient.logIn(url: url, key: try key(store: store, wallet: wallet, keyring: keyring, vault: url))
        return try await SavedVaultLogin.logIn(url: url, token: token, store: store, keyring: keyring)
    }
}
