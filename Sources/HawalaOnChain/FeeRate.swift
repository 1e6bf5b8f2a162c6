import HawalaText

/// A fee rate in the chain's base unit per virtual byte, within what Hawala pays at.
public struct FeeRate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let perVByte: UInt64

    /// Every on-chain fee rate Hawala pays at: sends, bumps, Lightning's claims, refunds and exits.
    public static let allowed: ClosedRange<UInt64> = 1...10_000

    /// The highest rate an Electrum server's estimate may set on its own (a typed rate may be
    /// higher): above the busiest hours Bitcoin has had.
    public static let serverCeiling = try! FeeRate(1_000)

    public init(_ perVByte: UInt64) throws(OnChainError) {
        guard Self.allowed.contains(perVByte) else { throw .feeRateOutOfRange(perVByte) }
        self.perVByte = perVByte
    }

    /// The fee of a transaction of `weight` weight units at this rate.
    public func fee(weight: Int) -> Sats { Sats(clamping: UInt64((weight + 3) / 4) * perVByte) }

    public var description: String { "\(perVByte)/vB" }
    public static func < (lhs: FeeRate, rhs: FeeRate) -> Bool { lhs.perVByte < rhs.perVByte }
}

/// How soon a payment should confirm: what a person chooses instead of a number.
public enum Speed: String, Sendable, CaseIterable, Codable {
    case fast, normal, slow

    /// The time it aims at, the number of blocks the node's estimate is asked for follows from it.
    public var seconds: Int {
        switch self {
        case .fast: 600
        case .normal: 3_600
        case .slow: 86_400
        }
    }

    /// "about 10 minutes", "about an hour", "within a day".
    public var words: String {
        switch self {
        case .fast: "about 10 minutes"
        case .normal: "about an hour"
        case .slow: "within a day"
        }
    }

    /// The confirmation target in blocks for `coin`, at least 1 (Bitcoin Core estimates 1…1008).
    public func blocks(on coin: Coin) -> Int { min(1008, max(1, seconds / coin.blockInterval)) }
}
