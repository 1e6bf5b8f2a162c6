import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaVault
import HawalaVaultClient
import HawalaWallet

/// A backup to the vault made now ("back up now", `vault backup`), one way for every face:
/// refused before any password when nothing can be backed up, then every wallet sealed into one
/// `.hawala` file and uploaded (the vault checks its SHA-256).
public enum VaultManualBackup {
    /// Before any password is asked for: a vault login is saved, and there is a wallet to back up.
    /// - Throws: `VaultClientError.notLoggedIn`, `WalletError.noWallets`.
    public static func check(store: WalletStore) throws {
        guard try SavedVaultLogin.url(in: store) != nil else { throw VaultClientError.notLoggedIn }
        guard try !store.list().isEmpty else { throw WalletError.noWallets }
    }

    /// Seals every wallet under `backupPassword` (off the cooperative pool: Argon2id, twice with
    /// the read-back) and uploads the file as a manual backup.
    /// - Parameters:
    ///   - app: the program and version the backup file records as its maker.
    /// - Returns: the stored backup and how many wallets it holds.
    /// - Throws: `VaultClientError` (the vault, or no login), `WalletError`, `HawalaFileError`.
    public static func run(store: WalletStore, keyring: Keyring, backupPassword: SecretBytes, app: String,
                           progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> (backup: Backup, wallets: Int) {
        try check(store: store)
        guard let client = try SavedVaultLogin.client(store: store, keyring: keyring) else { throw VaultClientError.notLoggedIn }
        let (sealed, count) = try await Offload.run {
            let (payload, count) = try BackupExporter.payload(store: store, keyring: keyring, names: nil, app: app)
            return (try BackupExporter.sealedBytes(payload, password: backupPassword), count)
        }
        let backup = try await client.upload(sealed, kind: .manual, progress: progress)
        store.noteBackup(.vault, wallets: nil)
        return (backup, count)
    }
}
