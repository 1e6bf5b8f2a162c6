import ArgumentParser
import Foundation
import HawalaConnect
import HawalaNostr
import HawalaText
import HawalaWallet

/// `hawala connect accept URI`: a connection a program proposed (Nostr Wallet Auth, or the
/// NWC deep link), shown, lowered if the person wants, then made.
struct ConnectAccept: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept", abstract: "Accept a connection a program proposes (nostr+walletauth:// or nostrnwc://connect), limits lowered if you want.",
        discussion: """
            Shows what the program asks — its name, what it may do, its budget, when it stops — \
            and asks before anything is allowed. --methods, --budget, --max-payment and \
            --expires-in lower what it asked (never raise it). A nostr+walletauth:// program keeps \
            its own key: once `hawala connect serve` runs, it publishes the connection's info event \
            naming the program, which is how the program learns it was accepted. A nostrnwc:// \
            link gets a connection URI made by the wallet, printed and sent to its callback address.
            """)
    @Argument(help: "The program's request (quote it: it holds & and ?).") var request: String
    @Option(help: "A name for it (default: the name it gives).") var name: String?
    @Option(help: ArgumentHelp("Lower what it may do: pay, receive, balance, history (comma-separated).", valueName: "list")) var methods: String?
    @Option(help: ArgumentHelp("Lower its budget: SATS[/daily|weekly|monthly|yearly|never].", valueName: "budget")) var budget: String?
    @Option(name: .customLong("max-payment"), help: ArgumentHelp("The largest single payment, in sat.", valueName: "sats")) var maxPayment: String?
    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Stop sooner: 30d, 12h, 2w, 90m.", valueName: "time")) var expiresIn: String?
    @OptionGroup var approval: ApprovalOptions
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "Accept without asking.") var yes = false
    @Flag(help: "JSON output: the connection object (`connect show`'s shape).") var json = false
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let asked: WalletAuthRequest
        let proposal: ConnectionProposal
        do {
            asked = try WalletAuthRequest(request)
            proposal = try ConnectionProposal(asked)
        } catch let error as WalletAuthRequest.Problem {
            throw CLIError(error.description)
        }
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let now = Date()
        let permissions = try methods.map { try ConnectionInput.permissions($0) }
        let maximum = try maxPayment.map { try AmountText.parseSats($0) }
        let expiresAt = try expiresIn.map { try ConnectionInput.expiry($0, now: now) } ?? nil
        describe(proposal, to: summary.name)
        if !yes {
            guard let terminal = Terminal.open() else { throw CLIError("no terminal to ask; pass --yes to accept without asking", code: .usage) }
            guard try terminal.confirm("Accept?") else { throw CLIError("not accepted: nothing is allowed") }
        }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        var request: NewConnection
        do {
            request = try proposal.accepted(name: name, permissions: permissions, typedBudget: budget, maxPayment: maximum,
                                            expiresAt: expiresAt, relays: store.connectionRelays())
        } catch let error as CustomStringConvertible & Error {
            throw CLIError(error.description)
        }
        try approval.apply(to: &request)
        for url in request.relays { try RelaySession.check(url) }
        let (connection, secret) = try store.addConnection(request, wallet: summary, keyring: keyring, now: now)
        let uri = secret.map { WalletConnectURI(walletPublicKey: connection.servicePublicKey, relays: connection.relays, secret: $0).text() }
        if json {
            var object = ConnectionJSON.object(connection, spending: try store.spending(of: connection, now: now), now: now)
            if let uri { object.insert(("uri", .string(uri)), at: 1) }
            JSONValue.object(object).print()
        } else {
            print("accepted: \"\(connection.name)\" may \(connection.permissionsText); " + (try store.spending(of: connection, now: now)).summary(now: now))
            if let uri {
                print(uri)
                if let back = proposal.callback(with: uri) { Output.error("open this to hand it to the program (it holds the program's key): \(back.absoluteString)") }
            }
        }
        if ConnectServiceStatus.running(home: store.home.directory) == nil {
            Output.error("note: run `hawala connect serve`: it tells the program it was accepted, and answers its requests")
        }
    }

    /// What the program asks, on stderr, before the question.
    func describe(_ proposal: ConnectionProposal, to wallet: String) {
        Output.error("\"\(TextLimit.prefix(proposal.name, scalars: 64))\" asks to connect to wallet \"\(wallet)\":")
        Output.error("  it may: " + ConnectionPermission.sorted(proposal.permissions).map(\.verb).joined(separator: ", "))
        if !proposal.unknownMethods.isEmpty { Output.error("  not offered (not given): " + proposal.unknownMethods.joined(separator: ", ")) }
        Output.error("  budget: \(AmountText.sats(proposal.budget)) \(proposal.renewal.perPeriod)")
        Output.error("  " + (proposal.expiresAt.map { "stops \($0.relative())" } ?? "does not expire"))
        if case .walletAuth(let key) = proposal.request.kind { Output.error("  its key: \(key.prefix(8))…\(key.suffix(8))") }
        if !proposal.request.relays.isEmpty { Output.error("  relays: " + proposal.request.relays.map { TextLimit.prefix($0, scalars: 120) }.joined(separator: ", ")) }
    }
}
