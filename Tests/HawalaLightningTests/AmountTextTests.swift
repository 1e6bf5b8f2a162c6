import Foundation
import HawalaLightning
import HawalaText
import Testing

/// The one formatter every face uses for amounts and dates (issue 32): whole sats grouped, what
/// leaves rounded up and what is held rounded down, fiat to its currency's decimals, typed
/// amounts in the ways people group digits, dates relative to now in the reader's time zone.
@Suite("Amounts and dates as people read them")
struct AmountTextTests {
    @Test func groupsDigitsByThree() {
        #expect(AmountText.grouped(UInt64(0)) == "0" && AmountText.grouped(UInt64(999)) == "999" && AmountText.grouped(UInt64(1_000)) == "1,000")
        #expect(AmountText.grouped(UInt64(1_216_045)) == "1,216,045" && AmountText.grouped(UInt64.max) == "18,446,744,073,709,551,615")
    }

    /// Never understates what leaves, never overstates what is held.
    @Test func roundsMillisatoshisToWholeSats() {
        #expect(AmountText.sats(68_496_500, rounding: .down) == "68,496 sat")
        #expect(AmountText.sats(68_496_500, rounding: .up) == "68,497 sat")
        #expect(AmountText.sats(68_496_000, rounding: .up) == "68,496 sat")
        #expect(AmountText.sats(1, rounding: .up) == "1 sat" && AmountText.sats(999, rounding: .down) == "0 sat")
        #expect(AmountText.exactSats(2_503_500) == "2,503.5 sat" && AmountText.exactSats(1) == "0.001 sat")
    }

    /// Amount + fee = total, in the preview, the receipt and the history alike.
    @Test func sendFiguresAddUp() {
        for (amount, fee) in [(2_500_000, 3_500), (21_022_000, 0), (1_500, 1_500), (999, 1), (10_000_400, 700)] as [(Msat, Msat)] {
            let f = SendFigures(amountMsat: amount, feeMsat: fee)
            let number = { (text: String) in UInt64(text.replacingOccurrences(of: ",", with: "").dropLast(4))! }
            #expect(number(f.amount) + number(f.fee) == number(f.total), "\(amount) + \(fee)")
            #expect(number(f.total) * 1000 >= amount.value + fee.value, "the total is never understated")
        }
        #expect(SendFigures(amountMsat: 2_500_000, feeMsat: 3_500) == SendFigures(amountMsat: 2_500_000, feeMsat: 3_500))
        #expect(SendFigures(amountMsat: 2_500_000, feeMsat: 3_500).total == "2,504 sat")
    }

    @Test func fiatToItsCurrencysDecimals() {
        #expect(AmountText.fiat(Decimal(string: "1199.049")!, currency: "usd") == "1,199.05 USD")
        #expect(AmountText.fiat(Decimal(string: "20.4")!, currency: "EUR") == "20.40 EUR")
        #expect(AmountText.fiat(Decimal(string: "1199.5")!, currency: "JPY") == "1,200 JPY")
        #expect(AmountText.fiat(Decimal(string: "3.14159")!, currency: "KWD") == "3.142 KWD")
        #expect(AmountText.fiat(Decimal(string: "-0.5")!, currency: "USD") == "-0.50 USD")
        #expect(AmountText.fiat(Decimal(string: "0.004")!, currency: "USD") == "0.00 USD")
    }

    /// The preview's fiat and the receipt's are one figure: the rate rounds to the currency.
    @Test func oneFiatFigureForPreviewAndReceipt() {
        let rate = FiatRate(currency: "USD", btcPrice: Decimal(97_150))
        let value = rate.value(msat: 21_022_000)
        #expect(value == Decimal(string: "20.42")!)
        #expect(AmountText.fiat(value, currency: "USD") == "20.42 USD")
    }

    @Test func readsAmountsAsPeopleTypeThem() throws {
        for (typed, sats) in [("2500", 2_500), ("2,500", 2_500), ("2 500", 2_500), ("2_500 sat", 2_500), (" 1 000 000 ", 1_000_000),
                              ("21\u{202F}000", 21_000), ("0", 0), ("2500sats", 2_500), ("1'000", 1_000), ("2099999997690000", Sats.supply.value)] as [(String, UInt64)] {
            #expect(try AmountText.parseSats(typed).value == sats, "\(typed)")
        }
        for (typed, error) in [("", AmountInputError.empty), ("sat", .empty), ("2.5", .notWholeSats), ("25,00", .misgrouped), ("2,5000", .misgrouped),
                               ("1234,567", .misgrouped), ("-5", .negative), ("−2,500", .negative), ("-", .notANumber), ("abc", .notANumber), ("٢٥٠٠", .notANumber), ("2,,500", .notANumber),
                               ("99999999999999999999", .tooLarge), ("2099999997690001", .tooLarge), ("2100000000000000", .tooLarge),
                               ("18446744073709551615", .tooLarge)] as [(String, AmountInputError)] {
            #expect(throws: error, "\(typed)") { try AmountText.parseSats(typed) }
        }
    }

    @Test func datesRelativeToNowInTheReadersZone() throws {
        let utc = try #require(TimeZone(identifier: "UTC")), tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-25T12:00:00Z"))
        let at = { (text: String) in ISO8601DateFormatter().date(from: text)! }
        #expect(at("2026-11-25T06:07:26Z").relative(now: now, timeZone: utc) == "today 06:07")
        #expect(at("2026-11-24T23:59:00Z").relative(now: now, timeZone: utc) == "yesterday 23:59")
        // 23:59 UTC on the 24th is already the 25th in Tokyo.
        #expect(at("2026-11-24T23:59:00Z").relative(now: now, timeZone: tokyo) == "today 08:59")
        #expect(at("2026-11-03T14:07:00Z").relative(now: now, timeZone: utc) == "3 Nov 14:07")
        #expect(at("2025-11-03T14:07:00Z").relative(now: now, timeZone: utc) == "3 Nov 2025")
        #expect(at("2026-11-25T06:07:26Z").iso8601 == "2026-11-25T06:07:26Z")
    }
}
