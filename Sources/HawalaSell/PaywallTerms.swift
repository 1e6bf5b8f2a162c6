import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// What a provider sells behind `hawala ln sell`: a price a request, the paths it covers, how
/// many requests and how long one payment buys, and whether the payment is held until the
/// upstream delivers (`hold`).
public struct PaywallTerms: Sendable {
    /// A path rule: a regular expression a request's whole path must match.
    public struct PathRule: Sendable {
        public let source: String
        /// What a credential is bound to: the first 8 bytes of SHA-256 of the rule's text.
        public let digest: [UInt8]
        let regex: NSRegularExpression

        /// - Throws: `PaywallError.badPathRule`.
        public init(_ source: String) throws(PaywallError) {
            guard !source.isEmpty, source.utf8.count <= 512,
                  let regex = try? NSRegularExpression(pattern: "^(?:" + source + ")$") else { throw .badPathRule(String(source.prefix(80))) }
            self.source = source
            self.regex = regex
            digest = Array(Hash.sha256(Array(source.utf8)).prefix(8))
        }

        func matches(_ path: String) -> Bool {
            regex.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
        }
    }

    public let price: Sats
    /// Empty: every path is sold (one credential covers them all).
    public let paths: [PathRule]
    /// Requests one payment buys; nil: as many as its time allows.
    public let uses: Int?
    /// How long a credential works after it is sold; nil: until used up.
    public let validFor: TimeInterval?
    /// Pay on delivery: the payment is held until the upstream answers 2xx, cancelled otherwise.
    public let hold: Bool

    /// The rule `digest` a credential covering every path carries.
    static let everyPath = [UInt8](repeating: 0, count: 8)

    /// - Throws: `PaywallError`.
    public init(price: Sats, paths: [String] = [], uses: Int? = 1, validFor: TimeInterval? = 3_600, hold: Bool = false) throws(PaywallError) {
        guard price > .zero else { throw .priceZero }
        if let uses, uses < 1 || uses > 1_000_000 { throw .usesOutOfRange }
        if let validFor, validFor < 1 || validFor > 366 * 86_400 { throw .validityOutOfRange }
        if uses == nil, validFor == nil, !hold { throw .endless }
        guard paths.count <= 64 else { throw .tooManyPathRules }
        var rules: [PathRule] = []
        for path in paths { rules.append(try PathRule(path)) }
        self.price = price
        self.paths = rules
        self.uses = hold ? 1 : uses
        self.validFor = validFor
        self.hold = hold
    }

    /// The rule a request's path falls under (`everyPath` when every path is sold); nil when
    /// none covers it: not for sale here.
    func rule(for path: String) -> [UInt8]? {
        guard !paths.isEmpty else { return Self.everyPath }
        return paths.first { $0.matches(path) }?.digest
    }
}

/// Why a paywall's terms or a request were refused.
public enum PaywallError: Error, Equatable, Sendable, CustomStringConvertible {
    case priceZero
    case usesOutOfRange
    case validityOutOfRange
    case tooManyPathRules
    /// Neither a number of uses nor a time: a credential that never ends.
    case endless
    case badPathRule(String)
    case upstreamNotHTTP(String)

    public var description: String {
        switch self {
        case .priceZero: "a price is at least 1 sat"
        case .usesOutOfRange: "the requests a payment buys are from 1 to 1,000,000"
        case .validityOutOfRange: "a credential's time is from 1 second to a year"
        case .tooManyPathRules: "at most 64 path rules"
        case .endless: "a credential must end: give it a number of uses or a time"
        case .badPathRule(let rule): "\u{201C}\(rule)\u{201D} is not a regular expression a path can match"
        case .upstreamNotHTTP(let url): "\(url.prefix(200)) is not an http:// or https:// address"
        }
    }
}
