import AsyncHTTPClient
import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaText
import HawalaWallet
import NIOCore
import NIOHTTP1

/// A small curl for paid URLs (L402): the request; on a 402 with an L402 challenge, the price
/// checked against who pays (a connection's limits, or a person's maximum), the invoice paid
/// once, the request sent again with the credential. Tokens are kept per origin and folder,
/// sealed in the wallet store, and used again until the service refuses them. Redirects are
/// followed for GET only, and never carry a credential to another origin — neither the L402
/// one nor the caller's own `Authorization`, `Cookie` or `Proxy-Authorization` (as curl does).
/// The whole exchange, redirects included, has one deadline; an answer shorter than its
/// `Content-Length` is an error, never a success.
public struct PaidFetch: Sendable {
    public struct Request: Sendable {
        public var url: URL
        public var method: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]?

        public init(url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
        }
    }

    public struct Response: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        /// The payment this fetch made (nil: none, a token kept from before, or a free URL).
        public let payment: Payment?
        /// A token bought before answered.
        public let reusedToken: Bool
        public let url: URL
    }

    /// Who pays, and within what.
    public enum Payer: Sendable {
        /// A program's connection: its limits, its budget (`ConnectionPayer`).
        case connection(AppConnection)
        /// A person at the command line: at most `maxCost` for the invoice, `maxFee` in fees.
        case person(maxCost: Sats, maxFee: Sats?)
    }

    public enum Failure: Error, Sendable, CustomStringConvertible {
        case invalidURL(String)
        case challenge(L402.ChallengeError)
        case invoice(String)
        case overMaximum(price: Sats, maximum: Sats, host: String)
        case payment(ConnectionPayer.Failure)
        case pending(paymentID: String)
        case http(String)
        case tooLarge(Int)
        /// The person asked said no, or could not be asked.
        case declined(String)

        public var description: String {
            switch self {
            case .invalidURL(let url): "\(url.prefix(200)) is not an http:// or https:// address"
            case .challenge(let error): error.description
            case .invoice(let why): "the service's invoice can't be paid: \(why)"
            case .overMaximum(let price, let maximum, let host):
                "\(host) asks \(AmountText.sats(price)), more than the \(AmountText.sats(maximum)) allowed; nothing was paid"
            case .payment(.refused(let refusal)): refusal.description.contains("nothing was paid") ? refusal.description : "\(refusal); nothing was paid"
            case .payment(let failure): failure.description
            case .pending(let id): "the payment is still pending (\(id)); the request was not sent again"
            case .http(let why): why
            case .tooLarge(let bytes): "the answer is larger than \(bytes / 1_048_576) MiB; refused"
            case .declined(let why): why
            }
        }
    }

    public static let defaultMaximumBytes = 16 * 1_048_576
    public static let defaultTimeout: Duration = .seconds(60)
    static let maximumRedirects = 5

    let session: LightningSession
    let keyring: Keyring
    let timeout: Duration
    let maximumBytes: Int

    public init(session: LightningSession, keyring: Keyring, timeout: Duration = PaidFetch.defaultTimeout, maximumBytes: Int = PaidFetch.defaultMaximumBytes) {
        self.session = session
        self.keyring = keyring
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    /// Asked before a payment is made, with the price and the service's host: throws to refuse
    /// (a person asked, who said no). Nil: no one is asked.
    public typealias Confirmation = @Sendable (_ price: Sats, _ host: String) async throws -> Void

    /// Fetches `request`, paying once if the service asks (see the type): at most `maxCost`
    /// too when given, and after `confirm` agrees (a connection's payment above its
    /// `approveAbove` waits for the person's yes: `ask` hears of it).
    public func fetch(_ request: Request, payer: Payer, maxCost: Sats? = nil, now: Date = Date(),
                      confirm: Confirmation? = nil, ask: ConnectionPayer.Ask? = nil) async throws(Failure) -> Response {
        guard L402.scope(of: request.url) != nil else { throw .invalidURL(request.url.absoluteString) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { _ = client.shutdown() }
        var current = request
        var deadline = ContinuousClock.now + timeout
        var payment: Payment?
        var paidOnce = false
        var redirects = 0
        // The credential just paid for, sent with the retry even when the store could not keep it.
        var justPaid: L402Token?
        while true {
            let token = justPaid ?? (try? session.store.l402Token(walletID: session.wallet.id, url: current.url, keyring: keyring))
            justPaid = nil
            var sent = current
            if let token { sent.headers.append(("Authorization", token.authorization)) }
            let answer = try await send(sent, client: client, deadline: deadline)
            if (300...399).contains(answer.status), [301, 302, 303, 307, 308].contains(answer.status), current.method == "GET",
               let location = answer.header("Location"), let next = URL(string: location, relativeTo: current.url)?.absoluteURL {
                redirects += 1
                guard redirects <= Self.maximumRedirects, L402.scope(of: next) != nil else { throw .http("too many redirects, or one to a place not http(s)") }
                // The credential stays with its origin: the next request carries only the
                // token kept for the new address (looked up above), never this one; the
                // caller's own credentials stay too.
                if L402.scope(of: next)?.origin != L402.scope(of: current.url)?.origin {
                    current.headers.removeAll { Self.originBound.contains($0.name.lowercased()) }
                }
                current.url = next
                continue
            }
            let asksPayment = answer.status == 402 || (answer.status == 401 && token != nil && !answer.headers(named: "WWW-Authenticate").isEmpty)
            guard asksPayment else {
                return Response(status: answer.status, headers: answer.headers, body: answer.body, payment: payment, reusedToken: token != nil && payment == nil,
                                url: current.url)
            }
            if let token {
                UnsavedWrite.attempt("forgetting the refused credential for \(token.origin)\(token.path)") { try session.store.forgetL402Token(token) }
            }
            if paidOnce {
                // Paid, and still refused: say so rather than pay again.
                return Response(status: answer.status, headers: answer.headers, body: answer.body, payment: payment, reusedToken: false, url: current.url)
            }
            let challenge: L402.Challenge
            do { challenge = try L402.challenge(in: answer.headers(named: "WWW-Authenticate")) } catch { throw .challenge(error) }
            // The person's time to answer is not the network's: the deadline moves past it.
            let asked = ContinuousClock.now
            var paid = try await pay(challenge, for: current.url, payer: payer, maxCost: maxCost, now: now, confirm: confirm, ask: ask)
            deadline += ContinuousClock.now - asked
            if paid.status == .pending, let hash = paid.details.paymentHash {
                // Held by a seller who settles on delivery (a hold invoice): its answer is the
                // settlement, within the exchange's time.
                let left = deadline - ContinuousClock.now
                if left > .zero, let settled = try? await session.lightning.waitForPayment(paymentHash: hash, paymentID: paid.id, timeout: left) { paid = settled }
                if paid.status == .failed {
                    throw .payment(.paymentFailed("\(current.url.host ?? "the service") did not deliver: the payment was given back; nothing was paid"))
                }
            }
            if paid.status == .failed { throw .payment(.paymentFailed((paid.failureReason ?? "the payment failed") + "; nothing was paid")) }
            guard let preimage = paid.details.preimage, paid.status == .completed else { throw .pending(paymentID: paid.id) }
            guard let scope = L402.scope(of: current.url) else { throw .invalidURL(current.url.absoluteString) }
            let credential = L402Token(walletID: session.wallet.id, origin: scope.origin, path: scope.path, scheme: challenge.scheme.rawValue,
                                       token: challenge.token, preimageHex: preimage, paymentID: paid.id, createdAt: now)
            UnsavedWrite.attempt("the credential paid for \(scope.origin)\(scope.path) (payment \(paid.id))") {
                try session.store.saveL402Token(credential, keyring: keyring)
            }
            justPaid = credential
            payment = paid
            paidOnce = true
        }
    }

    /// Pays the challenge's invoice within what the payer allows; once per invoice, ever.
    func pay(_ challenge: L402.Challenge, for url: URL, payer: Payer, maxCost: Sats?, now: Date, confirm: Confirmation?,
             ask: ConnectionPayer.Ask? = nil) async throws(Failure) -> Payment {
        guard challenge.invoice.utf8.count <= Bolt11Invoice.maximumLength, let invoice = try? Bolt11Invoice(challenge.invoice) else {
            throw .invoice("not a BOLT11 invoice")
        }
        guard let amount = invoice.amountMsat else { throw .invoice("it has no amount") }
        let host = url.host ?? "the service"
        let price = amount.sats(.up)
        let requestID = "l402:" + hexString(invoice.paymentHash)
        var maximum = maxCost
        if case .person(let personal, _) = payer { maximum = min(maximum ?? personal, personal) }
        if let maximum, price > maximum { throw .overMaximum(price: price, maximum: maximum, host: host) }
        if let confirm {
            do { try await confirm(price, host) } catch { throw .declined("\(error)") }
        }
        switch payer {
        case .connection(let connection):
            do {
                return try await ConnectionPayer.pay(invoice: challenge.invoice, amountMsat: nil, requestID: requestID, connection: connection, session: session, now: now,
                                                     payee: host, ask: ask)
            }
            catch { throw .payment(error) }
        case .person(_, let maxFee):
            if let earlier = try? session.store.payment(walletID: session.wallet.id, idempotencyKey: requestID), earlier.status != .failed { return earlier }
            do {
                let prepared = try await session.prepare(.bolt11(invoice), text: challenge.invoice, amountSats: nil, comment: nil, maxFeeSats: maxFee)
                return try await session.lightning.pay(prepared.prepared, idempotencyKey: requestID, connection: "L402: " + host)
            } catch {
                throw .payment(ConnectionPayer.failure(error))
            }
        }
    }

    /// Headers that belong to the origin they were written for.
    static let originBound: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    struct Answer {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        func headers(named name: String) -> [String] { headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }
    }

    func send(_ request: Request, client: HTTPClient, deadline: ContinuousClock.Instant) async throws(Failure) -> Answer {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let host = request.url.host ?? "the service"
        let maximumBytes = self.maximumBytes
        let prepared = outgoing
        let left = deadline - ContinuousClock.now
        let seconds = timeout.components.seconds
        guard left > .zero else { throw .http("\(host) did not answer within \(seconds) s in all") }
        let answer: Answer
        do {
            answer = try await Deadline.run(left, timedOut: { Failure.http("\(host) did not answer within \(seconds) s in all") }) {
                let response = try await client.execute(prepared, deadline: .now() + .hours(1))
                let body = try await response.body.collect(upTo: maximumBytes)
                return Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Array(body.readableBytesView))
            }
        } catch let error as Failure {
            throw error
        } catch is NIOTooManyBytesError {
            throw .tooLarge(maximumBytes)
        } catch HTTPParserError.invalidEOFState {
            throw .http("the answer from \(host) ended early; a payment made for it is kept for a retry")
        } catch {
            // NIO's words for a closed port are long and odd; a person needs three.
            if "\(error)".contains("Connection refused") { throw .http("cannot reach \(host): the connection was refused") }
            throw .http("cannot reach \(host): \(error)")
        }
        // An answer that ends before its announced length is cut, not complete.
        if request.method.uppercased() != "HEAD", ![204, 304].contains(answer.status), let announced = answer.header("Content-Length").flatMap(Int.init),
           answer.body.count < announced {
            throw .http("the answer from \(host) ended early (\(answer.body.count) of \(announced) bytes); a payment made for it is kept for a retry")
        }
        return answer
    }
}
