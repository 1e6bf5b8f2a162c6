import Foundation

/// Amounts as people read and type them, one way for every face (the CLI, the app, a future
/// phone app): whole sats with their digits grouped, fiat to its currency's own decimals. The
/// millisatoshis stay exact in details, JSON and exports.
public enum AmountText {
    /// How millisatoshis become whole sats for a person: what leaves the wallet (an amount
    /// sent, a fee, a total to pay) is rounded up — never understated —, what the wallet holds
    /// or receives is rounded down — never overstated.
    public enum Rounding: Sendable, Equatable {
        case down
        case up
    }

    /// "1,216,045 sat".
    public static func sats(_ msat: UInt64, rounding: Rounding) -> String {
        let whole = msat / 1000 + (rounding == .up && msat % 1000 != 0 ? 1 : 0)
        return grouped(whole) + " sat"
    }

    /// "2,503.5 sat": exact, the millisatoshis when they are not whole (details).
    public static func exactSats(_ msat: UInt64) -> String {
        let fraction = msat % 1000
        guard fraction != 0 else { return grouped(msat / 1000) + " sat" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return grouped(msat / 1000) + "." + digits + " sat"
    }

    /// "1,199.05 USD", "1,199 JPY": to the currency's own decimals, half-up.
    public static func fiat(_ value: Decimal, currency: String) -> String {
        let places = decimals(currency: currency)
        var exact = value, rounded = Decimal()
        NSDecimalRound(&rounded, &exact, places, .plain)
        let negative = rounded < 0
        let magnitude = negative ? -rounded : rounded
        var whole = Decimal(), wholeSource = magnitude
        NSDecimalRound(&whole, &wholeSource, 0, .down)
        let wholeText = grouped(UInt64(truncating: whole as NSNumber))
        var text = wholeText
        if places > 0 {
            var scaled = (magnitude - whole) * pow(10, places), cents = Decimal()
            NSDecimalRound(&cents, &scaled, 0, .plain)
            let digits = String(UInt64(truncating: cents as NSNumber))
            text += "." + String(repeating: "0", count: max(0, places - digits.count)) + digits
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
    public static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
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
    /// - Throws: `AmountInputError`.
    public static func parseSats(_ typed: String) throws(AmountInputError) -> UInt64 {
        var text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        for unit in ["sats", "sat"] where text.lowercased().hasSuffix(unit) {
            text = String(text.dropLast(unit.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        guard !text.isEmpty else { throw .empty }
        let separators: Set<Character> = [",", " ", "_", "\u{00A0}", "\u{202F}", "\u{2009}", "'"]
        let groups = text.split(omittingEmptySubsequences: false, whereSeparator: { separators.contains($0) })
        guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw text.contains(".") ? .notWholeSats : .notANumber
        }
        // With separators, every group after the first has three digits ("2,500", not "25,00").
        if groups.count > 1, groups.dropFirst().contains(where: { $0.count != 3 }) || groups[0].count > 3 { throw .misgrouped }
        guard let value = UInt64(groups.joined()) else { throw .tooLarge }
        return value
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
    case tooLarge

    public var description: String {
        switch self {
        case .empty: "type an amount in sat"
        case .notANumber: "an amount is a whole number of sat, like 2,500"
        case .notWholeSats: "sats are whole: no decimal point (1 BTC is 100,000,000 sat)"
        case .misgrouped: "the digits are grouped by three, like 2,500 or 1 000 000"
        case .tooLarge: "that amount is larger than any wallet holds"
        }
    }
}
