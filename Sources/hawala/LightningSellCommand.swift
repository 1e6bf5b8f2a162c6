import ArgumentParser
import Foundation
import HawalaLightning
import HawalaSell
import HawalaText
import HawalaWallet

/// `hawala ln sell`: an L402 paywall in front of a service, paid into this wallet.
struct LightningSell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sell", abstract: "Sell access to an HTTP service: an L402 paywall in front of it, paid into this wallet (until Ctrl-C).",
        discussion: """
            A request without a valid credential gets 402 and an L402 challenge (an invoice of \
            --price and a credential bound to it); with one, it is forwarded to --upstream and the \
            answer streamed back. A credential covers the --path rule its request matched (every \
            path when none is given; other paths get 404), --uses requests and --valid-for. With \
            --hold, the buyer's payment is held: the request is sent upstream once it is, and the \
            payment settled only when the upstream answers 2xx — cancelled otherwise, so the buyer \
            pays on delivery. Prints its address once listening, then one line a request on \
            standard error (never a credential). Works on devnet and on Spark.
            """)
    @Option(help: ArgumentHelp("The service sold (http:// or https://).", valueName: "url")) var upstream: String
    @Option(help: "The price of a request, in sat.", transform: SatsArgument.parse) var price: Sats
    @Option(name: .customLong("path"), help: ArgumentHelp("A regular expression of the paths sold, matched whole (repeatable).", valueName: "regex"))
    var paths: [String] = []
    @Option(help: "The port on 127.0.0.1 (0: any free one).") var port: Int = 0
    @Option(help: ArgumentHelp("Requests one payment buys: a number, or unlimited (as many as --valid-for allows).", valueName: "n"))
    var uses: String = "1"

    /// `--uses` read: nil for unlimited.
    var usesCount: Int? {
        get throws {
            if uses.lowercased() == "unlimited" { return nil }
            guard let count = Int(uses), count >= 1 else { throw ValidationError("--uses is a number of requests (at least 1) or unlimited") }
            return count
        }
    }
    @Option(name: .customLong("valid-for"), help: ArgumentHelp("How long a credential works: 30m, 12h, 7d, or never.", valueName: "duration"))
    var validFor: String = "1h"
    @Flag(help: "Pay on delivery: the payment is held until the upstream answers 2xx, cancelled otherwise.") var hold = false
    @Option(name: .customLong("upstream-timeout"), help: ArgumentHelp("Seconds the upstream has to answer a request.", valueName: "seconds"))
    var upstreamTimeout: Int = 60
    @OptionGroup var options: LightningOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if hold, try usesCount != 1 { throw ValidationError("--hold sells one request a payment: no --uses") }
        guard (1...3_600).contains(upstreamTimeout) else { throw ValidationError("--upstream-timeout must be between 1 and 3600 seconds") }
    }

    func run() async throws {
        let now = Date()
        let validity: TimeInterval?
        do {
            validity = try ConnectionInput.expiry(validFor, now: now).map { $0.timeIntervalSince(now) }
        } catch {
            throw CLIError(error.description)
        }
        let terms: PaywallTerms
        let server: PaywallServer
        do {
            terms = try PaywallTerms(price: price, paths: paths, uses: try usesCount, validFor: validity, hold: hold)
            guard let url = URL(string: upstream) else { throw PaywallError.upstreamNotHTTP(upstream) }
            var limits = PaywallServer.Limits()
            limits.upstreamTime = .seconds(upstreamTimeout)
            server = try PaywallServer(upstream: url, port: port, limits: limits)
        } catch let error as PaywallError {
            throw CLIError(error.description)
        }
        try await options.open(signing: true).closing { session in
            guard let keyring = session.keyring else { throw CLIError("the wallet must be unlocked to sell") }
            let key = try Paywall.key(store: session.store, walletID: session.wallet.id, keyring: keyring)
            do {
                try await server.run(paywall: { upstream in
                    Paywall(terms: terms, scope: server.upstream.absoluteString, session: session, key: key, upstream: upstream, log: { Output.error($0) })
                }, log: { Output.error($0) }, onRunning: { bound in
                    print("selling http://127.0.0.1:\(bound)/ → \(server.upstream.absoluteString) at \(AmountText.sats(price)) a request on \(session.backendLabel)"
                          + (hold ? ", paid on delivery" : ""))
                    flushOutput()
                })
            } catch {
                if "\(error)".contains("Address already in use") { throw CLIError("port \(port) is in use; choose another") }
                throw error
            }
        }
    }
}
