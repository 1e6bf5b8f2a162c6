import Foundation
import HawalaConnect
import HawalaCrypto
import HawalaLightning
import HawalaSell
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Hummingbird
import Synchronization
import Testing

@Suite("Fetching a paid URL (L402) against a paywall on loopback, on devnet")
struct PaidFetchTests {
    /// What reached the upstream.
    final class Counter: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// A paywall (`hawala ln sell`'s server) selling `/jobs/…` for 40 sat in front of a small
    /// upstream that counts what reached it; `body` runs with the paywall's address.
    func withPaywall(_ pair: DevnetPair, _ body: (URL, Counter) async throws -> Void) async throws {
        let served = Counter()
        let router = Router()
        router.get("**") { request, _ -> String in
            served.count.withLock { $0 += 1 }
            return "done: \(request.uri.path)"
        }
        let (upstreamPorts, upstreamReady) = AsyncStream<Int>.makeStream()
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                   onServerRunning: { upstreamReady.yield($0.localAddress?.port ?? 0) })
        let upstreamRunning = Task { try await upstream.runService() }
        defer { upstreamRunning.cancel() }
        var upstreamPort = upstreamPorts.makeAsyncIterator()
        guard let upstreamAt = await upstreamPort.next() else { throw CancellationError() }

        let terms = try PaywallTerms(price: 40, paths: ["/jobs/.*"], uses: 3, validFor: 600)
        let key = SecretBytes(SystemRandom.bytes(32))
        let server = try PaywallServer(upstream: URL(string: "http://127.0.0.1:\(upstreamAt)")!, port: 0)
        let (ports, portReady) = AsyncStream<Int>.makeStream()
        let running = Task {
            try await server.run(paywall: { forward in
                Paywall(terms: terms, scope: "http://127.0.0.1:\(upstreamAt)", session: pair.payee, key: key, upstream: forward)
            }, log: { _ in }, onRunning: { portReady.yield($0) })
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        try await body(URL(string: "http://127.0.0.1:\(port)")!, served)
    }

    /// Paid once: the invoice paid, the request sent again with the credential, the answer
    /// whole; the next request uses the kept credential and pays nothing; a price above the
    /// person's maximum pays nothing at all.
    @Test func paysOnceThenUsesTheCredential() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        try await withPaywall(pair) { address, served in
            let fetch = PaidFetch(session: pair.session, keyring: pair.keyring, timeout: .seconds(60))
            let first = try await fetch.fetch(.init(url: address.appendingPathComponent("jobs/1")), payer: .person(maxCost: 100, maxFee: 10))
            #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self) == "done: /jobs/1", "\(first.status) \(String(decoding: first.body, as: UTF8.self)) \(first.headers)")
            #expect(first.payment?.status == .completed && first.payment?.amountMsat == Msat(clamping: 40_000) && !first.reusedToken)
            let second = try await fetch.fetch(.init(url: address.appendingPathComponent("jobs/2")), payer: .person(maxCost: 100, maxFee: 10))
            #expect(second.status == 200 && second.payment == nil && second.reusedToken)
            #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1)
            #expect(served.value == 2)

            // The credential forgotten, and too small a maximum: refused before paying.
            try pair.store.writeTransaction { db in try db.execute(sql: "DELETE FROM l402Token") }
            await #expect(throws: PaidFetch.Failure.self) {
                _ = try await fetch.fetch(.init(url: address.appendingPathComponent("jobs/3")), payer: .person(maxCost: 10, maxFee: 10))
            }
            #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1, "nothing paid over the maximum")
        }
    }

    /// The store refuses to keep the credential just paid for: the request is still sent again
    /// with it (what was paid is delivered), and the log says what was not kept.
    @Test func aCredentialTheStoreCantKeepIsStillUsed() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        try await withPaywall(pair) { address, served in
            try pair.store.writeTransaction { db in
                try db.execute(sql: "CREATE TRIGGER full BEFORE INSERT ON l402Token BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
            }
            let recorder = LogRecorder()
            let fetch = PaidFetch(session: pair.session, keyring: pair.keyring, timeout: .seconds(60))
            let answer = try await UnsavedWrite.$logger.withValue(recorder.logger) {
                try await fetch.fetch(.init(url: address.appendingPathComponent("jobs/1")), payer: .person(maxCost: 100, maxFee: 10))
            }
            #expect(answer.status == 200 && answer.payment?.status == .completed && served.value == 1)
            let lines = recorder.lines.withLock { $0 }
            #expect(lines.count == 1 && lines[0].contains("the credential paid for http://127.0.0.1:") && lines[0].contains("disk is full"), "\(lines)")
        }
    }
}
