import AsyncHTTPClient
import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaText
import HawalaWallet
import MCP
import NIOCore
import Synchronization

/// The wallet as an MCP server's tools, every one bounded by one app connection: what it may
/// do, its budget and limits (`ConnectionPayer` for every payment), its expiry and revocation
/// (read again at each call). Above the connection's `approveAbove` a payment waits for the
/// person's yes in the app, where the client can send the person (URL-mode elicitation), or
/// asks in the client's own form. Above `confirmAbove` a payment is made only after the
/// person accepts an elicitation; a client without elicitation gets a refusal and nothing is paid.
public struct MCPWallet: Sendable {
    let session: LightningSession
    let keyring: Keyring
    let connectionID: String
    let confirmAbove: Sats?
    let client = ClientAbilities()

    /// What the client said it can do when it started (MCP's `initialize`).
    final class ClientAbilities: Sendable {
        private let elicitation = Mutex((any: false, url: false))
        var canElicit: Bool { elicitation.withLock { $0.any } }
        /// It can send the person to a page (MCP's URL-mode elicitation).
        var canOpenPages: Bool { elicitation.withLock { $0.url } }
        func heard(_ capabilities: Client.Capabilities) {
            elicitation.withLock { $0 = (capabilities.elicitation != nil, capabilities.elicitation?.url != nil) }
        }
    }

    public init(session: LightningSession, keyring: Keyring, connection: AppConnection, confirmAbove: Sats?) {
        self.session = session
        self.keyring = keyring
        connectionID = connection.id
        self.confirmAbove = confirmAbove
    }

    /// What an MCP client's configuration holds to start this server for `connection` (JSON,
    /// the `mcpServers` entry most clients read): the absolute path of this program (clients
    /// start it without the person's PATH) and `HAWALA_HOME` in `env` (they pass few variables
    /// on; without it the server would look in the default home and find no wallet).
    public static func clientConfiguration(_ connection: AppConnection, home: String, command: String = MCPWallet.programPath,
                                           passwordFile: String = "/path/to/password-file") -> String {
        let arguments = ["mcp", "--connection", connection.name, "--password-file", passwordFile].map { JSONValue.string($0) }
        let server = JSONValue.object([("command", .string(command)), ("args", .array(arguments)), ("env", .object([("HAWALA_HOME", .string(home))]))])
        return JSONValue.object([("mcpServers", .object([("hawala-" + connection.name.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }, server)]))]).compact
    }

    /// This program's absolute path (`hawala`'s, when it runs the app or the CLI).
    public static var programPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "hawala"
    }

    /// A tool's failure: its words for the model, and nothing done.
    struct Refusal: Error, CustomStringConvertible {
        let words: String
        var description: String { words }
    }

    /// Serves on `transport` until the client leaves.
    public func serve(transport: any Transport, version: String) async throws {
        // A server stopped while payments waited for approval: their budgets, given back (a
        // store that can't is no reason not to serve; the next start tries again).
        UnsavedWrite.attempt("the budgets held by payments that waited for approval, given back at the start,") { try session.store.releaseAbandonedApprovals() }
        let server = Server(name: "hawala", version: version, title: "Hawala wallet",
                            instructions: "A Lightning wallet bounded by an app connection: pay invoices, Lightning addresses and paid (L402) URLs within its budget; make and look up invoices. Amounts are in sats.",
                            capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: MCPWallet.tools) }
        await server.withMethodHandler(CallTool.self) { [self] call in
            await self.call(call.name, call.arguments ?? [:], server: server)
        }
        try await server.start(transport: transport) { [client] _, capabilities in client.heard(capabilities) }
        await server.waitUntilCompleted()
    }

    // MARK: - Tools

    static func schema(_ properties: [String: Value], required: [String] = []) -> Value {
        .object(["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }), "additionalProperties": false])
    }

    static let tools: [Tool] = [
        Tool(name: "get_balance", description: "The wallet's Lightning balance in sats (needs the connection's 'balance' permission).",
             inputSchema: schema([:]), annotations: .init(readOnlyHint: true)),
        Tool(name: "get_budget", description: "What this connection may still spend: used and total sats this period, when it renews, the most a single payment may be.",
             inputSchema: schema([:]), annotations: .init(readOnlyHint: true)),
        Tool(name: "make_invoice", description: "Make a BOLT11 invoice to be paid (needs 'receive').",
             inputSchema: schema(["amount_sats": .object(["type": "integer", "minimum": 1, "description": "The amount in sats."]),
                                  "description": .object(["type": "string", "description": "What it is for; the payer sees it."])],
                                 required: ["amount_sats"])),
        Tool(name: "make_hold_invoice", description: "Make a hold invoice (needs 'receive'): the buyer's payment is held, not yet yours, until settle_hold_invoice takes it (the job delivered) or cancel_hold_invoice gives it back; at expiry it goes back by itself. Without payment_hash, the wallet keeps the preimage and you settle by payment_hash.",
             inputSchema: schema(["amount_sats": .object(["type": "integer", "minimum": 1, "description": "The amount in sats."]),
                                  "description": .object(["type": "string", "description": "What it is for; the payer sees it."]),
                                  "expiry_seconds": .object(["type": "integer", "minimum": 60, "maximum": 604_800, "description": "How long the buyer may pay and you may settle (default 3600)."]),
                                  "payment_hash": .object(["type": "string", "description": "SHA-256 of a preimage you hold (64 hex characters)."])],
                                 required: ["amount_sats"])),
        Tool(name: "settle_hold_invoice", description: "Take a held payment of one of your hold invoices: by its preimage, or by payment_hash when the wallet kept the preimage.",
             inputSchema: schema(["preimage": .object(["type": "string", "description": "64 hex characters."]),
                                  "payment_hash": .object(["type": "string", "description": "64 hex characters."])]),
             annotations: .init(destructiveHint: false, idempotentHint: true, openWorldHint: true)),
        Tool(name: "cancel_hold_invoice", description: "Give a held payment of one of your hold invoices back to the buyer (nothing is taken).",
             inputSchema: schema(["payment_hash": .object(["type": "string", "description": "64 hex characters."])], required: ["payment_hash"]),
             annotations: .init(destructiveHint: true, idempotentHint: true, openWorldHint: true)),
        Tool(name: "lookup_invoice", description: "An invoice or payment by its payment hash or its invoice: state, amount, fees, preimage once paid.",
             inputSchema: schema(["payment_hash": .object(["type": "string", "description": "64 hex characters."]),
                                  "invoice": .object(["type": "string", "description": "The BOLT11 invoice."])]),
             annotations: .init(readOnlyHint: true)),
        Tool(name: "list_payments", description: "Recent payments, newest first (without 'history', only this connection's own).",
             inputSchema: schema(["limit": .object(["type": "integer", "minimum": .int(ConnectionHistory.listLimits.lowerBound), "maximum": .int(ConnectionHistory.listLimits.upperBound),
                                                    "description": .string("How many (default \(ConnectionHistory.defaultListLimit)).")]),
                                  "type": .object(["type": "string", "enum": ["sent", "received"], "description": "Only sent or only received."])]),
             annotations: .init(readOnlyHint: true)),
        Tool(name: "pay_invoice", description: "Pay a BOLT11 invoice within the connection's budget. Returns the preimage (proof of payment) and the fee.",
             inputSchema: schema(["invoice": .object(["type": "string", "description": "The BOLT11 invoice (lnbc…)."]),
                                  "amount_sats": .object(["type": "integer", "minimum": 1, "description": "Only for an invoice without an amount."])],
                                 required: ["invoice"]),
             annotations: .init(destructiveHint: true, idempotentHint: false, openWorldHint: true)),
        Tool(name: "pay_lightning_address", description: "Pay a Lightning address (name@domain) an amount in sats, with an optional comment, within the budget.",
             inputSchema: schema(["address": .object(["type": "string", "description": "name@domain"]),
                                  "amount_sats": .object(["type": "integer", "minimum": 1]),
                                  "comment": .object(["type": "string", "description": "Sent to the payee when it accepts comments."])],
                                 required: ["address", "amount_sats"]),
             annotations: .init(destructiveHint: true, idempotentHint: false, openWorldHint: true)),
        Tool(name: "fetch_paid_url", description: "Fetch an http(s) URL; if it asks for payment by L402, pay within the budget (and max_cost_sats) and fetch it again. Returns the status and the body.",
             inputSchema: schema(["url": .object(["type": "string"]),
                                  "method": .object(["type": "string", "description": "GET (default) or POST, PUT…"]),
                                  "body": .object(["type": "string", "description": "The request body, as text."]),
                                  "max_cost_sats": .object(["type": "integer", "minimum": 1, "description": "Refuse a price above this."])],
                                 required: ["url"]),
             annotations: .init(destructiveHint: true, idempotentHint: false, openWorldHint: true)),
    ]

    func call(_ name: String, _ arguments: [String: Value], server: Server) async -> CallTool.Result {
        do {
            let connection = try current()
            let (line, structured) = try await run(name, arguments, connection: connection, server: server)
            return CallTool.Result(content: [.text(text: line, annotations: nil, _meta: nil)], structuredContent: .object(structured))
        } catch let refusal as Refusal {
            return CallTool.Result(content: [.text(text: refusal.words.sentence, annotations: nil, _meta: nil)], isError: true)
        } catch {
            return CallTool.Result(content: [.text(text: "\(error)".sentence, annotations: nil, _meta: nil)], isError: true)
        }
    }

    /// The connection as the store has it now: a revocation or an expiry counts at once.
    func current() throws -> AppConnection {
        guard let connection = try session.store.connection(id: connectionID) else { throw Refusal(words: "this connection no longer exists") }
        switch connection.state(at: Date()) {
        case .live: return connection
        case .revoked: throw Refusal(words: ConnectionRefusal.revoked.description)
        case .expired: throw Refusal(words: ConnectionRefusal.expired.description)
        }
    }

    func require(_ permission: ConnectionPermission, _ connection: AppConnection) throws {
        guard connection.allows(permission) else { throw Refusal(words: ConnectionRefusal.notAllowed(permission).description) }
    }

    func run(_ name: String, _ a: [String: Value], connection: AppConnection, server: Server) async throws -> (String, [String: Value]) {
        switch name {
        case "get_balance":
            try require(.balance, connection)
            let info = try await session.backend.getInfo()
            return ("Balance: \(AmountText.sats(info.balanceMsat, rounding: .down))", ["balance_sats": .int(Int(info.balanceMsat.sats(.down).value))])
        case "get_budget":
            let spending = try session.store.spending(of: connection)
            var fields: [String: Value] = ["used_sats": .int(Int(spending.spent.sats(.up).value)), "renewal": .string(connection.renewal.rawValue)]
            fields["total_sats"] = connection.budget.map { .int(Int($0.value)) } ?? .null
            fields["renews_at"] = spending.renewsAt.map { .string($0.iso8601) } ?? .null
            fields["max_payment_sats"] = connection.maxPayment.map { .int(Int($0.value)) } ?? .null
            if let fiat = spending.fiatBudget {
                fields["currency"] = .string(fiat.currency)
                fields["total_fiat"] = .string(FiatBudget.plain(fiat.amount))
                fields["used_fiat"] = .string(FiatBudget.plain(spending.fiatSpent))
            }
            return (spending.summary(now: Date()).sentence, fields)
        case "make_invoice":
            try require(.receive, connection)
            let amount = try sats(a["amount_sats"], "amount_sats")
            let description = a["description"]?.stringValue ?? ""
            let made = try await session.receive(ReceiveRequest(amountSats: amount, description: description), connection: connection.name)
            return ("Invoice for \(AmountText.sats(amount)): \(made.response.invoice)",
                    ["invoice": .string(made.response.invoice), "payment_hash": .string(made.response.paymentHash), "amount_sats": .int(Int(amount.value))])
        case "make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice":
            return try await hold(name, a, connection: connection)
        case "lookup_invoice":
            var payment = try lookup(a, connection: connection)
            if payment.status == .pending, let hash = payment.details.paymentHash {
                // Paid (or held) since the last look: asked of the backend, not only the history.
                try? await session.refresh(paymentHash: hash)
                payment = try lookup(a, connection: connection)
            }
            return (payment.historyLine(), Self.structured(payment))
        case "list_payments":
            return try listPayments(a, connection: connection)
        case "pay_invoice":
            guard let text = a["invoice"]?.stringValue else { throw Refusal(words: "the parameter invoice is required") }
            let amount = try a["amount_sats"].map { try sats($0, "amount_sats") }
            guard text.utf8.count <= Bolt11Invoice.maximumLength, (try? Bolt11Invoice(text)) != nil else { throw Refusal(words: "not a BOLT11 invoice") }
            let requestID = UUID().uuidString.lowercased()
            let payment = try await pay(text, amount: amount?.msat, requestID: requestID, connection: connection, server: server)
            var structured = Self.structured(payment)
            let before = ConnectionPayer.wasPaidBefore(payment, requestID: requestID, connection: connection)
            structured["paid_before"] = .bool(before)
            return (before ? "Already paid: nothing was sent again. " + Self.paidLine(payment) : Self.paidLine(payment), structured)
        case "pay_lightning_address":
            return try await payLightningAddress(a, connection: connection, server: server)
        case "fetch_paid_url":
            return try await fetchPaidURL(a, connection: connection, server: server)
        default:
            throw Refusal(words: "no tool named \(name.prefix(64))")
        }
    }

    /// `list_payments`: the newest payments the connection may see (all with the history
    /// permission, else its own), `limit` 1 to 100, `type` sent or received.
    func listPayments(_ a: [String: Value], connection: AppConnection) throws -> (String, [String: Value]) {
        let limits = ConnectionHistory.listLimits
        var limit = ConnectionHistory.defaultListLimit
        if let value = a["limit"] {
            guard case .int(let number) = value, number >= limits.lowerBound else {
                throw Refusal(words: "the parameter limit is a whole number from \(limits.lowerBound) to \(limits.upperBound)")
            }
            limit = min(number, limits.upperBound)
        }
        var filter = connection.visibleHistory(PaymentFilter(limit: limit))
        switch a["type"]?.stringValue {
        case "sent": filter.type = .send
        case "received": filter.type = .receive
        case nil: break
        default: throw Refusal(words: "the parameter type is \"sent\" or \"received\"")
        }
        let payments = try session.store.payments(walletID: connection.walletID, filter: filter)
        return ("\(payments.count) payment\(payments.count == 1 ? "" : "s")", ["payments": .array(payments.map { .object(Self.structured($0)) })])
    }

    /// The hold invoice tools, under the connections' one rule (`ConnectionHolds`).
    func hold(_ name: String, _ a: [String: Value], connection: AppConnection) async throws -> (String, [String: Value]) {
        do {
            switch name {
            case "make_hold_invoice":
                let amount = try sats(a["amount_sats"], "amount_sats")
                let description = a["description"]?.stringValue ?? ""
                var expiry = Bolt11Invoice.defaultExpiry
                if let value = a["expiry_seconds"] {
                    guard case .int(let seconds) = value, (60...604_800).contains(seconds) else { throw Refusal(words: "the parameter expiry_seconds is a whole number from 60 to 604800") }
                    expiry = UInt64(seconds)
                }
                let made = try await ConnectionHolds.make(ReceiveRequest(amountSats: amount, description: description, expirySeconds: expiry),
                                                          paymentHash: a["payment_hash"]?.stringValue, connection: connection, session: session)
                return ("Hold invoice for \(AmountText.sats(amount)): \(made.response.invoice)",
                        ["invoice": .string(made.response.invoice), "payment_hash": .string(made.response.paymentHash), "amount_sats": .int(Int(amount.value)),
                         "expires_at": .string(made.response.expiresAt.iso8601)])
            case "settle_hold_invoice":
                let reference: HoldReference
                if let preimage = a["preimage"]?.stringValue {
                    reference = try HoldReference.read(SecretBytes(Array(preimage.prefix(128).utf8)), knownHash: { _ in true })
                } else if let hash = a["payment_hash"]?.stringValue {
                    reference = try HoldReference.read(String(hash.prefix(128)), knownHash: { _ in false })
                } else {
                    throw Refusal(words: "give preimage or payment_hash")
                }
                let payment = try await ConnectionHolds.settle(reference, connection: connection, session: session)
                return ("Settled: \(AmountText.sats(payment.amountMsat, rounding: .down)) received", Self.structured(payment))
            default:
                guard let hash = a["payment_hash"]?.stringValue else { throw Refusal(words: "the parameter payment_hash is required") }
                let payment = try await ConnectionHolds.cancel(paymentHash: String(hash.prefix(128)), connection: connection, session: session)
                return ("Cancelled: \(AmountText.sats(payment.amountMsat, rounding: .down)) goes back to the payer", Self.structured(payment))
            }
        } catch let failure as ConnectionHolds.Failure {
            throw Refusal(words: failure.description)
        } catch let refusal as HoldInvoiceError {
            throw Refusal(words: refusal.description)
        }
    }

    /// `pay_lightning_address`: `amount_sats` to `address` (with an optional `comment`), under
    /// the connection's rule, asked first above `--confirm-above`.
    func payLightningAddress(_ a: [String: Value], connection: AppConnection, server: Server) async throws -> (String, [String: Value]) {
        try require(.pay, connection)
        guard let address = a["address"]?.stringValue, address.contains("@"), address.utf8.count <= 320 else { throw Refusal(words: "the parameter address is name@domain") }
        let amount = try sats(a["amount_sats"], "amount_sats")
        let comment = a["comment"]?.stringValue
        guard session.lnurl != nil else { throw Refusal(words: "this wallet can't reach Lightning addresses now") }
        guard let input = try? PaymentInput.parse(address, allowLoopbackHTTP: session.spec.allowsLoopbackHTTP), case .lightningAddress = input else {
            throw Refusal(words: "the parameter address is a Lightning address: name@domain")
        }
        do {
            let payment = try await ConnectionPayer.pay(input, text: address, amountSats: amount, comment: comment, requestID: UUID().uuidString.lowercased(),
                                                        connection: connection, session: session, approve: approval(server: server), ask: ask(server: server))
            if payment.status == .failed { throw Refusal(words: payment.failureReason ?? "the payment failed") }
            return (Self.paidLine(payment) + " to \(address)", Self.structured(payment))
        } catch let failure as ConnectionPayer.Failure {
            throw Refusal(words: failure.description)
        }
    }

    /// `fetch_paid_url`: an HTTP request whose 402 is paid over L402 within the connection's
    /// limits (and `max_cost_sats`); the body, capped at 256 KiB, and what it cost.
    func fetchPaidURL(_ a: [String: Value], connection: AppConnection, server: Server) async throws -> (String, [String: Value]) {
        guard let text = a["url"]?.stringValue, let url = URL(string: text), L402.scope(of: url) != nil else { throw Refusal(words: "the parameter url is an http:// or https:// address") }
        var request = PaidFetch.Request(url: url, method: (a["method"]?.stringValue ?? "GET").uppercased())
        if let body = a["body"]?.stringValue { request.body = Array(body.utf8) }
        let maximum = try a["max_cost_sats"].map { try sats($0, "max_cost_sats") }
        let fetcher = PaidFetch(session: session, keyring: keyring)
        let fetched: PaidFetch.Response
        do {
            fetched = try await fetcher.fetch(request, payer: .connection(connection), maxCost: maximum, confirm: { price, host in
                // The connection's own approval asks instead (with the fee known).
                if let threshold = connection.approveAbove, price > threshold { return }
                try await self.confirm(price.msat, question: "Pay \(AmountText.sats(price)) to \(host) for \(TextLimit.prefix(url.absoluteString, scalars: 120))?", server: server)
            }, ask: ask(server: server))
        } catch {
            throw Refusal(words: error.description)
        }
        let body = String(decoding: fetched.body.prefix(256 * 1024), as: UTF8.self)
        var fields: [String: Value] = ["status": .int(fetched.status), "body": .string(body)]
        fields["cost_sats"] = .int(Int(fetched.payment?.amountMsat.sats(.up).value ?? 0))
        fields["fee_sats"] = .int(Int(fetched.payment?.feeMsat.sats(.up).value ?? 0))
        fields["payment_id"] = fetched.payment.map { .string($0.id) } ?? .null
        let paid = fetched.payment.map { " (paid \(AmountText.sats($0.amountMsat, rounding: .up)))" } ?? ""
        return ("HTTP \(fetched.status) from \(url.host ?? "the service")\(paid)", fields)
    }

    /// A JSON integer of sats, at least 1 and at most the supply: a fraction (`0.5`), a string
    /// or a number past 64 bits is refused, never rounded (`5.0` is the integer 5, as JSON Schema
    /// counts it). The parameter is named as the client sent it.
    func sats(_ value: Value?, _ name: String) throws -> Sats {
        guard case .int(let number)? = value, number > 0 else { throw Refusal(words: "the parameter \(name) is a whole number of sats, at least 1 (no fraction)") }
        guard let sats = try? Sats(UInt64(number)) else { throw Refusal(words: "the parameter \(name) is above the supply of bitcoin (\(AmountText.sats(Sats.supply)))") }
        return sats
    }

    /// The person's yes for a prepared payment above the threshold, asked with who is paid,
    /// amount, fee and total.
    func approval(server: Server) -> ConnectionPayer.Approve {
        { [self] approval in try await confirm(approval.total, question: approval.question, server: server) }
    }

    /// Whether Hawala's app answers at `address` (one that crashed leaves its address behind,
    /// and another program may have its port since).
    static func appAnswers(at address: String) async -> Bool {
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: address + "/alive"), deadline: .now() + .seconds(2))
            _ = try? await response.body.collect(upTo: 4_096)
            return response.headers.first(name: "server") == "hawala-app"
        } catch {
            return false
        }
    }

    /// A payment waiting for the person's yes (the connection's rule): the client sends the
    /// person to its page in the app when it can (the app decides), else asks in its own form
    /// (the answer decides); a client that can't ask leaves it to the app.
    func ask(server: Server) -> ConnectionPayer.Ask {
        { [self] approval in
            guard client.canElicit else { return nil }
            let question = "\(ConnectionPayer.question(approval)) Asked by \u{201C}\(approval.program)\u{201D}."
            if client.canOpenPages, let address = try? session.store.appAddress(), await Self.appAnswers(at: address) {
                let answer = try? await server.requestElicitation(message: question + " Approve or decline it in Hawala.", url: address + "/approvals/" + approval.id,
                                                                  elicitationId: approval.id)
                // Opened: the page decides. Declined here: declined.
                return answer?.action == .decline ? false : nil
            }
            guard let answer = try? await server.requestElicitation(message: question, requestedSchema: .init(properties: [:])) else { return nil }
            switch answer.action {
            case .accept: return true
            case .decline: return false
            default: return nil
            }
        }
    }

    /// How long a person has to answer "Pay …?".
    static let answerWithin: Duration = .seconds(300)

    /// The person's yes above the threshold; a client that can't ask, a no, or no answer in
    /// time: nothing paid.
    func confirm(_ amount: Msat, question: String, server: Server) async throws {
        guard let confirmAbove, amount > confirmAbove.msat else { return }
        // A client that did not offer elicitation when it started can't ask: refused at once.
        guard client.canElicit else { throw Refusal(words: Self.cannotAsk(confirmAbove)) }
        let answer: CreateElicitation.Result
        do {
            answer = try await Deadline.run(Self.answerWithin, timedOut: { Refusal(words: "no answer within \(Self.answerWithin.components.seconds / 60) minutes: nothing was paid") }) {
                try await server.requestElicitation(message: question, requestedSchema: .init(properties: [:]))
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal(words: Self.cannotAsk(confirmAbove))
        }
        guard answer.action == .accept else { throw Refusal(words: "the person declined: nothing was paid") }
    }

    static func cannotAsk(_ threshold: Sats) -> String {
        "a payment above \(AmountText.sats(threshold)) needs the person's yes, and this MCP client can't ask (no elicitation); nothing was paid"
    }

    func pay(_ invoice: String, amount: Msat?, requestID: String, connection: AppConnection, server: Server) async throws -> Payment {
        do {
            let payment = try await ConnectionPayer.pay(invoice: invoice, amountMsat: amount, requestID: requestID, connection: connection, session: session,
                                                        approve: approval(server: server), ask: ask(server: server))
            if payment.status == .failed { throw Refusal(words: payment.failureReason ?? "the payment failed") }
            return payment
        } catch let failure as ConnectionPayer.Failure {
            throw Refusal(words: failure.description)
        }
    }

    func lookup(_ a: [String: Value], connection: AppConnection) throws -> Payment {
        guard let hash = ConnectionHistory.paymentHash(a["payment_hash"]?.stringValue, invoice: a["invoice"]?.stringValue) else {
            throw Refusal(words: "give payment_hash (64 hex characters) or invoice")
        }
        guard let payment = try ConnectionHistory.lookup(hash, connection: connection, store: session.store) else {
            throw Refusal(words: "no invoice or payment with this payment hash")
        }
        return payment
    }

    static func paidLine(_ payment: Payment) -> String {
        payment.status == .completed
            ? "Paid \(AmountText.sats(payment.amountMsat, rounding: .up)) (fee \(AmountText.sats(payment.feeMsat, rounding: .up)))"
            : "Pending: \(AmountText.sats(payment.amountMsat, rounding: .up)) may still settle (lookup_invoice says how it ends)"
    }

    static func structured(_ payment: Payment) -> [String: Value] {
        var fields: [String: Value] = [
            "id": .string(payment.id), "type": .string(payment.type == .send ? "sent" : "received"), "status": .string(payment.status.rawValue),
            "amount_sats": .int(Int(payment.amountMsat.sats(payment.type == .send ? .up : .down).value)),
            "fee_sats": .int(Int(payment.feeMsat.sats(.up).value)), "created_at": .string(payment.timestamp.iso8601),
        ]
        fields["payment_hash"] = payment.details.paymentHash.map { .string($0) } ?? .null
        fields["description"] = payment.details.description.map { .string($0) } ?? .null
        if payment.status == .completed, let preimage = payment.details.preimage { fields["preimage"] = .string(preimage) }
        if payment.isHeld, let until = payment.heldUntil {
            fields["status"] = .string("held")
            fields["settle_by"] = .string(until.iso8601)
        }
        if let invoice = payment.details.invoice { fields["invoice"] = .string(invoice) }
        return fields
    }
}

