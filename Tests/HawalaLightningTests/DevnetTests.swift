import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaText
import HawalaWallet
import Testing
@testable import HawalaLightning
import HawalaTestSupport


func keys(_ words: String) throws -> HDWallet { HDWallet(mnemonic: try Mnemonic(text: words)) }

func temporaryLedger() -> String {
    temporaryFolder("hawala-devnet").appendingPathComponent("ledger.sqlite").path
}

/// A settable clock, for expiry.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = Date()
    func read() -> Date { lock.withLock { now } }
    func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
}

/// A connected devnet node on `ledger`.
func node(_ words: String, ledger: String, clock: TestClock? = nil) async throws -> DevnetBackend {
    let now: @Sendable () -> Date
    if let clock { now = { clock.read() } } else { now = { Date() } }
    let backend = try DevnetBackend(ledgerPath: ledger, clock: now)
    try await backend.connect(ConnectRequest(secret: .mnemonic(try Mnemonic(text: words), passphrase: SecretBytes([])), storageDirectory: FileManager.default.temporaryDirectory))
    return backend
}

@Suite("Devnet backend")
struct DevnetTests {
    /// The node key is derived at the documented path; the expected ids were computed with PyPI
    /// bip-utils 2.9 (Bip32Slip10Secp256k1.FromSeed(seed).DerivePath("m/1017'/1'/6'/0/0")).
    @Test func nodeIDsMatchAnIndependentDerivation() async throws {
        #expect(try DevnetBackend.nodeID(keys(abandonAbout)) == "02b47d1dfb8d4aba27484cf6008c0d85b512d9acf2d888826f741a5b1ee709f3cd")
        #expect(try DevnetBackend.nodeID(keys(legalWinner)) == "034c71dfb8358bcb4fce6af50cfac4cbf7af46b6fa37a5c0b700a6208c0c806634")
        let alice = try await node(abandonAbout, ledger: temporaryLedger())
        #expect(try await alice.getInfo() == NodeInfo(nodeID: "02b47d1dfb8d4aba27484cf6008c0d85b512d9acf2d888826f741a5b1ee709f3cd", balanceMsat: 0))
    }

    @Test func payBetweenTwoNodesWithFees() async throws {
        let ledger = temporaryLedger()
        let alice = try await node(abandonAbout, ledger: ledger)
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await alice.fund(sats: 100_000)

        let received = try await bob.receivePayment(ReceiveRequest(amountSats: 2_500, description: "coffee", expirySeconds: 600))
        let invoice = try Bolt11Invoice(received.invoice)
        // A real, signed regtest invoice from bob's node key.
        #expect(invoice.network == .regtest && invoice.amountMsat == 2_500_000 && invoice.description == "coffee" && invoice.expiry == 600)
        #expect(hexString(invoice.payee) == (try await bob.getInfo().nodeID) && invoice.paymentSecret != nil && invoice.features == [8, 14])

        let prepared = try await alice.prepareSendPayment(PrepareSendRequest(input: received.invoice))
        #expect(prepared.amountMsat == 2_500_000 && prepared.feeMsat == 3_500 && (try? prepared.totalMsat()) == 2_503_500)
        let paid = try await alice.sendPayment(prepared, idempotencyKey: "k1")
        #expect(paid.status == .completed && paid.type == .send && paid.feeMsat == 3_500)
        // The preimage proves payment: it hashes to the invoice's payment hash.
        let preimage = try #require(paid.details.preimage.flatMap { bytes(fromHex: $0) })
        #expect(Hash.sha256(preimage) == invoice.paymentHash)

        #expect(try await alice.getInfo().balanceMsat.value == 100_000_000 - 2_503_500)
        #expect(try await bob.getInfo().balanceMsat == 2_500_000)
        let bobs = try await bob.listPayments(PaymentFilter())
        #expect(bobs.count == 1 && bobs[0].type == .receive && bobs[0].amountMsat == 2_500_000 && bobs[0].feeMsat == 0 && bobs[0].id == paid.id)
        let alices = try await alice.listPayments(PaymentFilter(type: .send))
        #expect(alices.map(\.id) == [paid.id])
        #expect(try await alice.listPayments(PaymentFilter(type: .receive)).map(\.details.description) == ["devnet test funds"])
    }

    /// The same idempotency key never pays twice, even against a second invoice.
    @Test func idempotencyKeyPaysOnce() async throws {
        let ledger = temporaryLedger()
        let alice = try await node(abandonAbout, ledger: ledger)
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await alice.fund(sats: 10_000)
        let first = try await bob.receivePayment(ReceiveRequest(amountSats: nil, description: "tip"))
        let prepared = try await alice.prepareSendPayment(PrepareSendRequest(input: first.invoice, amountSats: 1_000))
        let a = try await alice.sendPayment(prepared, idempotencyKey: "same")
        let b = try await alice.sendPayment(prepared, idempotencyKey: "same")
        #expect(a == b)
        let other = try await bob.receivePayment(ReceiveRequest(amountSats: 500))
        let c = try await alice.sendPayment(try await alice.prepareSendPayment(PrepareSendRequest(input: other.invoice)), idempotencyKey: "same")
        #expect(c.id == a.id)
        #expect(try await bob.getInfo().balanceMsat == 1_000_000)
        #expect(try await alice.getInfo().balanceMsat.value == 10_000_000 - 1_000_000 - 2_000)
    }

    /// Refusals a wallet meets: each its own error, nothing paid.
    @Test func refusals() async throws {
        let ledger = temporaryLedger()
        let clock = TestClock()
        let alice = try await node(abandonAbout, ledger: ledger, clock: clock)
        let bob = try await node(legalWinner, ledger: ledger, clock: clock)
        _ = try await alice.fund(sats: 1_000)
        let expiring = try await bob.receivePayment(ReceiveRequest(amountSats: 10, expirySeconds: 60))
        let prepared = try await alice.prepareSendPayment(PrepareSendRequest(input: expiring.invoice))
        clock.advance(61)
        await #expect(throws: LightningError.expired(try Bolt11Invoice(expiring.invoice).expiresAt)) {
            try await alice.prepareSendPayment(PrepareSendRequest(input: expiring.invoice))
        }
        // Expired between preview and send: a failed payment, recorded, no money moved.
        let failed = try await alice.sendPayment(prepared, idempotencyKey: "late")
        #expect(failed.status == .failed && failed.failureReason == "invoice expired" && failed.feeMsat == 0)
        #expect(try await alice.getInfo().balanceMsat == 1_000_000)

        let big = try await bob.receivePayment(ReceiveRequest(amountSats: 1_000))
        await #expect(throws: LightningError.insufficientBalance(haveMsat: 1_000_000, needMsat: 1_002_000)) {
            try await alice.prepareSendPayment(PrepareSendRequest(input: big.invoice))
        }
        await #expect(throws: LightningError.amountMismatch(invoiceSats: 1_000, givenSats: 999)) {
            try await alice.prepareSendPayment(PrepareSendRequest(input: big.invoice, amountSats: 999))
        }
        let amountless = try await bob.receivePayment(ReceiveRequest(amountSats: nil))
        await #expect(throws: LightningError.amountRequired) { try await alice.prepareSendPayment(PrepareSendRequest(input: amountless.invoice)) }
        let own = try await alice.receivePayment(ReceiveRequest(amountSats: 1))
        await #expect(throws: LightningError.ownInvoice) { try await alice.prepareSendPayment(PrepareSendRequest(input: own.invoice)) }

        // An invoice signed by a node this ledger doesn't know: unknown destination.
        let stranger = try await node(abandonAbout, ledger: temporaryLedger(), clock: clock)
        let elsewhere = try await stranger.receivePayment(ReceiveRequest(amountSats: 1))
        let carol = try await node(legalWinner, ledger: temporaryLedger(), clock: clock)
        await #expect(throws: LightningError.unknownDestination("02b47d1dfb8d4aba…")) {
            try await carol.prepareSendPayment(PrepareSendRequest(input: elsewhere.invoice))
        }
        // A mainnet invoice (BOLT11's example): not this backend's network.
        let mainnet = "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh"
        await #expect(throws: LightningError.wrongNetwork(invoice: .bitcoin, backend: .regtest, backendName: "devnet")) {
            try await alice.prepareSendPayment(PrepareSendRequest(input: mainnet))
        }
        // Already paid: the second payer is refused before paying.
        _ = try await bob.fund(sats: 100)
        let once = try await alice.receivePayment(ReceiveRequest(amountSats: 5))
        _ = try await bob.sendPayment(try await bob.prepareSendPayment(PrepareSendRequest(input: once.invoice)), idempotencyKey: "b1")
        let carol2 = try await node(legalWinner, ledger: ledger, clock: clock)
        await #expect(throws: LightningError.alreadyPaid) { try await carol2.prepareSendPayment(PrepareSendRequest(input: once.invoice)) }
        // Hostile parameters.
        await #expect(throws: LightningError.self) { try await bob.receivePayment(ReceiveRequest(amountSats: .supply)) }
        await #expect(throws: LightningError.self) { try await bob.receivePayment(ReceiveRequest(amountSats: 1, expirySeconds: 0)) }
        await #expect(throws: LightningError.self) { try await bob.receivePayment(ReceiveRequest(amountSats: 1, description: String(repeating: "x", count: 640))) }
        await #expect(throws: LightningError.self) { try await bob.fund(sats: .supply) }
    }

    /// A node watching without its key (another process) sees the payment through events, and
    /// `waitForPayment` returns it; a payment that never comes times out.
    @Test func eventsAndWaitForPayment() async throws {
        let ledger = temporaryLedger()
        let alice = try await node(abandonAbout, ledger: ledger)
        let bob = try await node(legalWinner, ledger: ledger)
        let watcher = try DevnetBackend(ledgerPath: ledger)
        watcher.attach(nodeID: try await bob.getInfo().nodeID)
        _ = try await alice.fund(sats: 1_000)
        let invoice = try await bob.receivePayment(ReceiveRequest(amountSats: 100))

        let (events, continuation) = AsyncStream<PaymentEvent>.makeStream()
        let id = watcher.addEventListener { continuation.yield($0) }
        // Listening first, then looking: a payment made before the wait starts listening is found.
        async let waited = watcher.waitForPayment(paymentHash: invoice.paymentHash, timeout: .seconds(10))
        let paid = try await alice.sendPayment(try await alice.prepareSendPayment(PrepareSendRequest(input: invoice.invoice)), idempotencyKey: "e")
        let got = try await waited
        #expect(got.id == paid.id && got.type == .receive && got.status == .completed)
        var seen: PaymentEvent?
        for await event in events { seen = event; break }
        guard case .paymentSucceeded(let p)? = seen else { Issue.record("no paymentSucceeded event"); return }
        #expect(p.id == paid.id)
        watcher.removeEventListener(id)
        // Already paid: answered at once. Never paid: a timeout that says it may still settle.
        #expect(try await watcher.waitForPayment(paymentHash: invoice.paymentHash, timeout: .seconds(1)).id == paid.id)
        let never = try await bob.receivePayment(ReceiveRequest(amountSats: 1))
        await #expect(throws: LightningError.timeout(waitingFor: .payment(hash: never.paymentHash), after: .milliseconds(500))) {
            try await watcher.waitForPayment(paymentHash: never.paymentHash, timeout: .milliseconds(500))
        }
        #expect(LightningError.timeout(waitingFor: .payment(hash: never.paymentHash), after: .seconds(30)).description
            == "no payment for \(never.paymentHash.prefix(16))… within 30 s; if one is pending it may still settle")
    }

    /// Two processes' worth of concurrent payers can't overspend one balance.
    @Test func concurrentPaymentsCannotOverspend() async throws {
        let ledger = temporaryLedger()
        let alice = try await node(abandonAbout, ledger: ledger)
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await alice.fund(sats: 10)
        var prepared: [PrepareSendResponse] = []
        for _ in 0..<8 {
            let invoice = try await bob.receivePayment(ReceiveRequest(amountSats: 4))
            prepared.append(try await alice.prepareSendPayment(PrepareSendRequest(input: invoice.invoice)))
        }
        let aliceTwin = try await node(abandonAbout, ledger: ledger)  // a second connection to the same file
        let results = try await withThrowingTaskGroup(of: Payment.self) { group in
            for (i, p) in prepared.enumerated() {
                let payer = i.isMultiple(of: 2) ? alice : aliceTwin
                group.addTask { try await payer.sendPayment(p, idempotencyKey: "c\(i)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let completed = results.filter { $0.status == .completed }
        #expect(completed.count == 1)  // 4 sat + 1.004 sat fee fits once into 10 sat, not twice
        #expect(results.filter { $0.status == .failed }.allSatisfy { $0.failureReason == "insufficient balance" })
        #expect(try await alice.getInfo().balanceMsat.value == 10_000 - 4_000 - 1_004)
    }
}
