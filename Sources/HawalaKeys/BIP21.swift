import Foundation

/// BIP21 payment requests (`bitcoin:ADDRESS?amount=…&label=…`), and the decimal bitcoin
/// amounts they carry.
public enum BIP21 {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case invalidAmount(String)
        case notBitcoinFamily(String)

        public var description: String {
            switch self {
            case .invalidAmount(let why): why
            case .notBitcoinFamily(let chain): "\(chain) has no BIP21 payment request; an amount or label can be asked for on Bitcoin and Litecoin only"
            }
        }
    }

    /// The URI scheme of a chain's payment requests: `bitcoin` (also testnet), `litecoin`.
    public static func scheme(for chain: Chain) -> String? {
        guard chain.isBitcoinFamily else { return nil }
        return chain.coinType == 2 ? "litecoin" : "bitcoin"
    }

    /// `scheme:address[?amount=…][&label=…][&message=…]`; the amount in coins with up to eight
    /// decimals, text percent-encoded (everything but RFC 3986's unreserved characters).
    public static func uri(chain: Chain, address: String, amountSats: UInt64? = nil, label: String? = nil, message: String? = nil) throws(Error) -> String {
        guard let scheme = scheme(for: chain) else { throw .notBitcoinFamily(chain.name) }
        var query: [String] = []
        if let amountSats {
            guard amountSats > 0, amountSats <= 2_100_000_000_000_000 else { throw .invalidAmount("the amount must be above 0 and at most 21 million") }
            query.append("amount=" + decimal(amountSats))
        }
        if let label, !label.isEmpty { query.append("label=" + percentEncoded(label)) }
        if let message, !message.isEmpty { query.append("message=" + percentEncoded(message)) }
        return "\(scheme):\(address)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Satoshis as a decimal amount of coins, no trailing zeros: 150000 → "0.0015".
    public static func decimal(_ sats: UInt64) -> String {
        let whole = sats / 100_000_000, fraction = sats % 100_000_000
        guard fraction > 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 8 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// A decimal amount of coins as satoshis, exactly: digits, an optional point and at most
    /// eight decimals; no sign, exponent or spaces; at most 21 million.
    public static func satoshis(_ text: String) throws(Error) -> UInt64 {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !text.isEmpty,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              !parts[0].isEmpty || (parts.count == 2 && !parts[1].isEmpty)
        else { throw .invalidAmount("amount \"\(text)\" is not a decimal number of bitcoin") }
        let whole = parts[0].isEmpty ? "0" : String(parts[0])
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 8 else { throw .invalidAmount("amount \"\(text)\" has more than 8 decimals") }
        guard whole.count <= 8, let coins = UInt64(whole), let frac = UInt64(fraction.padding(toLength: 8, withPad: "0", startingAt: 0)) else {
            throw .invalidAmount("amount \"\(text)\" is too large")
        }
        let total = coins * 100_000_000 + frac
        guard total <= 2_100_000_000_000_000 else { throw .invalidAmount("amount \"\(text)\" exceeds 21 million bitcoin") }
        return total
    }

    static func percentEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
