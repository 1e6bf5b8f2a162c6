import Foundation
import HawalaConnect
import HawalaCrypto
import HawalaLightning
import HawalaNostr
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOPosix

/// App connections: programs that pay within limits (`AppConnections.swift` holds every rule).
/// The list with what each spent of its budget and its payments, a new connection (the wallet
/// password again: it hands out the right to spend) whose URI is shown once, and revocation.
struct ConnectionsController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/connections") { _, context in try await connectionsPage(context.session, context.open) }
        router.walletForms.post("/connections/new") { _, context in try await newConnection(context.session, context.form, context.open) }
        router.walletForms.post("/connections/revoke") { _, context in try await revokeConnection(context.session, context.form, context.open) }
        router.walletForms.post("/connections/request") { _, context in try await readRequest(context.session, context.form, context.open) }
    }
}

/// The connections area's handlers: each reads the request, asks the library and renders.
extension ConnectionsController {
    func connectionsPage(_ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        var form = ConnectionFormView.fresh
        if let refill = await app.sessions.takeInterrupted(session.id, page: "/connections") {
            form = ConnectionFormView { refill.value($0) }
            form.restored = true
        }
        return try await connections(session, open, form: form)
    }

    /// The page, with `form` as typed (or fresh) and a problem or a message on top.
    func connections(_ session: AppSessions.Session, _ open: OpenWallet, status: HTTPResponse.Status = .ok, form: ConnectionFormView = .fresh,
                     problem: String? = nil, message: String? = nil) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        let now = await app.sessions.time()
        var form = form
        if form.relays.isEmpty { form.relays = store.connectionRelays().joined(separator: " ") }
        let connections = try store.connections(walletID: wallet.id)
        let rows = try connections.enumerated().map { index, connection in
            ConnectionRow(connection, index: index, spending: try store.spending(of: connection, now: now),
                          payments: try store.payments(walletID: wallet.id, filter: PaymentFilter(connection: connection.name, limit: 5)),
                          now: now, timeZone: session.timeZone, home: store.home.directory.path)
        }
        var page = Page(title: "Connections", session: session, overview: try await app.store.overview(), problem: problem, message: message)
        page.connections = ConnectionsView(
            wallet: wallet.name, rows: rows, form: form,
            lightningReady: (try? LightningSettings.load(store: store, walletID: wallet.id).backend) != nil,
            service: ConnectServiceStatus.running(home: store.home.directory),
            servesNWC: connections.contains { $0.servedOverNWC(at: now) }, now: now, timeZone: session.timeZone)
        return try render(status, "connections", page)
    }

    /// A program's request pasted (`nostr+walletauth://`, `nostrnwc://connect`): the new
    /// connection's form filled with what it asks, to lower and accept — nothing allowed before.
    func readRequest(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let text = form.text("request") ?? ""
        let proposal: ConnectionProposal
        do {
            proposal = try ConnectionProposal(try WalletAuthRequest(text))
        } catch let error as CustomStringConvertible & Error {
            var typed = ConnectionFormView.fresh
            typed.pasted = String(text.prefix(8 * 1024))
            return try await connections(session, open, status: .badRequest, form: typed, problem: error.description.sentence)
        }
        return try await connections(session, open, form: ConnectionFormView(proposal, text: text, now: await app.sessions.time(), timeZone: session.timeZone))
    }

    /// A new connection: the limits read as the CLI reads them (`ConnectionInput`), the relays
    /// checked, the password asked again; the answer shows the URI and its QR code once.
    func newConnection(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let typed = ConnectionFormView(form.text)
        let now = await app.sessions.time()
        let request: NewConnection
        switch typed.request(now: now) {
        case .success(let read): request = read
        case .failure(let problem):
            return try await connections(session, open, status: .badRequest, form: typed, problem: problem.description.sentence)
        }
        let (store, wallet) = (open.store, open.wallet)
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await connections(session, open, status: status, form: typed, problem: problem)
        }
        let made: (AppConnection, clientSecret: SecretBytes?)
        do {
            made = try await NIOThreadPool.singleton.runIfActive { try store.addConnection(request, wallet: wallet, keyring: keyring, now: now) }
        } catch let error as WalletError {
            return try await connections(session, open, status: .badRequest, form: typed, problem: error.description.sentence)
        }
        let (connection, secret) = made
        let uri = connection.wires.contains(.nwc) ? secret.map { WalletConnectURI(walletPublicKey: connection.servicePublicKey, relays: connection.relays, secret: $0).text() } : nil
        var page = Page(title: "New connection", session: session, overview: try await app.store.overview())
        page.newConnection = try NewConnectionView(connection, uri: uri, spending: try store.spending(of: connection, now: now), now: now,
                                                   timeZone: session.timeZone, serviceRunning: ConnectServiceStatus.running(home: store.home.directory) != nil,
                                                   home: store.home.directory.path)
        page.newConnection?.proposed = secret == nil
        page.newConnection?.callback = uri.flatMap { uri in typed.proposal.flatMap { $0.callback(with: uri)?.absoluteString } }
        return try render(.ok, "connection-new", page)
    }

    func revokeConnection(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        do {
            let connection = try store.connection(named: form.text("name") ?? "", walletID: wallet.id)
            try store.revokeConnection(connection, now: await app.sessions.time())
            return try await connections(session, open, message: "Revoked “\(connection.name)”: its next request is refused. Its payments stay in the history.")
        } catch let error as WalletError {
            return try await connections(session, open, status: .badRequest, problem: error.description.sentence)
        }
    }
}

/// The new-connection form as typed (kept when a problem or the lock sends it back).
struct ConnectionFormView {
    struct Choice { let value: String, label: String, selected: Bool }
    struct Permission { let value: String, label: String, checked: Bool }

    var name = ""
    var permissions = NewConnection.defaultPermissions
    var budget = AmountText.grouped(NewConnection.defaultBudget)
    var renewal = NewConnection.defaultRenewal.rawValue
    var maxPayment = ""
    /// Above this (sat) a payment waits for the person's yes; empty: never asked.
    var approveAbove = ""
    var approvalWait = ConnectionInput.approvalWaitText(AppConnection.defaultApprovalWait)
    var expiry = "never"
    var relays = ""
    var wires = NewConnection.defaultWires
    var restored = false
    /// A program's request being accepted (kept in the form), and what it asks, in words.
    var request = ""
    /// Whether `request` is set (Mustache reads a stored Bool; an empty string is no "false").
    var fromRequest = false
    var askedNote: String?
    /// A request pasted that could not be read (kept in its field).
    var pasted: String?

    static let fresh = ConnectionFormView()

    /// The form filled with what a program's request asks.
    init(_ proposal: ConnectionProposal, text: String, now: Date, timeZone: TimeZone) {
        name = proposal.name
        permissions = proposal.permissions
        budget = AmountText.grouped(proposal.budget)
        renewal = proposal.renewal.rawValue
        relays = proposal.request.relays.joined(separator: " ")
        request = text
        fromRequest = true
        var note = "“\(proposal.name)” asks to connect: it may " + ConnectionPermission.sorted(proposal.permissions).map(ConnectionRow.words).joined(separator: ", ")
            + "; at most \(AmountText.sats(proposal.budget)) \(proposal.renewal.perPeriod)"
        if let ends = proposal.expiresAt { note += "; it stops \(ends.relative(now: now, timeZone: timeZone))" }
        if !proposal.unknownMethods.isEmpty { note += ". Not offered, so not given: " + proposal.unknownMethods.joined(separator: ", ") }
        askedNote = note + ". You may lower any of these; nothing is allowed until you accept."
    }

    /// The request this form accepts, read again (nil for a connection made from scratch).
    var proposal: ConnectionProposal? {
        request.isEmpty ? nil : try? ConnectionProposal(try WalletAuthRequest(request))
    }

    /// The form's fields by name (a posted form, or one kept across the lock).
    init(_ field: (String) -> String?) {
        name = field("name") ?? ""
        permissions = Set(ConnectionPermission.allCases.filter { field("may-" + $0.rawValue) == "on" })
        budget = field("budget") ?? ""
        renewal = field("renewal") ?? NewConnection.defaultRenewal.rawValue
        maxPayment = field("maxPayment") ?? ""
        approveAbove = field("approveAbove") ?? ""
        approvalWait = field("approvalWait") ?? ConnectionInput.approvalWaitText(AppConnection.defaultApprovalWait)
        expiry = field("expiry") ?? "never"
        relays = field("relays") ?? ""
        wires = Set(ConnectionWire.allCases.filter { field("for-" + $0.rawValue) == "on" })
        request = String((field("request") ?? "").prefix(8 * 1024))
        fromRequest = !request.isEmpty
    }

    init() {}

    /// The connection asked for, read by the library's rules, or why not.
    func request(now: Date) -> Result<NewConnection, ConnectionFormProblem> {
        guard !permissions.isEmpty else { return .failure(.noPermission) }
        guard !wires.isEmpty else { return .failure(.noWire) }
        do {
            let (limit, renewal) = try ConnectionInput.limit(budget.trimmed.isEmpty ? "none" : budget + "/" + renewal)
            let expiresAt = try ConnectionInput.expiry(expiry, now: now)
            let maximum = maxPayment.trimmed.isEmpty ? nil : try AmountText.parseSats(maxPayment)
            let approveAbove = self.approveAbove.trimmed.isEmpty ? nil : try AmountText.parseSats(self.approveAbove)
            let approvalWait = try ConnectionInput.approvalWait(approvalWait)
            let relays = relays.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," }).map(String.init)
            for url in relays { try RelaySession.check(url) }
            if !request.isEmpty {
                // A program's request: the library's rule, which lowers and never raises.
                guard let proposal else { return .failure(.library("the program's request can no longer be read")) }
                let typed = budget.trimmed.isEmpty ? nil : budget + "/" + renewal.rawValue
                var accepted = try proposal.accepted(name: name, permissions: permissions, typedBudget: typed, maxPayment: maximum, expiresAt: expiresAt, relays: relays)
                (accepted.approveAbove, accepted.approvalWait) = (approveAbove, approvalWait)
                return .success(accepted)
            }
            var request = NewConnection(name: name, permissions: permissions, budget: limit.sats, renewal: renewal, maxPayment: maximum,
                                        expiresAt: expiresAt, relays: relays, wires: wires, fiatBudget: limit.fiat)
            (request.approveAbove, request.approvalWait) = (approveAbove, approvalWait)
            return .success(request)
        } catch let error as CustomStringConvertible & Error {
            return .failure(.library(error.description))
        } catch {
            return .failure(.library("\(error)"))
        }
    }

    func permissionChoices() -> [Permission] {
        ConnectionPermission.allCases.map { Permission(value: $0.rawValue, label: ConnectionRow.words($0), checked: permissions.contains($0)) }
    }

    func renewalChoices() -> [Choice] {
        BudgetRenewal.allCases.map { Choice(value: $0.rawValue, label: $0 == .never ? "never renews" : "a " + ConnectionRow.period($0), selected: $0.rawValue == renewal) }
    }

    func wireChoices() -> [Permission] {
        [Permission(value: "nwc", label: "Nostr Wallet Connect (apps, over relays)", checked: wires.contains(.nwc)),
         Permission(value: "mcp", label: "MCP (an AI agent on this machine)", checked: wires.contains(.mcp))]
    }

    func waitChoices() -> [Choice] {
        [("30s", "30 seconds"), ("1m", "1 minute"), ("2m", "2 minutes"), ("5m", "5 minutes"), ("15m", "15 minutes")].map {
            Choice(value: $0.0, label: $0.1, selected: $0.0 == approvalWait)
        }
    }

    func expiryChoices() -> [Choice] {
        [("never", "Never"), ("1d", "In a day"), ("1w", "In a week"), ("30d", "In 30 days"), ("365d", "In a year")].map {
            Choice(value: $0.0, label: $0.1, selected: $0.0 == expiry)
        }
    }
}

/// Why the form was not taken.
enum ConnectionFormProblem: Error, CustomStringConvertible {
    case noPermission
    case noWire
    case library(String)

    var description: String {
        switch self {
        case .noPermission: "choose at least one thing the program may do"
        case .noWire: "choose how the program reaches the wallet: Nostr Wallet Connect, MCP or both"
        case .library(let words): words
        }
    }
}

/// The Connections screen.
struct ConnectionsView {
    let wallet: String
    let rows: [ConnectionRow]
    let anyRows: Bool
    let form: ConnectionFormView
    // Stored, not computed: templates see stored properties only.
    let permissionChoices: [ConnectionFormView.Permission]
    let renewalChoices: [ConnectionFormView.Choice]
    let expiryChoices: [ConnectionFormView.Choice]
    let waitChoices: [ConnectionFormView.Choice]
    let wireChoices: [ConnectionFormView.Permission]
    let lightningReady: Bool
    let serviceRunning: Bool
    let service: String
    /// The service's state is shown while it runs or a connection needs it (one reached over
    /// Nostr Wallet Connect): MCP programs start their own `hawala mcp`.
    let showService: Bool

    init(wallet: String, rows: [ConnectionRow], form: ConnectionFormView, lightningReady: Bool, service: ConnectServiceStatus.Running?,
         servesNWC: Bool, now: Date, timeZone: TimeZone) {
        self.wallet = wallet
        self.rows = rows
        anyRows = !rows.isEmpty
        self.form = form
        permissionChoices = form.permissionChoices()
        renewalChoices = form.renewalChoices()
        expiryChoices = form.expiryChoices()
        waitChoices = form.waitChoices()
        wireChoices = form.wireChoices()
        self.lightningReady = lightningReady
        serviceRunning = service != nil
        showService = service != nil || servesNWC
        self.service = service.map { "Running since \($0.startedAt.relative(now: now, timeZone: timeZone)): programs' requests are answered." } ?? ""
    }
}

/// One connection: what it may do, spent of its budget, its limits and its last payments.
struct ConnectionRow {
    let index: Int
    let name: String
    let live: Bool
    let state: String
    let may: String
    let spent: String
    /// The bar: sats spent (rounded up) of the budget; no bar without a budget.
    let hasBudget: Bool
    let spentValue: Int64
    let budgetValue: Int64
    let limits: [String]
    /// "Nostr Wallet Connect", "MCP", "Nostr Wallet Connect and MCP".
    let reachedBy: String
    /// How its program reaches it, in short for the card: "NWC", "MCP", "NWC · MCP".
    let wires: String
    /// What an MCP client's configuration holds for it (nil: not for MCP).
    let mcpConfiguration: String?
    let payments: [PaymentRow]
    let anyPayments: Bool

    init(_ c: AppConnection, index: Int, spending: ConnectionSpending, payments: [Payment], now: Date, timeZone: TimeZone, home: String) {
        self.index = index
        name = c.name
        let current = c.state(at: now)
        live = current == .live
        state = switch current {
        case .live: "Live"
        case .revoked: "Revoked " + (c.revokedAt?.relative(now: now, timeZone: timeZone) ?? "")
        case .expired: "Expired " + (c.expiresAt?.relative(now: now, timeZone: timeZone) ?? "")
        }
        may = ConnectionPermission.sorted(c.permissions).map(Self.words).joined(separator: ", ") + "."
        spent = spending.summary(now: now, timeZone: timeZone).sentence
        if let fiat = spending.fiatBudget {
            // In the budget's currency, in hundredths.
            hasBudget = true
            spentValue = Int64(NSDecimalNumber(decimal: spending.fiatSpent * 100).doubleValue.rounded(.up))
            budgetValue = Int64(NSDecimalNumber(decimal: fiat.amount * 100).doubleValue.rounded(.down))
        } else {
            hasBudget = c.budget != nil
            spentValue = Int64(clamping: spending.spent.sats(.up).value)
            budgetValue = Int64(clamping: c.budget?.value ?? 0)
        }
        var limits: [String] = []
        if let maximum = c.maxPayment { limits.append("At most \(AmountText.sats(maximum)) a payment.") }
        if let approval = c.approvalText { limits.append(approval.capitalizedFirst + ".") }
        limits.append(c.expiresAt.map { (current == .expired ? "Expired " : "Expires ") + $0.relative(now: now, timeZone: timeZone) + "." } ?? "Does not expire.")
        limits.append("Last used " + (c.lastUsedAt.map { $0.relative(now: now, timeZone: timeZone) } ?? "never") + ".")
        limits.append("Made " + c.createdAt.relative(now: now, timeZone: timeZone) + (c.relays.isEmpty ? "." : ", on " + c.relays.joined(separator: ", ") + "."))
        self.limits = limits
        reachedBy = ConnectionWire.sorted(c.wires).map(Self.words).joined(separator: " and ")
        wires = ConnectionWire.sorted(c.wires).map { $0.rawValue.uppercased() }.joined(separator: " · ")
        mcpConfiguration = c.wires.contains(.mcp) ? MCPWallet.clientConfiguration(c, home: home) : nil
        self.payments = payments.map { PaymentRow($0, now: now, timeZone: timeZone) }
        anyPayments = !payments.isEmpty
    }

    static func words(_ permission: ConnectionPermission) -> String {
        switch permission {
        case .pay: "pay invoices"
        case .receive: "make invoices"
        case .balance: "see the balance"
        case .history: "see the whole history"
        }
    }

    static func words(_ wire: ConnectionWire) -> String {
        switch wire {
        case .nwc: "Nostr Wallet Connect"
        case .mcp: "MCP"
        }
    }

    static func period(_ renewal: BudgetRenewal) -> String {
        switch renewal {
        case .daily: "day"
        case .weekly: "week (from Monday)"
        case .monthly: "month"
        case .yearly: "year"
        case .never: "never"
        }
    }
}

/// The answer to a new connection: its URI and QR code, shown this once.
struct NewConnectionView {
    let name: String
    let uri: String?
    let qrPath: String
    let qrSize: Int
    let mcpConfiguration: String?
    let may: String
    let spent: String
    /// The most a single payment may be, when it has a maximum.
    let maxPayment: String?
    let serviceRunning: Bool
    /// Made from a program's request that keeps its own key: it learns from the service.
    var proposed = false
    /// A deep link's callback with the connection in it: how the program gets it.
    var callback: String?

    init(_ c: AppConnection, uri: String?, spending: ConnectionSpending, now: Date, timeZone: TimeZone, serviceRunning: Bool, home: String) throws {
        name = c.name
        self.uri = uri
        (qrPath, qrSize) = try uri.map { try svgQRCode($0) } ?? ("", 0)
        mcpConfiguration = c.wires.contains(.mcp) ? MCPWallet.clientConfiguration(c, home: home) : nil
        may = ConnectionPermission.sorted(c.permissions).map(ConnectionRow.words).joined(separator: ", ").sentence
        spent = spending.summary(now: now, timeZone: timeZone).sentence
        maxPayment = c.maxPayment.map { AmountText.sats($0) }
        self.serviceRunning = serviceRunning
    }
}
