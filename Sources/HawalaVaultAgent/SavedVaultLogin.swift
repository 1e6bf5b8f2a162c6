import Foundation
import HawalaCrypto
import HawalaVaultClient
import HawalaWallet

/// The vault login kept in the wallet store: the URL in the clear, the token sealed under the
/// wallet password (so every client command unlocks the wallet).
public enum SavedVaultLogin {
    static let urlKey = "vault.url"
    static let tokenKey = "vault.token"

    /// The saved vault URL; nil when not logged in.
    public static func url(in store: WalletStore) throws -> URL? {
        try store.globalSetting(urlKey).flatMap(URL.init(string:))
    }

    /// A client for the saved login; nil when not logged in.
    public static func client(store: WalletStore, keyring: Keyring) throws -> VaultClient? {
        guard let url = try url(in: store), let token = try store.sealedSetting(tokenKey, keyring: keyring) else { return nil }
        return VaultClient(url: url, token: token)
    }

    /// The saved login, opened for one command: the URL is checked first, so `unlock` (the
    /// wallet password) is asked for only when there is a login to open.
    /// - Throws: `VaultClientError.notLoggedIn`, or what `unlock` throws.
    public static func open(store: WalletStore, unlock: () throws -> Keyring) throws -> (client: VaultClient, keyring: Keyring) {
        guard let url = try url(in: store) else { throw VaultClientError.notLoggedIn }
        let keyring = try unlock()
        guard let token = try store.sealedSetting(tokenKey, keyring: keyring) else { throw VaultClientError.notLoggedIn }
        return (VaultClient(url: url, token: token), keyring)
    }

    /// Checks the URL and token against the vault, then saves both; nothing is saved when the
    /// check fails.
    public static func logIn(url: URL, token: SecretBytes, store: WalletStore, keyring: Keyring) async throws -> VaultClient {
        let client = try await check(url: url, token: token)
        try save(client: client, token: token, store: store, keyring: keyring)
        return client
    }

    /// The check of `logIn`, for a caller that opens the store only once the vault answered.
    public static func check(url: URL, token: SecretBytes) async throws(VaultClientError) -> VaultClient {
        guard token.count > 0 else { throw .emptyToken }
        let client = VaultClient(url: url, token: token)
        try await client.checkLogin()
        return client
    }

    /// Saves a checked login.
    public static func save(client: VaultClient, token: SecretBytes, store: WalletStore, keyring: Keyring) throws {
        try store.setSealedSetting(tokenKey, secret: token, keyring: keyring)
        try store.setSealedSetting(urlKey, secret: nil, plain: client.url.absoluteString, keyring: keyring)
    }
}
