import Foundation
import HawalaNostr
import HawalaText
import HawalaWallet

/// A program's proposal of a connection (`WalletAuthRequest`) in Hawala's terms, and the one
/// rule by which a person accepts it, for every face: what it asks (permissions from its NIP-47
/// methods, its budget and renewal, its expiry) may be lowered, never raised; nothing is allowed
/// until it is accepted.
public struct ConnectionProposal: Sendable {
    public let request: WalletAuthRequest
    /// What it asks, in Hawala's permissions (NIP-47's `get_info`, `get_budget` and
    /// notifications come with every connection).
    public let permissions: Set<ConnectionPermission>
    /// Methods asked that Hawala does not offer (said, never granted).
    public let unknownMethods: [String]
    /// The budget it proposes (`max_amount`, sats) and its renewal; without one, Hawala's
    /// default: 10,000 sat a day.
    public let budget: Sats
    public let renewal: BudgetRenewal
    public let expiresAt: Date?
    /// Its name, or one made from its key.
    public let name: String


    /// Why an acceptance was refused.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case raisesBudget(proposed: Sats)
        case addsPermission(ConnectionPermission)
        case extendsExpiry(Date)
        case renewsSooner(BudgetRenewal)
        case budgetNotInSats
        case nothingAllowed

        public var description: String {
            switch self {
            case .raisesBudget(let proposed): "the program proposed at most \(AmountText.sats(proposed)): a budget may only be lowered"
            case .addsPermission(let permission): "the program did not ask to \(permission.verb): it can't be given more than it asked"
            case .extendsExpiry(let date): "the program asked to stop by \(date.iso8601): an expiry may only come sooner"
            case .budgetNotInSats: "the program proposed its budget in sats: lower it in sats"
            case .renewsSooner(let proposed): "the program proposed a budget renewed \(proposed.rawValue): it may only renew less often"
            case .nothingAllowed: "a connection may do at least one thing the program asked"
            }
        }
    }

    /// - Throws: `ConnectionInput.Error` for a renewal Hawala does not know.
    public init(_ request: WalletAuthRequest) throws(ConnectionInput.Error) {
        self.request = request
        var permissions: Set<ConnectionPermission> = [], unknown: [String] = []
        for method in request.methods {
            switch method {
            case "pay_invoice", "multi_pay_invoice": permissions.insert(.pay)
            case "make_invoice", "lookup_invoice", "make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice": permissions.insert(.receive)
            case "get_balance": permissions.insert(.balance)
            case "list_transactions": permissions.insert(.history)
            case "get_info", "get_budget", "notifications": break
            default: unknown.append(String(method.prefix(40)))
            }
        }
        self.permissions = request.methods.isEmpty ? NewConnection.defaultPermissions : permissions
        unknownMethods = unknown
        budget = request.maxAmountSats.flatMap { try? Sats($0) } ?? NewConnection.defaultBudget
        if let named = request.budgetRenewal {
            guard let renewal = BudgetRenewal(rawValue: named) else { throw .budget(named) }
            self.renewal = renewal
        } else {
            renewal = request.maxAmountSats == nil ? .daily : .monthly
        }
        expiresAt = request.expiresAt
        let key: String = if case .walletAuth(let key) = request.kind { key } else { "" }
        let named = request.name.map { String($0.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }) }?.trimmingCharacters(in: .whitespaces)
        name = named.flatMap { $0.isEmpty ? nil : String(TextLimit.prefix($0, scalars: 64)) } ?? "program-" + key.prefix(8)
    }

    /// The connection as accepted: the person's choices where given (each may only lower what
    /// was asked), the proposal's otherwise; `relays` when the program named none. A Wallet Auth
    /// request's connection keeps the program's key; a deep link's gets one the wallet makes.
    /// - Throws: `Refusal`.
    public func accepted(name: String? = nil, permissions chosenPermissions: Set<ConnectionPermission>? = nil, budget chosenBudget: Sats? = nil,
                         renewal chosenRenewal: BudgetRenewal? = nil, maxPayment: Sats? = nil, expiresAt chosenExpiry: Date? = nil,
                         relays fallback: [String]) throws(Refusal) -> NewConnection {
        let granted = chosenPermissions ?? permissions
        if let extra = ConnectionPermission.sorted(granted.subtracting(permissions)).first { throw .addsPermission(extra) }
        guard !granted.isEmpty else { throw .nothingAllowed }
        let spend = chosenBudget ?? budget
        if spend > budget { throw .raisesBudget(proposed: budget) }
        if let chosenExpiry, let expiresAt, chosenExpiry > expiresAt { throw .extendsExpiry(expiresAt) }
        if let chosenRenewal, Self.frequency(chosenRenewal) > Self.frequency(renewal) { throw .renewsSooner(renewal) }
        var connection = NewConnection(name: name ?? self.name, permissions: granted, budget: spend, renewal: chosenRenewal ?? renewal,
                                       maxPayment: maxPayment.map { min($0, spend) }, expiresAt: chosenExpiry ?? expiresAt,
                                       relays: request.relays.isEmpty ? fallback : request.relays)
        if case .walletAuth(let key) = request.kind { connection.clientPublicKey = key }
        return connection
    }

    /// `accepted` with the budget as a person typed it, read the same for every face: sats
    /// only (a proposal's budget is in sats), and a budget typed without its period keeps the
    /// proposed renewal.
    /// - Throws: `ConnectionInput.Error`, `Refusal`.
    public func accepted(name: String? = nil, permissions chosenPermissions: Set<ConnectionPermission>? = nil, typedBudget: String?,
                         maxPayment: Sats? = nil, expiresAt chosenExpiry: Date? = nil, relays fallback: [String]) throws -> NewConnection {
        var budget: Sats?, renewal: BudgetRenewal?
        if let typed = typedBudget?.trimmingCharacters(in: .whitespaces), !typed.isEmpty {
            let (limit, period) = try ConnectionInput.limit(typed)
            guard limit.fiat == nil else { throw Refusal.budgetNotInSats }
            budget = limit.sats
            if typed.contains("/") { renewal = period }
        }
        return try accepted(name: name, permissions: chosenPermissions, budget: budget, renewal: renewal, maxPayment: maxPayment,
                            expiresAt: chosenExpiry, relays: fallback)
    }

    /// How often a budget starts again, for comparing: a renewal more often gives more.
    static func frequency(_ renewal: BudgetRenewal) -> Int {
        switch renewal {
        case .never: 0
        case .yearly: 1
        case .monthly: 2
        case .weekly: 3
        case .daily: 4
        }
    }

    /// Where to hand a deep link's connection URI: its callback with `value=URI`, when the
    /// callback is an address a browser may open (no `javascript:`, `data:` or `file:`).
    public func callback(with uri: String) -> URL? {
        guard case .deepLink(let callback?) = request.kind, let scheme = callback.scheme?.lowercased(),
              !["javascript", "data", "file", "vbscript", "blob"].contains(scheme),
              var components = URLComponents(url: callback, resolvingAgainstBaseURL: false) else { return nil }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "value", value: uri)]
        return components.url
    }
}
