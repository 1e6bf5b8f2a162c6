import ArgumentParser
import Foundation
import HawalaConnect
import HawalaLightning
import HawalaText
import HawalaWallet

/// `hawala ln fetch URL`: a small curl for paid URLs (L402).
struct LightningFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Fetch a URL, paying its L402 price if it asks (needs the wallet password).",
        discussion: """
            On 402 Payment Required with an L402 (or LSAT) challenge, the price and the service's \
            host are said, the invoice is paid within --max-cost (or the connection's limits) and \
            the request is sent again with the credential; the body goes to stdout (or -o), the \
            cost and the payment to stderr. The credential is kept (sealed in the wallet store) \
            for the same origin and folder, and used again until the service refuses it. Other \
            402s (x402…) are not paid. Redirects are followed for GET only, and a credential never \
            goes to another origin. Exit 0 for a 2xx answer, 1 otherwise.
            """)
    @Argument(help: "The URL (http:// or https://).") var url: String
    @Option(name: .customShort("X"), help: ArgumentHelp("The HTTP method.", valueName: "method")) var method = "GET"
    @Option(name: .customShort("H"), help: ArgumentHelp("A header, 'Name: value' (again for more).", valueName: "header")) var header: [String] = []
    @Option(name: .customShort("d"), help: ArgumentHelp("The body: TEXT, or @FILE.", valueName: "data")) var data: String?
    @Option(name: .customShort("o"), help: ArgumentHelp("Write the body to FILE instead of stdout.", valueName: "file")) var output: String?
    @Option(help: "Pay as this app connection: its methods, budget and limits.") var connection: String?
    @Option(name: .customLong("max-cost"), help: ArgumentHelp("The most an invoice may ask, in sat (without --connection).", valueName: "sats"),
            transform: SatsArgument.parse) var maxCost: Sats?
    @Option(name: .customLong("max-fee"), help: ArgumentHelp("The most the payment's fee may be, in sat.", valueName: "sats"),
            transform: SatsArgument.parse) var maxFee: Sats?
    @Flag(help: "JSON on stdout: {status, headers, body, costSats, feeSats, paymentId, reusedToken} (the body as text).") var json = false
    @OptionGroup var options: LightningOptions

    static let defaultMaxCost: Sats = 1_000
    static let maximumBodyBytes = 16 * 1_048_576

    /// The body from `path`: one line when it can't be read, or is too large to send.
    static func read(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot read \(path): " + String(cString: strerror(errno)).lowercased())
        }
        defer { try? handle.close() }
        let bytes = (try? handle.read(upToCount: maximumBodyBytes + 1)) ?? nil
        guard let bytes else { throw CLIError("cannot read \(path)") }
        guard bytes.count <= maximumBodyBytes else { throw CLIError("\(path) is larger than \(maximumBodyBytes / 1_048_576) MiB; not sent") }
        return [UInt8](bytes)
    }

    func validate() throws {
        if connection != nil, maxCost != nil { throw ValidationError("--max-cost is for paying yourself; a connection has its own limits") }
        guard header.allSatisfy({ $0.contains(":") }) else { throw ValidationError("a header is 'Name: value'") }
    }

    func run() async throws {
        guard let target = URL(string: url), L402.scope(of: target) != nil else { throw CLIError("\(url.prefix(200)) is not an http:// or https:// address") }
        var body: [UInt8]?
        if let data {
            body = data.hasPrefix("@") ? try Self.read(String(data.dropFirst())) : Array(data.utf8)
        }
        let headers = header.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]).trimmingCharacters(in: .whitespaces), String(parts.count > 1 ? parts[1] : "").trimmingCharacters(in: .whitespaces))
        }
        try await options.open(signing: true).closing { session in
            guard let keyring = session.keyring else { throw CLIError("the wallet is locked") }
            let payer: PaidFetch.Payer
            if let connection {
                payer = .connection(try session.store.connection(named: connection, walletID: session.wallet.id))
            } else {
                payer = .person(maxCost: maxCost ?? Self.defaultMaxCost, maxFee: maxFee)
            }
            // The network's time is the whole exchange's: every redirect, the payment, the answer.
            let fetched = try await PaidFetch(session: session, keyring: keyring, timeout: .seconds(options.networkTimeout))
                .fetch(.init(url: target, method: method.uppercased(), headers: headers, body: body), payer: payer) { price, host in
                    Output.error("\(host) asks \(AmountText.sats(price)) (L402): paying")
                }
            if let paid = fetched.payment {
                Output.error("paid \(AmountText.sats(paid.amountMsat, rounding: .up)) (fee \(AmountText.sats(paid.feeMsat, rounding: .up))) to \(target.host ?? "the service"): payment \(paid.id)")
            } else if fetched.reusedToken {
                Output.error("used the credential bought before for \(target.host ?? "the service"): nothing paid")
            }
            if json {
                JSONValue.object([
                    ("status", .int(fetched.status)),
                    ("headers", .object(fetched.headers.map { ($0.name.lowercased(), .string($0.value)) })),
                    ("body", .string(String(decoding: fetched.body, as: UTF8.self))),
                    ("costSats", fetched.payment.map { .amount($0.amountMsat.sats(.up)) } ?? .int(0)),
                    ("feeSats", fetched.payment.map { .amount($0.feeMsat.sats(.up)) } ?? .int(0)),
                    ("paymentId", fetched.payment.map { .string($0.id) } ?? .null),
                    ("reusedToken", .bool(fetched.reusedToken)),
                ]).print()
            } else if let output {
                try Data(fetched.body).write(to: URL(fileURLWithPath: output), options: .atomic)
            } else {
                FileHandle.standardOutput.write(Data(fetched.body))
            }
            guard (200...299).contains(fetched.status) else { throw CLIError("\(target.host ?? "the service") answered HTTP \(fetched.status)") }
        }
    }
}
