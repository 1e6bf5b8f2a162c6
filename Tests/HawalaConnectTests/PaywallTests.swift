import Foundation
import HawalaConnect
import HawalaCrypto
import HawalaKeys
import HawalaLightning
@testable import HawalaSell
import HawalaTestSupport
import Synchronization
import Testing

@Suite("The paywall's rule (hawala ln sell)")
struct PaywallTests {
    /// A clock tests move.
    final class Clock: Sendable {
        let now = Mutex(Date())
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    func request(_ path: String) -> Paywall.Forward { Paywall.Forward(method: "GET", path: path, headers: [], body: []) }

    /// Pays a challenge's invoice from the buyer; the `Authorization` value that follows.
    func buy(_ decision: Paywall.Decision, pair: DevnetPair) async throws -> String {
        guard case .challenge(let value, _) = decision else { throw PaywallProblem(words: "not a challenge: \(decision)") }
        let challenge = try L402.challenge(in: [value])
        let paid = try await ConnectionPayerless.pay(challenge.invoice, pair: pair)
        return "L402 \(challenge.token):\(paid)"
    }

    struct PaywallProblem: Error { let words: String }

    func reason(_ decision: Paywall.Decision) -> String? {
        if case .challenge(_, let reason) = decision { return reason }
        return "not challenged: \(decision)"
    }

    /// Bound to its path rule, its time and its uses; a forged or altered token, or another
    /// preimage, buys nothing.
    @Test func aCredentialBuysWhatItSaysAndNothingElse() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let clock = Clock()
        let terms = try PaywallTerms(price: 40, paths: ["/jobs/.*", "/reports/[0-9]+"], uses: 2, validFor: 600)
        let key = SecretBytes(SystemRandom.bytes(32))
        let paywall = Paywall(terms: terms, scope: "http://127.0.0.1:8080", session: pair.payee, key: key, upstream: { _ in nil }, clock: { clock.now.withLock { $0 } })
        if case .notForSale = await paywall.decide(request("/admin"), authorization: nil) {} else { Issue.record("a path no rule covers") }
        let credential = try await buy(await paywall.decide(request("/jobs/1"), authorization: nil), pair: pair)
        if case .forward = await paywall.decide(request("/jobs/2"), authorization: credential) {} else { Issue.record("paid: forwarded") }
        // Stolen for another rule's path: refused, a new challenge.
        #expect(reason(await paywall.decide(request("/reports/7"), authorization: credential)) == "a credential for another path")
        if case .forward = await paywall.decide(request("/jobs/3"), authorization: credential) {} else { Issue.record("its second use") }
        #expect(reason(await paywall.decide(request("/jobs/4"), authorization: credential)) == "used up")
        // Altered (one byte of its caveats), or with another preimage, or forged under another key.
        let parts = credential.dropFirst(5).split(separator: ":")
        var bytes = [UInt8](Data(base64Encoded: String(parts[0]))!)
        bytes[45] ^= 1
        #expect(reason(await paywall.decide(request("/jobs/5"), authorization: "L402 \(Data(bytes).base64EncodedString()):\(parts[1])")) == "not a credential of this paywall")
        #expect(reason(await paywall.decide(request("/jobs/5"), authorization: "L402 \(parts[0]):\(String(repeating: "00", count: 32))")) == "the preimage does not match")
        let other = Paywall(terms: terms, scope: "http://127.0.0.1:8080", session: pair.payee, key: SecretBytes(SystemRandom.bytes(32)), upstream: { _ in nil })
        #expect(reason(await other.decide(request("/jobs/5"), authorization: credential)) == "not a credential of this paywall")
        // The same wallet's key, another paywall (a dearer price, another service): bought here, worth nothing there.
        let dearer = Paywall(terms: try PaywallTerms(price: 5_000, paths: ["/jobs/.*", "/reports/[0-9]+"], uses: 2, validFor: 600), scope: "http://127.0.0.1:8080",
                             session: pair.payee, key: key, upstream: { _ in nil })
        #expect(reason(await dearer.decide(request("/jobs/5"), authorization: credential)) == "not a credential of this paywall")
        let elsewhere = Paywall(terms: terms, scope: "http://127.0.0.1:9999", session: pair.payee, key: key, upstream: { _ in nil })
        #expect(reason(await elsewhere.decide(request("/jobs/5"), authorization: credential)) == "not a credential of this paywall")
        // Its time passes.
        let fresh = try await buy(await paywall.decide(request("/jobs/6"), authorization: nil), pair: pair)
        clock.advance(601)
        #expect(reason(await paywall.decide(request("/jobs/6"), authorization: fresh)) == "expired")
        // Uses are counted in the wallet store: a paywall started again gives none back.
        let again = Paywall(terms: terms, scope: "http://127.0.0.1:8080", session: pair.payee, key: key, upstream: { _ in nil })
        #expect(reason(await again.decide(request("/jobs/7"), authorization: credential)) == "used up")
    }

    @Test func termsAreChecked() throws {
        #expect(throws: PaywallError.priceZero) { try PaywallTerms(price: 0) }
        #expect(throws: PaywallError.badPathRule("(")) { try PaywallTerms(price: 1, paths: ["("]) }
        #expect(throws: PaywallError.usesOutOfRange) { try PaywallTerms(price: 1, uses: 0) }
        #expect(throws: PaywallError.upstreamNotHTTP("ftp://x")) { try PaywallServer(upstream: URL(string: "ftp://x")!, port: 0) }
        #expect((try? PaywallTerms(price: 1, uses: 5, hold: true))?.uses == 1, "on delivery, one request a payment")
        // Paths whose meaning the upstream would change are not matched at all.
        for path in ["/jobs/../admin", "/jobs/%2e%2e/admin", "/jobs/%2F..", "/jobs/./x", "/a\\b", "jobs"] { #expect(!PaywallServer.isPlain(path), "\(path)") }
        for path in ["/", "/jobs/run", "/jobs/run.json", "/a..b/c"] { #expect(PaywallServer.isPlain(path), "\(path)") }
    }
}

/// The buyer's side in these tests: pays an invoice as a person would, returns the preimage.
enum ConnectionPayerless {
    static func pay(_ invoice: String, pair: DevnetPair) async throws -> String {
        let prepared = try await pair.session.prepare(try PaymentInput.parse(invoice), text: invoice, amountSats: nil, comment: nil, maxFeeSats: nil)
        let paid = try await pair.session.lightning.pay(prepared, idempotencyKey: UUID().uuidString)
        guard let preimage = paid.details.preimage else { throw PaywallTests.PaywallProblem(words: "not paid: \(paid.status)") }
        return preimage
    }
}
