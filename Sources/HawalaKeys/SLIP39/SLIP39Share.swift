import HawalaCrypto

/// Why a set of SLIP-39 shares was refused. Each case names what is wrong and where.
public enum SLIP39Error: Error, Equatable, Sendable, CustomStringConvertible {
    case noShares
    /// Word `position` of share `share` is no SLIP-39 word (what was typed is not kept).
    case unknownWord(share: Int, position: Int, suggestions: [String])
    case tooShort(share: Int, words: Int)
    case invalidLength(share: Int, words: Int)
    case invalidChecksum(share: Int)
    case invalidPadding(share: Int)
    case groupThresholdAboveCount(share: Int)
    case mismatchedShares(String)
    case duplicateMemberIndex(group: Int, member: Int)
    case notEnoughGroups(have: Int, need: Int)
    case notEnoughMembers(group: Int, have: Int, need: Int)
    case inconsistentShare(group: Int, member: Int)
    case inconsistentGroup(Int)
    case invalidDigest
    case invalidSecretLength(Int)
    case invalidPassphrase
    case invalidParameters(String)

    public var description: String {
        switch self {
        case .noShares: "no shares given"
        case let .unknownWord(share, position, suggestions):
            "share \(share), word \(position) is not a SLIP-39 word"
                + (suggestions.isEmpty ? "" : " (did you mean \(suggestions.joined(separator: ", "))?)")
        case let .tooShort(share, words): "share \(share) has \(words) words; a SLIP-39 share has at least 20"
        case let .invalidLength(share, words): "share \(share) has \(words) words, which no SLIP-39 share has"
        case let .invalidChecksum(share): "share \(share) has an invalid checksum: a word is wrong or missing"
        case let .invalidPadding(share): "share \(share) has invalid padding"
        case let .groupThresholdAboveCount(share): "share \(share) is invalid: its group threshold exceeds its group count"
        case let .mismatchedShares(what): "these shares do not belong together: \(what)"
        case let .duplicateMemberIndex(group, member): "two different shares claim to be member \(member) of group \(group)"
        case let .notEnoughGroups(have, need): "not enough groups: \(have) complete, \(need) needed"
        case let .notEnoughMembers(group, have, need): "group \(group) needs \(need) shares, \(have) given"
        case let .inconsistentShare(group, member): "share \(member) of group \(group) does not match the others"
        case let .inconsistentGroup(group): "the shares of group \(group) do not match the other groups"
        case .invalidDigest: "the shares do not recover a valid secret (digest mismatch): one of them is wrong"
        case let .invalidSecretLength(n): "a master secret must be 16 to 64 bytes, an even number; this one has \(n)"
        case .invalidPassphrase: "a SLIP-39 passphrase may contain only printable ASCII characters"
        case let .invalidParameters(why): why
        }
    }
}

/// One SLIP-39 share: the metadata its words carry and its share value.
///
/// The value is part of a secret, so it lives in `SecretBytes`; the words are produced on
/// demand for display only.
public struct SLIP39Share: Sendable {
    /// Random 15-bit identifier common to all shares of one split.
    public let identifier: UInt16
    /// Whether the identifier is left out of the encryption salt (SLIP-39 "extendable backup").
    public let extendable: Bool
    /// PBKDF2 iterations are 10000 · 2^e over the four Feistel rounds.
    public let iterationExponent: Int
    /// 0-based group index, and the number of groups needed and made.
    public let groupIndex: Int
    public let groupThreshold: Int
    public let groupCount: Int
    /// 0-based member index, and the number of members of this group needed.
    public let memberIndex: Int
    public let memberThreshold: Int
    /// The share value (as long as the master secret).
    public let value: SecretBytes

    static let radixBits = 10
    static let checksumWords = 3
    /// Identifier, extendable flag and exponent (2 words), then the group and member fields (2).
    static let metadataWords = 4 + checksumWords
    static let minimumWords = metadataWords + 13  // 128-bit secret → 13 value words

    public init(identifier: UInt16, extendable: Bool, iterationExponent: Int, groupIndex: Int, groupThreshold: Int,
                groupCount: Int, memberIndex: Int, memberThreshold: Int, value: SecretBytes) {
        self.identifier = identifier
        self.extendable = extendable
        self.iterationExponent = iterationExponent
        self.groupIndex = groupIndex
        self.groupThreshold = groupThreshold
        self.groupCount = groupCount
        self.memberIndex = memberIndex
        self.memberThreshold = memberThreshold
        self.value = value
    }

    /// Parses the words of a share (case-insensitive; a unique four-letter prefix stands for its
    /// word). `number` is the 1-based position in the caller's list, used in errors.
    public init(mnemonic: String, number: Int = 1) throws(SLIP39Error) {
        let typed = mnemonic.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        var indices = [Int]()
        indices.reserveCapacity(typed.count)
        let list = Wordlist.slip39
        for (i, word) in typed.enumerated() {
            guard let index = list.resolve(String(word)) else {
                throw .unknownWord(share: number, position: i + 1, suggestions: list.closestWords(to: String(word)))
            }
            indices.append(index)
        }
        try self.init(indices: indices, number: number)
    }

    init(indices: [Int], number: Int) throws(SLIP39Error) {
        guard indices.count >= SLIP39Share.minimumWords else { throw .tooShort(share: number, words: indices.count) }
        let valueWords = indices.count - SLIP39Share.metadataWords
        let padding = (SLIP39Share.radixBits * valueWords) % 16
        guard padding <= 8 else { throw .invalidLength(share: number, words: indices.count) }

        let idExp = indices[0] << 10 | indices[1]
        let extendable = (idExp >> 4) & 1 == 1
        guard RS1024.verify(indices, customization: SLIP39Share.customization(extendable)) else { throw .invalidChecksum(share: number) }

        let params = indices[2] << 10 | indices[3]
        let groupThreshold = (params >> 12 & 0xF) + 1
        let groupCount = (params >> 8 & 0xF) + 1
        guard groupThreshold <= groupCount else { throw .groupThresholdAboveCount(share: number) }

        // Value words → bits; the leading `padding` bits must be zero.
        let valueIndices = indices[4..<(indices.count - SLIP39Share.checksumWords)]
        let byteCount = (SLIP39Share.radixBits * valueWords - padding) / 8
        var accumulator = 0, bits = 0, skipped = 0
        var bytes = [UInt8]()
        bytes.reserveCapacity(byteCount)
        defer { SecretBytes.wipe(&bytes) }
        for word in valueIndices {
            accumulator = (accumulator << 10 | word) & 0xFFFFF
            bits += 10
            if skipped < padding {
                let take = min(padding - skipped, bits)
                guard accumulator >> (bits - take) & ((1 << take) - 1) == 0 else { throw .invalidPadding(share: number) }
                bits -= take
                skipped += take
            }
            while bits >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> (bits - 8)))
                bits -= 8
            }
        }
        accumulator = 0
        self.init(identifier: UInt16(idExp >> 5), extendable: extendable, iterationExponent: idExp & 0xF,
                  groupIndex: params >> 16, groupThreshold: groupThreshold, groupCount: groupCount,
                  memberIndex: params >> 4 & 0xF, memberThreshold: (params & 0xF) + 1, value: SecretBytes(bytes))
    }

    /// The share's words, for display.
    public var words: [String] {
        let list = Wordlist.slip39
        return wordIndices().map { list.words[$0] }
    }

    func wordIndices() -> [Int] {
        var data = [Int]()
        let idExp = Int(identifier) << 5 | (extendable ? 1 << 4 : 0) | iterationExponent
        data += [idExp >> 10, idExp & 0x3FF]
        let params = groupIndex << 16 | (groupThreshold - 1) << 12 | (groupCount - 1) << 8 | memberIndex << 4 | (memberThreshold - 1)
        data += [params >> 10, params & 0x3FF]
        // Big-endian value, left-padded with zero bits to whole words.
        let valueWords = (value.count * 8 + 9) / 10
        var accumulator = 0
        var bits = valueWords * 10 - value.count * 8  // leading zero bits
        value.withUnsafeBytes { raw in
            for byte in raw {
                accumulator = (accumulator << 8 | Int(byte)) & 0x3FFFF
                bits += 8
                while bits >= 10 {
                    data.append(accumulator >> (bits - 10) & 0x3FF)
                    bits -= 10
                }
            }
        }
        return data + RS1024.checksum(data, customization: SLIP39Share.customization(extendable))
    }

    static func customization(_ extendable: Bool) -> [UInt8] { Array((extendable ? "shamir_extendable" : "shamir").utf8) }

    /// The fields every share of one split has in common, compared in order to name the first
    /// that differs.
    var commonFields: [(String, Int)] {
        [("identifier", Int(identifier)), ("extendable flag", extendable ? 1 : 0), ("iteration exponent", iterationExponent),
         ("group threshold", groupThreshold), ("group count", groupCount)]
    }
}

/// SLIP-39's Reed-Solomon checksum over GF(1024): three words.
enum RS1024 {
    private static let generator: [Int] = [0xE0E040, 0x1C1C080, 0x3838100, 0x7070200, 0xE0E0009,
                                           0x1C0C2412, 0x38086C24, 0x3090FC48, 0x21B1F890, 0x3F3F120]

    static func polymod(_ values: [Int]) -> Int {
        var chk = 1
        for v in values {
            let b = chk >> 20
            chk = (chk & 0xFFFFF) << 10 ^ v
            for i in 0..<10 where (b >> i) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    static func checksum(_ data: [Int], customization: [UInt8]) -> [Int] {
        let mod = polymod(customization.map(Int.init) + data + [0, 0, 0]) ^ 1
        return [mod >> 20 & 0x3FF, mod >> 10 & 0x3FF, mod & 0x3FF]
    }

    static func verify(_ data: [Int], customization: [UInt8]) -> Bool {
        polymod(customization.map(Int.init) + data) == 1
    }
}
