import Foundation
import HawalaWallet

/// Backup before real money (docs/decisions/0018): on a network that moves real bitcoin, a
/// wallet receives or pays only once its words are written down and checked — or once the
/// person has typed that they accept the risk. Test networks keep the reminders only. Both
/// faces ask this rule; neither decides on its own.
public enum BackupBeforeRealMoney {
    /// What the person types to go ahead without a checked backup (letter case and spaces
    /// around it aside).
    public static let acceptance = "I accept the risk"

    /// The wallet setting that holds when the risk was accepted (seconds since 1970).
    static let settingKey = "ln.riskAcceptedAt"

    /// Why a wallet may not use real bitcoin yet.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// Real bitcoin, and neither a checked backup nor the risk accepted.
        case backupFirst(wallet: String)
        /// The acceptance was typed otherwise.
        case notAccepted

        public var description: String {
            switch self {
            case .backupFirst(let wallet):
                "\u{201C}\(wallet)\u{201D} is on real bitcoin and its words are not written down and checked yet: "
                    + "a lost device would be lost money. Back up the words first, or type \u{201C}\(BackupBeforeRealMoney.acceptance)\u{201D} to go ahead without"
            case .notAccepted:
                "to go ahead without a checked backup, type \u{201C}\(BackupBeforeRealMoney.acceptance)\u{201D} (these words, nothing else)"
            }
        }
    }

    /// Whether `wallet` (read again from `store`: a backup checked meanwhile counts) may
    /// receive or pay on `spec` now.
    /// - Throws: `Refusal.backupFirst`.
    public static func check(_ spec: BackendSpec, wallet: WalletSummary, store: WalletStore) throws(Refusal) {
        guard spec.isRealBitcoin else { return }
        let current = (try? store.list().first { $0.id == wallet.id }) ?? wallet
        guard !current.backup.isBackedUp, riskAcceptedAt(wallet: current, store: store) == nil else { return }
        throw .backupFirst(wallet: current.name)
    }

    /// Whether the rule holds the wallet back on `spec` now (for a page or a command to say so first).
    public static func holdsBack(_ spec: BackendSpec, wallet: WalletSummary, store: WalletStore) -> Bool {
        (try? check(spec, wallet: wallet, store: store)) == nil
    }

    /// Records the person's acceptance, typed as `typed`.
    /// - Throws: `Refusal.notAccepted` for any other text; nothing is saved then.
    public static func accept(typed: String, wallet: WalletSummary, store: WalletStore, now: Date = Date()) throws {
        let text = typed.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard text == acceptance.lowercased() else { throw Refusal.notAccepted }
        try store.setSetting(settingKey, to: String(Int(now.timeIntervalSince1970)), walletID: wallet.id)
    }

    /// When the risk was accepted for `wallet`, if it was.
    public static func riskAcceptedAt(wallet: WalletSummary, store: WalletStore) -> Date? {
        ((try? store.setting(settingKey, walletID: wallet.id)) ?? nil).flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
    }
}

extension BackendSpec {
    /// Whether it moves real bitcoin (Spark on mainnet).
    public var isRealBitcoin: Bool { self == .spark(.mainnet) }
}
