/// Amounts of bitcoin as types: `Sats` (whole satoshis: on-chain figures, what people type) and
/// `Msat` (millisatoshis: Lightning's unit). Each is never negative and never more than all the
/// bitcoin there will ever be, so every amount fits in an `Int64` and converts without loss.
/// Arithmetic is checked: a result out of that range is a typed error (`AmountError`), never a
/// trap, whatever a person typed or a service answered.

/// Why an amount can't be.
public enum AmountError: Error, Equatable, Sendable, CustomStringConvertible {
    /// More than all the bitcoin there will ever be (20,999,999.9769 BTC).
    case aboveSupply
    /// Below zero: more taken away than there was.
    case negative

    public var description: String {
        switch self {
        case .aboveSupply: "that is more than all the bitcoin there will ever be (20,999,999.9769 BTC)"
        case .negative: "an amount can't be negative"
        }
    }
}

/// Whole satoshis, from 0 to `Sats.supply`.
public struct Sats: Sendable, Hashable, Comparable, Codable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number of satoshis.
    public let value: UInt64

    /// All the bitcoin there will ever be: the sum of every block subsidy, 2,099,999,997,690,000 sat.
    public static let supply = Sats(trusted: 2_099_999_997_690_000)
    public static let zero = Sats(trusted: 0)
    /// Satoshis in one bitcoin.
    public static let perBitcoin: UInt64 = 100_000_000

    /// - Throws: `AmountError.aboveSupply` above `supply`.
    public init(_ value: UInt64) throws(AmountError) {
        guard value <= Sats.supply.value else { throw .aboveSupply }
        self.value = value
    }

    /// A signed count (a database column, a JSON number).
    /// - Throws: `AmountError.negative` below zero, `.aboveSupply` above `supply`.
    public init(_ value: Int64) throws(AmountError) {
        guard value >= 0 else { throw .negative }
        try self.init(UInt64(value))
    }

    /// `value`, or the nearest amount that can be (0 or `supply`): for figures a backend reported
    /// and that are only shown.
    public init(clamping value: UInt64) { self.value = min(value, Sats.supply.value) }

    /// A constant written in the code; one above the supply stands for the supply (a literal
    /// can't be checked before it runs, and nothing may trap).
    public init(integerLiteral value: UInt64) { self.init(clamping: value) }

    private init(trusted value: UInt64) { self.value = value }

    /// The same amount in millisatoshis (exact: the supply in msat fits in 64 bits).
    public var msat: Msat { Msat(trustedSats: self) }
    /// For JSON and databases: every amount fits.
    public var int64: Int64 { Int64(value) }

    /// The number alone ("2500"), as text and JSON have always written it.
    public var description: String { String(value) }

    public static func < (lhs: Sats, rhs: Sats) -> Bool { lhs.value < rhs.value }

    /// - Throws: `AmountError.aboveSupply` when the sum is more than all the bitcoin there is.
    public static func + (lhs: Sats, rhs: Sats) throws(AmountError) -> Sats { try Sats(lhs.value + rhs.value) }

    /// - Throws: `AmountError.negative` when `rhs` is larger.
    public static func - (lhs: Sats, rhs: Sats) throws(AmountError) -> Sats {
        guard lhs.value >= rhs.value else { throw .negative }
        return Sats(trusted: lhs.value - rhs.value)
    }

    /// What is left of this after `other` is taken: zero when `other` is as large or larger.
    public func minusOrZero(_ other: Sats) -> Sats { Sats(trusted: value > other.value ? value - other.value : 0) }

    /// - Throws: `AmountError.aboveSupply` when the product is more than all the bitcoin there is.
    public static func * (lhs: Sats, count: UInt64) throws(AmountError) -> Sats {
        let (product, overflow) = lhs.value.multipliedReportingOverflow(by: count)
        guard !overflow else { throw .aboveSupply }
        return try Sats(product)
    }

    /// An even share of this among `count` (rounded down; all of it for a count of 0 or 1).
    public func divided(by count: UInt64) -> Sats { Sats(trusted: count > 1 ? value / count : value) }

    /// The sum of `amounts`.
    /// - Throws: `AmountError.aboveSupply`.
    public static func sum(_ amounts: some Sequence<Sats>) throws(AmountError) -> Sats {
        var total = Sats.zero
        for amount in amounts { total = try total + amount }
        return total
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(UInt64.self)
        do { try self.init(raw) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Millisatoshis, from 0 to `Msat.supply` (the bitcoin supply in msat).
public struct Msat: Sendable, Hashable, Comparable, Codable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number of millisatoshis.
    public let value: UInt64

    /// All the bitcoin there will ever be, in millisatoshis.
    public static let supply = Sats.supply.msat
    public static let zero = Msat(trusted: 0)

    /// - Throws: `AmountError.aboveSupply` above `supply`.
    public init(_ value: UInt64) throws(AmountError) {
        guard value <= Msat.supply.value else { throw .aboveSupply }
        self.value = value
    }

    /// A signed count (a database column, a JSON number).
    /// - Throws: `AmountError.negative` below zero, `.aboveSupply` above `supply`.
    public init(_ value: Int64) throws(AmountError) {
        guard value >= 0 else { throw .negative }
        try self.init(UInt64(value))
    }

    /// `value`, or the nearest amount that can be: for figures a backend reported and that are
    /// only shown.
    public init(clamping value: UInt64) { self.value = min(value, Msat.supply.value) }

    /// A constant written in the code; one above the supply stands for the supply (a literal
    /// can't be checked before it runs, and nothing may trap).
    public init(integerLiteral value: UInt64) { self.init(clamping: value) }

    private init(trusted value: UInt64) { self.value = value }
    fileprivate init(trustedSats sats: Sats) { value = sats.value * 1000 }

    /// Whole sats: rounded down for what the wallet holds or receives (never overstated), up for
    /// what leaves it (never understated).
    public func sats(_ rounding: Rounding) -> Sats {
        let whole = value / 1000 + (rounding == .up && value % 1000 != 0 ? 1 : 0)
        return Sats(clamping: whole)
    }

    /// Whether this is a whole number of sats.
    public var isWholeSats: Bool { value % 1000 == 0 }
    /// For JSON and databases: every amount fits.
    public var int64: Int64 { Int64(value) }

    /// The number alone ("2500000").
    public var description: String { String(value) }

    /// How millisatoshis become whole sats.
    public enum Rounding: Sendable, Equatable {
        case down
        case up
    }

    public static func < (lhs: Msat, rhs: Msat) -> Bool { lhs.value < rhs.value }

    /// - Throws: `AmountError.aboveSupply` when the sum is more than all the bitcoin there is.
    public static func + (lhs: Msat, rhs: Msat) throws(AmountError) -> Msat { try Msat(lhs.value + rhs.value) }

    /// - Throws: `AmountError.negative` when `rhs` is larger.
    public static func - (lhs: Msat, rhs: Msat) throws(AmountError) -> Msat {
        guard lhs.value >= rhs.value else { throw .negative }
        return Msat(trusted: lhs.value - rhs.value)
    }

    /// What is left of this after `other` is taken: zero when `other` is as large or larger.
    public func minusOrZero(_ other: Msat) -> Msat { Msat(trusted: value > other.value ? value - other.value : 0) }

    /// - Throws: `AmountError.aboveSupply` when the product is more than all the bitcoin there is.
    public static func * (lhs: Msat, count: UInt64) throws(AmountError) -> Msat {
        let (product, overflow) = lhs.value.multipliedReportingOverflow(by: count)
        guard !overflow else { throw .aboveSupply }
        return try Msat(product)
    }

    /// `partsPerMillion` millionths of this amount, rounded up (a proportional fee). Computed in
    /// 128 bits, so any rate is exact.
    /// - Throws: `AmountError.aboveSupply` when the share is more than all the bitcoin there is.
    public func share(partsPerMillion: UInt64) throws(AmountError) -> Msat {
        let wide = value.multipliedFullWidth(by: partsPerMillion)
        guard wide.high < 1_000_000 else { throw .aboveSupply }
        let (quotient, remainder) = UInt64(1_000_000).dividingFullWidth(wide)
        guard quotient < .max else { throw .aboveSupply }
        return try Msat(quotient + (remainder == 0 ? 0 : 1))
    }

    /// The sum of `amounts`.
    /// - Throws: `AmountError.aboveSupply`.
    public static func sum(_ amounts: some Sequence<Msat>) throws(AmountError) -> Msat {
        var total = Msat.zero
        for amount in amounts { total = try total + amount }
        return total
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(UInt64.self)
        do { try self.init(raw) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension JSONValue {
    /// An amount as a JSON number (every amount fits).
    public static func amount(_ msat: Msat) -> JSONValue { .int(Int(msat.int64)) }
    /// An amount as a JSON number (every amount fits).
    public static func amount(_ sats: Sats) -> JSONValue { .int(Int(sats.int64)) }
}

/// A payment sent, in whole sats as every face and export shows it: the amount and the total
/// rounded up (never understated), the fee their difference, so the three add up and a
/// preview, its receipt, a history line and an export say the same.
public struct WholeSatsSent: Sendable, Equatable {
    public let amount: Sats
    public let fee: Sats
    public let total: Sats

    public init(amount: Msat, fee: Msat) {
        self.amount = amount.sats(.up)
        // A payment above the supply is refused before it is made; one reported anyway is
        // shown at the supply, never a trap.
        total = ((try? amount + fee) ?? .supply).sats(.up)
        self.fee = total.minusOrZero(self.amount)
    }
}
