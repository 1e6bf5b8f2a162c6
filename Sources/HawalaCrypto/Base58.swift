/// Base58 and Base58Check with the Bitcoin and Ripple alphabets.
public enum Base58 {
    /// A Base58 alphabet.
    public struct Alphabet: Sendable {
        let characters: [UInt8]
        let indexes: [Int8]

        init(_ string: String) {
            characters = Array(string.utf8)
            var table = [Int8](repeating: -1, count: 128)
            for (i, c) in characters.enumerated() { table[Int(c)] = Int8(i) }
            indexes = table
        }

        /// Bitcoin's alphabet (also Litecoin's and Solana's).
        public static let bitcoin = Alphabet("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        /// The XRP Ledger's alphabet.
        public static let ripple = Alphabet("rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz")
    }

    /// Why a Base58 string was refused.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// A character outside the alphabet, at this 0-based offset.
        case invalidCharacter(position: Int)
        /// Base58Check: shorter than the 4-byte checksum.
        case tooShort
        /// Base58Check: the checksum does not match.
        case badChecksum

        public var description: String {
            switch self {
            case .invalidCharacter(let p): "invalid base58 character at position \(p + 1)"
            case .tooShort: "too short for a base58check string"
            case .badChecksum: "base58 checksum mismatch"
            }
        }
    }

    /// Encodes bytes as Base58.
    public static func encode(_ bytes: [UInt8], alphabet: Alphabet = .bitcoin) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        // log(256)/log(58) ≈ 1.37
        var digits = [UInt8](repeating: 0, count: (bytes.count - zeros) * 138 / 100 + 1)
        var length = 0
        for byte in bytes[zeros...] {
            var carry = Int(byte)
            var i = 0
            var k = digits.count - 1
            while (carry != 0 || i < length) && k >= 0 {
                carry += 256 * Int(digits[k])
                digits[k] = UInt8(carry % 58)
                carry /= 58
                i += 1
                k -= 1
            }
            length = i
        }
        var out = [UInt8](repeating: alphabet.characters[0], count: zeros)
        out.reserveCapacity(zeros + length)
        for d in digits[(digits.count - length)...] { out.append(alphabet.characters[Int(d)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a Base58 string.
    /// - Throws: `Base58.Error.invalidCharacter`.
    public static func decode(_ string: String, alphabet: Alphabet = .bitcoin) throws -> [UInt8] {
        try decode(ascii: Array(string.utf8), alphabet: alphabet)
    }

    /// Decodes Base58 given as its characters' bytes (a secret read from a file, never a `String`).
    /// - Throws: `Base58.Error.invalidCharacter`.
    public static func decode(ascii chars: [UInt8], alphabet: Alphabet = .bitcoin) throws -> [UInt8] {
        let zeroChar = alphabet.characters[0]
        let zeros = chars.prefix { $0 == zeroChar }.count
        var bytes = [UInt8](repeating: 0, count: (chars.count - zeros) * 733 / 1000 + 1)
        var length = 0
        for (position, c) in chars.enumerated().dropFirst(zeros) {
            guard c < 128, alphabet.indexes[Int(c)] >= 0 else { throw Error.invalidCharacter(position: position) }
            var carry = Int(alphabet.indexes[Int(c)])
            var i = 0
            var k = bytes.count - 1
            while (carry != 0 || i < length) && k >= 0 {
                carry += 58 * Int(bytes[k])
                bytes[k] = UInt8(carry % 256)
                carry /= 256
                i += 1
                k -= 1
            }
            length = i
        }
        defer { SecretBytes.wipe(&bytes) }
        return [UInt8](repeating: 0, count: zeros) + bytes[(bytes.count - length)...]
    }

    /// Base58Check: `payload ‖ first 4 bytes of SHA256(SHA256(payload))`, Base58-encoded.
    public static func encodeCheck(_ payload: [UInt8], alphabet: Alphabet = .bitcoin) -> String {
        encode(payload + Hash.doubleSHA256(payload).prefix(4), alphabet: alphabet)
    }

    /// Decodes Base58Check and verifies the checksum; returns the payload.
    /// - Throws: `Base58.Error`.
    public static func decodeCheck(_ string: String, alphabet: Alphabet = .bitcoin) throws -> [UInt8] {
        try decodeCheck(ascii: Array(string.utf8), alphabet: alphabet)
    }

    /// Decodes Base58Check given as its characters' bytes and verifies the checksum.
    /// - Throws: `Base58.Error`.
    public static func decodeCheck(ascii chars: [UInt8], alphabet: Alphabet = .bitcoin) throws -> [UInt8] {
        var raw = try decode(ascii: chars, alphabet: alphabet)
        defer { SecretBytes.wipe(&raw) }
        guard raw.count >= 4 else { throw Error.tooShort }
        let payload = Array(raw.dropLast(4))
        guard Hash.doubleSHA256(payload).prefix(4).elementsEqual(raw.suffix(4)) else { throw Error.badChecksum }
        return payload
    }
}
