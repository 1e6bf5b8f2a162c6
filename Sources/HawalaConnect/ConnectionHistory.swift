import Foundation
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

/// What a program sees of the wallet's history through its connection — one rule for NWC, MCP
/// and notifications: all of it with the `history` permission, else only the payments it made
/// or asked for.
extension AppConnection {
    /// Whether it may see `payment`.
    public func maySee(_ payment: Payment) -> Bool { allows(.history) || payment.connection == name }

    /// `filter` narrowed to what it may see.
    public func visibleHistory(_ filter: PaymentFilter) -> PaymentFilter {
        var filter = filter
        if !allows(.history) { filter.connection = name }
        return filter
    }
}

/// A program's look into the history: a payment by its hash or its invoice, a page of the newest.
public enum ConnectionHistory {
    /// How many payments one list gives: 1 to 100, 20 when not asked.
    public static let listLimits = 1...100
    public static let defaultListLimit = 20

    /// The payment hash (64 lowercase hex) a program names: `paymentHash` itself, or the hash of
    /// the BOLT11 `invoice`; nil when neither reads.
    public static func paymentHash(_ paymentHash: String?, invoice: String?) -> String? {
        if let hash = paymentHash?.lowercased() { return hash.utf8.count == 64 && bytes(fromHex: hash) != nil ? hash : nil }
        guard let text = invoice, text.utf8.count <= Bolt11Invoice.maximumLength, let invoice = try? Bolt11Invoice(text) else { return nil }
        return hexString(invoice.paymentHash)
    }

    /// The invoice or payment with `paymentHash` that `connection` may see, if there is one.
    public static func lookup(_ paymentHash: String, connection: AppConnection, store: WalletStore) throws -> Payment? {
        try store.payments(walletID: connection.walletID, filter: connection.visibleHistory(PaymentFilter(paymentHash: paymentHash, limit: 1))).first
    }
}
