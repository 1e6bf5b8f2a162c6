/// The seed's re-prompt as a rule: which wallets a front end must remind the person about.
/// Every wallet whose words were not written down and checked counts, not only the current one.
public struct BackupReminder: Sendable, Equatable {
    /// The wallets that are not backed up, the current one first, then by creation time.
    public let wallets: [WalletSummary]

    public init(wallets all: [WalletSummary]) {
        let due = all.filter { !$0.backup.isBackedUp }
        wallets = due.filter(\.isCurrent) + due.filter { !$0.isCurrent }
    }

    /// Nothing to remind about.
    public var isEmpty: Bool { wallets.isEmpty }
    /// The only wallet to remind about is the current one.
    public var isOnlyCurrent: Bool { wallets.count == 1 && wallets[0].isCurrent }
}
