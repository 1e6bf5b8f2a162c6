import Foundation
import HawalaText

/// The price of one bitcoin in a fiat currency. Decimal, never floating point.
public struct FiatRate: Sendable, Equatable, Codable {
    /// ISO 4217 code, upper case (USD, EUR…).
    public let currency: String
    public let btcPrice: Decimal

    public init(currency: String, btcPrice: Decimal) {
        self.currency = currency
        self.btcPrice = btcPrice
    }

    /// The fiat value of `msat`, rounded half-up to the currency's decimals (the cent, mostly).
    public func value(msat: Msat) -> Decimal {
        var exact = Decimal(msat.value) * btcPrice / Decimal(100_000_000_000)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, AmountText.decimals(currency: currency), .plain)
        return rounded
    }

    /// The fiat value of `msat` as a person reads it: "1,199.05 USD".
    public func text(msat: Msat) -> String { AmountText.fiat(value(msat: msat), currency: currency) }
}

public enum FiatRatesError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case invalidLine(Int, String)
    case invalidResponse(String)
    case http(String)
    case unknownCurrency(String)

    public var description: String {
        switch self {
        case .unreadable(let why): "cannot read the rates: \(why)"
        case let .invalidLine(n, why): "rates file line \(n): \(why)"
        case .invalidResponse(let why): "the rates source's answer is invalid: \(why)"
        case .http(let why): why
        case .unknownCurrency(let code): "no rate for \(code)"
        }
    }
}

/// Where fiat rates come from (the Spark SDK's `listFiatRates`).
public protocol FiatRatesProvider: Sendable {
    func rates() async throws(FiatRatesError) -> [FiatRate]
}

extension FiatRatesProvider {
    /// The rate of `currency` (case-insensitive).
    public func rate(_ currency: String) async throws(FiatRatesError) -> FiatRate {
        let code = currency.uppercased()
        guard let rate = try await rates().first(where: { $0.currency == code }) else { throw .unknownCurrency(code) }
        return rate
    }
}

/// The payment backend's own rates (the Spark SDK's `listFiatRates`, devnet's test table): fiat
/// without a rates source to configure.
public struct BackendRatesProvider: FiatRatesProvider {
    public let backend: any PaymentBackend
    public init(backend: any PaymentBackend) { self.backend = backend }

    public func rates() async throws(FiatRatesError) -> [FiatRate] {
        do {
            return try await backend.listFiatRates()
        } catch let error as FiatRatesError {
            throw error
        } catch {
            throw .http("the \(backend.name) backend gave no rates: \(error)")
        }
    }
}

/// An offline table: one `CODE PRICE` a line (e.g. `USD 67012.50`); blank lines and `#`
/// comments skipped.
public struct FileRatesProvider: FiatRatesProvider {
    public let path: String
    public init(path: String) { self.path = path }

    public func rates() async throws(FiatRatesError) -> [FiatRate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable("\(path) cannot be read") }
        guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else { throw .unreadable("\(path) is not a text table") }
        return try FileRatesProvider.parse(text)
    }

    static func parse(_ text: String) throws(FiatRatesError) -> [FiatRate] {
        var rates: [FiatRate] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            guard parts.count == 2 else { throw .invalidLine(i + 1, "expected CODE PRICE") }
            let code = String(parts[0]).uppercased()
            guard isCurrencyCode(code) else { throw .invalidLine(i + 1, "\"\(parts[0])\" is not a currency code") }
            guard let price = decimal(String(parts[1])) else { throw .invalidLine(i + 1, "\"\(parts[1])\" is not a positive decimal price") }
            guard !rates.contains(where: { $0.currency == code }) else { throw .invalidLine(i + 1, "\(code) appears twice") }
            rates.append(FiatRate(currency: code, btcPrice: price))
        }
        return rates
    }

    /// A positive plain decimal ("67012.5"): digits and at most one point; no sign, exponent or
    /// spaces — `Decimal(string:)` alone would read "12abc" as 12.
    static func decimal(_ text: String) -> Decimal? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), text.count <= 40, !parts[0].isEmpty,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), parts.count == 1 || !parts[1].isEmpty,
              let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), value > 0 else { return nil }
        return value
    }
}

private func isCurrencyCode(_ code: String) -> Bool {
    code.count == 3 && code.allSatisfy { $0.isASCII && $0.isUppercase }
}

/// Rates from an HTTP source configured by URL, answering `[{"coin": "USD", "value": 67012.5}]`
/// (the shape of Breez's fiat rates). JSON numbers are read as Decimal, exactly.
public struct HTTPRatesProvider: FiatRatesProvider {
    public let url: URL
    public let fetcher: LNURLFetching

    public init(url: URL, fetcher: LNURLFetching) {
        self.url = url
        self.fetcher = fetcher
    }

    struct Entry: Decodable { let coin: String; let value: Decimal }

    public func rates() async throws(FiatRatesError) -> [FiatRate] {
        let data: Data
        do { data = try await fetcher.get(url) } catch { throw .http(error.description) }
        guard let entries = try? JSONDecoder().decode([Entry].self, from: data) else { throw .invalidResponse("expected [{coin, value}]") }
        var rates: [FiatRate] = []
        for e in entries {
            let code = e.coin.uppercased()
            guard isCurrencyCode(code), e.value > 0, !rates.contains(where: { $0.currency == code }) else {
                throw .invalidResponse("bad entry for \"\(e.coin.prefix(8))\"")
            }
            rates.append(FiatRate(currency: code, btcPrice: e.value))
        }
        return rates
    }
}
