import Foundation
import GRDB
import HawalaCrypto
import HawalaText

/// What an app connection may do. `pay` never implies reading: a program that pays sees only
/// what it paid (and the invoices it made) unless it may read the history too.
public enum ConnectionPermission: String, Sendable, CaseIterable, Codable {
    /// Pay invoices (NIP-47 `pay_invoice`).
    case pay
    /// Make invoices and look them up (`make_invoice`, `lookup_invoice`).
    case receive
    /// Read the balance (`get_balance`).
    case balance
    /// Read the whole history (`list_transactions`, `lookup_invoice` of any payment).
    case history

    /// "pay,receive" → [.pay, .receive]; nil when a word is none of them.
    public static func parse(_ text: String) -> Set<ConnectionPermission>? { caseList(text) }

    /// In this order, for people.
    public static func sorted(_ set: Set<ConnectionPermission>) -> [ConnectionPermission] { allCases.filter(set.contains) }
}

/// How a program reaches its connection.
public enum ConnectionWire: String, Sendable, CaseIterable, Codable {
    /// Nostr Wallet Connect (NIP-47) over relays, answered by `connect serve`.
    case nwc
    /// MCP over stdio: the program starts `hawala mcp --connection NAME`.
    case mcp

    /// "nwc,mcp" → [.nwc, .mcp]; nil when a word is neither.
    public static func parse(_ text: String) -> Set<ConnectionWire>? { caseList(text) }

    /// In this order, for people.
    public static func sorted(_ set: Set<ConnectionWire>) -> [ConnectionWire] { allCases.filter(set.contains) }
}

/// "a, b" or "a b" → the cases named; nil when a word names none, or there is no word.
func caseList<T: RawRepresentable & Hashable>(_ text: String) -> Set<T>? where T.RawValue == String {
    let words = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
    let parsed = words.compactMap(T.init(rawValue:))
    return parsed.count == words.count && !parsed.isEmpty ? Set(parsed) : nil
}

/// When a connection's budget starts again: calendar periods in this machine's time zone
/// (weeks start on Monday, as ISO 8601 has them), or never.
public enum BudgetRenewal: String, Sendable, CaseIterable, Codable {
    case daily, weekly, monthly, yearly, never

    /// The calendar this machine counts periods in: its time zone, weeks from Monday.
    public static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }

    /// "a day", "a week", "a month", "a year", "in all".
    public var perPeriod: String {
        switch self {
        case .daily: "a day"
        case .weekly: "a week"
        case .monthly: "a month"
        case .yearly: "a year"
        case .never: "in all"
        }
    }

    /// The start of the period holding `date` (`never`: the beginning of time).
    public func periodStart(containing date: Date, calendar: Calendar = BudgetRenewal.calendar) -> Date {
        let component: Calendar.Component
        switch self {
        case .daily: component = .day
        case .weekly: component = .weekOfYear
        case .monthly: component = .month
        case .yearly: component = .year
        case .never: return .distantPast
        }
        return calendar.dateInterval(of: component, for: date)?.start ?? date
    }

    /// When the budget starts again after `date` (nil: never).
    public func renewal(after date: Date, calendar: Calendar = BudgetRenewal.calendar) -> Date? {
        let component: Calendar.Component
        switch self {
        case .daily: component = .day
        case .weekly: component = .weekOfYear
        case .monthly: component = .month
        case .yearly: component = .year
        case .never: return nil
        }
        return calendar.dateInterval(of: component, for: date)?.end
    }
}

/// A connection's budget in a currency ("20 USD a month"): each payment counted at the price of
/// bitcoin when it was made, reserved in sats at that price.
public struct FiatBudget: Sendable, Equatable {
    /// ISO 4217, upper case.
    public let currency: String
    public let amount: Decimal

    public init(currency: String, amount: Decimal) {
        self.currency = currency.uppercased()
        self.amount = amount
    }

    /// From the store's columns; nil when either is missing or unreadable.
    init?(currency: String?, amount: String?) {
        guard let currency, currency.count == 3, let amount, let value = Decimal(string: amount, locale: Locale(identifier: "en_US_POSIX")), value > 0 else { return nil }
        self.init(currency: currency, amount: value)
    }

    /// What `msat` is worth at `btcPrice` (the price of 1 BTC in the currency).
    public static func value(of msat: Msat, btcPrice: Decimal) -> Decimal {
        Decimal(msat.value) * btcPrice / Decimal(100_000_000_000)
    }

    /// "20 USD", "12.50 EUR": the amount as typed back, with the currency.
    public var text: String { "\(FiatBudget.plain(amount)) \(currency)" }

    /// A decimal with two places, without grouping ("1234.5" → "1234.50"; "20" → "20.00").
    public static func plain(_ value: Decimal) -> String {
        var rounded = Decimal(), copy = value
        NSDecimalRound(&rounded, &copy, 2, .plain)
        let text = NSDecimalNumber(decimal: rounded).stringValue
        guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
        return text + String(repeating: "0", count: max(0, 2 - text[text.index(after: dot)...].count))
    }
}

/// A program's permission to use one wallet, within limits a person set. Its client key is
/// the program's (the secret shown once, never kept); its service key is the wallet's side,
/// sealed under the wallet password.
public struct AppConnection: Sendable, Equatable {
    public let id: String
    public let walletID: String
    public let name: String
    public let permissions: Set<ConnectionPermission>
    /// The most it may spend in a period (amount + fees); nil: no budget of its own.
    public let budget: Sats?
    public let renewal: BudgetRenewal
    /// The largest single payment it may make (the amount); nil: only the budget limits it.
    public let maxPayment: Sats?
    public let expiresAt: Date?
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let revokedAt: Date?
    /// Hex x-only keys (NIP-47: the wallet service's and the client's).
    public let servicePublicKey: String
    public let clientPublicKey: String
    public let relays: [String]
    /// How its program reaches it: NWC (served by `connect serve`), MCP, or both.
    public let wires: Set<ConnectionWire>
    /// Its budget in a currency (then `budget` is nil): each payment counted at the price of
    /// bitcoin when it was made.
    public var fiatBudget: FiatBudget? = nil
    /// Above this (amount + fee), a payment waits for the person's yes (`PaymentApproval`);
    /// nil: none asked.
    public var approveAbove: Sats? = nil
    /// How long, in seconds, a payment waits for that yes before nothing is paid.
    public var approvalWait: Int = AppConnection.defaultApprovalWait

    /// Two minutes: long enough to reach the app, short enough for a program that waits.
    public static let defaultApprovalWait = 120
    /// The shortest and longest wait a connection may set.
    public static let approvalWaitBounds = 10...900

    public enum State: String, Sendable, Equatable { case live, revoked, expired }

    public func state(at now: Date) -> State {
        if revokedAt != nil { return .revoked }
        if let expiresAt, expiresAt <= now { return .expired }
        return .live
    }

    public func allows(_ permission: ConnectionPermission) -> Bool { permissions.contains(permission) }

    /// Whether the NWC service serves it at `now`: live, and reached over Nostr Wallet Connect.
    public func servedOverNWC(at now: Date) -> Bool { state(at: now) == .live && wires.contains(.nwc) }

    /// How long after its revocation or expiry a connection's requests are still answered
    /// (`UNAUTHORIZED`), so its program learns where it stands instead of waiting out a timeout.
    public static let refusedAfterEnd: TimeInterval = 30 * 86_400

    /// Whether the NWC service listens to it at `now`: served, or ended within `refusedAfterEnd`
    /// (its requests then get `UNAUTHORIZED`).
    public func answeredOverNWC(at now: Date) -> Bool {
        guard wires.contains(.nwc) else { return false }
        switch state(at: now) {
        case .live: return true
        case .revoked: return revokedAt.map { now.timeIntervalSince($0) < Self.refusedAfterEnd } ?? false
        case .expired: return expiresAt.map { now.timeIntervalSince($0) < Self.refusedAfterEnd } ?? false
        }
    }
}

/// What a connection has spent in its current period, and what is left.
public struct ConnectionSpending: Sendable, Equatable {
    /// Settled payments and those still reserved (amount + fees), in this period.
    public let spent: Msat
    public let budget: Sats?
    public let periodStart: Date
    /// When the budget starts again (nil: never).
    public let renewsAt: Date?

    /// What may still be spent this period (nil: no budget).
    public var left: Msat? { budget.map { $0.msat.minusOrZero(spent) } }
    /// A budget in a currency, and what was spent of it this period (each payment at the
    /// price of its moment).
    public var fiatBudget: FiatBudget? = nil
    public var fiatSpent: Decimal = 0
}

/// Why a connection may not do what it asked — in the protocols' words by each face.
public enum ConnectionRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case revoked
    case expired
    /// It may not do this (`RESTRICTED`).
    case notAllowed(ConnectionPermission)
    /// Above its maximum per payment (`QUOTA_EXCEEDED`).
    case aboveMaximum(maximum: Sats)
    /// Above what is left of its budget this period (`QUOTA_EXCEEDED`).
    case overBudget(left: Msat, renewsAt: Date?)
    /// Above what is left of its budget in a currency this period (`QUOTA_EXCEEDED`).
    case overFiatBudget(left: Decimal, currency: String, renewsAt: Date?)
    /// Its budget is in a currency and no price of bitcoin in it can be had now: refused,
    /// never guessed.
    case noRate(currency: String)

    public var description: String {
        switch self {
        case .revoked: "this connection was revoked"
        case .expired: "this connection has expired"
        case .notAllowed(let permission): "this connection may not \(permission.verb)"
        case .aboveMaximum(let maximum): "above this connection's maximum of \(AmountText.sats(maximum)) a payment"
        case .overBudget(let left, let renewsAt):
            "above this connection's budget: \(AmountText.sats(left, rounding: .down)) left" + (renewsAt.map { " until \($0.relative())" } ?? "")
        case .overFiatBudget(let left, let currency, let renewsAt):
            "above this connection's budget: \(FiatBudget.plain(left)) \(currency) left" + (renewsAt.map { " until \($0.relative())" } ?? "")
        case .noRate(let currency): "no \(currency) rate now: this connection's budget is in \(currency), and a payment is never counted at a guessed price"
        }
    }
}

extension ConnectionPermission {
    /// "pay", "make invoices", "read the balance", "read the history".
    public var verb: String {
        switch self {
        case .pay: "pay"
        case .receive: "make invoices"
        case .balance: "read the balance"
        case .history: "read the history"
        }
    }
}

/// A new connection as a person asks for it.
public struct NewConnection: Sendable {
    /// What a connection may do where nobody says: pay, receive, see the balance.
    public static let defaultPermissions: Set<ConnectionPermission> = [.pay, .receive, .balance]
    /// Its budget where nobody says: 10,000 sat a day.
    public static let defaultBudget: Sats = 10_000
    public static let defaultRenewal = BudgetRenewal.daily
    /// How it is reached where nobody says: Nostr Wallet Connect.
    public static let defaultWires: Set<ConnectionWire> = [.nwc]

    public var name: String
    public var permissions: Set<ConnectionPermission>
    public var budget: Sats?
    public var renewal: BudgetRenewal
    public var maxPayment: Sats?
    public var expiresAt: Date?
    public var relays: [String]
    public var wires: Set<ConnectionWire>
    /// A budget in a currency instead of `budget`.
    public var fiatBudget: FiatBudget?
    /// The program's own public key (hex, x-only), when it proposed the connection (Nostr
    /// Wallet Auth): no client secret is made, and none is shown.
    public var clientPublicKey: String?
    /// Above this a payment waits for the person's yes; nil: never asked.
    public var approveAbove: Sats?
    /// How long it waits, in seconds (`AppConnection.approvalWaitBounds`).
    public var approvalWait = AppConnection.defaultApprovalWait

    public init(name: String, permissions: Set<ConnectionPermission>, budget: Sats?, renewal: BudgetRenewal, maxPayment: Sats? = nil,
                expiresAt: Date? = nil, relays: [String], wires: Set<ConnectionWire> = defaultWires, fiatBudget: FiatBudget? = nil) {
        self.fiatBudget = fiatBudget
        self.wires = wires
        self.name = name
        self.permissions = permissions
        self.budget = budget
        self.renewal = renewal
        self.maxPayment = maxPayment
        self.expiresAt = expiresAt
        self.relays = relays
    }
}

/// What reserving a payment's spending gave.
public enum SpendReservation: Sendable, Equatable {
    /// Reserved now: pay, then settle or release.
    case reserved
    /// The same payment was reserved before (a request delivered again): never a second time.
    case alreadyReserved(state: String)
}

extension WalletStore {
    static func context(connection id: String) -> [UInt8] { Array("hawala/connection/v1/\(id)/service".utf8) }

    /// Makes a connection for `wallet`: its service key (sealed) and the program's client key,
    /// returned once and kept nowhere.
    /// - Throws: `WalletError.invalidName`, `.nameTaken` (a connection of that name exists).
    /// The client secret is nil when the program gave its own key (`request.clientPublicKey`).
    public func addConnection(_ request: NewConnection, wallet: WalletSummary, keyring: Keyring, now: Date = Date()) throws -> (AppConnection, clientSecret: SecretBytes?) {
        let name = try WalletStore.validConnectionName(request.name)
        guard !request.permissions.isEmpty else { throw WalletError.invalidName("a connection may do at least one thing: pay, receive, balance or history") }
        guard !request.wires.isEmpty else { throw WalletError.invalidName("a connection is reached by NWC, MCP or both") }
        guard AppConnection.approvalWaitBounds.contains(request.approvalWait) else {
            throw WalletError.invalidName(ConnectionInput.Error.approvalWait("\(request.approvalWait)s").description)
        }
        // Relays are where NWC requests arrive: a connection only for MCP keeps none.
        let relays = request.wires.contains(.nwc) ? request.relays : []
        guard !relays.isEmpty || !request.wires.contains(.nwc) else { throw WalletError.invalidName("a connection for NWC needs at least one relay") }
        let id = UUID().uuidString.lowercased()
        let service = WalletStore.newNostrSecret()
        let client = request.clientPublicKey == nil ? WalletStore.newNostrSecret() : nil
        let servicePublic = hexString(try Schnorr.xOnlyPublicKey(privateKey: service))
        let clientPublic: String
        if let given = request.clientPublicKey?.lowercased() {
            guard given.utf8.count == 64, given.allSatisfy(\.isHexDigit) else { throw WalletError.invalidName("a program's key is 64 hex digits") }
            clientPublic = given
        } else {
            clientPublic = hexString(try Schnorr.xOnlyPublicKey(privateKey: client!))
        }
        let sealed = try keyring.seal(service, context: WalletStore.context(connection: id))
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            guard try WalletRecord.exists(db, key: wallet.id) else { throw WalletError.noSuchWallet(wallet.name) }
            if try AppConnectionRecord.filter(AppConnectionRecord.Columns.walletId == wallet.id && AppConnectionRecord.Columns.name == name).fetchCount(db) > 0 {
                throw WalletError.connectionNameTaken(name)
            }
            // One connection a program key: its requests must name one connection.
            if try AppConnectionRecord.filter(AppConnectionRecord.Columns.clientPublicKey == clientPublic).fetchCount(db) > 0 {
                throw WalletError.invalidName("this program already has a connection (revoke it first)")
            }
            try AppConnectionRecord(
                id: id, walletId: wallet.id, name: name, permissions: ConnectionPermission.sorted(request.permissions).map(\.rawValue).joined(separator: " "),
                budgetSat: request.fiatBudget == nil ? request.budget?.int64 : nil, renewal: request.renewal.rawValue, maxPaymentSat: request.maxPayment?.int64,
                expiresAt: request.expiresAt?.timeIntervalSince1970, createdAt: now.timeIntervalSince1970, lastUsedAt: nil, revokedAt: nil,
                servicePublicKey: servicePublic, sealedServiceKey: Data(sealed), clientPublicKey: clientPublic, relays: relays.joined(separator: " "),
                wires: ConnectionWire.sorted(request.wires).map(\.rawValue).joined(separator: " "),
                budgetCurrency: request.fiatBudget?.currency, budgetFiat: request.fiatBudget.map { "\($0.amount)" },
                approveAboveSat: request.approveAbove?.int64, approvalWaitSeconds: request.approvalWait).insert(db)
        }
        guard let connection = try connection(id: id) else { throw WalletError.noSuchConnection(name) }
        return (connection, client)
    }

    /// The wallet's connections, oldest first (revoked and expired ones too).
    public func connections(walletID: String) throws -> [AppConnection] {
        try read { db in
            try AppConnectionRecord.filter(AppConnectionRecord.Columns.walletId == walletID)
                .order(AppConnectionRecord.Columns.createdAt, AppConnectionRecord.Columns.name).fetchAll(db).map { try $0.connection() }
        }
    }

    /// Every connection of every wallet in the store (what a service serves).
    public func allConnections() throws -> [AppConnection] {
        try read { db in try AppConnectionRecord.order(AppConnectionRecord.Columns.createdAt).fetchAll(db).map { try $0.connection() } }
    }

    public func connection(id: String) throws -> AppConnection? {
        try read { db in try AppConnectionRecord.fetchOne(db, key: id)?.connection() }
    }

    /// - Throws: `WalletError.noSuchConnection`.
    public func connection(named name: String, walletID: String) throws -> AppConnection {
        guard let found = try read({ db in
            try AppConnectionRecord.filter(AppConnectionRecord.Columns.walletId == walletID && AppConnectionRecord.Columns.name == name).fetchOne(db)?.connection()
        }) else { throw WalletError.noSuchConnection(name) }
        return found
    }

    /// The connection whose client signs with `clientPublicKey` (hex), if any.
    public func connection(clientPublicKey: String) throws -> AppConnection? {
        try read { db in
            try AppConnectionRecord.filter(AppConnectionRecord.Columns.clientPublicKey == clientPublicKey.lowercased()).fetchOne(db)?.connection()
        }
    }

    /// The wallet's side of `connection`: its service key, opened with the keyring.
    public func connectionServiceKey(_ connection: AppConnection, keyring: Keyring) throws -> SecretBytes {
        guard let sealed = try read({ try AppConnectionRecord.fetchOne($0, key: connection.id)?.sealedServiceKey }) else {
            throw WalletError.noSuchConnection(connection.name)
        }
        return try WalletStore.open(keyring, Array(sealed), WalletStore.context(connection: connection.id), what: "the key of the connection \u{201C}\(connection.name)\u{201D}")
    }

    /// Revokes `connection` now: its next request is refused, and a payment of it waiting for
    /// approval is not made. Its history stays.
    public func revokeConnection(_ connection: AppConnection, now: Date = Date()) throws {
        try writeTransaction { db in
            _ = try AppConnectionRecord.filter(key: connection.id).filter(AppConnectionRecord.Columns.revokedAt == nil)
                .updateAll(db, AppConnectionRecord.Columns.revokedAt.set(to: now.timeIntervalSince1970))
            // A payment of it waiting for the person's yes is not made either.
            try Self.endApprovals(of: connection, now: now, db: db)
        }
    }

    /// What `connection` spent in the period holding `now`.
    public func spending(of connection: AppConnection, now: Date = Date(), calendar: Calendar = BudgetRenewal.calendar) throws -> ConnectionSpending {
        let start = connection.renewal.periodStart(containing: now, calendar: calendar)
        let (spent, fiat) = try read { db in
            (try WalletStore.spent(connectionID: connection.id, since: start, db: db), try WalletStore.fiatSpent(connectionID: connection.id, since: start, db: db))
        }
        var spending = ConnectionSpending(spent: spent, budget: connection.budget, periodStart: start, renewsAt: connection.renewal.renewal(after: now, calendar: calendar))
        spending.fiatBudget = connection.fiatBudget
        spending.fiatSpent = fiat
        return spending
    }

    /// Reserves `msat` (the amount and the most its fees may be) of `connection`'s budget for
    /// the payment keyed `paymentKey`, after every check — live, allowed to pay, within its
    /// maximum a payment (`amount`), within what is left this period — in one transaction:
    /// concurrent requests can never together spend more than the budget.
    /// - Throws: `ConnectionRefusal`, `WalletError.noSuchConnection`.
    /// `btcPrice`: the price of 1 BTC in the connection's budget currency now (a budget in a
    /// currency refuses without one: `ConnectionRefusal.noRate`).
    public func reserveSpending(_ connection: AppConnection, paymentKey: String, amount: Msat, total msat: Msat, btcPrice: Decimal? = nil, now: Date = Date(),
                                calendar: Calendar = BudgetRenewal.calendar) throws -> SpendReservation {
        var outcome = SpendReservation.reserved
        var refusal: ConnectionRefusal?
        try writeTransaction { db in
            guard let current = try AppConnectionRecord.fetchOne(db, key: connection.id)?.connection() else {
                throw WalletError.noSuchConnection(connection.name)
            }
            if let earlier = try ConnectionSpendRecord.of(connection.id, paymentKey: paymentKey).fetchOne(db) {
                outcome = .alreadyReserved(state: earlier.state.rawValue)
                return
            }
            switch current.state(at: now) {
            case .revoked: refusal = .revoked; return
            case .expired: refusal = .expired; return
            case .live: break
            }
            guard current.allows(.pay) else { refusal = .notAllowed(.pay); return }
            if let maximum = current.maxPayment, amount > maximum.msat { refusal = .aboveMaximum(maximum: maximum); return }
            if let budget = current.budget {
                let start = current.renewal.periodStart(containing: now, calendar: calendar)
                let spent = try WalletStore.spent(connectionID: connection.id, since: start, db: db)
                let left = budget.msat.minusOrZero(spent)
                guard msat <= left else { refusal = .overBudget(left: left, renewsAt: current.renewal.renewal(after: now, calendar: calendar)); return }
            }
            if let fiat = current.fiatBudget {
                guard let btcPrice, btcPrice > 0 else { refusal = .noRate(currency: fiat.currency); return }
                let start = current.renewal.periodStart(containing: now, calendar: calendar)
                let left = max(0, fiat.amount - (try WalletStore.fiatSpent(connectionID: connection.id, since: start, db: db)))
                guard FiatBudget.value(of: msat, btcPrice: btcPrice) <= left else {
                    refusal = .overFiatBudget(left: left, currency: fiat.currency, renewsAt: current.renewal.renewal(after: now, calendar: calendar))
                    return
                }
            }
            try ConnectionSpendRecord(connectionId: connection.id, paymentKey: paymentKey, msat: msat.int64, state: .reserved, at: now.timeIntervalSince1970,
                                      btcPrice: current.fiatBudget == nil ? nil : btcPrice.map { "\($0)" }).insert(db)
        }
        if let refusal { throw refusal }
        return outcome
    }

    /// The payment was made (or is still pending): what it really cost counts from now on.
    /// The connection counts as used now, in the same transaction.
    public func settleSpending(_ connection: AppConnection, paymentKey: String, total msat: Msat, now: Date = Date()) throws {
        try writeTransaction { db in
            // Still reserved only: a payment that ended meanwhile (given back, or settled to its
            // cost when it was recorded) is not counted again.
            _ = try ConnectionSpendRecord.of(connection.id, paymentKey: paymentKey)
                .filter(ConnectionSpendRecord.Columns.state == ConnectionSpendRecord.State.reserved.rawValue)
                .updateAll(db, ConnectionSpendRecord.Columns.msat.set(to: msat.int64), ConnectionSpendRecord.Columns.state.set(to: ConnectionSpendRecord.State.settled.rawValue))
            try Self.markUsed(connection, now: now, db: db)
        }
    }

    /// The payment failed (or was never sent): its reservation is given back. The connection
    /// counts as used now, in the same transaction.
    public func releaseSpending(_ connection: AppConnection, paymentKey: String, now: Date = Date()) throws {
        try writeTransaction { db in
            _ = try ConnectionSpendRecord.of(connection.id, paymentKey: paymentKey)
                .updateAll(db, ConnectionSpendRecord.Columns.msat.set(to: 0), ConnectionSpendRecord.Columns.state.set(to: ConnectionSpendRecord.State.released.rawValue))
            try Self.markUsed(connection, now: now, db: db)
        }
    }

    /// A connection's payment, keyed `paymentKey` (`connect:ID:REQUEST`), ended after its
    /// answer (a held payment settled or given back): what it cost counts from now on
    /// (`cost`), or nothing when it failed (`cost` nil). Called in the transaction that records
    /// the payment, so the budget and the history never disagree.
    package static func paymentEnded(paymentKey: String, cost: Msat?, db: Database) throws {
        guard paymentKey.hasPrefix("connect:") else { return }
        let rest = paymentKey.dropFirst("connect:".count)
        guard let colon = rest.firstIndex(of: ":") else { return }
        let row = ConnectionSpendRecord.of(String(rest[..<colon]), paymentKey: paymentKey)
        let open = row.filter(ConnectionSpendRecord.Columns.state != ConnectionSpendRecord.State.released.rawValue)
        if let cost {
            // Completed counts, even after a failure was reported first (a retry that settled).
            _ = try row.updateAll(db, ConnectionSpendRecord.Columns.msat.set(to: cost.int64),
                                  ConnectionSpendRecord.Columns.state.set(to: ConnectionSpendRecord.State.settled.rawValue))
        } else {
            _ = try open.updateAll(db, ConnectionSpendRecord.Columns.msat.set(to: 0),
                                   ConnectionSpendRecord.Columns.state.set(to: ConnectionSpendRecord.State.released.rawValue))
        }
    }

    static func markUsed(_ connection: AppConnection, now: Date, db: Database) throws {
        _ = try AppConnectionRecord.filter(key: connection.id).updateAll(db, AppConnectionRecord.Columns.lastUsedAt.set(to: now.timeIntervalSince1970))
    }

    /// The answer given to `requestID` before, if any: a request delivered again gets it again.
    public func connectionAnswer(_ connection: AppConnection, requestID: String) throws -> String? {
        try read { db in
            try ConnectionAnswerRecord.fetchOne(db, key: ["connectionId": connection.id, "requestId": requestID])?.answer
        }
    }

    /// Keeps the answer to `requestID` (the first one written stays); the connection counts as
    /// used now, in the same transaction.
    public func saveConnectionAnswer(_ connection: AppConnection, requestID: String, answer: String, now: Date = Date()) throws {
        try writeTransaction { db in
            try ConnectionAnswerRecord(connectionId: connection.id, requestId: requestID, answer: answer, at: now.timeIntervalSince1970).insert(db, onConflict: .ignore)
            try Self.markUsed(connection, now: now, db: db)
        }
    }

    /// Forgets the answers kept from before `date`: a request that old is refused as stale, so
    /// its answer is never needed again.
    public func pruneConnectionAnswers(before date: Date) throws {
        try writeTransaction { db in
            _ = try ConnectionAnswerRecord.filter(Column("at") < date.timeIntervalSince1970).deleteAll(db)
        }
    }

    /// A connection's name: the rules of a wallet name.
    public static func validConnectionName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= 64 else { throw WalletError.invalidName("a connection's name has 1 to 64 characters") }
        // "L402: host" names the person's own paid fetches in the history: no connection takes it.
        guard !trimmed.lowercased().hasPrefix("l402:") else { throw WalletError.invalidName("a connection's name can't start with \"L402:\"") }
        guard !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw WalletError.invalidName("a connection's name cannot contain control characters")
        }
        return trimmed
    }

    static func spent(connectionID: String, since start: Date, db: Database) throws -> Msat {
        typealias Spend = ConnectionSpendRecord
        let counted = Spend.filter(Spend.Columns.connectionId == connectionID && Spend.Columns.state != Spend.State.released.rawValue
                                   && Spend.Columns.at >= start.timeIntervalSince1970)
        let total = try Int64.fetchOne(db, counted.select(sum(Spend.Columns.msat))) ?? 0
        return Msat(clamping: UInt64(max(0, total)))
    }

    /// What a connection's payments since `start` were worth in its budget currency, each at
    /// the price of bitcoin when it was reserved.
    static func fiatSpent(connectionID: String, since start: Date, db: Database) throws -> Decimal {
        typealias Spend = ConnectionSpendRecord
        let counted = try Spend.filter(Spend.Columns.connectionId == connectionID && Spend.Columns.state != Spend.State.released.rawValue
                                       && Spend.Columns.at >= start.timeIntervalSince1970).fetchAll(db)
        return counted.reduce(Decimal(0)) { total, spend in
            guard let text = spend.btcPrice, let price = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return total }
            return total + FiatBudget.value(of: Msat(clamping: UInt64(max(0, spend.msat))), btcPrice: price)
        }
    }

    static func resealConnectionKeys(from keyring: Keyring, to newKeyring: Keyring, db: Database) throws {
        for var record in try AppConnectionRecord.fetchAll(db) {
            let context = WalletStore.context(connection: record.id)
            let key = try WalletStore.open(keyring, Array(record.sealedServiceKey), context, what: "a connection's key")
            record.sealedServiceKey = Data(try newKeyring.seal(key, context: context))
            try record.update(db, columns: ["sealedServiceKey"])
        }
    }

    static func newNostrSecret() -> SecretBytes {
        while true {
            let candidate = SecretBytes(SystemRandom.bytes(32))
            if candidate.withUnsafeBytes({ Secp256k1.isValidPrivateKey($0) }) { return candidate }
        }
    }
}

/// The relays new connections listen on unless told: a setting of the store, Alby's public NWC
/// relay (the one most NWC clients know) until someone sets others.
extension WalletStore {
    public static let defaultConnectionRelays = ["wss://relay.getalby.com/v1"]
    static let connectionRelaysSetting = "connect.relays"

    /// The relays set, or the default.
    public func connectionRelays() -> [String] {
        let set = (try? globalSetting(Self.connectionRelaysSetting))?.flatMap { $0.split(separator: " ").map(String.init) }
        return set.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultConnectionRelays
    }

    /// Sets the relays new connections use (nil or empty: back to the default). The faces check
    /// each URL (`RelaySession.check`) first.
    public func setConnectionRelays(_ relays: [String]?) throws {
        try setGlobalSetting(Self.connectionRelaysSetting, to: relays.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") })
    }
}

/// What a person types for a connection's limits, read once for every face.
public enum ConnectionInput {
    /// Why typed limits are not ones.
    public enum Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        case budget(String)
        case expiry(String)
        case permissions(String)
        case approvalWait(String)

        public var description: String {
            switch self {
            case .budget(let typed): "a budget is sats or an amount of a currency and a renewal, like 10000/daily or 20USD/monthly (daily, weekly, monthly, yearly, never), or \"none\"; not \"\(typed.prefix(40))\""
            case .expiry(let typed): "an expiry is a number and a unit, like 30d, 12h, 2w or 90m, or \"never\"; not \"\(typed.prefix(40))\""
            case .permissions(let typed): "what a connection may do is a list of pay, receive, balance and history; not \"\(typed.prefix(40))\""
            case .approvalWait(let typed):
                "a payment waits for approval from \(AppConnection.approvalWaitBounds.lowerBound) seconds to \(AppConnection.approvalWaitBounds.upperBound / 60) minutes, like 90s or 2m; not \"\(typed.prefix(40))\""
            }
        }
    }

    /// A budget as typed: in sats, in a currency, or none.
    public enum Budget: Sendable, Equatable {
        case none
        case sats(Sats)
        case fiat(FiatBudget)

        public var sats: Sats? { if case .sats(let sats) = self { sats } else { nil } }
        public var fiat: FiatBudget? { if case .fiat(let fiat) = self { fiat } else { nil } }
    }

    /// "20USD/monthly", "12.50 EUR / weekly", "20 usd" (daily) — or a budget in sats
    /// (`budget(_:)`): what every face reads a typed budget with.
    public static func limit(_ typed: String) throws(Error) -> (Budget, BudgetRenewal) {
        let text = typed.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        if let first = parts.first, let letters = first.lastIndex(where: { !$0.isLetter }).map({ first.index(after: $0) }) ?? (first.allSatisfy(\.isLetter) ? first.startIndex : nil),
           first[letters...].count == 3, first[letters...].allSatisfy({ $0.isASCII && $0.isLetter }) {
            let number = first[..<letters].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
            guard let amount = Decimal(string: number, locale: Locale(identifier: "en_US_POSIX")), amount > 0, amount <= 1_000_000_000,
                  number.allSatisfy({ $0.isNumber || $0 == "." }) else { throw .budget(typed) }
            var renewal = BudgetRenewal.daily
            if parts.count == 2 {
                guard let named = BudgetRenewal(rawValue: parts[1].lowercased()) else { throw .budget(typed) }
                renewal = named
            }
            return (.fiat(FiatBudget(currency: String(first[letters...]), amount: amount)), renewal)
        }
        let (sats, renewal) = try budget(typed)
        return (sats.map(Budget.sats) ?? .none, renewal)
    }

    /// "10000/daily", "10,000 / weekly", "5000" (daily), "none" (no budget of its own).
    public static func budget(_ typed: String) throws(Error) -> (Sats?, BudgetRenewal) {
        let text = typed.trimmingCharacters(in: .whitespaces).lowercased()
        if ["none", "unlimited", "no"].contains(text) { return (nil, .never) }
        let parts = text.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let sats = try? AmountText.parseSats(first), sats > .zero else { throw .budget(typed) }
        guard parts.count == 2 else { return (sats, .daily) }
        guard let renewal = BudgetRenewal(rawValue: parts[1]) else { throw .budget(typed) }
        return (sats, renewal)
    }

    /// "30d", "12h", "2w", "90m" from `now`; "never" → nil.
    public static func expiry(_ typed: String, now: Date) throws(Error) -> Date? {
        let text = typed.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "never" { return nil }
        guard let unit = text.last, let number = Int(text.dropLast()), number > 0, number <= 100_000 else { throw .expiry(typed) }
        let seconds: Int
        switch unit {
        case "m": seconds = number * 60
        case "h": seconds = number * 3_600
        case "d": seconds = number * 86_400
        case "w": seconds = number * 7 * 86_400
        default: throw .expiry(typed)
        }
        return now.addingTimeInterval(TimeInterval(seconds))
    }

    /// "90s", "2m", "120" (seconds) → seconds, within `AppConnection.approvalWaitBounds`.
    /// `seconds` as `approvalWait` reads it back: "2m", "90s".
    public static func approvalWaitText(_ seconds: Int) -> String { seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s" }

    public static func approvalWait(_ typed: String) throws(Error) -> Int {
        let text = typed.trimmingCharacters(in: .whitespaces).lowercased()
        let seconds: Int? = switch text.last {
        case "s": Int(text.dropLast())
        case "m": Int(text.dropLast()).flatMap { $0 <= 1_000 ? $0 * 60 : nil }
        default: Int(text)
        }
        guard let seconds, AppConnection.approvalWaitBounds.contains(seconds) else { throw .approvalWait(typed) }
        return seconds
    }

    /// "pay,receive" → the permissions.
    public static func permissions(_ typed: String) throws(Error) -> Set<ConnectionPermission> {
        guard let parsed = ConnectionPermission.parse(typed) else { throw .permissions(typed) }
        return parsed
    }
}

extension ConnectionSpending {
    /// "spent 3,200 of 10,000 sat, renews tomorrow 00:00", "spent 3,200 sat (no budget)": one
    /// line for every face.
    public func summary(now: Date, timeZone: TimeZone = .current) -> String {
        if let fiatBudget {
            var text = "spent \(FiatBudget.plain(fiatSpent)) of \(fiatBudget.text) (\(AmountText.sats(spent, rounding: .up)))"
            if let renewsAt { text += ", renews \(renewsAt.relative(now: now, timeZone: timeZone))" }
            return text
        }
        guard let budget else { return "spent \(AmountText.sats(spent, rounding: .up)) (no budget)" }
        var text = "spent \(AmountText.sats(spent, rounding: .up).replacingOccurrences(of: " sat", with: "").replacingOccurrences(of: " BTC", with: "")) of \(AmountText.sats(budget))"
        if let renewsAt { text += ", renews \(renewsAt.relative(now: now, timeZone: timeZone))" }
        return text
    }
}

extension AppConnection {
    /// "asks your approval above 5,000 sat (waits 2 minutes)"; nil when it never asks.
    public var approvalText: String? {
        approveAbove.map { "asks your approval above \(AmountText.sats($0)) (waits \(approvalWait % 60 == 0 ? "\(approvalWait / 60) min" : "\(approvalWait) s"))" }
    }

    /// "pay, receive", "read the balance" and so on, for people.
    public var permissionsText: String { ConnectionPermission.sorted(permissions).map(\.rawValue).joined(separator: ", ") }
}
