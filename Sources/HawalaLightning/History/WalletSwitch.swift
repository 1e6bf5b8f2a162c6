import HawalaWallet

/// Switching away from a wallet with payments still pending: they go on (the network settles
/// them), but how they end shows only once that wallet is used again.
public struct WalletSwitchWarning: Sendable, Equatable, CustomStringConvertible {
    public let from: String
    public let to: String
    public let pendingPayments: Int

    public var description: String {
        let payments = pendingPayments == 1 ? "1 payment" : "\(pendingPayments) payments"
        return "\u{201C}\(from)\u{201D} has \(payments) still pending. \(pendingPayments == 1 ? "It goes" : "They go") on without it, "
            + "but you will see how \(pendingPayments == 1 ? "it ends" : "they end") only once you use \u{201C}\(from)\u{201D} again."
    }
}

extension WalletStore {
    /// Before `use(name)`: what the current wallet leaves behind — its payments still pending
    /// (not open invoices: those wait for a payer) — for a face to confirm; nil when nothing is.
    /// - Throws: `WalletError.noSuchWallet` for an unknown `name`.
    public func switchWarning(to name: String) throws -> WalletSwitchWarning? {
        let target = try wallet(named: name)
        guard let current = try current(), current.id != target.id else { return nil }
        let pending = try countPayments(walletID: current.id, filter: PaymentFilter(status: .pending, openInvoices: false))
        return pending == 0 ? nil : WalletSwitchWarning(from: current.name, to: target.name, pendingPayments: pending)
    }
}
