import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaText
import HawalaWallet

/// NIP-47's methods over one app connection, whatever carries them: a request's JSON in, the
/// answer's JSON out. What a connection may do and spend is the library's rule
/// (`AppConnection`, `ConnectionPayer`); this only speaks NWC.
public struct NWCHandler: Sendable {
    /// NIP-47's error codes.
    public enum Code: String, Sendable {
        case rateLimited = "RATE_LIMITED", notImplemented = "NOT_IMPLEMENTED", insufficientBalance = "INSUFFICIENT_BALANCE"
        case quotaExceeded = "QUOTA_EXCEEDED", restricted = "RESTRICTED", unauthorized = "UNAUTHORIZED", `internal` = "INTERNAL"
        case unsupportedEncryption = "UNSUPPORTED_ENCRYPTION", paymentFailed = "PAYMENT_FAILED", notFound = "NOT_FOUND", other = "OTHER"
    }

    /// An answer: a result, or an error in NIP-47's words.
    public struct Answer: Sendable {
        public let method: String
        public let result: JSONValue?
        public let error: (code: Code, message: String)?
        /// What was paid, for the service's log line (NIP-47's pay_invoice answer names only the fee).
        public var paidMsat: Msat?

        /// `{"result_type", "result": …}` or `{"result_type", "error": {code, message}, "result": null}`
        /// — NIP-47's examples: a success has no `error` key (some clients take any `error` key
        /// for a failure).
        public var json: String {
            guard let error else { return JSONValue.object([("result_type", .string(method)), ("result", result ?? .null)]).compact }
            return JSONValue.object([
                ("result_type", .string(method)),
                ("error", .object([("code", .string(error.code.rawValue)), ("message", .string(error.message))])),
                ("result", .null),
            ]).compact
        }

        public static func failed(_ method: String, _ code: Code, _ message: String) -> Answer { Answer(method: method, result: nil, error: (code, message)) }
    }

    /// The methods a connection may call: what its permissions allow, and always its info and budget.
    public static func methods(for connection: AppConnection) -> [String] {
        var methods = ["get_info", "get_budget"]
        if connection.allows(.pay) { methods.append("pay_invoice") }
        if connection.allows(.balance) { methods.append("get_balance") }
        if connection.allows(.receive) { methods += ["make_invoice", "lookup_invoice"] + holdMethods }
        if connection.allows(.history) || connection.allows(.pay) || connection.allows(.receive) { methods.append("list_transactions") }
        if connection.allows(.history), !methods.contains("lookup_invoice") { methods.append("lookup_invoice") }
        return methods
    }

    /// NIP-47's hold invoice methods (a connection that may receive).
    static let holdMethods = ["make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice"]

    /// The notifications a connection hears.
    public static func notifications(for connection: AppConnection) -> [String] {
        var types: [String] = []
        if connection.allows(.receive) || connection.allows(.history) { types.append("payment_received") }
        if connection.allows(.receive) { types.append("hold_invoice_accepted") }
        if connection.allows(.pay) || connection.allows(.history) { types.append("payment_sent") }
        return types
    }

    public let session: LightningSession
    /// Told of a payment that waits for the person's yes (the service logs it).
    let ask: ConnectionPayer.Ask?
    public init(session: LightningSession, ask: ConnectionPayer.Ask? = nil) {
        self.session = session
        self.ask = ask
    }

    /// How long `pay_invoice` waits for a payment still pending (one held by its payee until
    /// delivery) before answering that it is pending.
    static let pendingWait: Duration = .seconds(30)

    /// A number of a request's params, read exactly (`JSONInteger`): absent is nil; present and
    /// not a whole number from 0 to 2^64 − 1 is refused in words, never truncated.
    struct BadNumber: Error { let words: String }

    static func integer(_ params: [String: Any], _ name: String, what: String) throws(BadNumber) -> UInt64? {
        guard let value = params[name], !(value is NSNull) else { return nil }
        guard let number = JSONInteger.unsigned(value) else { throw BadNumber(words: "params.\(name) is \(what): a whole number, no fraction") }
        return number
    }

    /// An amount in msat: a whole number up to the supply of bitcoin.
    static func msat(_ params: [String: Any], _ name: String) throws(BadNumber) -> Msat? {
        guard let number = try integer(params, name, what: "a number of msat") else { return nil }
        guard let msat = try? Msat(number) else { throw BadNumber(words: "params.\(name) is above the supply of bitcoin (\(Msat.supply) msat)") }
        return msat
    }

    /// Answers the request `json` from `connection` (its id: `requestID`, the payment's key).
    /// `maxAnswerBytes`: the most the answer may hold (NIP-44 v2 carries 65,535 bytes) — a
    /// list is shortened to fit.
    public func answer(_ json: String, connection: AppConnection, requestID: String, now: Date = Date(), maxAnswerBytes: Int = .max) async -> Answer {
        guard json.utf8.count <= 64 * 1024, let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let method = object["method"] as? String,
              method.utf8.count <= 64 else {
            return .failed("", .other, "the request is not NIP-47 JSON")
        }
        let params = object["params"] as? [String: Any] ?? [:]
        guard Self.methods(for: connection).contains(method) else {
            let known = ["pay_invoice", "get_balance", "make_invoice", "lookup_invoice", "list_transactions"] + Self.holdMethods
            return known.contains(method)
                ? .failed(method, .restricted, "this connection may not use \(method)")
                : .failed(method, .notImplemented, "\(method) is not offered")
        }
        switch method {
        case "get_info": return await info(connection)
        case "get_budget": return await budget(connection, now: now)
        case "get_balance": return await balance()
        case "pay_invoice": return await pay(params, connection: connection, requestID: requestID, now: now)
        case "make_invoice": return await makeInvoice(params, connection: connection)
        case "lookup_invoice": return lookup(params, connection: connection, now: now)
        case "list_transactions": return list(params, connection: connection, now: now, maxBytes: maxAnswerBytes)
        case "make_hold_invoice": return await makeHoldInvoice(params, connection: connection, now: now)
        case "settle_hold_invoice": return await settleHoldInvoice(params, connection: connection, now: now)
        case "cancel_hold_invoice": return await cancelHoldInvoice(params, connection: connection, now: now)
        default: return .failed(method, .notImplemented, "\(method) is not offered")
        }
    }

    func info(_ connection: AppConnection) async -> Answer {
        let node = try? await session.backend.getInfo()
        let network: String = switch session.spec {
        case .spark(.mainnet): "mainnet"
        case .spark(.regtest), .devnet: "regtest"
        }
        var fields: [(String, JSONValue)] = [("alias", .string("Hawala")), ("color", .string("0b6e4f")), ("network", .string(network))]
        if let node { fields.append(("pubkey", .string(node.nodeID))) }
        // The wallet's Lightning address, when it has one (asked briefly: get_info never waits long).
        let backend = session.backend
        if let address = try? await Deadline.run(.seconds(5), timedOut: { LightningError.timeout(waitingFor: .answer, after: .seconds(5)) }, {
            try await backend.lightningAddress()
        }) {
            fields.append(("lud16", .string(address.address)))
        }
        fields.append(("methods", .array(Self.methods(for: connection).map { .string($0) })))
        fields.append(("notifications", .array(Self.notifications(for: connection).map { .string($0) })))
        return Answer(method: "get_info", result: .object(fields), error: nil)
    }

    /// The NWC budget extension: `{used_budget, total_budget, renews_at, renewal_period}` in
    /// msat and seconds; `{}` for a connection without a budget.
    /// A budget in a currency is given in msat at the price of bitcoin now (`total_budget`: what
    /// is left, at that price, plus what was spent), with `currency`, `total_fiat` and
    /// `used_fiat` beside it; no price now: `{}` plus those three.
    func budget(_ connection: AppConnection, now: Date) async -> Answer {
        guard let spending = try? session.store.spending(of: connection, now: now) else { return .failed("get_budget", .internal, "the budget can't be read now") }
        if let fiat = spending.fiatBudget {
            var fields: [(String, JSONValue)] = []
            if let price = await session.btcPrice(in: fiat.currency), price > 0 {
                let left = max(0, fiat.amount - spending.fiatSpent)
                let leftMsat = NSDecimalNumber(decimal: left * Decimal(100_000_000_000) / price).uint64Value
                fields += [("used_budget", .amount(spending.spent)), ("total_budget", .amount((try? spending.spent + Msat(clamping: leftMsat)) ?? spending.spent))]
            }
            if let renews = spending.renewsAt { fields.append(("renews_at", .int(Int(renews.timeIntervalSince1970)))) }
            fields.append(("renewal_period", .string(connection.renewal.rawValue)))
            fields += [("currency", .string(fiat.currency)), ("total_fiat", .string(FiatBudget.plain(fiat.amount))), ("used_fiat", .string(FiatBudget.plain(spending.fiatSpent)))]
            return Answer(method: "get_budget", result: .object(fields), error: nil)
        }
        guard let budget = spending.budget else { return Answer(method: "get_budget", result: .object([]), error: nil) }
        var fields: [(String, JSONValue)] = [("used_budget", .amount(spending.spent)), ("total_budget", .amount(budget.msat))]
        if let renews = spending.renewsAt { fields.append(("renews_at", .int(Int(renews.timeIntervalSince1970)))) }
        fields.append(("renewal_period", .string(connection.renewal.rawValue)))
        return Answer(method: "get_budget", result: .object(fields), error: nil)
    }

    /// The backend's balance as it stands: no history sync, no fiat, nothing written (a
    /// program may ask often; the history is kept by the service's event listener).
    func balance() async -> Answer {
        do {
            let backend = session.backend
            let info = try await Deadline.run(.seconds(10), timedOut: { LightningError.timeout(waitingFor: .answer, after: .seconds(10)) }) {
                try await backend.getInfo()
            }
            return Answer(method: "get_balance", result: .object([("balance", .amount(info.balanceMsat))]), error: nil)
        } catch {
            return .failed("get_balance", .internal, "the balance can't be read now")
        }
    }

    func pay(_ params: [String: Any], connection: AppConnection, requestID: String, now: Date) async -> Answer {
        guard let invoice = params["invoice"] as? String else { return .failed("pay_invoice", .other, "params.invoice is required") }
        let amount: Msat?
        do { amount = try Self.msat(params, "amount") } catch { return .failed("pay_invoice", .other, error.words) }
        do {
            // An invoice this connection paid before (a retry after a lost answer): that payment.
            var payment = try await ConnectionPayer.pay(invoice: invoice, amountMsat: amount, requestID: requestID, connection: connection, session: session, now: now,
                                                        ask: ask)
            if payment.status == .pending, let hash = payment.details.paymentHash,
               let ended = try? await session.lightning.waitForPayment(paymentHash: hash, paymentID: payment.id, timeout: Self.pendingWait) {
                // Held by a payee who settles on delivery: the answer waits for it, a while.
                payment = ended
            }
            switch payment.status {
            case .completed:
                var answer = Answer(method: "pay_invoice", result: .object([("preimage", .string(payment.details.preimage ?? "")), ("fees_paid", .amount(payment.feeMsat))]), error: nil)
                answer.paidMsat = payment.amountMsat
                return answer
            case .pending:
                return .failed("pay_invoice", .other, "the payment is pending: it may still settle (lookup_invoice says how it ends)")
            case .failed:
                return .failed("pay_invoice", .paymentFailed, payment.failureReason ?? "the payment failed")
            }
        } catch {
            return Self.answer(for: error, method: "pay_invoice")
        }
    }

    static func answer(for failure: ConnectionPayer.Failure, method: String) -> Answer {
        switch failure {
        case .refused(.revoked), .refused(.expired): .failed(method, .unauthorized, failure.description)
        case .refused(.notAllowed), .notApproved: .failed(method, .restricted, failure.description)
        case .refused(.aboveMaximum), .refused(.overBudget), .refused(.overFiatBudget): .failed(method, .quotaExceeded, failure.description)
        case .refused(.noRate): .failed(method, .other, failure.description)
        case .insufficientBalance: .failed(method, .insufficientBalance, failure.description)
        case .paymentFailed: .failed(method, .paymentFailed, failure.description)
        case .invalidInvoice, .invalidAmount: .failed(method, .other, failure.description)
        }
    }

    /// `make_invoice`'s and `make_hold_invoice`'s params as a request: amount (msat, whole
    /// sats; 0 for any amount), description, expiry (seconds, 60 to a week).
    static func receiveRequest(_ params: [String: Any]) throws(BadNumber) -> ReceiveRequest {
        guard let msat = try Self.msat(params, "amount") else { throw BadNumber(words: "params.amount is required: a number of msat") }
        let expiry = try Self.integer(params, "expiry", what: "a number of seconds").map { max(60, min($0, 7 * 86_400)) } ?? Bolt11Invoice.defaultExpiry
        guard msat.isWholeSats else { throw BadNumber(words: "an amount is whole sats (a multiple of 1,000 msat)") }
        return ReceiveRequest(amountSats: msat == .zero ? nil : msat.sats(.down), description: params["description"] as? String ?? "", expirySeconds: expiry)
    }

    func makeInvoice(_ params: [String: Any], connection: AppConnection) async -> Answer {
        let request: ReceiveRequest
        do { request = try Self.receiveRequest(params) } catch { return .failed("make_invoice", .other, error.words) }
        do {
            let created = try await session.receive(request, connection: connection.name)
            return invoiceAnswer("make_invoice", created, connection: connection)
        } catch {
            return .failed("make_invoice", .other, "\(error)")
        }
    }

    /// The recorded invoice just made, as NIP-47 writes a transaction.
    func invoiceAnswer(_ method: String, _ created: CreatedInvoice, connection: AppConnection) -> Answer {
        let key = LightningWallet.invoiceKey(paymentHash: created.response.paymentHash)
        guard let payment = try? session.store.payment(walletID: connection.walletID, idempotencyKey: key) else {
            return .failed(method, .internal, "the invoice was made but not recorded")
        }
        return Answer(method: method, result: Self.transaction(payment, now: Date()), error: nil)
    }

    /// `make_hold_invoice`: NIP-47 gives `payment_hash` (the client holds the preimage); without
    /// one, the wallet keeps it and `settle_hold_invoice` takes the payment hash.
    func makeHoldInvoice(_ params: [String: Any], connection: AppConnection, now: Date) async -> Answer {
        let request: ReceiveRequest
        do { request = try Self.receiveRequest(params) } catch { return .failed("make_hold_invoice", .other, error.words) }
        let hash = params["payment_hash"] as? String
        do {
            let created = try await ConnectionHolds.make(request, paymentHash: hash, connection: connection, session: session, now: now)
            return invoiceAnswer("make_hold_invoice", created, connection: connection)
        } catch {
            return Self.answer(for: error, method: "make_hold_invoice")
        }
    }

    /// `settle_hold_invoice`: by `preimage` (NIP-47), or by `payment_hash` for an invoice whose
    /// preimage the wallet kept. The answer is `{}`.
    func settleHoldInvoice(_ params: [String: Any], connection: AppConnection, now: Date) async -> Answer {
        let reference: HoldReference
        do {
            if let preimage = params["preimage"] as? String {
                reference = try HoldReference.read(SecretBytes(Array(preimage.prefix(128).utf8)), knownHash: { _ in true })
            } else if let hash = params["payment_hash"] as? String {
                reference = try HoldReference.read(String(hash.prefix(128)), knownHash: { _ in false })
            } else {
                return .failed("settle_hold_invoice", .other, "params.preimage is required")
            }
        } catch {
            return .failed("settle_hold_invoice", .other, "\(error)")
        }
        do {
            _ = try await ConnectionHolds.settle(reference, connection: connection, session: session, now: now)
            return Answer(method: "settle_hold_invoice", result: .object([]), error: nil)
        } catch {
            return Self.answer(for: error, method: "settle_hold_invoice")
        }
    }

    /// `cancel_hold_invoice`: by `payment_hash`; the answer is `{}`.
    func cancelHoldInvoice(_ params: [String: Any], connection: AppConnection, now: Date) async -> Answer {
        guard let hash = params["payment_hash"] as? String else { return .failed("cancel_hold_invoice", .other, "params.payment_hash is required") }
        do {
            _ = try await ConnectionHolds.cancel(paymentHash: String(hash.prefix(128)), connection: connection, session: session, now: now)
            return Answer(method: "cancel_hold_invoice", result: .object([]), error: nil)
        } catch {
            return Self.answer(for: error, method: "cancel_hold_invoice")
        }
    }

    static func answer(for failure: ConnectionHolds.Failure, method: String) -> Answer {
        switch failure {
        case .refused(.revoked), .refused(.expired): .failed(method, .unauthorized, failure.description)
        case .refused: .failed(method, .restricted, failure.description)
        case .notFound, .hold(.nothingHeld): .failed(method, .notFound, failure.description)
        case .failed: .failed(method, .internal, failure.description)
        case .hold, .invalid: .failed(method, .other, failure.description)
        }
    }

    func lookup(_ params: [String: Any], connection: AppConnection, now: Date) -> Answer {
        guard let hash = ConnectionHistory.paymentHash(params["payment_hash"] as? String, invoice: params["invoice"] as? String) else {
            return .failed("lookup_invoice", .other, "params.payment_hash or params.invoice is required")
        }
        let found: Payment?
        do { found = try ConnectionHistory.lookup(hash, connection: connection, store: session.store) } catch {
            return .failed("lookup_invoice", .internal, "the history can't be read now")
        }
        guard let payment = found else { return .failed("lookup_invoice", .notFound, "no invoice or payment with this payment hash") }
        return Answer(method: "lookup_invoice", result: Self.transaction(payment, now: now), error: nil)
    }

    func list(_ params: [String: Any], connection: AppConnection, now: Date, maxBytes: Int = .max) -> Answer {
        let limit: Int, offset: Int, from: UInt64?, until: UInt64?
        do {
            let limits = ConnectionHistory.listLimits
            limit = try Self.integer(params, "limit", what: "a count").map { max(limits.lowerBound, min(Int(clamping: $0), limits.upperBound)) }
                ?? ConnectionHistory.defaultListLimit
            offset = try Self.integer(params, "offset", what: "a count").map { Int(min($0, 1_000_000)) } ?? 0
            // Seconds since 1970, up to the year 5138 (past it, Date's arithmetic is no longer exact).
            from = try Self.integer(params, "from", what: "a time in seconds").map { min($0, 100_000_000_000) }
            until = try Self.integer(params, "until", what: "a time in seconds").map { min($0, 100_000_000_000) }
        } catch {
            return .failed("list_transactions", .other, error.words)
        }
        var filter = connection.visibleHistory(PaymentFilter(openInvoices: params["unpaid"] as? Bool ?? false, offset: offset, limit: limit))
        if let from { filter.from = Date(timeIntervalSince1970: TimeInterval(from)) }
        if let until { filter.to = Date(timeIntervalSince1970: TimeInterval(until + 1)) }
        switch params["type"] as? String {
        case "incoming": filter.type = .receive
        case "outgoing": filter.type = .send
        default: break
        }
        guard let payments = try? session.store.payments(walletID: connection.walletID, filter: filter) else {
            return .failed("list_transactions", .internal, "the history can't be read now")
        }
        // The newest first, as many as fit in `maxBytes` (the envelope's few dozen bytes kept aside).
        var kept: [JSONValue] = [], size = 256
        for payment in payments {
            let item = Self.transaction(payment, now: now)
            size += item.compact.utf8.count + 1
            guard size <= maxBytes else { break }
            kept.append(item)
        }
        return Answer(method: "list_transactions", result: .object([("transactions", .array(kept))]), error: nil)
    }

    /// A payment or invoice as NIP-47 writes one (amounts in msat, times in seconds).
    public static func transaction(_ payment: Payment, now: Date) -> JSONValue {
        let state: String
        switch payment.status {
        case .completed: state = "settled"
        case .failed: state = "failed"
        case .pending where payment.isHeld: state = "accepted"
        case .pending: state = payment.isOpenInvoice && payment.receiveState(at: now) == .expired ? "expired" : "pending"
        }
        var fields: [(String, JSONValue)] = [("type", .string(payment.type == .receive ? "incoming" : "outgoing")), ("state", .string(state))]
        if let invoice = payment.details.invoice { fields.append(("invoice", .string(invoice))) }
        if let description = payment.details.description { fields.append(("description", .string(description))) }
        if let preimage = payment.details.preimage, payment.status == .completed { fields.append(("preimage", .string(preimage))) }
        fields.append(("payment_hash", .string(payment.details.paymentHash ?? "")))
        fields.append(("amount", .amount(payment.amountMsat)))
        fields.append(("fees_paid", .amount(payment.feeMsat)))
        fields.append(("created_at", .int(Int(payment.timestamp.timeIntervalSince1970))))
        if let text = payment.details.invoice, let invoice = try? Bolt11Invoice(text) { fields.append(("expires_at", .int(Int(invoice.expiresAt.timeIntervalSince1970)))) }
        if payment.status == .completed { fields.append(("settled_at", .int(Int(payment.timestamp.timeIntervalSince1970)))) }
        return .object(fields)
    }
}
