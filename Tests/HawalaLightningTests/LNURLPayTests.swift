import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import Testing
@testable import HawalaLightning
import HawalaWallet

/// A fake LNURL-pay service on loopback: its pay request, and invoices for what is asked,
/// each overridable to misbehave.
final class FakeService: @unchecked Sendable {
    let key = SecretBytes([UInt8](repeating: 0x42, count: 32))
    let preimage = [UInt8](repeating: 7, count: 32)
    var metadata = "[[\"text/plain\",\"Coffee for alice\"],[\"text/identifier\",\"alice@127.0.0.1\"]]"
    var payRequest: ((String) -> LoopbackServer.Reply)?
    var callback: ((UInt64, String) -> LoopbackServer.Reply)?
    var server: LoopbackServer!

    init() throws {
        server = try LoopbackServer { [unowned self] path in
            if path.hasPrefix("/.well-known/lnurlp/") || path.hasPrefix("/lnurl") { return self.payRequest?(path) ?? self.defaultPayRequest() }
            let amount = URLComponents(string: path)?.queryItems?.first { $0.name == "amount" }?.value.flatMap { UInt64($0) } ?? 0
            return self.callback?(amount, path) ?? .json(self.invoiceJSON(amountMsat: amount))
        }
    }

    func defaultPayRequest(callback: String? = nil, min: UInt64 = 1000, max: UInt64 = 100_000_000, commentAllowed: Int = 20) -> LoopbackServer.Reply {
        let object: [String: Any] = ["tag": "payRequest", "callback": callback ?? "\(server.base)/cb?session=1", "minSendable": min,
                                     "maxSendable": max, "metadata": metadata, "commentAllowed": commentAllowed]
        return LoopbackServer.Reply(body: Array(try! JSONSerialization.data(withJSONObject: object)))
    }

    func invoice(amountMsat: UInt64?, descriptionHash: [UInt8]? = nil, network: LightningNetwork = .regtest) -> String {
        let fields = Bolt11Invoice.fields(paymentHash: Hash.sha256(preimage), paymentSecret: [UInt8](repeating: 9, count: 32), description: nil,
                                          descriptionHash: descriptionHash ?? Hash.sha256(Array(metadata.utf8)))
        return try! Bolt11Invoice.encode(network: network, amountMsat: amountMsat.map { try! Msat($0) }, timestamp: UInt64(Date().timeIntervalSince1970), fields: fields, privateKey: key)
    }

    func invoiceJSON(amountMsat: UInt64, successAction: String = "null") -> String {
        "{\"pr\":\"\(invoice(amountMsat: amountMsat))\",\"routes\":[],\"successAction\":\(successAction)}"
    }

    var address: PaymentInput { .lightningAddress(user: "alice", domain: "127.0.0.1", url: URL(string: "\(server.base)/.well-known/lnurlp/alice")!) }
}

@Suite("LNURL-pay against a loopback service")
struct LNURLPayTests {
    func flow(timeout: Int64 = 5, maximumBytes: Int = HTTPFetcher.defaultMaximumBytes) -> (LNURLPayFlow, HTTPFetcher) {
        let fetcher = HTTPFetcher(timeout: .seconds(timeout), maximumBytes: maximumBytes)
        return (LNURLPayFlow(fetcher: fetcher, allowLoopbackHTTP: true), fetcher)
    }

    @Test func lightningAddressHappyPathWithComment() async throws {
        let service = try FakeService()
        defer { service.server.stop() }
        service.callback = { amount, _ in .json(service.invoiceJSON(amountMsat: amount, successAction: "{\"tag\":\"message\",\"message\":\"Thanks!\"}")) }
        let (flow, fetcher) = flow()
        let request = try await flow.payRequest(for: service.address)
        #expect(request.description == "Coffee for alice" && request.minSendableMsat == 1000 && request.commentAllowed == 20)
        let (invoice, action) = try await flow.invoice(for: request, amountMsat: 21_000, comment: "gm & thanks", network: .regtest)
        #expect(invoice.amountMsat == 21_000 && action == .message("Thanks!"))
        #expect(try action?.text(preimage: nil) == "Thanks!")
        // What every face shows after paying: the payee's words once completed, not before.
        let prepared = PreparedPayment.lnurl(PrepareLnurlPayResponse(
            payRequest: request, prepared: PrepareSendResponse(invoiceText: invoice.text, invoice: invoice, amountMsat: 21_000, feeMsat: 0), successAction: action))
        func payment(_ status: Payment.Status) -> Payment {
            Payment(id: "p", type: .send, status: status, amountMsat: 21_000, feeMsat: 0, timestamp: Date(), backend: "devnet", details: Payment.Details())
        }
        #expect(prepared.payeeMessage(after: payment(.completed)) == "Thanks!")
        #expect(prepared.payeeMessage(after: payment(.pending)) == nil && prepared.payeeMessage(after: payment(.failed)) == nil)
        let last = try #require(service.server.requests.last)
        #expect(last.hasPrefix("/cb?session=1&amount=21000&comment=gm%20%26%20thanks"), "\(last)")
        await fetcher.shutdown()
    }

    @Test func checksBeforeAndAfterTheCallback() async throws {
        let service = try FakeService()
        defer { service.server.stop() }
        let (flow, fetcher) = flow()
        let request = try await flow.payRequest(for: service.address)
        let count = service.server.requests.count
        await #expect(throws: LNURLError.amountOutOfRange(requested: 999, min: 1000, max: 100_000_000)) {
            try await flow.invoice(for: request, amountMsat: 999, network: .regtest)
        }
        await #expect(throws: LNURLError.commentTooLong(allowed: 20)) {
            try await flow.invoice(for: request, amountMsat: 5000, comment: String(repeating: "x", count: 21), network: .regtest)
        }
        #expect(service.server.requests.count == count, "nothing is asked of the service for a refused amount or comment")

        service.callback = { amount, _ in .json("{\"pr\":\"\(service.invoice(amountMsat: amount + 1000))\"}") }
        await #expect(throws: LNURLError.invoiceAmountMismatch(requested: 5000, invoice: 6000)) { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        service.callback = { amount, _ in .json("{\"pr\":\"\(service.invoice(amountMsat: amount, descriptionHash: [UInt8](repeating: 0, count: 32)))\"}") }
        await #expect(throws: LNURLError.descriptionHashMismatch) { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        service.callback = { amount, _ in .json("{\"pr\":\"\(service.invoice(amountMsat: amount, network: .bitcoin))\"}") }
        await #expect(throws: LNURLError.wrongNetwork(.bitcoin)) { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        service.callback = { _, _ in .json("{\"status\":\"ERROR\",\"reason\":\"out of coffee\"}") }
        await #expect(throws: LNURLError.serviceError("out of coffee")) { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        service.callback = { _, _ in .json("{\"pr\":\"lnbcrt1garbage\"}") }
        await #expect(throws: LNURLError.self) { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        for action in ["{\"tag\":\"url\",\"description\":\"receipt\",\"url\":\"https://evil.example/r\"}",
                       "{\"tag\":\"message\",\"message\":\"\(String(repeating: "m", count: 145))\"}",
                       "{\"tag\":\"launch-missiles\"}", "{\"tag\":\"aes\",\"description\":\"d\",\"ciphertext\":\"abc\",\"iv\":\"short\"}"] {
            service.callback = { amount, _ in .json(service.invoiceJSON(amountMsat: amount, successAction: action)) }
            await #expect(throws: LNURLError.self, "\(action)") { try await flow.invoice(for: request, amountMsat: 5000, network: .regtest) }
        }
        service.callback = { amount, _ in
            .json(service.invoiceJSON(amountMsat: amount, successAction: "{\"tag\":\"url\",\"description\":\"receipt\",\"url\":\"\(service.server.base)/r/1\"}"))
        }
        let (_, url) = try await flow.invoice(for: request, amountMsat: 5000, network: .regtest)
        #expect(url == .url(description: "receipt", url: URL(string: "\(service.server.base)/r/1")!))
        await fetcher.shutdown()
    }

    @Test func hostilePayRequests() async throws {
        let service = try FakeService()
        defer { service.server.stop() }
        let (flow, fetcher) = flow()
        let cases: [(LoopbackServer.Reply, LNURLError)] = [
            (service.defaultPayRequest(callback: "https://evil.example/cb"), .callbackOnAnotherDomain("evil.example")),
            (service.defaultPayRequest(min: 5000, max: 1000), .invalidResponse("minSendable/maxSendable missing or inconsistent")),
            (.json("{\"status\":\"ERROR\",\"reason\":\"no such user\"}"), .serviceError("no such user")),
            (.json("{\"tag\":\"withdrawRequest\"}"), .wrongTag("withdrawRequest")),
            (.json("[1,2,3]"), .invalidResponse("not the JSON expected (malformed JSON)")),
            (.json("{\"tag\":\"payRequest\",\"callback\":\"x\",\"minSendable\":1.5,\"maxSendable\":2,\"metadata\":\"[]\"}"), .invalidResponse("not the JSON expected (malformed JSON)")),  // a fractional msat amount
            (LoopbackServer.Reply(status: 500, body: Array("{}".utf8)), .http("127.0.0.1 answered HTTP 500")),
        ]
        for (reply, error) in cases {
            service.payRequest = { _ in reply }
            await #expect(throws: error) { try await flow.payRequest(for: service.address) }
        }
        // A Lightning address whose metadata does not name it.
        service.payRequest = nil
        service.metadata = "[[\"text/plain\",\"Coffee\"],[\"text/identifier\",\"bob@127.0.0.1\"]]"
        await #expect(throws: LNURLError.identifierMismatch("alice@127.0.0.1")) { try await flow.payRequest(for: service.address) }
        // The same metadata is fine through a plain LNURL.
        _ = try await flow.payRequest(for: .lnurl(URL(string: "\(service.server.base)/lnurl/1")!))
        await fetcher.shutdown()
    }

    @Test func oversizedAndSlowAnswers() async throws {
        let service = try FakeService()
        defer { service.server.stop() }
        let (flow, fetcher) = flow(timeout: 1, maximumBytes: 4096)
        service.payRequest = { _ in LoopbackServer.Reply(body: [UInt8](repeating: 0x20, count: 1 << 20)) }
        await #expect(throws: LNURLError.http("127.0.0.1's answer is larger than 4 KiB; refused")) { try await flow.payRequest(for: service.address) }
        // The server would answer after 90 s; the 1 s timeout ends the wait long before (the
        // bound is loose so a loaded CI machine under AddressSanitizer can't fail it).
        service.payRequest = { _ in var r = service.defaultPayRequest(); r.delay = 90; return r }
        let start = Date()
        await #expect(throws: LNURLError.http("127.0.0.1 did not answer in time")) { try await flow.payRequest(for: service.address) }
        #expect(Date().timeIntervalSince(start) < 60)
        // Issue 39: the head at once, then a byte a second (each byte used to reset the read
        // timeout): the whole exchange ends at its deadline.
        service.payRequest = { _ in var r = service.defaultPayRequest(); r.drip = 1; return r }
        let dripStart = Date()
        await #expect(throws: LNURLError.http("127.0.0.1 did not answer in time")) { try await flow.payRequest(for: service.address) }
        #expect(Date().timeIntervalSince(dripStart) < 10, "one deadline for the whole exchange, not one per byte")
        await fetcher.shutdown()
    }

    /// LUD-10: the message is AES-256-CBC under the preimage.
    @Test func aesSuccessAction() throws {
        let preimage = [UInt8](repeating: 7, count: 32), iv = [UInt8](repeating: 3, count: 16)
        let ciphertext = try AESCBC.encrypt(Array("your code: 1234".utf8), key: preimage, iv: iv)
        let json = LNURLPayRequest.SuccessActionJSON(tag: "aes", message: nil, description: "Voucher", url: nil,
                                                     ciphertext: Data(ciphertext).base64EncodedString(), iv: Data(iv).base64EncodedString())
        let action = try SuccessAction(json, domain: "example.com")
        #expect(try action.text(preimage: preimage) == "Voucher your code: 1234")
        #expect(throws: LNURLError.self) { try action.text(preimage: [UInt8](repeating: 8, count: 32)) }
        #expect(throws: LNURLError.self) { try action.text(preimage: nil) }
    }
}
