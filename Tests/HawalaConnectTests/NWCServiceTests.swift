import Foundation
@testable import HawalaConnect
import HawalaCrypto
import HawalaDevnet
import HawalaLightning
import HawalaNostr
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The NIP-47 service without a relay: a signed, encrypted request in, its answer out — and the
/// parts that decide what is done with a request (who it is for, its age, its rate, whether it
/// was answered before).
@Suite("NWC service")
struct NWCServiceTests {
    /// A pair on devnet, one connection served: its program's keys and the service.
    struct Served {
        let pair: DevnetPair
        let connection: AppConnection
        let client: NostrKeys
        let service: NWCService
        /// The service's clock, stopped: a loaded test run can hold a task for minutes, and a
        /// request's age is counted on this clock, not the wall's.
        let now: Date

        static func make(options: NWCService.Options = NWCService.Options(), budget: Sats? = 10_000) async throws -> Served {
            let now = Date()
            var options = options
            options.now = { now }
            let pair = try await DevnetPair.make()
            let (connection, secret) = try pair.connection(permissions: [.pay, .receive, .balance, .history], budget: budget)
            let service = NWCService(store: pair.store, keyring: pair.keyring, backends: .devnet, options: options)
            await service.reload()
            return Served(pair: pair, connection: connection, client: try NostrKeys(secret: secret), service: service, now: now)
        }

        /// A request as the program sends it: NIP-44 v2, to the connection's service key.
        func request(_ json: String, by keys: NostrKeys? = nil, at date: Date? = nil) throws -> NostrEvent {
            let keys = keys ?? client
            let service = try #require(NostrHex.decode(connection.servicePublicKey, count: 32))
            let content = try NIP44.encrypt(json, conversationKey: try NIP44.conversationKey(privateKey: keys.secret, publicKey: service))
            return try NostrEvent.signed(kind: NostrEvent.Kind.walletRequest, tags: [["p", connection.servicePublicKey], ["encryption", "nip44_v2"]],
                                         content: content, by: keys, at: date ?? now)
        }

        func answer(_ event: NostrEvent) async throws -> NWCHandler.Answer {
            let served = try #require(service.state.withLock { $0.served[connection.id] })
            return await service.answer(event, scheme: "nip44_v2", served: served, admission: .allowed, now: now).0
        }

        var paymentsSent: Int {
            get throws { try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count }
        }

        func close() async {
            await service.shutdown()
            await pair.close()
        }
    }

    @Test func aRequestInItsAnswerOut() async throws {
        let served = try await Served.make()
        defer { Task { await served.close() } }
        #expect(served.service.servedCount == 1)
        let answer = try await served.answer(try served.request(#"{"method":"get_balance","params":{}}"#))
        #expect(answer.error == nil && answer.method == "get_balance", "\(answer.json)")
        #expect(answer.json.contains("\"balance\":100000000"), "\(answer.json)")
    }

    /// A request made long ago (delivered late, or replayed) is refused in words; so is one from a
    /// clock far ahead. Nothing is acted on.
    @Test func aStaleRequestIsNotActedOn() async throws {
        let served = try await Served.make()
        defer { Task { await served.close() } }
        let invoice = try await served.pair.invoice(500)
        for offset in [-600.0, 600.0] {
            let answer = try await served.answer(try served.request(#"{"method":"pay_invoice","params":{"invoice":"\#(invoice)"}}"#, at: served.now.addingTimeInterval(offset)))
            #expect(answer.error?.code == .other && answer.error?.message.contains("older than 120 s") == true, "\(answer.json)")
        }
        #expect(try served.paymentsSent == 0)
    }

    /// A revocation counts at once, before the service reads its connections again.
    @Test func aRevokedConnectionIsUnauthorized() async throws {
        let served = try await Served.make()
        defer { Task { await served.close() } }
        try served.pair.store.revokeConnection(served.connection)
        let answer = try await served.answer(try served.request(#"{"method":"get_balance","params":{}}"#))
        #expect(answer.error?.code == .unauthorized, "\(answer.json)")
    }

    /// The same payment request delivered twice at once, and again later: paid once, its answer
    /// kept in memory and in the store (a restarted service answers it the same). Delivered again
    /// after the connection was revoked, it gets its first answer, not a new refusal: it was not
    /// handled again.
    @Test func aPaymentDeliveredAgainIsPaidOnce() async throws {
        let served = try await Served.make()
        defer { Task { await served.close() } }
        let invoice = try await served.pair.invoice(700)
        let event = try served.request(#"{"method":"pay_invoice","params":{"invoice":"\#(invoice)"}}"#)
        async let first: Void = served.service.received(event, from: "ws://127.0.0.1:7777")
        async let second: Void = served.service.received(event, from: "ws://127.0.0.1:7777")
        _ = await (first, second)
        await served.service.received(event, from: "ws://127.0.0.1:7777")
        #expect(try served.paymentsSent == 1)
        let kept = try #require(try served.pair.store.connectionAnswer(served.connection, requestID: event.id))
        #expect(kept.contains("\"preimage\""), "\(kept)")
        #expect(served.service.answers.answer(to: event.id, now: served.now) == kept)
        try served.pair.store.revokeConnection(served.connection)
        await served.service.received(event, from: "ws://127.0.0.1:7777")
        #expect(served.service.answers.answer(to: event.id, now: served.now) == kept)
    }

    /// A request not signed by the connection's program, or not for a service key served here,
    /// is neither answered nor acted on.
    @Test func aStrangersRequestIsIgnored() async throws {
        let served = try await Served.make()
        defer { Task { await served.close() } }
        let invoice = try await served.pair.invoice(300)
        let stranger = try NostrKeys(secret: SecretBytes(Array(repeating: 7, count: 32)))
        let event = try served.request(#"{"method":"pay_invoice","params":{"invoice":"\#(invoice)"}}"#, by: stranger)
        await served.service.received(event, from: "ws://127.0.0.1:7777")
        var forged = try served.request(#"{"method":"pay_invoice","params":{"invoice":"\#(invoice)"}}"#)
        forged = NostrEvent(id: forged.id, pubkey: forged.pubkey, created_at: forged.created_at, kind: forged.kind, tags: forged.tags,
                            content: forged.content, sig: String(repeating: "0", count: 128))
        await served.service.received(forged, from: "ws://127.0.0.1:7777")
        #expect(try served.paymentsSent == 0)
        #expect(served.service.answers.answer(to: event.id, now: served.now) == nil && served.service.answers.answer(to: forged.id, now: served.now) == nil)
    }

    /// Past its rate, a connection's requests are refused `RATE_LIMITED`, then dropped; either
    /// way the refusal is kept, so the same request delivered later is never acted on. (Which
    /// of the two it was — answered or not — is the rate limiter's, tested below.)
    @Test func aFloodSpendsItsOwnAllowance() async throws {
        var options = NWCService.Options()
        options.requestsPerMinute = 2
        options.refusalsPerMinute = 1
        let served = try await Served.make(options: options)
        defer { Task { await served.close() } }
        var events: [NostrEvent] = []
        for i in 0..<4 { events.append(try served.request(#"{"method":"get_balance","params":{"n":\#(i)}}"#)) }
        for event in events { await served.service.received(event, from: "ws://127.0.0.1:7777") }
        #expect(served.service.answers.answer(to: events[0].id, now: served.now) == nil, "a read is not kept")
        #expect(served.service.answers.answer(to: events[2].id, now: served.now)?.contains("RATE_LIMITED") == true)
        #expect(served.service.answers.answer(to: events[3].id, now: served.now)?.contains("RATE_LIMITED") == true, "dropped, and refused for good")
    }

    @Test func theRateLimiter() {
        let limiter = NWCRateLimiter(requestsPerMinute: 3, refusalsPerMinute: 2)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let seen = (0..<7).map { limiter.admit(connectionID: "a", now: start.addingTimeInterval(Double($0))) }
        #expect(seen == [.allowed, .allowed, .allowed, .refused, .refused, .dropped, .dropped])
        #expect(limiter.admit(connectionID: "b", now: start.addingTimeInterval(7)) == .allowed, "each connection its own allowance")
        #expect(limiter.admit(connectionID: "a", now: start.addingTimeInterval(60)) == .allowed, "a minute later, the first one's place is free")
        #expect(limiter.admit(connectionID: "a", now: start.addingTimeInterval(61)) == .allowed)
        #expect(limiter.admit(connectionID: "a", now: start.addingTimeInterval(61.5)) == .dropped, "the minute's refusals still count")
    }

    @Test func theAnswerMemory() {
        let memory = NWCAnswerMemory(freshness: 120)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(memory.begin("r1") && !memory.begin("r1"), "one at a time")
        memory.end("r1")
        #expect(memory.begin("r1"))
        #expect(memory.remember("r1", answer: "first", now: start), "the store's old answers are pruned on the first")
        #expect(!memory.remember("r2", answer: "second", now: start.addingTimeInterval(60)))
        #expect(memory.answer(to: "r1", now: start.addingTimeInterval(240)) == "first")
        #expect(memory.answer(to: "r1", now: start.addingTimeInterval(241)) == nil, "out of the window")
        #expect(memory.remember("r3", answer: "third", now: start.addingTimeInterval(601)), "ten minutes on: pruned again")
        // A flood within the window: never more than the capacity, the newest kept.
        for i in 0..<(NWCAnswerMemory.capacity + 10) { _ = memory.remember("f\(i)", answer: "\(i)", now: start.addingTimeInterval(700 + Double(i) / 1000)) }
        #expect(memory.count <= NWCAnswerMemory.capacity)
        #expect(memory.answer(to: "f\(NWCAnswerMemory.capacity + 9)", now: start.addingTimeInterval(710)) == "\(NWCAnswerMemory.capacity + 9)")
    }
}
