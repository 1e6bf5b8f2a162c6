import ArgumentParser
import Foundation
import HawalaConnect
import HawalaLightning
import HawalaText
import HawalaWallet
import MCP

/// `hawala mcp --connection NAME`: the wallet as an MCP server on stdio, for an AI agent.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve the wallet to an AI agent over MCP (stdio), bounded by an app connection.",
        discussion: """
            Every tool (get_balance, get_budget, make_invoice, make_hold_invoice, settle_hold_invoice, \
            cancel_hold_invoice, lookup_invoice, list_payments, \
            pay_invoice, pay_lightning_address, fetch_paid_url) obeys the connection: what it may \
            do, its budget and limits, its expiry; revoking it stops the next call. The wallet is \
            unlocked once at start, from --password-file or at this terminal — never from the MCP \
            channel. Above --confirm-above a payment waits for the person's yes (MCP elicitation). \
            In an MCP client's configuration: {"command": "hawala", "args": ["mcp", "--connection", \
            "NAME", "--password-file", "PATH"]}.
            """)
    @Option(help: "The app connection that bounds the agent (`hawala connect new NAME`).") var connection: String
    @Option(name: .customLong("confirm-above"), help: ArgumentHelp("Ask the person before paying more than this, in sat.", valueName: "sats"),
            transform: SatsArgument.parse) var confirmAbove: Sats?
    @OptionGroup var options: LightningOptions

    func validate() throws {
        if options.password.passwordFile == "-" { throw ValidationError("stdin is the MCP channel: give the password in a file, or type it at the terminal") }
    }

    func run() async throws {
        // The connection first: a wrong one is said before any password or network.
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: options.wallet)
        let bound = try store.connection(named: connection, walletID: wallet.id)
        guard bound.state(at: Date()) == .live else { throw CLIError("connection \"\(bound.name)\" is \(bound.state(at: Date()).rawValue)") }
        guard bound.wires.contains(.mcp) else {
            throw CLIError("connection \"\(bound.name)\" is not for MCP; make one that is: hawala connect new NAME --for mcp")
        }
        let session = try await options.open(signing: true, reachesLNURL: true)
        do {
            guard let keyring = session.keyring else { throw CLIError("the wallet is locked") }
            Output.error("hawala mcp: serving \"\(session.wallet.name)\" on stdio for connection \"\(bound.name)\" (\(bound.permissionsText))")
            try await MCPWallet(session: session, keyring: keyring, connection: bound, confirmAbove: confirmAbove)
                .serve(transport: LineTransport(), version: HawalaVersion.string)
        } catch {
            await session.close()
            throw error
        }
        await session.close()
    }
}
