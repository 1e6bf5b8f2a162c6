import Foundation

/// The hook a wallet store reports its keyrings to: every successful unlock, a first password,
/// a password change. A front end hands one to the stores it opens for one task (a command, an
/// app session), so the task asks for the password once and the steps after it — the vault
/// agent's snapshot — use the newest keyring, without global state.
public final class UnlockedKeyring: @unchecked Sendable {
    private let lock = NSLock()
    private var latest: (home: URL, keyring: Keyring)?

    public init() {}

    /// The keyring last reported by a store of `home`.
    public func keyring(for home: WalletHome) -> Keyring? {
        lock.withLock { latest.flatMap { $0.home == home.directory ? $0.keyring : nil } }
    }

    /// The home and keyring last reported, if any.
    public var last: (home: WalletHome, keyring: Keyring)? {
        lock.withLock { latest.map { (WalletHome(directory: $0.home), $0.keyring) } }
    }

    func record(_ keyring: Keyring, home: WalletHome) {
        lock.withLock { latest = (home.directory, keyring) }
    }
}
