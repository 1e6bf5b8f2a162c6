import Foundation

/// Amounts as people read and type them, one way for every face (the CLI, the app, a future
/// phone app): whole sats with their digits grouped, fiat to its currency's own decimals. The
/// millisatoshis stay exact in details, JSON and exports.
public enum AmountText {
    /// How millisatoshis become whole sats for a person: what leaves the wallet (an amount
    /// sent, a fee, a total to pay) is rounded up — never understated —, what the wallet holds
    /// or receives is rounded down — never overstated.
    public typealias Rounding = Msat.Rounding

    /// "1,216,045 sat".
    public static func sats(_ msat: Msat, rounding: Rounding) -> String { sats(msat.sats(rounding)) }

    /// "1,216,045 sat".
    public static func sats(_ sats: Sats) -> String { grouped(sats.value) + " sat" }

    /// "2,503.5 sat": exact, the millisatoshis when they are not whole (details).
    public static func exactSats(_ msat: Msat) -> String {
        let fraction = msat.value % 1000
        guard fraction != 0 else { return grouped(msat.value / 1000) + " sat" }
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
    public static func parseSats(_ typed: String) throws(AmountInputError) -> Sats {
        var text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        for unit in ["sats", "sat"] where text.lowercased().hasSuffix(unit) {
            text = String(text.dropLast(unit.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        guard !text.isEmpty else { throw .empty }
        if let sign = text.first, sign == "-" || sign == "\u{2212}" {
            throw text.dropFirst().contains(where: \.isNumber) ? .negative : .notANumber
        }
        let separators: Set<Character> = [",", " ", "_", "\u{00A0}", "\u{202F}", "\u{2009}", "'"]
        let groups = text.split(omittingEmptySubsequences: false, whereSeparator: { separators.contains($0) })
        guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw text.contains(".") ? .notWholeSats : .notANumber
        }
        // With separators, every group after the first has three digits ("2,500", not "25,00").
        if groups.count > 1, groups.dropFirst().contains(where: { $0.count != 3 }) || groups[0].count > 3 { throw .misgrouped }
        let digits = groups.joined().drop { $0 == "0" }
        guard digits.count <= 19, let value = UInt64(digits.isEmpty ? "0" : String(digits)), let sats = try? Sats(value) else { throw .tooLarge }
        return sats
    }
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

    public var description: String {
        switch self {
        case .empty: "type an amount in sat"
        case .notANumber: "an amount is a whole number of sat, like 2,500"
        case .notWholeSats: "sats are whole: no decimal point (1 BTC is 100,000,000 sat)"
        case .misgrouped: "the digits are grouped by three, like 2,500 or 1 000 000"
        case .negative: "that is a negative amount: type how many sat, like 2,500"
        case .tooLarge: AmountError.aboveSupply.description
        }
    }
}
