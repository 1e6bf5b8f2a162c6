import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaText
import HawalaWallet
import Testing
@testable import HawalaLightning
import HawalaTestSupport

/// A devnet backend whose connection "drops" after the ledger settled a send (the answer is
/// lost), and which counts sends; with `forgetKeys` it reports payments without their
/// idempotency keys, as the Spark SDK does.
final class FlakyBackend: PaymentBackend, @unchecked Sendable {
    let inner: DevnetBackend
    var dropAnswers = false
    /// The task is cancelled while the withdrawal goes out (the app's request went away).
    var cancelWhileSending = false
    var forgetKeys = false
    var sends = 0
    init(_ inner: DevnetBackend) { self.inner = inner }
    var name: String { inner.name }
    var network: LightningNetwork { inner.network }
    func connect(_ request: ConnectRequest) async throws { try await inner.connect(request) }
    func disconnect() async { await inner.disconnect() }
    func sync() async throws { try await inner.sync() }
    func getInfo() async throws -> NodeInfo { try await inner.getInfo() }
    func parse(_ input: String) async throws -> PaymentInput { try await inner.parse(input) }
    func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse { try await inner.prepareSendPayment(request) }
    func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> Payment {
        sends += 1
        let payment = try await inner.sendPayment(prepared, idempotencyKey: idempotencyKey)
        if dropAnswers { throw LightningError.timeout(waitingFor: .answer, after: .zero) }
        return keyless(payment)
    }
    private func keyless(_ p: Payment) -> Payment {
        var p = p
        if forgetKeys { p.idempotencyKey = nil }
        return p
    }
    func prepareLnurlPay(_ request: PrepareLnurlPayRequest) async throws -> PrepareLnurlPayResponse { try await inner.prepareLnurlPay(request) }
    func lnurlPay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String) async throws -> Payment { try await inner.lnurlPay(prepared, idempotencyKey: idempotencyKey) }
    func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse { try await inner.receivePayment(request) }
    func listPayments(_ filter: PaymentFilter) async throws -> [Payment] { try await inner.listPayments(filter).map(keyless) }
    func getPayment(id: String) async throws -> Payment? { try await inner.getPayment(id: id).map(keyless) }
    func listFiatRates() async throws -> [FiatRate] { try await inner.listFiatRates() }
    func recommendedFees() async throws -> RecommendedFees { try await inner.recommendedFees() }
    func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String { inner.addEventListener(listener) }
    func removeEventListener(_ id: String) { inner.removeEventListener(id) }
    func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote { try await inner.prepareOnChainSend(address: address, amount: amount) }
    func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment {
        sends += 1
        let payment = try await inner.sendOnChain(quote, speed: speed, idempotencyKey: idempotencyKey)
        if dropAnswers { throw LightningError.timeout(waitingFor: .answer, after: .zero) }
        if cancelWhileSending { throw CancellationError() }
        return keyless(payment)
    }
}

/// A wallet store with one wallet (cheap KDF) for history tests.

func samplePayment(_ n: Int, type: Payment.Kind = .send, status: Payment.Status = .completed, at seconds: TimeInterval? = nil) -> Payment {
    Payment(id: String(format: "p%05d", n), type: type, status: status, amountMsat: Msat(clamping: UInt64(1_000 * n)), feeMsat: type == .send ? 1_000 : .zero,
            timestamp: Date(timeIntervalSince1970: seconds ?? 1_700_000_000 + Double(n)), backend: "devnet",
            details: Payment.Details(description: "payment \(n)", paymentHash: String(format: "%064x", n)))
}

@Suite("Lightning wallet and history")
struct LightningWalletTests {
    /// A withdrawal whose answer is lost stays pending under its key: the same key never sends
    /// again, and a sync brings the backend's record (keyless, as Spark's) in its place.
    @Test func aWithdrawalWithoutAnAnswerIsNeverSentTwice() async throws {
        let (store, wallet) = try storeWithWallet()
        let backend = FlakyBackend(try await node(abandonAbout, ledger: temporaryLedger()))
        backend.forgetKeys = true
        _ = try await backend.inner.fund(sats: 50_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend)
        let quote = try await lightning.prepareOnChain(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount: .sats(10_000))
        backend.dropAnswers = true
        let lost = try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "w1")
        #expect(lost.status == .pending && lost.details.txid == nil && lost.details.address == quote.address && backend.sends == 1)
        backend.dropAnswers = false
        #expect(try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "w1").id == lost.id && backend.sends == 1)
        try await lightning.sync()
        let sends = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send))
        #expect(sends.count == 1 && sends[0].idempotencyKey == "w1" && sends[0].details.txid != nil && sends[0].isOnChain, "\(sends)")
        #expect(try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "w1").details.txid == sends[0].details.txid && backend.sends == 1)
        // Refused outright (a fee above the cap): nothing recorded, nothing sent.
        let aboveCap = await #expect(throws: LightningError.self) { _ = try await lightning.sendOnChain(quote, speed: .fast, idempotencyKey: "w2", maxFeeSats: 10) }
        guard case .withdrawal(.feeAboveMaximum) = aboveCap else { Issue.record("not the withdrawal's fee refusal: \(String(describing: aboveCap))"); return }
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send)).count == 1 && backend.sends == 1)
    }

    /// A withdrawal whose task was cancelled while it went out may have been sent: it stays
    /// pending under its key, and the key never sends it again.
    @Test func aWithdrawalCancelledWhileSendingIsNeverSentTwice() async throws {
        let (store, wallet) = try storeWithWallet()
        let backend = FlakyBackend(try await node(abandonAbout, ledger: temporaryLedger()))
        _ = try await backend.inner.fund(sats: 50_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend)
        let quote = try await lightning.prepareOnChain(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount: .sats(10_000))
        backend.cancelWhileSending = true
        let cut = try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "c1")
        #expect(cut.status == .pending && backend.sends == 1)
        backend.cancelWhileSending = false
        #expect(try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "c1").id == cut.id && backend.sends == 1)
    }

    /// A quote the balance no longer covers when it is sent (spent meanwhile): the backend
    /// refuses, and no pending withdrawal is left behind under its key — sending again with the
    /// key is a new try, not a phantom "may have gone out".
    @Test func aRefusedWithdrawalLeavesNothingPending() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger()
        let devnet = try await node(abandonAbout, ledger: ledger)
        _ = try await devnet.fund(sats: 10_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: devnet)
        let quote = try await lightning.prepareOnChain(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount: .sats(9_000))
        _ = try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "first")  // spends it meanwhile
        let refused = await #expect(throws: LightningError.self) { _ = try await lightning.sendOnChain(quote, speed: .slow, idempotencyKey: "stale") }
        guard case .withdrawal = refused else { Issue.record("not the withdrawal's refusal: \(String(describing: refused))"); return }
        #expect(try store.payment(walletID: wallet.id, idempotencyKey: "stale") == nil, "a refused withdrawal left a pending record")
    }

    /// A backend that does not report idempotency keys (Spark): its send replaces the pending
    /// record under the key, a sync doesn't add a second one, a lost answer still settles into
    /// the same record, and the key never pays twice.
    @Test func aBackendWithoutKeysStillPaysOnce() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger()
        let backend = FlakyBackend(try await node(abandonAbout, ledger: ledger))
        backend.forgetKeys = true
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await backend.inner.fund(sats: 10_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend)

        let first = try await bob.receivePayment(ReceiveRequest(amountSats: 100, description: "keyless"))
        let prepared = try await backend.prepareSendPayment(PrepareSendRequest(input: first.invoice))
        // A key of no bytes, or of more than 256, is refused before anything is recorded or sent.
        for key in ["", String(repeating: "k", count: 257)] {
            await #expect(throws: LightningError.invalidIdempotencyKey(bytes: key.utf8.count)) { _ = try await lightning.pay(prepared, idempotencyKey: key) }
        }
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter()).isEmpty && backend.sends == 0)
        let paid = try await lightning.pay(prepared, idempotencyKey: "k1")
        #expect(paid.status == .completed && paid.idempotencyKey == "k1")
        try await lightning.sync()
        var sends = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send))
        #expect(sends.count == 1 && sends[0].idempotencyKey == "k1" && sends[0].id == paid.id)
        #expect(try await lightning.pay(prepared, idempotencyKey: "k1").id == paid.id && backend.sends == 1)

        let second = try await bob.receivePayment(ReceiveRequest(amountSats: 200, description: "lost"))
        let prepared2 = try await backend.prepareSendPayment(PrepareSendRequest(input: second.invoice))
        backend.dropAnswers = true
        #expect(try await lightning.pay(prepared2, idempotencyKey: "k2").status == .pending)
        backend.dropAnswers = false
        try await lightning.sync()
        sends = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send))
        #expect(sends.count == 2 && Set(sends.compactMap(\.idempotencyKey)) == ["k1", "k2"] && sends.allSatisfy { $0.status == .completed })
        _ = try await lightning.pay(prepared2, idempotencyKey: "k2")
        #expect(backend.sends == 2)
    }

    /// A failed payment paid nothing: asking again is a new attempt under the key's next
    /// attempt (`KEY#2`), the failure kept in the history; once paid, never again. The payment
    /// page's "Try again" (`Payment.retry`) fills the send form with what failed.
    @Test func aFailedPaymentIsTriedAgain() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger(), clock = TestClock()
        let alice = try await node(abandonAbout, ledger: ledger, clock: clock)
        let bob = try await node(legalWinner, ledger: ledger, clock: clock)
        _ = try await alice.fund(sats: 10)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: alice)
        let wanted = try await bob.receivePayment(ReceiveRequest(amountSats: 8, description: "tea", expirySeconds: 600))
        let other = try await bob.receivePayment(ReceiveRequest(amountSats: 8, description: "cake"))
        let input = try await alice.parse(wanted.invoice)
        let prepared = PreparedPayment.invoice(try await alice.prepareSendPayment(PrepareSendRequest(input: wanted.invoice)))
        _ = try await lightning.pay(.invoice(try await alice.prepareSendPayment(PrepareSendRequest(input: other.invoice))), idempotencyKey: nil)
        let failed = try await lightning.pay(prepared, idempotencyKey: nil)
        #expect(failed.status == .failed && failed.failureReason == "insufficient balance")
        #expect(failed.retry(at: clock.read()) == .payAgain(to: wanted.invoice, amount: nil))
        #expect(try LightningWallet.earlier(for: input, key: nil, store: store, walletID: wallet.id) == nil, "a failure blocks nothing")

        _ = try await alice.fund(sats: 100)
        let paid = try await lightning.pay(prepared, idempotencyKey: nil)
        #expect(paid.status == .completed && paid.idempotencyKey == prepared.defaultIdempotencyKey + "#2")
        #expect(paid.retry(at: clock.read()) == nil)
        #expect(try LightningWallet.earlier(for: input, key: nil, store: store, walletID: wallet.id) == .paid(paid))
        #expect(try await lightning.pay(prepared, idempotencyKey: nil).id == paid.id, "paid: never again")
        let sends = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send, search: "tea"))
        #expect(sends.count == 2 && Set(sends.map(\.status)) == [.completed, .failed], "the failure stays listed")
        // An expired invoice can't be tried again; an on-chain withdrawal keeps its address and amount.
        clock.advance(601)
        #expect(failed.retry(at: clock.read()) == .askForANewInvoice)
        let withdrawal = Payment(id: "w", type: .send, status: .failed, amountMsat: 25_000_000, feeMsat: 0, timestamp: Date(), method: "bitcoin", backend: "devnet",
                             details: Payment.Details(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"))
        #expect(withdrawal.retry(at: clock.read()) == .payAgain(to: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount: 25_000))
        #expect(samplePayment(10, type: .receive, status: .failed).retry(at: clock.read()) == nil)
    }

    /// A payment whose answer is lost stays pending (never failed), is not sent again under its
    /// key, and a sync settles it from the backend.
    @Test func pendingIsNotFinalAndSyncSettlesIt() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger()
        let backend = FlakyBackend(try await node(abandonAbout, ledger: ledger))
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await backend.inner.fund(sats: 1_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend)
        let invoice = try await bob.receivePayment(ReceiveRequest(amountSats: 100, description: "lost answer"))
        let prepared = try await backend.prepareSendPayment(PrepareSendRequest(input: invoice.invoice))

        backend.dropAnswers = true
        // No answer: not known to have failed, so the payment is returned pending.
        let lost = try await lightning.pay(prepared, idempotencyKey: "k")
        #expect(lost.status == .pending)
        let pending = try store.payments(walletID: wallet.id)
        #expect(pending.count == 1 && pending[0].status == .pending && pending[0].idempotencyKey == "k" && pending[0].feeMsat == prepared.feeMsat)

        backend.dropAnswers = false
        try await lightning.sync()
        let settled = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send))
        #expect(settled.count == 1 && settled[0].status == .completed && settled[0].details.preimage != nil)
        // Fund + send, nothing else; the key is settled, so paying again sends nothing.
        #expect(try store.payments(walletID: wallet.id).count == 2)
        let again = try await lightning.pay(prepared, idempotencyKey: "k")
        #expect(again.id == settled[0].id && backend.sends == 1)
        #expect(try await backend.getInfo().balanceMsat.value == 1_000_000 - 100_000 - 1_100)
    }

    /// Where a receive stands, one rule for every face: waiting until the invoice's expiry,
    /// expired from that second on, and expired when the invoice is missing or unreadable (it
    /// can't be paid). (The app's page said expired at the second, its history "not paid yet";
    /// its status said waiting for a missing invoice, its event stream expired.)
    @Test func receiveStates() throws {
        // BOLT11's own example: created 1496314658, expires in 3600 s.
        let text = "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh"
        let invoice = try Bolt11Invoice(text)
        var payment = samplePayment(1, type: .receive, status: .pending)
        payment.details.invoice = text
        #expect(payment.receiveState(at: invoice.expiresAt.addingTimeInterval(-1)) == .waiting(expiresAt: invoice.expiresAt))
        #expect(payment.receiveState(at: invoice.expiresAt) == .expired)
        #expect(payment.historyLine(now: invoice.expiresAt).contains("(invoice expired"))
        payment.details.invoice = nil
        #expect(payment.receiveState(at: .distantPast) == .expired)
        payment.details.invoice = "not an invoice"
        #expect(payment.receiveState(at: .distantPast) == .expired)
        #expect(samplePayment(2, type: .receive, status: .completed).receiveState(at: .distantFuture) == .paid(amountMsat: 2_000))
        #expect(samplePayment(3, type: .receive, status: .failed).receiveState(at: .distantPast) == .failed)
    }

    /// A final status is never rewritten by a late or replayed update.
    @Test func finalStatusesAreKept() throws {
        let (store, wallet) = try storeWithWallet()
        try store.savePayment(samplePayment(1, status: .completed), walletID: wallet.id)
        try store.savePayment(samplePayment(1, status: .pending), walletID: wallet.id)
        try store.savePayment(samplePayment(1, status: .failed), walletID: wallet.id)
        #expect(try store.payment(walletID: wallet.id, id: "p00001")?.status == .completed)
        try store.savePayment(samplePayment(2, status: .pending), walletID: wallet.id)
        try store.savePayment(samplePayment(2, status: .failed), walletID: wallet.id)
        #expect(try store.payment(walletID: wallet.id, id: "p00002")?.status == .failed)
    }

    @Test func filtersAndPaging() throws {
        let (store, wallet) = try storeWithWallet()
        try store.savePayments((1...30).map { samplePayment($0, type: $0.isMultiple(of: 3) ? .receive : .send, status: $0.isMultiple(of: 5) ? .failed : .completed) },
                               walletID: wallet.id)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(limit: 3)).map(\.id) == ["p00030", "p00029", "p00028"])
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(offset: 28)).map(\.id) == ["p00002", "p00001"])
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .receive)).count == 10)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send, status: .failed)).map(\.id) == ["p00025", "p00020", "p00010", "p00005"])
        let from = Date(timeIntervalSince1970: 1_700_000_010), to = Date(timeIntervalSince1970: 1_700_000_013)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(from: from, to: to)).map(\.id) == ["p00012", "p00011", "p00010"])
        // Search: the description anywhere (ASCII case ignored), the start of an id or hash; LIKE's
        // wildcards in the text are literal.
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(search: "MENT 2")).count == 11)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(search: "p0001")).count == 10)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(search: String(format: "%063x", 0) + "f")).map(\.id) == ["p00015"])
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(search: "%")).isEmpty)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(search: "payment _")).isEmpty)
        #expect(try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .receive, search: "payment 1")).map(\.id) == ["p00018", "p00015", "p00012"])
        // Prefix lookup by id or payment hash; an ambiguous prefix is an error, not a guess.
        #expect(throws: WalletError.self) { try store.payment(walletID: wallet.id, id: "p0002") }
        #expect(try store.payment(walletID: wallet.id, id: String(format: "%064x", 7))?.id == "p00007")
        #expect(try store.payment(walletID: wallet.id, id: "nothing") == nil)
        // Deleting the wallet deletes its history.
        let keyring = try store.unlock(password: SecretBytes(utf8: "correct horse"))
        try store.delete("Main", keyring: keyring)
        #expect(try store.payments(walletID: wallet.id).isEmpty)
    }

    /// A payment completed now gets its fiat value from the configured rates.
    @Test func fiatValueAtTheTime() async throws {
        let (store, wallet) = try storeWithWallet()
        let rates = temporaryFolder("rates", suffix: ".json")
        try Data("# test table\nUSD 65000.00\n".utf8).write(to: rates)
        let ledger = temporaryLedger()
        let backend = try await node(abandonAbout, ledger: ledger)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend, fiat: ("USD", FileRatesProvider(path: rates.path)))
        try await lightning.record([try await backend.fund(sats: 150_000)])
        let old = samplePayment(9, type: .receive, at: Date().timeIntervalSince1970 - 86_400)
        try await lightning.record([old])
        let history = try store.payments(walletID: wallet.id)
        #expect(history[0].fiat == Payment.FiatValue(currency: "USD", value: Decimal(string: "97.5")!))
        #expect(history[1].fiat == nil)  // yesterday's rate is unknown: no made-up value
    }

    // MARK: Exports

    static func goldenPayments() -> [Payment] {
        let base = 1_767_225_600.0  // 2026-01-01T00:00:00Z
        return [
            Payment(id: "a1", type: .receive, status: .completed, amountMsat: 150_000_000, feeMsat: 0, timestamp: Date(timeIntervalSince1970: base),
                    backend: "devnet", details: Payment.Details(description: "devnet test funds"),
                    fiat: Payment.FiatValue(currency: "USD", value: Decimal(string: "97.5")!)),
            Payment(id: "b2", type: .send, status: .completed, amountMsat: 2_500_123, feeMsat: 3_501, timestamp: Date(timeIntervalSince1970: base + 61),
                    backend: "devnet",
                    details: Payment.Details(invoice: "lnbcrt25u1ptest", description: "coffee, \"large\"\nwith milk",
                                             paymentHash: String(repeating: "ab", count: 32), preimage: String(repeating: "cd", count: 32),
                                             destination: "02" + String(repeating: "ef", count: 32)),
                    idempotencyKey: "invoice:ab"),
            Payment(id: "c3", type: .send, status: .failed, amountMsat: 1_000, feeMsat: 0, timestamp: Date(timeIntervalSince1970: base + 3_600),
                    backend: "devnet", details: Payment.Details(description: "=HYPERLINK(\"http://evil\")", paymentHash: String(repeating: "01", count: 32)),
                    failureReason: "invoice expired"),
            Payment(id: "d4", type: .send, status: .pending, amountMsat: 7_000, feeMsat: 1_007, timestamp: Date(timeIntervalSince1970: base + 7_200),
                    backend: "devnet", details: Payment.Details(description: "ünïcødé ⚡ \u{1}"), connection: "=cmd|agent"),
        ]
    }

    static func golden(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors/golden"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func export(_ format: PaymentExport.Format) throws -> String {
        let (store, wallet) = try storeWithWallet()
        try store.savePayments(goldenPayments(), walletID: wallet.id)
        var data = Data()
        try PaymentExport.write(format, store: store, walletID: wallet.id) { data.append($0) }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func csvMatchesGoldenFile() throws {
        let csv = try LightningWalletTests.export(.csv)
        #expect(csv == (try LightningWalletTests.golden("history.csv")))
        #expect(csv.hasPrefix("date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id,txid,address,connection\r\n"))
    }

    @Test func jsonMatchesGoldenFileAndParses() throws {
        let json = try LightningWalletTests.export(.json)
        #expect(json == (try LightningWalletTests.golden("history.json")))
        // An independent parser reads back the same values.
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["d4", "c3", "b2", "a1"])
        #expect(rows[2]["description"] as? String == "coffee, \"large\"\nwith milk" && (rows[2]["amountSats"] as? NSNumber)?.stringValue == "2501" && rows[2]["amountMsat"] as? Int == 2_500_123)
        #expect(rows[0]["description"] as? String == "ünïcødé ⚡ \u{1}" && rows[3]["fiatValue"] as? String == "97.5")
        #expect(rows[3]["date"] as? String == "2026-01-01T00:00:00Z" && rows[1]["failureReason"] as? String == "invoice expired")
        let (store, wallet) = try storeWithWallet()
        var empty = Data()
        #expect(try PaymentExport.write(.json, store: store, walletID: wallet.id) { empty.append($0) } == 0)
        #expect(String(decoding: empty, as: UTF8.self) == "[]\n")
    }

    /// The hand-written civil-date conversion agrees with Foundation's formatter.
    @Test func datesMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for seconds in [0.0, -1, 86_399.9, 951_782_400, 4_102_444_800, -2_208_988_800] + (0..<500).map({ _ in Double(Int64.random(in: -5_000_000_000...10_000_000_000, using: &generator)) }) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(PaymentExport.date(date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test func satsAreExact() {
        #expect(PaymentExport.sats(0) == "0" && PaymentExport.sats(1) == "0.001" && PaymentExport.sats(1_010) == "1.01")
        #expect(PaymentExport.sats(2_100_000_000_000_000_000) == "2100000000000000")
    }
}

@Suite("Preparing and paying")
struct PaymentPreparationTests {
    /// The default key is the invoice's payment hash, known before any network; a fee above the
    /// maximum is refused before anything is sent; the prepared payment pays once per key and
    /// the earlier payment answers for the same input.
    @Test func prepareThenPayOnce() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger()
        let backend = FlakyBackend(try await node(abandonAbout, ledger: ledger))
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await backend.inner.fund(sats: 10_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: backend)
        let invoice = try await bob.receivePayment(ReceiveRequest(amountSats: 500, description: "coffee"))
        let input = try PaymentInput.parse(invoice.invoice)
        #expect(input.defaultIdempotencyKey == "invoice:" + invoice.paymentHash && !input.isLNURL)
        #expect(try LightningWallet.earlier(for: input, key: nil, store: store, walletID: wallet.id) == nil)

        let prepared = try await lightning.prepare(input, text: invoice.invoice, amountSats: nil, comment: nil, maxFeeSats: nil, lnurl: nil)
        #expect(prepared.prepared.amountMsat == 500_000 && prepared.defaultIdempotencyKey == input.defaultIdempotencyKey && prepared.payRequest == nil)
        if prepared.prepared.feeMsat > 0 {
            await #expect(throws: LightningError.self) {
                _ = try await lightning.prepare(input, text: invoice.invoice, amountSats: nil, comment: nil, maxFeeSats: 0, lnurl: nil)
            }
        }
        let paid = try await lightning.pay(prepared, idempotencyKey: nil)
        #expect(paid.status == .completed && paid.idempotencyKey == input.defaultIdempotencyKey)
        #expect(try LightningWallet.earlier(for: input, key: nil, store: store, walletID: wallet.id) == .paid(paid))
        #expect(try await lightning.pay(prepared, idempotencyKey: nil).id == paid.id && backend.sends == 1)
        // A Lightning address needs an amount (its invoice comes from the service).
        let address = try PaymentInput.parse("alice@example.com")
        #expect(address.isLNURL && address.defaultIdempotencyKey == nil)
        let fetcher = HTTPFetcher()
        await #expect(throws: LightningError.amountRequired) {
            _ = try await lightning.prepare(address, text: "alice@example.com", amountSats: nil, comment: nil, maxFeeSats: nil,
                                            lnurl: LNURLPayFlow(fetcher: fetcher))
        }
        await fetcher.shutdown()
    }

    @Test func ratesSources() throws {
        #expect(RatesSource(saved: "file:/tmp/rates.txt") == .file(path: "/tmp/rates.txt"))
        #expect(RatesSource(saved: "url:https://rates.example/v1")?.saved == "url:https://rates.example/v1")
        #expect(RatesSource(saved: "ftp-ish") == nil && RatesSource(saved: "url:") == nil)
        let (store, wallet) = try storeWithWallet()
        #expect(try LightningWallet.fiat(store: store, wallet: wallet) == nil)
        #expect(throws: FiatSettingError.noRatesSource) { try LightningWallet.fiat(store: store, wallet: wallet, currency: "EUR") }
        try store.setSetting(LightningWallet.SettingKey.rates, to: "nonsense", walletID: wallet.id)
        #expect(throws: FiatSettingError.invalidRatesSource("nonsense")) { try LightningWallet.fiat(store: store, wallet: wallet, currency: "EUR") }
        try store.setSetting(LightningWallet.SettingKey.rates, to: RatesSource.file(path: "/tmp/r").saved, walletID: wallet.id)
        #expect(try LightningWallet.fiat(store: store, wallet: wallet, currency: "EUR")?.currency == "EUR")
    }
}

extension LightningWalletTests {
    /// A key chosen with "#" is refused: the attempts after a failure are numbered with it, and
    /// a key of one's own must never collide with them.
    @Test func idempotencyKeysHaveNoHash() async throws {
        #expect(throws: LightningError.idempotencyKeyWithHash) { try LightningWallet.checkIdempotencyKey("order-7#2") }
        try LightningWallet.checkIdempotencyKey("order-7")
    }
}
