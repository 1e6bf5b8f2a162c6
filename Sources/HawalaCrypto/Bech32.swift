/// Bech32 (BIP173) and Bech32m (BIP350), and SegWit addresses built on them.
public enum Bech32 {
    /// The checksum constant in use.
    public enum Variant: Sendable, Equatable {
        /// BIP173: SegWit v0, Cosmos, Cardano, LNURL.
        case bech32
        /// BIP350: SegWit v1+ (Taproot).
        case bech32m

        var constant: UInt32 { self == .bech32 ? 1 : 0x2BC8_30A3 }
    }

    /// Why a Bech32 string or SegWit address was refused.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case mixedCase
        case invalidCharacter(position: Int)
        case missingSeparator
        case emptyHumanReadablePart
        case tooLong(limit: Int)
        case tooShortChecksum
        case badChecksum
        case invalidPadding
        case wrongHumanReadablePart(expected: String, found: String)
        case invalidWitnessVersion(Int)
        case invalidProgramLength(Int)
        case wrongVariant

        public var description: String {
            switch self {
            case .mixedCase: "mixes upper and lower case"
            case .invalidCharacter(let p): "invalid character at position \(p + 1)"
            case .missingSeparator: "no '1' separator"
            case .emptyHumanReadablePart: "empty human-readable prefix"
            case .tooLong(let limit): "longer than \(limit) characters"
            case .tooShortChecksum: "checksum too short"
            case .badChecksum: "checksum mismatch"
            case .invalidPadding: "invalid padding in the data part"
            case .wrongHumanReadablePart(let expected, let found): "prefix is \"\(found)\", expected \"\(expected)\""
            case .invalidWitnessVersion(let v): "invalid witness version \(v)"
            case .invalidProgramLength(let n): "invalid witness program length \(n)"
            case .wrongVariant: "wrong checksum variant for this witness version (bech32 vs bech32m)"
            }
        }
    }

    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in charset.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    static func polymod(_ values: [UInt8]) -> UInt32 {
        let gen: [UInt32] = [0x3B6A_57B2, 0x2650_8E6D, 0x1EA1_19FA, 0x3D42_33DD, 0x2A14_62B3]
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1FF_FFFF) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= gen[i] }
        }
        return chk
    }

    static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Encodes 5-bit values under a human-readable part. `hrp` must be lower case.
    public static func encode(hrp: String, values: [UInt8], variant: Variant) -> String {
        let h = Array(hrp.utf8)
        let mod = polymod(expand(h) + values + [0, 0, 0, 0, 0, 0]) ^ variant.constant
        var out = h
        out.reserveCapacity(h.count + 1 + values.count + 6)
        out.append(UInt8(ascii: "1"))
        for v in values { out.append(charset[Int(v)]) }
        for i in 0..<6 { out.append(charset[Int((mod >> (5 * (5 - UInt32(i)))) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a Bech32 or Bech32m string into its lower-case human-readable part and 5-bit values
    /// (checksum removed), and tells which variant's checksum matched.
    /// - Parameter limit: the maximum length (90 for BIP173; larger for Cardano and LNURL).
    /// - Throws: `Bech32.Error`.
    public static func decode(_ string: String, limit: Int = 90) throws -> (hrp: String, values: [UInt8], variant: Variant) {
        let chars = Array(string.utf8)
        guard chars.count <= limit else { throw Error.tooLong(limit: limit) }
        var hasLower = false, hasUpper = false
        for (i, c) in chars.enumerated() {
            guard c >= 33 && c <= 126 else { throw Error.invalidCharacter(position: i) }
            if c >= 97 && c <= 122 { hasLower = true }
            if c >= 65 && c <= 90 { hasUpper = true }
        }
        guard !(hasLower && hasUpper) else { throw Error.mixedCase }
        let lower = chars.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }
        guard let sep = lower.lastIndex(of: UInt8(ascii: "1")) else { throw Error.missingSeparator }
        guard sep > 0 else { throw Error.emptyHumanReadablePart }
        guard lower.count - sep - 1 >= 6 else { throw Error.tooShortChecksum }
        let hrp = Array(lower[..<sep])
        var values = [UInt8]()
        values.reserveCapacity(lower.count - sep - 1)
        for i in (sep + 1)..<lower.count {
            let c = lower[i]
            guard c < 128, reverse[Int(c)] >= 0 else { throw Error.invalidCharacter(position: i) }
            values.append(UInt8(reverse[Int(c)]))
        }
        let check = polymod(expand(hrp) + values)
        let variant: Variant
        switch check {
        case Variant.bech32.constant: variant = .bech32
        case Variant.bech32m.constant: variant = .bech32m
        default: throw Error.badChecksum
        }
        return (String(decoding: hrp, as: UTF8.self), Array(values.dropLast(6)), variant)
    }

    /// Regroups bits, e.g. 8-bit bytes to 5-bit values and back.
    /// - Throws: `Bech32.Error.invalidPadding` when `pad` is false and leftover bits are not zero
    ///   or are 5 or more.
    public static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) throws -> [UInt8] {
        var acc = 0, bits = 0
        let maxv = (1 << to) - 1
        var out = [UInt8]()
        out.reserveCapacity(data.count * from / to + 1)
        for value in data {
            guard Int(value) >> from == 0 else { throw Error.invalidPadding }
            acc = (acc << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((acc >> bits) & maxv))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxv)) }
        } else if bits >= from || ((acc << (to - bits)) & maxv) != 0 {
            throw Error.invalidPadding
        }
        return out
    }

    /// Encodes bytes (8-bit) as a Bech32 string.
    public static func encode(hrp: String, bytes: [UInt8], variant: Variant = .bech32) -> String {
        // convertBits with padding cannot fail on 8-bit input.
        encode(hrp: hrp, values: try! convertBits(bytes, from: 8, to: 5, pad: true), variant: variant)
    }

    /// Decodes a Bech32 string whose data part is bytes, checking the prefix and variant.
    public static func decodeBytes(_ string: String, hrp expected: String, variant: Variant = .bech32, limit: Int = 90) throws -> [UInt8] {
        let (hrp, values, found) = try decode(string, limit: limit)
        guard hrp == expected else { throw Error.wrongHumanReadablePart(expected: expected, found: hrp) }
        guard found == variant else { throw Error.wrongVariant }
        return try convertBits(values, from: 5, to: 8, pad: false)
    }

    /// A SegWit address (BIP173 for v0, BIP350 for v1+).
    public static func segwitAddress(hrp: String, version: Int, program: [UInt8]) -> String {
        precondition(version >= 0 && version <= 16)
        let values = [UInt8(version)] + (try! convertBits(program, from: 8, to: 5, pad: true))
        return encode(hrp: hrp, values: values, variant: version == 0 ? .bech32 : .bech32m)
    }

    /// Decodes and fully validates a SegWit address for `hrp`.
    /// - Returns: the witness version and program.
    /// - Throws: `Bech32.Error`.
    public static func decodeSegwitAddress(_ address: String, hrp expected: String) throws -> (version: Int, program: [UInt8]) {
        let (hrp, values, variant) = try decode(address)
        guard hrp == expected else { throw Error.wrongHumanReadablePart(expected: expected, found: hrp) }
        guard let first = values.first else { throw Error.invalidProgramLength(0) }
        let version = Int(first)
        guard version <= 16 else { throw Error.invalidWitnessVersion(version) }
        let program = try convertBits(Array(values.dropFirst()), from: 5, to: 8, pad: false)
        guard program.count >= 2 && program.count <= 40 else { throw Error.invalidProgramLength(program.count) }
        if version == 0 && program.count != 20 && program.count != 32 { throw Error.invalidProgramLength(program.count) }
        guard (version == 0) == (variant == .bech32) else { throw Error.wrongVariant }
        return (version, program)
    }
}
