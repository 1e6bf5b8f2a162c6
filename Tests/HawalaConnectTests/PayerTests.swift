import Foundation
import HawalaConnect
import HawalaCrypto
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The outcome of a payment through a connection, as a value (what each test compares).
func attempt(_ invoice: String, _ amount: Msat? = nil, request: String, _ connection: AppConnection, _ pair: DevnetPair) async -> Result<Payment, ConnectionPayer.Failure> {
    do {
        return .success(try await ConnectionPayer.pay(invoice: invoice, amountMsat: amount, requestID: request, connection: connection, session: pair.session))
    } catch {
        return .failure(error)
    }
}

@Suite("Paying through a connection, on devnet")
struct PayerTests {
    /// Paid once per request (a request delivered again gets the same payment), "paid by" the
    /// connection, the budget settled to the real cost; over a limit nothing is paid.
    @Test func paysOnceWithinItsLimits() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(budget: 2_500, maxPayment: 1_500)
        let invoice = try await pair.invoice(1_000)
        let paid = try await attempt(invoice, request: "r1", connection, pair).get()
        #expect(paid.status == .completed && paid.connection == "agent-1" && paid.details.preimage != nil)
        let again = try await attempt(invoice, request: "r1", connection, pair).get()
        #expect(again.id == paid.id)
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1)
        let cost = try paid.amountMsat + paid.feeMsat
        #expect(try pair.store.spending(of: connection).spent == cost)
        // Above the maximum a payment; then above what is left: refused, nothing paid.
        let over = await attempt(try await pair.invoice(2_000), request: "r2", connection, pair)
        #expect(over.failure == .refused(.aboveMaximum(maximum: 1_500)))
        let big = await attempt(try await pair.invoice(1_500), request: "r3", connection, pair)
        if case .refused(.overBudget)? = big.failure {} else { Issue.record("\(big)") }
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1)
        // An amountless invoice needs whole sats; what is no invoice says so.
        let amountless = try await pair.payee.receive(ReceiveRequest(amountSats: nil, description: "tip")).response.invoice
        #expect(await attempt(amountless, request: "r4", connection, pair).failure == .invalidAmount("this invoice has no amount: give one"))
        if case .invalidAmount? = await attempt(amountless, Msat(clamping: 500_500), request: "r5", connection, pair).failure {} else { Issue.record("a fraction of a sat") }
        let tip = try await attempt(amountless, Msat(clamping: 500_000), request: "r6", connection, pair).get()
        #expect(tip.status == .completed && tip.amountMsat == Msat(clamping: 500_000))
        #expect(await attempt("lnbc1nonsense", request: "r7", connection, pair).failure == .invalidInvoice("not a BOLT11 invoice"))
        // Revoked: the next request is refused.
        try pair.store.revokeConnection(connection)
        #expect(await attempt(try await pair.invoice(100), request: "r8", connection, pair).failure == .refused(.revoked))
    }

    /// Twenty payments at once against a budget that covers exactly five with their fees:
    /// five paid, never six; the others refused, nothing sent for them.
    @Test func twentyAtOnceNeverOverspend() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        // Devnet charges 1 sat + 0.4 % of a payment: 1,000 sat pays 1,005 in all.
        let (connection, _) = try pair.connection(budget: 5 * 1_005 + 500)
        var invoices: [String] = []
        for i in 0..<20 { invoices.append(try await pair.invoice(1_000, "job \(i)")) }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for (i, invoice) in invoices.enumerated() {
                group.addTask {
                    (try? await attempt(invoice, request: "p\(i)", connection, pair).get())?.status == .completed
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 5)
        let sent = try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send))
        #expect(sent.count == 5 && sent.allSatisfy { $0.connection == "agent-1" && $0.status == .completed })
        #expect(try pair.store.spending(of: connection).spent <= Msat(clamping: 5_525_000))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
