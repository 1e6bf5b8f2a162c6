import Foundation

/// Amounts as people read and type them, one way for every face (the CLI, the app, a future
/// phone app): whole sats with their digits grouped, fiat to its currency's own decimals. The
/// millisatoshis stay exact in details, JSON and exports.
public enum AmountText {
    /// How millisatoshis become whole sats for a person: what leaves the wallet (an amount
    /// sent, a fee, a total to pay) is rounded up — never understated —, what the wallet holds
    /// or receives is rounded down — never overstated.
    public typealias Rounding = Msat.Rounding

    /// The unit amounts are shown in: sat unless a face chose BTC for what it is doing now (the
    /// app for a request, the CLI for a command), from the setting people choose.
    @TaskLocal public static var unit: AmountUnit = .sat

    /// "1,216,045 sat" (or "0.01216045 BTC" in `unit`).
    public static func sats(_ msat: Msat, rounding: Rounding) -> String { sats(msat.sats(rounding)) }

    /// "1,216,045 sat" (or "0.01216045 BTC" in `unit`).
    public static func sats(_ sats: Sats) -> String { unit == .btc ? btc(sats) : grouped(sats.value) + " sat" }

    /// What a form's amount field holds in `unit`, without it: "2,500", or "0.000025" (no
    /// separators in BTC: a comma there reads as a decimal comma).
    public static func field(_ sats: Sats) -> String {
        unit == .btc ? String(btc(sats).dropLast(" BTC".count)).replacingOccurrences(of: ",", with: "") : grouped(sats.value)
    }

    /// "0.01216045 BTC", "1.5 BTC", "21 BTC": eight decimals at most, trailing zeros dropped.
    public static func btc(_ sats: Sats) -> String {
        let whole = sats.value / Sats.perBitcoin, fraction = sats.value % Sats.perBitcoin
        guard fraction != 0 else { return grouped(whole) + " BTC" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 8 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return grouped(whole) + "." + digits + " BTC"
    }

    /// "2,503.5 sat": exact, the millisatoshis when they are not whole (details); whole sats as
    /// `sats` shows them.
    public static func exactSats(_ msat: Msat) -> String {
        let fraction = msat.value % 1000
        guard fraction != 0 else { return sats(msat.sats(.down)) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return grouped(msat.value / 1000) + "." + digits + " sat"
    }

    /// "1,199.05 USD", "1,199 JPY": to the currency's own decimals, half-up. Any size (Decimal's
    /// digits are grouped as text, never narrowed to an integer type).
    public static func fiat(_ value: Decimal, currency: String) -> String {
        let places = decimals(currency: currency)
        guard !value.isNaN else { return "? " + currency.uppercased() }
        var exact = value, rounded = Decimal()
        NSDecimalRound(&rounded, &exact, places, .plain)
        let negative = rounded < 0
        let plain = (negative ? -rounded : rounded).description
        let parts = plain.split(separator: ".", maxSplits: 1)
        var text = groupedDigits(parts.first.map(String.init) ?? "0")
        if places > 0 {
            let fraction = parts.count > 1 ? String(parts[1].prefix(places)) : ""
            text += "." + fraction + String(repeating: "0", count: places - fraction.count)
        }
        return (negative ? "-" : "") + text + " " + currency.uppercased()
    }

    /// The decimals of a currency (ISO 4217 minor units): 2, except those below.
    public static func decimals(currency: String) -> Int {
        let code = currency.uppercased()
        if noDecimals.contains(code) { return 0 }
        if threeDecimals.contains(code) { return 3 }
        return 2
    }

    private static let noDecimals: Set<String> = ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV",
                                                  "XAF", "XOF", "XPF"]
    private static let threeDecimals: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// "1,216,045": digits in groups of three, separated by commas.
    public static func grouped(_ value: UInt64) -> String { groupedDigits(String(value)) }

    /// "1,216,045 sat".
    public static func grouped(_ value: Sats) -> String { grouped(value.value) }

    private static func groupedDigits(_ text: String) -> String {
        let digits = Array(text)
        var out = ""
        out.reserveCapacity(digits.count + digits.count / 3)
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// An amount of whole sats as a person types it: "2500", "2,500", "2 500", "2_500" (group
    /// separators between groups of three digits), with or without " sat".
    /// Never more than all the bitcoin there will ever be.
    /// - Throws: `AmountInputError`.
    public static func parseSats(_ typed: String) throws(AmountInputError) -> Sats { try parse(typed, unit: .sat) }

    /// An amount as a person types it in `unit` — or in the unit it names: "2,500 sat",
    /// "0.001 BTC" (a point for the decimals, eight at most). Whole sats in sat; digits grouped
    /// by three, never after a lone 0 ("0,001" is refused: 1 or 0.001?).
    /// - Throws: `AmountInputError`.
    public static func parse(_ typed: String, unit: AmountUnit) throws(AmountInputError) -> Sats {
        var text = typed.trimmingCharacters(in: .whitespacesAndNewlines), unit = unit
        for (suffix, named) in [("btc", AmountUnit.btc), ("sats", .sat), ("sat", .sat)] where text.lowercased().hasSuffix(suffix) {
            text = String(text.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            unit = named
            break
        }
        guard !text.isEmpty else { throw .empty }
        if let sign = text.first, sign == "-" || sign == "\u{2212}" {
            throw text.dropFirst().contains(where: \.isNumber) ? .negative : .notANumber
        }
        var fraction = Substring("")
        // "1,500 BTC": a thousand and five hundred, or one and a half? Never guessed.
        if unit == .btc, text.contains(",") { throw .commaInBitcoin }
        if unit == .btc, let point = text.firstIndex(of: ".") {
            fraction = text[text.index(after: point)...]
            text = String(text[..<point])
            guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .notANumber }
            guard fraction.count <= 8 else { throw .tooPrecise }
            if text.isEmpty { text = "0" }
        }
        let whole = try wholeNumber(text)
        guard unit == .btc else { return try checked(whole) }
        let fractionSats = UInt64(fraction + String(repeating: "0", count: 8 - fraction.count)) ?? 0
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: Sats.perBitcoin)
        let (total, carry) = scaled.addingReportingOverflow(fractionSats)
        guard !overflow, !carry else { throw .tooLarge }
        return try checked(total)
    }

    private static func checked(_ value: UInt64) throws(AmountInputError) -> Sats {
        guard let sats = try? Sats(value) else { throw .tooLarge }
        return sats
    }

    /// Digits, grouped by three or not ("2,500", "2 500", "2_500", "2500").
    private static func wholeNumber(_ text: String) throws(AmountInputError) -> UInt64 {
        let separators: Set<Character> = [",", " ", "_", "\u{00A0}", "\u{202F}", "\u{2009}", "'"]
        let groups = text.split(omittingEmptySubsequences: false, whereSeparator: { separators.contains($0) })
        guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw text.contains(".") ? .notWholeSats : .notANumber
        }
        // With separators, every group after the first has three digits ("2,500", not "25,00"),
        // and the first is no lone 0 ("0,001": a decimal comma, or a typo?).
        if groups.count > 1, groups.dropFirst().contains(where: { $0.count != 3 }) || groups[0].count > 3 || groups[0].allSatisfy({ $0 == "0" }) {
            throw .misgrouped
        }
        let digits = groups.joined().drop { $0 == "0" }
        guard digits.count <= 19, let value = UInt64(digits.isEmpty ? "0" : String(digits)) else { throw .tooLarge }
        return value
    }
}

/// The unit amounts are shown (and typed) in: sat, or BTC (100,000,000 sat).
public enum AmountUnit: String, Sendable, CaseIterable {
    case sat
    case btc

    /// "sat", "BTC".
    public var label: String { self == .btc ? "BTC" : "sat" }
}

/// Why typed text is not an amount of sats.
public enum AmountInputError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    /// Letters or signs in it.
    case notANumber
    /// A fraction: sats are whole.
    case notWholeSats
    /// Digits grouped other than by three ("25,00").
    case misgrouped
    /// A minus sign: an amount is never negative.
    case negative
    /// More than all the bitcoin there will ever be.
    case tooLarge
    /// More than eight decimals of a bitcoin (less than a sat).
    case tooPrecise
    /// A comma in an amount of bitcoin: a decimal comma or a thousands separator?
    case commaInBitcoin

    public var description: String {
        switch self {
        case .empty: "type an amount"
        case .notANumber: "an amount is a number, like 2,500 (sat) or 0.001 BTC"
        case .notWholeSats: "sats are whole: no decimal point (1 BTC is 100,000,000 sat)"
        case .misgrouped: "the digits are grouped by three, like 2,500 or 1 000 000"
        case .negative: "that is a negative amount: type how many sat, like 2,500"
        case .tooLarge: AmountError.aboveSupply.description
        case .tooPrecise: "a bitcoin amount has at most 8 decimals (1 sat is 0.00000001 BTC)"
        case .commaInBitcoin: "in BTC, write the decimals after a point and no commas: 1.5 or 0.001"
        }
    }
}
