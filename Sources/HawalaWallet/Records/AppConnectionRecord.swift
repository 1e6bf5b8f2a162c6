import Foundation
import GRDB
import HawalaText

/// A row of `appConnection` (Schema/V12.swift, `wires` from V13, the approval's from V17): a program's connection, its
/// service key sealed under the keyring; lists (permissions, relays, wires) space-separated.
struct AppConnectionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "appConnection"

    var id: String
    var walletId: String
    var name: String
    var permissions: String
    var budgetSat: Int64?
    var renewal: String
    var maxPaymentSat: Int64?
    var expiresAt: Double?
    var createdAt: Double
    var lastUsedAt: Double?
    var revokedAt: Double?
    var servicePublicKey: String
    var sealedServiceKey: Data
    var clientPublicKey: String
    var relays: String
    var wires: String
    var budgetCurrency: String?
    var budgetFiat: String?
    var approveAboveSat: Int64?
    var approvalWaitSeconds: Int?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let walletId = Column(CodingKeys.walletId)
        static let name = Column(CodingKeys.name)
        static let createdAt = Column(CodingKeys.createdAt)
        static let clientPublicKey = Column(CodingKeys.clientPublicKey)
        static let lastUsedAt = Column(CodingKeys.lastUsedAt)
        static let revokedAt = Column(CodingKeys.revokedAt)
    }

    /// The connection this row holds.
    /// - Throws: `WalletError.unreadableRecord` for a renewal this version does not know.
    func connection() throws(WalletError) -> AppConnection {
        guard let renewal = BudgetRenewal(rawValue: renewal) else { throw .unreadableRecord(.connection) }
        return AppConnection(
            id: id, walletID: walletId, name: name,
            permissions: Set(permissions.split(separator: " ").compactMap { ConnectionPermission(rawValue: String($0)) }),
            budget: budgetSat.flatMap { try? Sats($0) }, renewal: renewal, maxPayment: maxPaymentSat.flatMap { try? Sats($0) },
            expiresAt: expiresAt.map(Date.init(timeIntervalSince1970:)), createdAt: Date(timeIntervalSince1970: createdAt),
            lastUsedAt: lastUsedAt.map(Date.init(timeIntervalSince1970:)), revokedAt: revokedAt.map(Date.init(timeIntervalSince1970:)),
            servicePublicKey: servicePublicKey, clientPublicKey: clientPublicKey,
            relays: relays.split(separator: " ").map(String.init),
            wires: Set(wires.split(separator: " ").compactMap { ConnectionWire(rawValue: String($0)) }),
            fiatBudget: FiatBudget(currency: budgetCurrency, amount: budgetFiat),
            // An unreadable threshold asks for every payment, never for none.
            approveAbove: approveAboveSat.map { (try? Sats($0)) ?? .zero }, approvalWait: approvalWaitSeconds ?? AppConnection.defaultApprovalWait)
    }
}

/// A row of `connectionSpend` (Schema/V12.swift): what one payment of a connection reserved,
/// then cost (settled) or gave back (released).
struct ConnectionSpendRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "connectionSpend"

    enum State: String, Codable { case reserved, settled, released }

    var connectionId: String
    var paymentKey: String
    var msat: Int64
    var state: State
    var at: Double
    /// The price of 1 BTC in the connection's budget currency when reserved (a decimal); nil
    /// for a budget in sats.
    var btcPrice: String?

    enum Columns {
        static let connectionId = Column(CodingKeys.connectionId)
        static let msat = Column(CodingKeys.msat)
        static let state = Column(CodingKeys.state)
        static let at = Column(CodingKeys.at)
    }

    /// The row of `connectionID`'s payment keyed `paymentKey`.
    static func of(_ connectionID: String, paymentKey: String) -> QueryInterfaceRequest<ConnectionSpendRecord> {
        filter(key: ["connectionId": connectionID, "paymentKey": paymentKey])
    }
}

/// A row of `connectionAnswer` (Schema/V12.swift): the answer given to one request of a
/// connection, given again when the request is delivered again.
struct ConnectionAnswerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "connectionAnswer"

    var connectionId: String
    var requestId: String
    var answer: String
    var at: Double
}
