import Foundation
@testable import HawalaConnect
import HawalaDevnet
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

@Suite("Budgets in a currency")
struct FiatBudgetTests {
    @Test func whatPeopleType() throws {
        #expect(try ConnectionInput.limit("20USD/monthly") == (.fiat(FiatBudget(currency: "USD", amount: 20)), .monthly))
        #expect(try ConnectionInput.limit("12.50 eur / weekly") == (.fiat(FiatBudget(currency: "EUR", amount: Decimal(string: "12.50")!)), .weekly))
        #expect(try ConnectionInput.limit("1,000 CHF") == (.fiat(FiatBudget(currency: "CHF", amount: 1_000)), .daily))
        #expect(try ConnectionInput.limit("10,000/weekly") == (.sats(10_000), .weekly))
        #expect(try ConnectionInput.limit("none") == (.none, .never))
        for bad in ["20US/monthly", "-5USD", "0USD", "20USD/hourly", "1e3USD", "20 U$D", "USD"] {
            #expect(throws: ConnectionInput.Error.self, "\(bad)") { try ConnectionInput.limit(bad) }
        }
        #expect(FiatBudget(currency: "usd", amount: Decimal(string: "12.5")!).text == "12.50 USD")
    }

    /// "2 USD a day" on devnet's table (1 BTC = 100,000 USD: 1,000 sat = 1 USD): a payment is
    /// counted at the price of its moment — after the price halves, a payment the old price would
    /// have refused goes through; then the budget is spent. No price of the currency: refused.
    @Test func countedAtThePriceOfTheMoment() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let devnet = try #require(pair.session.backend as? DevnetBackend)
        let (connection, _) = try pair.store.addConnection(
            NewConnection(name: "usd-agent", permissions: [.pay], budget: nil, renewal: .daily, relays: ["ws://127.0.0.1:7777"], fiatBudget: FiatBudget(currency: "USD", amount: 2)),
            wallet: pair.wallet, keyring: pair.keyring)
        #expect(connection.fiatBudget == FiatBudget(currency: "USD", amount: 2) && connection.budget == nil)
        let first = try await attempt(try await pair.invoice(1_000), request: "r1", connection, pair).get()
        #expect(first.status == .completed)
        let spent = try pair.store.spending(of: connection)
        #expect(spent.fiatSpent == Decimal(string: "1.002")!, "1,000 sat and its 2 sat fee at 100,000 USD: \(spent.fiatSpent)")
        #expect(spent.summary(now: Date()).hasPrefix("spent 1.00 of 2.00 USD (1,002 sat)"), "\(spent.summary(now: Date()))")
        // At the first price, a second 1,000 sat would be 1.002 USD more: over. The price halves.
        try devnet.setTestRate("USD", btcPrice: 50_000)
        let second = try await attempt(try await pair.invoice(1_000), request: "r2", connection, pair).get()
        #expect(second.status == .completed)
        #expect(try pair.store.spending(of: connection).fiatSpent == Decimal(string: "1.503")!)
        let third = await attempt(try await pair.invoice(1_000), request: "r3", connection, pair)
        if case .refused(.overFiatBudget(let left, "USD", _))? = third.failure { #expect(left == Decimal(string: "0.497")!) } else { Issue.record("\(third)") }
        // get_budget over NWC: the currency's figures beside msat at today's price.
        let answer = await NWCHandler(session: pair.session).answer(#"{"method":"get_budget","params":{}}"#, connection: connection, requestID: "b1")
        let result = try #require((try JSONSerialization.jsonObject(with: Data(answer.json.utf8)) as? [String: Any])?["result"] as? [String: Any])
        #expect(result["currency"] as? String == "USD" && result["total_fiat"] as? String == "2.00" && result["used_fiat"] as? String == "1.50", "\(result)")
        #expect((result["total_budget"] as? Int).map { $0 > 2_000_000 && $0 < 3_100_000 } == true, "\(result)")
        // No USD price now: refused, never guessed.
        try devnet.setTestRate("USD", btcPrice: 0)
        let unpriced = await attempt(try await pair.invoice(10), request: "r4", connection, pair)
        #expect(unpriced.failure == .refused(.noRate(currency: "USD")))
        #expect(ConnectionRefusal.noRate(currency: "USD").description.hasPrefix("no USD rate now"))
    }
}
