import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaVaultClient
import HawalaVault
import HawalaWallet

// Turning the vault agent on and off for the wallets of one home, and opening it for a run
// (docs/decisions/0002): the rules a front end needs (a vault login first, something to back
// up, the agent's memory removed with its key), in one place.
extension VaultAgent {
    /// Where the agent remembers its runs for the wallets of `home` (no secret: times and the
    /// last upload's identity).
    public static func stateFile(home: WalletHome) -> URL { home.directory.appendingPathComponent("agent-state.json") }

    /// Whether `enable` can go ahead, checked before any password is asked: a vault login is
    /// saved and there is a wallet to back up.
    /// - Throws: `VaultClientError.notLoggedIn`, `WalletError.noWallets`.
    public static func checkCanEnable(store: WalletStore) throws {
        guard try SavedVaultLogin.url(in: store) != nil else { throw VaultClientError.notLoggedIn }
        guard !(try store.list()).isEmpty else { throw WalletError.noWallets }
    }

    /// Keeps `key` sealed under the wallet password and writes the first snapshot. Answers
    /// whether the vault's settings already have automatic backups on (nil when the vault
    /// could not say: enabling does not depend on it).
    /// - Throws: `VaultClientError.notLoggedIn`, `WalletError.noWallets`.
    public static func enable(store: WalletStore, keyring: Keyring, key: BackupKey, app: String) async throws -> Bool? {
        try checkCanEnable(store: store)
        guard let client = try SavedVaultLogin.client(store: store, keyring: keyring) else { throw VaultClientError.notLoggedIn }
        try AgentOutbox.enable(store: store, keyring: keyring, key: key, app: app)
        return try? await client.settings().autoBackupEnabled
    }

    /// Forgets the backup key, removes the snapshot and the agent's memory of its runs.
    public static func disable(store: WalletStore, keyring: Keyring) throws {
        try AgentOutbox.disable(store: store, keyring: keyring)
        try? FileManager.default.removeItem(at: stateFile(home: store.home))
    }

    /// After a change made with `keyring` (a command, a page): the snapshot the agent uploads is
    /// refreshed when the wallets changed. Never throws — the change itself is done — but a
    /// failure is said and recorded in the agent's state (`VaultAgentStatus.snapshotStaleSince`),
    /// so neither the person nor the agent take a stale snapshot for a fresh one.
    public static func afterChange(store: WalletStore, keyring: Keyring, app: String, now: Date = Date()) -> SnapshotRefresh {
        guard (try? AgentOutbox.enabledAt(store: store)) ?? nil != nil else { return .notEnabled }
        let url = stateFile(home: store.home)
        var state = VaultAgentState.load(from: url)
        let outcome: SnapshotRefresh
        do {
            outcome = try AgentOutbox.refresh(store: store, keyring: keyring, app: app, now: now) ? .written : .unchanged
            guard state.snapshotStaleSince != nil else { return outcome }
            state.snapshotStaleSince = nil
            state.snapshotProblem = nil
        } catch {
            outcome = .failed("\(error)")
            state.snapshotStaleSince = state.snapshotStaleSince ?? now
            state.snapshotProblem = "\(error)"
        }
        try? state.save(to: url)
        return outcome
    }

    /// The agent for the wallets of `store`, uploading with `token`.
    /// - Throws: `VaultClientError.notLoggedIn`, `.agentNotEnabled`.
    public static func open(store: WalletStore, token: SecretBytes, metered: any MeteredConnection = NetworkManagerMetered(),
                            log: @escaping @Sendable (String) -> Void) throws -> VaultAgent {
        guard let url = try SavedVaultLogin.url(in: store) else { throw VaultClientError.notLoggedIn }
        guard let enabledAt = try AgentOutbox.enabledAt(store: store) else { throw VaultClientError.agentNotEnabled }
        return VaultAgent(client: VaultClient(url: url, token: token), snapshot: AgentOutbox.snapshotURL(home: store.home),
                          stateFile: stateFile(home: store.home), enabledAt: enabledAt, store: store, metered: metered, log: log)
    }
}

/// What refreshing the agent's snapshot after a change gave.
public enum SnapshotRefresh: Sendable, Equatable {
    /// The agent is off: there is no snapshot to keep.
    case notEnabled
    /// Nothing a backup holds changed.
    case unchanged
    case written
    /// The snapshot could not be written (the reason): the agent would upload the last one.
    case failed(String)
}

/// What a front end shows about automatic backups on this machine: whether the agent is
/// enabled, its last upload, when the next backup is due and whether it is retrying.
public struct VaultAgentStatus: Equatable, Sendable {
    /// When the agent was enabled; nil when it is not (nothing is uploaded unattended).
    public let enabledAt: Date?
    public let lastUpload: Date?
    public let lastBackupID: String?
    /// When the next backup is due (already past: at the agent's next check); nil when the
    /// agent is off or the vault's settings turn automatic backups off.
    public let nextRun: Date?
    /// Failed attempts in a row, and when the agent tries again.
    public let failures: Int
    public let retryAt: Date?
    /// Since when the snapshot could not be refreshed after a change (and why); nil while it
    /// is up to date.
    public let snapshotStaleSince: Date?
    public let snapshotProblem: String?

    /// The status for the wallets of `store` under the vault's `settings`.
    public init(store: WalletStore, settings: BackupSettings) throws {
        enabledAt = try AgentOutbox.enabledAt(store: store)
        let state = VaultAgentState.load(from: VaultAgent.stateFile(home: store.home))
        lastUpload = state.lastUpload
        lastBackupID = state.lastBackupID
        nextRun = enabledAt.flatMap { state.due(settings: settings, enabledAt: $0) }
        failures = state.failures
        retryAt = state.retryAt
        snapshotStaleSince = state.snapshotStaleSince
        snapshotProblem = state.snapshotProblem
    }
}
