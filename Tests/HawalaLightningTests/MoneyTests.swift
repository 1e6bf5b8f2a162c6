import Foundation
import HawalaLightning
import HawalaText
import Testing

/// Amounts are a type (issue 39): never negative, never above the bitcoin supply, and every
/// operation that would leave that range is a typed error — the largest values people or
/// services send go through preview and fee arithmetic without a trap.
@Suite("Amounts as a type with checked arithmetic")
struct MoneyTests {
    static let largest: [UInt64] = [1 << 53, UInt64(Int64.max), .max, Sats.supply.value + 1, 2_100_000_000_000_000]

    @Test func outOfRangeIsATypedError() throws {
        for value in Self.largest {
            #expect(throws: AmountError.aboveSupply, "\(value)") { try Sats(value) }
            #expect(throws: AmountError.aboveSupply, "\(value) msat") { _ = try Msat(value.multipliedReportingOverflow(by: 1000).partialValue | (1 << 63)) }
        }
        #expect(throws: AmountError.negative) { try Sats(Int64(-1)) }
        #expect(throws: AmountError.negative) { try Msat(Int64.min) }
        #expect(try Sats(Sats.supply.value) == .supply && Sats.supply.msat == Msat.supply)
        #expect(Sats.supply.int64 == 2_099_999_997_690_000 && Msat.supply.int64 == 2_099_999_997_690_000_000)
    }

    @Test func arithmeticIsCheckedEveryWay() throws {
        let supply = Sats.supply
        #expect(throws: AmountError.aboveSupply) { try supply + 1 }
        #expect(throws: AmountError.aboveSupply) { try Msat.supply + 1 }
        #expect(throws: AmountError.negative) { try Sats(5) - 6 }
        #expect(throws: AmountError.negative) { try Msat(5) - 6 }
        #expect(throws: AmountError.aboveSupply) { try supply * 2 }
        #expect(throws: AmountError.aboveSupply) { try Sats(1) * UInt64.max }
        #expect(throws: AmountError.aboveSupply) { try Msat.sum([Msat.supply, 1]) }
        #expect(try Sats(2_500) + 4 == 2_504 && (try Sats(2_504) - 4) == 2_500 && (try Sats(3) * 4) == 12)
        #expect(Sats(5).minusOrZero(6) == .zero && Msat(5).minusOrZero(2) == 3)
        #expect(Sats(10).divided(by: 3) == 3 && Sats(10).divided(by: 0) == 10)
        #expect(Msat(1_234_567).sats(.down) == 1_234 && Msat(1_234_567).sats(.up) == 1_235 && Msat(1_234_000).sats(.up) == 1_234)
    }

    /// A proportional fee of the largest amount, at any rate, in 128 bits: exact or a typed error.
    @Test func sharesNeverOverflow() throws {
        #expect(try Msat(1_000_000).share(partsPerMillion: 1_000) == 1_000)
        #expect(try Msat(1).share(partsPerMillion: 1) == 1, "rounded up")
        #expect(try Msat.supply.share(partsPerMillion: 1_000_000) == Msat.supply)
        #expect(try Msat.supply.share(partsPerMillion: 1_000) == Msat(Msat.supply.value / 1_000))
        #expect(throws: AmountError.aboveSupply) { try Msat.supply.share(partsPerMillion: 1_000_001) }
        #expect(throws: AmountError.aboveSupply) { try Msat.supply.share(partsPerMillion: .max) }
    }

    /// Stored amounts are read back checked: a value out of range is refused, never trusted.
    @Test func decodingRefusesOutOfRange() throws {
        #expect(try JSONDecoder().decode(Msat.self, from: Data("2500".utf8)) == 2_500)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Msat.self, from: Data("18446744073709551615".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Sats.self, from: Data("2099999997690001".utf8)) }
        #expect(String(data: try JSONEncoder().encode(Sats(2_500)), encoding: .utf8) == "2500")
        #expect("\(Sats(2_500))" == "2500", "interpolated as the number, as before the type")
    }

    /// Text of any size: fiat far beyond 64 bits, the supply's sats and its exact msat.
    @Test func textOfTheLargestAmounts() throws {
        #expect(AmountText.sats(Sats.supply) == "2,099,999,997,690,000 sat")
        #expect(AmountText.exactSats(try Msat(Msat.supply.value - 1)) == "2,099,999,997,689,999.999 sat")
        let rate = FiatRate(currency: "USD", btcPrice: Decimal(string: "1000000000000000000000")!)
        #expect(rate.text(msat: .supply) == "20,999,999,976,900,000,000,000,000,000.00 USD")
        #expect(AmountText.fiat(Decimal.nan, currency: "usd") == "? USD")
        #expect(SendFigures(amountMsat: .supply, feeMsat: .supply).total == "2,099,999,997,690,000 sat", "a sum beyond the supply is shown at it, never a trap")
    }

    /// Every amount a person can type reaches the preview's arithmetic as a checked amount.
    @Test func typedAmountsThroughPreviewArithmetic() throws {
        for typed in ["9007199254740992", "9223372036854775807", "18446744073709551615", "2099999997690001", "2100000000000000"] {
            #expect(throws: AmountInputError.tooLarge, "\(typed)") { try AmountText.parseSats(typed) }
        }
        let most = try AmountText.parseSats("2,099,999,997,690,000")
        let quote = OnChainQuote.price(address: "bcrt1q", amount: .sats(most), balanceSat: .supply, fees: [(.fast, .supply), (.medium, 1_000), (.slow, 1)])
        #expect(quote.options.map(\.affordable) == [false, false, false], "nothing above the balance is affordable")
        #expect(quote.options[0].totalSat == .supply)
        #expect(quote.json.render().contains("\"totalSat\": 2099999997690000"))
        let everything = OnChainQuote.price(address: "bcrt1q", amount: .all, balanceSat: .supply, fees: [(.fast, .supply), (.slow, 1)])
        let allButOne = try Sats.supply - 1
        #expect(everything.options[0].amountSat == .zero && everything.options[1].amountSat == allButOne)
    }
    /// BTC beside sat: shown with eight decimals at most, typed with a point; a unit typed wins
    /// over the one chosen; "0,001" is refused (a decimal comma, or 1?), and so is less than a sat.
    @Test func bitcoinAsAUnit() throws {
        #expect(AmountText.btc(2_500) == "0.000025 BTC" && AmountText.btc(100_000_000) == "1 BTC" && AmountText.btc(.zero) == "0 BTC")
        #expect(AmountText.btc(.supply) == "20,999,999.9769 BTC" && AmountText.btc(150_000_001) == "1.50000001 BTC")
        #expect(AmountText.sats(2_500) == "2,500 sat")
        AmountText.$unit.withValue(.btc) {
            #expect(AmountText.sats(2_500) == "0.000025 BTC" && AmountText.field(2_500) == "0.000025")
            #expect(AmountText.exactSats(Msat(clamping: 2_500_000)) == "0.000025 BTC" && AmountText.exactSats(Msat(clamping: 2_500_500)) == "2,500.5 sat",
                    "a fraction of a sat stays exact, in sat")
        }
        let cases: [(String, AmountUnit, Result<Sats, AmountInputError>)] = [
            ("0.001", .btc, .success(100_000)), (".5", .btc, .success(50_000_000)), ("1.", .btc, .success(100_000_000)),
            ("1000.5", .btc, .success(100_050_000_000)), ("1,500", .btc, .failure(.commaInBitcoin)), ("1,000.5 btc", .sat, .failure(.commaInBitcoin)), ("0.001 BTC", .sat, .success(100_000)), ("2,500 sat", .btc, .success(2_500)),
            ("0.00000001", .btc, .success(1)), ("0.000000001", .btc, .failure(.tooPrecise)), ("0,001", .btc, .failure(.commaInBitcoin)),
            ("0,001", .sat, .failure(.misgrouped)), ("21000000", .btc, .failure(.tooLarge)), ("184467440737.09551616 btc", .sat, .failure(.tooLarge)),
            ("99999999999999999999", .btc, .failure(.tooLarge)), ("1.5.3", .btc, .failure(.notANumber)), ("-0.1", .btc, .failure(.negative)),
            (" btc", .sat, .failure(.empty)), ("0.5", .sat, .failure(.notWholeSats)), ("20999999.9769", .btc, .success(.supply)),
        ]
        for (typed, unit, expected) in cases {
            let got = Result { () throws(AmountInputError) -> Sats in try AmountText.parse(typed, unit: unit) }
            #expect(got == expected, "\(typed) in \(unit)")
        }
        // What the app shows in a field reads back as the same amount.
        for sats: Sats in [1, 2_500, 100_000_000, 123_456_789, .supply] {
            let shown = AmountText.$unit.withValue(.btc) { AmountText.field(sats) }
            #expect(try AmountText.parse(shown, unit: .btc) == sats && AmountText.parse(AmountText.field(sats), unit: .sat) == sats)
        }
    }
}
