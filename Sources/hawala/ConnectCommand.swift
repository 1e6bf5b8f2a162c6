import ArgumentParser
import Foundation
import HawalaConnect
import HawalaLightning
import HawalaNostr
import HawalaPaper
import HawalaText
import HawalaWallet
import Logging
import UnixSignals
#if canImport(HawalaSpark)
import HawalaSpark
#endif

/// `hawala connect …`: app connections — programs that pay within the limits you set, over
/// Nostr Wallet Connect (NIP-47).
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "App connections: let a program pay within limits you set, over Nostr Wallet Connect (NIP-47).",
        discussion: """
            A connection has its own keys, what it may do (pay, receive, balance, history), a \
            budget that renews (daily, weekly, monthly or yearly, in this machine's time zone, \
            weeks from Monday; or never), an optional maximum a payment and an expiry. `connect \
            new` prints its URI once: paste it into the program (any NWC client). `connect \
            serve` answers the programs' requests (keep it running); `connect revoke` stops a \
            connection at once.
            """,
        subcommands: [ConnectNew.self, ConnectAccept.self, ConnectList.self, ConnectShow.self, ConnectRevoke.self, ConnectServe.self, ConnectRelays.self,
                      ConnectApprovals.self, ConnectApprove.self, ConnectDecline.self])
}

struct ConnectNew: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Make a connection and print its URI, once (and a QR code at a terminal).",
        discussion: "The URI holds the program's secret key: Hawala keeps only its public half, so this is the only time it is shown. Defaults: --methods \(defaultMethods) and --budget \(defaultBudget).")
    static let defaultMethods = ConnectionPermission.sorted(NewConnection.defaultPermissions).map(\.rawValue).joined(separator: ",")
    static let defaultBudget = "\(NewConnection.defaultBudget.value)/\(NewConnection.defaultRenewal.rawValue)"
    @Argument(help: "A name for the program (1 to 64 characters).") var name: String
    @Option(help: ArgumentHelp("The budget and its renewal: SATS or AMOUNT+CURRENCY (20USD), then /daily|weekly|monthly|yearly|never; or none.", valueName: "budget"))
    var budget = Self.defaultBudget
    @Option(name: .customLong("max-payment"), help: ArgumentHelp("The largest single payment, in sat.", valueName: "sats")) var maxPayment: String?
    @Option(name: .customLong("expires-in"), help: ArgumentHelp("When it stops working: 30d, 12h, 2w, 90m, or never.", valueName: "time")) var expiresIn = "never"
    @Option(help: ArgumentHelp("What it may do: pay, receive, balance, history (comma-separated).", valueName: "list")) var methods = Self.defaultMethods
    @Option(help: ArgumentHelp("A relay it listens on (wss://, or ws:// on this machine); again for more. Default: `hawala connect relays`.", valueName: "url"))
    var relay: [String] = []
    @Option(name: .customLong("for"), help: ArgumentHelp("How the program reaches it: nwc (Nostr Wallet Connect), mcp (`hawala mcp`), or both: nwc,mcp.", valueName: "wires"))
    var wires = ConnectionWire.sorted(NewConnection.defaultWires).map(\.rawValue).joined(separator: ",")
    @OptionGroup var approval: ApprovalOptions
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output: {name, uri, …} (the URI holds a secret).") var json = false
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let now = Date()
        let (limit, renewal) = try ConnectionInput.limit(budget)
        let permissions = try ConnectionInput.permissions(methods)
        let expiresAt = try ConnectionInput.expiry(expiresIn, now: now)
        let maximum = try maxPayment.map { try AmountText.parseSats($0) }
        guard let reachedBy = ConnectionWire.parse(wires) else { throw CLIError("--for is nwc, mcp or nwc,mcp; not \"\(wires.prefix(40))\"") }
        let relays = relay.isEmpty ? store.connectionRelays() : relay
        for url in relays { try RelaySession.check(url) }
        var request = NewConnection(name: name, permissions: permissions, budget: limit.sats, renewal: renewal, maxPayment: maximum, expiresAt: expiresAt, relays: relays,
                                    wires: reachedBy, fiatBudget: limit.fiat)
        try approval.apply(to: &request)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let (connection, secret) = try store.addConnection(request, wallet: summary, keyring: keyring, now: now)
        let uri = connection.wires.contains(.nwc) ? secret.map { WalletConnectURI(walletPublicKey: connection.servicePublicKey, relays: connection.relays, secret: $0).text() } : nil
        if json {
            var object = ConnectionJSON.object(connection, spending: try store.spending(of: connection, now: now), now: now)
            if let uri { object.insert(("uri", .string(uri)), at: 1) }
            JSONValue.object(object).print()
            return
        }
        print("connection \"\(connection.name)\" for wallet \"\(summary.name)\": \(connection.permissionsText)")
        print("  " + (try store.spending(of: connection, now: now)).summary(now: now))
        if let maximum = connection.maxPayment { print("  at most \(AmountText.sats(maximum)) a payment") }
        if let words = connection.approvalText { print("  " + words) }
        print("  " + (connection.expiresAt.map { "expires \($0.relative(now: now))" } ?? "does not expire"))
        if connection.wires.contains(.mcp) {
            print("")
            print("For an AI agent (MCP), put this in its client's configuration (the password file is yours to choose):")
            print(MCPWallet.clientConfiguration(connection, home: store.home.directory.path))
        }
        guard let uri else { return }
        print("")
        print("Paste this into the program, once (it holds the program's key; it is shown only now):")
        print(uri)
        if isatty(STDOUT_FILENO) == 1, let qr = try? TextQR.encode(uri) {
            for row in TextQR.terminalLines(qr) { print(row) }
        }
        if ConnectServiceStatus.running(home: store.home.directory) == nil {
            Output.error("note: run `hawala connect serve` (and keep it running) for the program's requests to be answered")
        }
    }
}

struct ConnectList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The connections: what each may do, spent of its budget, renewal, expiry, last use (no password needed).")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output (shape in docs/reference.md).") var json = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let now = Date()
        let connections = try store.connections(walletID: summary.id)
        if json {
            JSONValue.array(try connections.map { .object(ConnectionJSON.object($0, spending: try store.spending(of: $0, now: now), now: now)) }).print()
            return
        }
        if connections.isEmpty { print("no connections; make one with `hawala connect new NAME`"); return }
        for c in connections {
            let state = c.state(at: now)
            var line = "\(c.name)  \(state == .live ? c.permissionsText : state.rawValue)"
            if state == .live {
                line += "  " + (try store.spending(of: c, now: now)).summary(now: now)
                if let expires = c.expiresAt { line += ", expires \(expires.relative(now: now))" }
            }
            line += "  last used " + (c.lastUsedAt.map { $0.relative(now: now) } ?? "never")
            print(line)
        }
    }
}

struct ConnectShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One connection, with its payments (the URI is never shown again).")
    @Argument(help: "The connection's name.") var name: String
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let connection = try store.connection(named: name, walletID: summary.id)
        let now = Date()
        let spending = try store.spending(of: connection, now: now)
        let payments = try store.payments(walletID: summary.id, filter: PaymentFilter(connection: connection.name, limit: 20))
        if json {
            var object = ConnectionJSON.object(connection, spending: spending, now: now)
            object.append(("payments", .array(payments.map(\.json))))
            JSONValue.object(object).print()
            return
        }
        var rows: [(String, String)] = [("state", connection.state(at: now).rawValue), ("may", connection.permissionsText), ("budget", spending.summary(now: now))]
        if let maximum = connection.maxPayment { rows.append(("at most", "\(AmountText.sats(maximum)) a payment")) }
        if let words = connection.approvalText { rows.append(("approval", words)) }
        rows.append(("expires", connection.expiresAt.map { $0.relative(now: now) } ?? "never"))
        rows.append(("created", connection.createdAt.relative(now: now)))
        rows.append(("last used", connection.lastUsedAt.map { $0.relative(now: now) } ?? "never"))
        if let revoked = connection.revokedAt { rows.append(("revoked", revoked.relative(now: now))) }
        rows.append(("for", ConnectionWire.sorted(connection.wires).map(\.rawValue).joined(separator: ", ")))
        if connection.wires.contains(.nwc) { rows.append(("relays", connection.relays.joined(separator: " "))) }
        rows.append(("service key", connection.servicePublicKey))
        print((["connection \"\(connection.name)\""] + alignedRows(rows)).joined(separator: "\n"))
        print(payments.isEmpty ? "no payments yet" : "payments:")
        for p in payments { print("  " + p.historyLine()) }
        if connection.wires.contains(.mcp) { print("MCP client configuration: " + MCPWallet.clientConfiguration(connection, home: store.home.directory.path)) }
    }
}

struct ConnectRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Stop a connection now: its next request is refused. Its payments stay in the history.")
    @Argument(help: "The connection's name.") var name: String
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let connection = try store.connection(named: name, walletID: summary.id)
        try store.revokeConnection(connection)
        print("revoked \"\(connection.name)\": its next request is refused")
    }
}

struct ConnectRelays: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relays", abstract: "The relays new connections listen on unless told (default: wss://relay.getalby.com/v1).")
    @Option(name: .customLong("set"), help: ArgumentHelp("A relay (again for more): replaces the default list.", valueName: "url")) var set: [String] = []
    @Flag(help: "Back to the built-in default.") var reset = false

    func run() throws {
        if reset || !set.isEmpty {
            for url in set { try RelaySession.check(url) }
            try WalletSession.store(create: true).setConnectionRelays(reset ? nil : set)
        }
        let home = WalletHome.fromEnvironment()
        let relays = home.exists ? try WalletStore(home: home, create: false).connectionRelays() : WalletStore.defaultConnectionRelays
        for url in relays { print(url) }
    }
}

struct ConnectServe: AsyncParsableCommand {
    /// How long a stop waits for work in flight before the service ends anyway.
    static let stopWithin: Duration = .seconds(4)

    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Answer the programs' requests: every live connection of every wallet here, until Ctrl-C (SIGINT) or SIGTERM.",
        discussion: "Unlocks the wallets once. One log line a request on stderr (connection, method, outcome), never its content. A systemd user unit: contrib/hawala-connect.service.")
    @Option(name: .customLong("requests-per-minute"), help: ArgumentHelp("A connection's requests a minute before RATE_LIMITED.", valueName: "n"))
    var requestsPerMinute = NWCService.Options().requestsPerMinute
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (1...100_000).contains(requestsPerMinute) else { throw ValidationError("--requests-per-minute must be between 1 and 100000") }
    }

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let home = store.home.directory
        let lock = try ConnectServiceStatus.acquire(home: home)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        var logger = Logger(label: "hawala.connect")
        logger.logLevel = min(logLevel, .info)
        var options = NWCService.Options()
        options.requestsPerMinute = requestsPerMinute
        let service = NWCService(store: store, keyring: keyring, backends: .linked, options: options, logger: logger)
        let started = Date()
        let task = Task { try await service.run() }
        let heartbeat = Task {
            while !Task.isCancelled {
                ConnectServiceStatus.write(.init(pid: getpid(), startedAt: started, heartbeatAt: Date(), connections: service.servedCount), home: home)
                try? await Task.sleep(for: .seconds(10))
            }
        }
        // Heard from before the line below: a supervisor may stop the service the instant it
        // says it serves (the sequence returns once its signals are registered).
        let stopSignals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let live = try store.allConnections().filter { $0.servedOverNWC(at: started) }.count
        Output.error("serving \(live) connection\(live == 1 ? "" : "s"); Ctrl-C stops")
        for await _ in stopSignals { break }
        heartbeat.cancel()
        task.cancel()
        // Told to stop, it stops: a request still in flight (a payment waiting on the network)
        // gets a few seconds to finish, never a say in whether the service ends.
        let finished = (try? await Deadline.run(Self.stopWithin, timedOut: { CancellationError() }) { _ = await task.result; return true }) ?? false
        withExtendedLifetime(lock) {}
        Output.error(finished ? "stopped" : "stopped (work still in flight was cut short: a payment under way settles by itself, and the history says how it ended)")
    }
}

/// A connection as `connect list --json` and `connect show --json` write it.
enum ConnectionJSON {
    static func object(_ c: AppConnection, spending: ConnectionSpending, now: Date) -> [(String, JSONValue)] {
        [
            ("name", .string(c.name)), ("state", .string(c.state(at: now).rawValue)),
            ("methods", .array(ConnectionPermission.sorted(c.permissions).map { .string($0.rawValue) })),
            ("for", .array(ConnectionWire.sorted(c.wires).map { .string($0.rawValue) })),
            ("budgetSats", c.budget.map { .amount($0) } ?? .null), ("renewal", .string(c.renewal.rawValue)),
            ("budgetFiat", spending.fiatBudget.map { .object([("currency", .string($0.currency)), ("amount", .string(FiatBudget.plain($0.amount)))]) } ?? .null),
            ("spentMsat", .amount(spending.spent)), ("spentFiat", spending.fiatBudget == nil ? .null : .string(FiatBudget.plain(spending.fiatSpent))),
            ("renewsAt", .date(spending.renewsAt)),
            ("maxPaymentSats", c.maxPayment.map { .amount($0) } ?? .null),
            ("approveAboveSats", c.approveAbove.map { .amount($0) } ?? .null), ("approvalWaitSeconds", .int(c.approvalWait)),
            ("expiresAt", .date(c.expiresAt)),
            ("createdAt", .string(c.createdAt.iso8601)), ("lastUsedAt", .date(c.lastUsedAt)), ("revokedAt", .date(c.revokedAt)),
            ("relays", .array(c.relays.map { .string($0) })), ("servicePublicKey", .string(c.servicePublicKey)),
        ]
    }
}
