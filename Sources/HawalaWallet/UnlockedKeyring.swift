import Foundation
import HawalaCrypto
import Synchronization

/// The hook a wallet store reports its keyrings to: every successful unlock, a first password,
/// a password change. A front end hands one to the stores it opens for one task (a command, an
/// app session), so the task asks for the password once and the steps after it — the vault
/// agent's snapshot — use the newest keyring, without global state.
public final class UnlockedKeyring: Sendable {
    private let latest = Mutex<(home: URL, keyring: Keyring)?>(nil)

    public init() {}

    /// The keyring last reported by a store of `home`.
    public func keyring(for home: WalletHome) -> Keyring? {
        latest.withLock { $0.flatMap { $0.home == home.directory ? $0.keyring : nil } }
    }

    /// The home and keyring last reported, if any.
    public var last: (home: WalletHome, keyring: Keyring)? {
        latest.withLock { $0.map { (WalletHome(directory: $0.home), $0.keyring) } }
    }

    func record(_ keyring: Keyring, home: WalletHome) {
        latest.withLock { $0 = (home.directory, keyring) }
    }
}

extension WalletStore {
    /// Unlocks the store with passwords from `password` (one Argon2id run each): up to
    /// `attempts` tries — a person at a prompt may mistype; a password file gets one —,
    /// `wrong` hearing how many tries are left after each wrong one. A keyring already handed
    /// out in this task (`unlocked`) is reused without asking.
    /// - Throws: `WalletError.wrongPassword` after the last try, or what `password` throws.
    public func unlock(attempts: Int = 1, password: () throws -> SecretBytes, wrong: (_ triesLeft: Int) -> Void = { _ in }) throws -> Keyring {
        if let keyring = unlocked?.keyring(for: home) { return keyring }
        var attempt = 1
        while true {
            do {
                return try unlock(password: try password())
            } catch WalletError.wrongPassword where attempt < attempts {
                wrong(attempts - attempt)
                attempt += 1
            }
        }
    }

    /// The keyring for a change: `unlock` when a wallet password exists, otherwise — the first
    /// wallet here — a new keyring under `newPassword`.
    public func keyringForChange(unlock: () throws -> Keyring, newPassword: () throws -> SecretBytes,
                                 parameters: KDFParameters = KDFParameters()) throws -> Keyring {
        try hasPassword() ? try unlock() : try newKeyring(password: try newPassword(), parameters: parameters)
    }
}
