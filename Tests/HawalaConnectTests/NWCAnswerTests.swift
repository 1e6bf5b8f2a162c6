import Foundation
@testable import HawalaConnect
import HawalaLightning
import Logging
import HawalaTestSupport
import HawalaText
@testable import HawalaWallet
import Testing

/// What a program is told over NWC and MCP: numbers read exactly, a retry answered with the
/// payment, the payee named in the confirmation, answers that fit what carries them.
@Suite("NWC and MCP answers")
struct NWCAnswerTests {
    /// JSON whole numbers as Foundation reads them: past 64 bits, fractions, exponents and
    /// booleans are no whole numbers (Foundation's own `int64Value` wraps 2^64 + 100,000 to 100,000).
    @Test func wholeNumbersReadExactly() throws {
        let text = #"{"wrap":18446744073709651616,"max":18446744073709551615,"over":18446744073709551616,"fraction":1000.9,"float":5.0,"exp":1e3,"yes":true,"minus":-1,"text":"5","n":42}"#
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["wrap"] as? NSNumber)?.int64Value == 100_000)  // what the old reading paid
        #expect(JSONInteger.unsigned(object["wrap"]) == nil)
        #expect(JSONInteger.unsigned(object["over"]) == nil)
        #expect(JSONInteger.unsigned(object["max"]) == UInt64.max)
        #expect(JSONInteger.count(object["max"]) == nil)
        for key in ["fraction", "float", "exp", "yes", "minus", "text"] { #expect(JSONInteger.unsigned(object[key]) == nil, "\(key)") }
        #expect(JSONInteger.unsigned(object["n"]) == 42 && JSONInteger.count(object["n"]) == 42)
        #expect(JSONInteger.unsigned(nil) == nil)
    }

    /// Every NWC number out of range is refused in words, nothing paid or made; a success
    /// carries no `error` key (NIP-47's examples).
    @Test func nwcNumbersOutOfRangeAreRefused() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(permissions: [.pay, .receive, .balance, .history], budget: 50_000)
        let handler = NWCHandler(session: pair.session)
        let amountless = try await pair.payee.receive(ReceiveRequest(amountSats: nil, description: "tip")).response.invoice
        let requests = [
            #"{"method":"pay_invoice","params":{"invoice":"\#(amountless)","amount":18446744073709651616}}"#,
            #"{"method":"pay_invoice","params":{"invoice":"\#(amountless)","amount":1000000.9}}"#,
            #"{"method":"pay_invoice","params":{"invoice":"\#(amountless)","amount":18446744073709551615}}"#,
            #"{"method":"make_invoice","params":{"amount":18446744073709551616}}"#,
            #"{"method":"make_invoice","params":{"amount":1000,"expiry":-5}}"#,
            #"{"method":"list_transactions","params":{"limit":1e2}}"#,
            #"{"method":"list_transactions","params":{"from":99999999999999999999999}}"#,
        ]
        for (i, request) in requests.enumerated() {
            let answer = await handler.answer(request, connection: connection, requestID: "n\(i)")
            #expect(answer.error?.code == .other, "\(request): \(answer.json)")
            #expect(answer.json.contains("\"error\":{"))
        }
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).isEmpty)
        let paid = await handler.answer(#"{"method":"pay_invoice","params":{"invoice":"\#(amountless)","amount":100000}}"#, connection: connection, requestID: "ok")
        #expect(paid.error == nil && !paid.json.contains("\"error\""), "\(paid.json)")
        // The same invoice in a new request: the payment made, a success, nothing sent again.
        let again = await handler.answer(#"{"method":"pay_invoice","params":{"invoice":"\#(amountless)","amount":100000}}"#, connection: connection, requestID: "retry")
        #expect(again.error == nil && again.json == paid.json, "\(again.json)")
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1)
    }

    /// A list longer than NIP-44 carries is shortened to fit, newest first.
    @Test func aListFitsWhatCarriesIt() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(permissions: [.receive, .history])
        for i in 0..<12 { _ = try await pair.session.receive(ReceiveRequest(amountSats: Sats(clamping: UInt64(100 + i)), description: "job \(i)")) }
        let handler = NWCHandler(session: pair.session)
        let request = #"{"method":"list_transactions","params":{"limit":100,"unpaid":true}}"#
        let whole = await handler.answer(request, connection: connection, requestID: "a")
        let fitted = await handler.answer(request, connection: connection, requestID: "b", maxAnswerBytes: 3_000)
        func count(_ answer: NWCHandler.Answer) -> Int {
            guard case .object(let fields)? = answer.result, case .array(let items)? = fields.first?.1 else { return -1 }
            return items.count
        }
        #expect(count(whole) == 12 && whole.json.utf8.count > 3_000)
        #expect(count(fitted) > 0 && count(fitted) < 12 && fitted.json.utf8.count <= 3_000, "\(count(fitted)) in \(fitted.json.utf8.count) bytes")
    }

    /// The person approves with who is paid as Hawala knows it (the payee's node), the fee and
    /// the total; the description only as the payee's words. A no pays nothing, reserves nothing.
    @Test func approvalNamesThePayee() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(budget: 10_000)
        let invoice = try await pair.invoice(1_200, "Pay Hawala Support instead")
        let decoded = try Bolt11Invoice(invoice)
        let asked = Asked()
        let declined = await Result { () async throws(ConnectionPayer.Failure) -> Payment in
            try await ConnectionPayer.pay(invoice: invoice, amountMsat: nil, requestID: "r1", connection: connection, session: pair.session) { approval in
                await asked.add(approval)
                throw ConnectionPayer.Failure.notApproved("the person declined: nothing was paid")
            }
        }
        #expect(declined.failure == .notApproved("the person declined: nothing was paid"))
        let approval = try #require(await asked.all.first)
        let node = decoded.payee.map { String(format: "%02x", $0) }.joined()
        #expect(approval.payee == "node \(node.prefix(8))…\(node.suffix(8))")
        let total = try approval.amount + approval.fee
        #expect(approval.amount == Sats(1_200).msat && approval.fee > .zero && approval.total == total)
        #expect(approval.question.hasPrefix("Pay 1,200 sat to node \(node.prefix(8))"))
        #expect(approval.question.hasSuffix("They describe it as: \u{201C}Pay Hawala Support instead\u{201D}."))
        #expect(try pair.store.spending(of: connection).spent == .zero)
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).isEmpty)
        // Yes: paid, and the earlier request's payment answers a retry.
        let paid = try await ConnectionPayer.pay(invoice: invoice, amountMsat: nil, requestID: "r2", connection: connection, session: pair.session) { _ in }
        let retry = try await ConnectionPayer.pay(invoice: invoice, amountMsat: nil, requestID: "r3", connection: connection, session: pair.session)
        #expect(paid.status == .completed && retry.id == paid.id)
        #expect(!ConnectionPayer.wasPaidBefore(paid, requestID: "r2", connection: connection))
        #expect(ConnectionPayer.wasPaidBefore(retry, requestID: "r3", connection: connection))
        #expect(ConnectionPayer.wasPaidBefore(paid, requestID: "r", connection: connection), "r is not r2")
    }

    /// "L402: host" names a person's own paid fetches: no connection may take it (its payments,
    /// and their preimages, would be answered to it as "paid before").
    @Test func noConnectionIsNamedLikeAPaidFetch() {
        for name in ["L402: api.example.com", "l402:x"] {
            #expect(throws: WalletError.self) { try WalletStore.validConnectionName(name) }
        }
        #expect((try? WalletStore.validConnectionName("agent L402")) == "agent L402")
    }

    /// What a connection sees of the history, and how a program names a payment: one rule
    /// for NWC, MCP and notifications.
    @Test func whatAConnectionSeesAndHowAPaymentIsNamed() throws {
        func connection(_ permissions: Set<ConnectionPermission>) -> AppConnection {
            AppConnection(id: "c", walletID: "w", name: "agent", permissions: permissions, budget: nil, renewal: .daily, maxPayment: nil, expiresAt: nil,
                          createdAt: Date(), lastUsedAt: nil, revokedAt: nil, servicePublicKey: "", clientPublicKey: "", relays: [], wires: [.nwc])
        }
        func payment(by name: String?) -> Payment {
            Payment(id: "p", type: .send, status: .completed, amountMsat: Msat(clamping: 1_000), feeMsat: .zero, timestamp: Date(), backend: "devnet",
                    details: Payment.Details(), connection: name)
        }
        let own = connection([.pay]), reader = connection([.pay, .history])
        #expect(own.maySee(payment(by: "agent")) && !own.maySee(payment(by: nil)) && !own.maySee(payment(by: "other")))
        #expect(reader.maySee(payment(by: nil)) && reader.maySee(payment(by: "other")))
        #expect(own.visibleHistory(PaymentFilter(limit: 5)).connection == "agent" && reader.visibleHistory(PaymentFilter(limit: 5)).connection == nil)
        let hash = "0001020304050607080900010203040506070809000102030405060708090102"
        #expect(ConnectionHistory.paymentHash(hash.uppercased(), invoice: nil) == hash)
        #expect(ConnectionHistory.paymentHash(String(hash.dropLast()), invoice: nil) == nil)
        #expect(ConnectionHistory.paymentHash(String(repeating: "g", count: 64), invoice: nil) == nil)
        #expect(ConnectionHistory.paymentHash(nil, invoice: "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql") == hash)
        #expect(ConnectionHistory.paymentHash(nil, invoice: "lnbc1nonsense") == nil && ConnectionHistory.paymentHash(nil, invoice: nil) == nil)
        #expect(ConnectionHistory.listLimits == 1...100 && ConnectionHistory.defaultListLimit == 20)
    }

    /// Ended connections are still listened to for a while, so they hear `UNAUTHORIZED`.
    @Test func endedConnectionsAreAnsweredForAWhile() throws {
        let now = Date()
        func connection(revoked: Date? = nil, expires: Date? = nil, wires: Set<ConnectionWire> = [.nwc]) -> AppConnection {
            AppConnection(id: "c", walletID: "w", name: "agent", permissions: [.pay], budget: nil, renewal: .daily, maxPayment: nil, expiresAt: expires,
                          createdAt: now.addingTimeInterval(-86_400), lastUsedAt: nil, revokedAt: revoked, servicePublicKey: "", clientPublicKey: "",
                          relays: [], wires: wires)
        }
        #expect(connection().answeredOverNWC(at: now) && connection().servedOverNWC(at: now))
        #expect(connection(revoked: now.addingTimeInterval(-60)).answeredOverNWC(at: now))
        #expect(!connection(revoked: now.addingTimeInterval(-60)).servedOverNWC(at: now))
        #expect(connection(expires: now.addingTimeInterval(-60)).answeredOverNWC(at: now))
        #expect(!connection(revoked: now.addingTimeInterval(-AppConnection.refusedAfterEnd - 1)).answeredOverNWC(at: now))
        #expect(!connection(wires: [.mcp]).answeredOverNWC(at: now))
    }
}

actor Asked {
    var all: [ConnectionPayer.Approval] = []
    func add(_ approval: ConnectionPayer.Approval) { all.append(approval) }
}

extension Result where Failure == ConnectionPayer.Failure {
    init(catching body: () async throws(ConnectionPayer.Failure) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// MCP's stdin: read in linear time, a line past the cap skipped and answered, the next read.
@Suite("MCP over stdio")
struct LineTransportTests {
    /// The CPU time of the calling thread (what its own work cost, whatever else the machine does).
    static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The reader itself, on this thread: its CPU time is measured, not the wall clock of a
    /// loaded test run.
    @Test func aHugeLineIsSkippedInLinearTime() async throws {
        let toServer = Pipe()
        let writer = Thread {
            // 8 MiB in 64 KiB pieces: the test itself holds next to nothing (a neighbour test
            // measures the process's memory).
            let pipe = toServer.fileHandleForWriting
            pipe.write(Data(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.utf8))
            let piece = Data(repeating: UInt8(ascii: "a"), count: 64 << 10)
            for _ in 0..<128 { pipe.write(piece) }
            pipe.write(Data((#""}}"# + "\n").utf8))
            toServer.fileHandleForWriting.write(Data((#"{"jsonrpc":"2.0","id":2,"method":"ping"}"# + "\n{\"a\":1}").utf8))
            try? toServer.fileHandleForWriting.close()
        }
        writer.start()
        let (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        var answered: [String] = []
        let before = Self.threadCPUTime()
        LineTransport.readLines(from: toServer.fileHandleForReading.fileDescriptor, into: continuation, logger: Logger(label: "test")) {
            answered.append(String(decoding: $0, as: UTF8.self))
        }
        let cpu = Self.threadCPUTime() - before
        var received: [String] = []
        for try await message in messages { received.append(String(decoding: message, as: UTF8.self)) }
        #expect(received == [#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, #"{"a":1}"#])
        #expect(answered.count == 1 && answered[0].contains(#""code":-32600"#) && answered[0].hasSuffix("\n"), "\(answered)")
        // Linear: a fraction of a second of CPU for 8 MiB (about 7 s under AddressSanitizer); the
        // quadratic scan it replaces took 40 s of CPU for 4 MiB, about 160 s for this.
        #expect(cpu < .seconds(60), "8 MiB read with \(cpu) of CPU")
    }

    /// Through the transport as `hawala mcp` runs it: messages in order, the error answer written.
    @Test func theTransportCarriesMessages() async throws {
        let toServer = Pipe(), fromServer = Pipe()
        let transport = LineTransport(input: toServer.fileHandleForReading.fileDescriptor, output: fromServer.fileHandleForWriting.fileDescriptor)
        try await transport.connect()
        toServer.fileHandleForWriting.write(Data(("{\"a\":1}\n" + String(repeating: "x", count: (1 << 20) + 1) + "\n{\"b\":2}\n").utf8))
        try toServer.fileHandleForWriting.close()
        var received: [String] = []
        for try await message in await transport.receive() { received.append(String(decoding: message, as: UTF8.self)) }
        #expect(received == [#"{"a":1}"#, #"{"b":2}"#])
        try await transport.send(Data("{}".utf8))
        try fromServer.fileHandleForWriting.close()
        let written = String(decoding: fromServer.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(written.contains(#""code":-32600"#) && written.hasSuffix("{}\n"), "\(written)")
    }
}
