/// One step of a derivation path: an index below 2³¹ and whether it is hardened.
public struct ChildNumber: Sendable, Hashable, CustomStringConvertible {
    /// The first hardened index, 2³¹.
    public static let hardenedOffset: UInt32 = 0x8000_0000

    /// The index without the hardened bit (0…2³¹−1).
    public let index: UInt32
    /// Whether the step is hardened.
    public let isHardened: Bool

    /// - Throws: `DerivationPathError.indexOutOfRange` when `index` ≥ 2³¹.
    public init(_ index: UInt32, hardened: Bool) throws {
        guard index < ChildNumber.hardenedOffset else { throw DerivationPathError.indexOutOfRange(String(index)) }
        self.index = index
        self.isHardened = hardened
    }

    /// From the 32-bit value used on the wire (hardened bit included).
    public init(rawValue: UInt32) {
        index = rawValue & 0x7FFF_FFFF
        isHardened = rawValue >= ChildNumber.hardenedOffset
    }

    /// The 32-bit value with the hardened bit.
    public var rawValue: UInt32 { isHardened ? index | ChildNumber.hardenedOffset : index }

    public var description: String { isHardened ? "\(index)'" : "\(index)" }
}

/// Why a derivation path was refused.
public enum DerivationPathError: Error, Equatable, CustomStringConvertible {
    case empty
    case mustStartWithM(String)
    case emptyComponent(position: Int)
    case invalidComponent(String)
    case indexOutOfRange(String)
    case tooDeep(Int)

    public var description: String {
        switch self {
        case .empty: "empty derivation path"
        case .mustStartWithM(let s): "derivation path must start with \"m\", got \"\(s)\""
        case .emptyComponent(let p): "empty step \(p) in derivation path"
        case .invalidComponent(let c): "\"\(c)\" is not a derivation step (expected a number, optionally followed by ' or h)"
        case .indexOutOfRange(let c): "index \(c) is out of range (at most 2147483647)"
        case .tooDeep(let d): "derivation path has \(d) steps; at most 255 are allowed"
        }
    }
}

/// A BIP32 derivation path such as `m/84'/0'/0'/0/5` (also written `m/84h/0h/0h/0/5`).
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible {
    /// The steps from the master key.
    public let components: [ChildNumber]

    /// A path from its steps.
    public init(_ components: [ChildNumber]) { self.components = components }

    /// Parses `m`, `m/44'/0'/0'/0/1`, `m/44h/0h/0h/0/1` or `m/44H/…`.
    /// - Throws: `DerivationPathError` naming the bad part.
    public init(_ string: String) throws {
        guard !string.isEmpty else { throw DerivationPathError.empty }
        let parts = string.split(separator: "/", omittingEmptySubsequences: false)
        guard parts[0] == "m" || parts[0] == "M" else { throw DerivationPathError.mustStartWithM(String(parts[0].prefix(20))) }
        guard parts.count - 1 <= 255 else { throw DerivationPathError.tooDeep(parts.count - 1) }
        var steps = [ChildNumber]()
        for (i, part) in parts.dropFirst().enumerated() {
            guard !part.isEmpty else { throw DerivationPathError.emptyComponent(position: i + 1) }
            var digits = Substring(part)
            var hardened = false
            if let last = digits.last, last == "'" || last == "h" || last == "H" {
                hardened = true
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  !(digits.count > 1 && digits.first == "0")
            else { throw DerivationPathError.invalidComponent(String(part.prefix(20))) }
            guard let value = UInt64(digits), value < UInt64(ChildNumber.hardenedOffset) else {
                throw DerivationPathError.indexOutOfRange(String(digits))
            }
            steps.append(try ChildNumber(UInt32(value), hardened: hardened))
        }
        components = steps
    }

    /// `m/84'/0'/0'/0/5`.
    public var description: String { format(hardenedMarker: "'") }

    /// The path with a chosen hardened marker: `"'"` or `"h"` (descriptors use `h`).
    public func format(hardenedMarker: String) -> String {
        (["m"] + components.map { "\($0.index)" + ($0.isHardened ? hardenedMarker : "") }).joined(separator: "/")
    }

    /// This path followed by `child`.
    public func appending(_ child: ChildNumber) -> DerivationPath { DerivationPath(components + [child]) }
}
