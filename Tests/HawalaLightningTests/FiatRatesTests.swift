import Foundation
import HawalaTestSupport
import Testing
@testable import HawalaLightning

@Suite("Fiat rates")
struct FiatRatesTests {
    @Test func valuesAreExactDecimals() {
        let usd = FiatRate(currency: "USD", btcPrice: Decimal(string: "67012.5")!)
        #expect(usd.value(msat: 123_456_789) == Decimal(string: "82.73")!)
        #expect(usd.value(msat: 100_000_000_000) == Decimal(string: "67012.5")!)
        #expect(usd.value(msat: 7_462) == Decimal(string: "0.01")!)  // 0.0050004… rounds half-up to a cent
        #expect(usd.value(msat: 0) == 0)
        let precise = FiatRate(currency: "EUR", btcPrice: Decimal(string: "0.1")!)
        #expect(precise.value(msat: 300_000_000_000) == Decimal(string: "0.3")!)  // 0.1 · 3, which Double gets wrong
    }

    @Test func offlineTable() async throws {
        let url = temporaryFolder("rates", suffix: ".txt")
        try "# rates of 2026-11-22\nUSD 67012.50\n\neur,61000.1\nCHF\t59000\n".write(to: url, atomically: true, encoding: .utf8)
        let provider = FileRatesProvider(path: url.path)
        #expect(try await provider.rates().map(\.currency) == ["USD", "EUR", "CHF"])
        #expect(try await provider.rate("eur").btcPrice == Decimal(string: "61000.1")!)
        await #expect(throws: FiatRatesError.unknownCurrency("JPY")) { try await provider.rate("jpy") }
        let bad: [(String, FiatRatesError)] = [
            ("USD", .invalidLine(1, "expected CODE PRICE")), ("US 1", .invalidLine(1, "\"US\" is not a currency code")),
            ("USD 1e5", .invalidLine(1, "\"1e5\" is not a positive decimal price")), ("USD 12abc", .invalidLine(1, "\"12abc\" is not a positive decimal price")),
            ("USD -5", .invalidLine(1, "\"-5\" is not a positive decimal price")), ("USD 0", .invalidLine(1, "\"0\" is not a positive decimal price")),
            ("USD 1\nUSD 2", .invalidLine(2, "USD appears twice")), ("USD 1.", .invalidLine(1, "\"1.\" is not a positive decimal price")),
        ]
        for (text, error) in bad { #expect(throws: error, "\(text)") { try FileRatesProvider.parse(text) } }
        await #expect(throws: FiatRatesError.self) { try await FileRatesProvider(path: "/nonexistent/rates").rates() }
    }

    @Test func httpSource() async throws {
        let server = try LoopbackServer { path in
            switch path {
            case "/rates": .json("[{\"coin\":\"USD\",\"value\":67012.123456789012345678},{\"coin\":\"eur\",\"value\":61000}]")
            case "/bad": .json("[{\"coin\":\"USD\",\"value\":-1}]")
            case "/junk": .json("<html>")
            default: LoopbackServer.Reply(status: 404, body: [])
            }
        }
        defer { server.stop() }
        let fetcher = HTTPFetcher(timeout: .seconds(5))
        let rates = try await HTTPRatesProvider(url: URL(string: "\(server.base)/rates")!, fetcher: fetcher).rates()
        #expect(rates == [FiatRate(currency: "USD", btcPrice: Decimal(string: "67012.123456789012345678")!), FiatRate(currency: "EUR", btcPrice: 61000)])
        await #expect(throws: FiatRatesError.invalidResponse("bad entry for \"USD\"")) { try await HTTPRatesProvider(url: URL(string: "\(server.base)/bad")!, fetcher: fetcher).rates() }
        await #expect(throws: FiatRatesError.invalidResponse("expected [{coin, value}]")) { try await HTTPRatesProvider(url: URL(string: "\(server.base)/junk")!, fetcher: fetcher).rates() }
        await #expect(throws: FiatRatesError.http("127.0.0.1 answered HTTP 404")) { try await HTTPRatesProvider(url: URL(string: "\(server.base)/none")!, fetcher: fetcher).rates() }
        await fetcher.shutdown()
    }
}
