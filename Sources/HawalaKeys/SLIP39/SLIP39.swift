import HawalaCrypto

/// SLIP-39 Shamir backups: a master secret split into groups of word shares, so that a chosen
/// number of groups, each with its own member threshold, recovers it. Compatible with Trezor's
/// reference implementation (checked against its vectors and PyPI `shamir-mnemonic`).
public enum SLIP39 {
    /// One group of a split: `threshold` of its `count` member shares rebuild the group's share.
    public struct Group: Sendable, Equatable {
        public let threshold: Int
        public let count: Int
        public init(threshold: Int, count: Int) {
            self.threshold = threshold
            self.count = count
        }

        /// A group written "M/N": M of its N shares are needed.
        /// - Throws: `SLIP39Error.invalidParameters` for anything else (bounds: `checkLayout`).
        public init(parsing text: String) throws(SLIP39Error) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let m = Int(parts[0]), let n = Int(parts[1]) else {
                throw .invalidParameters("a group is M/N, e.g. 2/3 (M of N shares needed), not \"\(text)\"")
            }
            self.init(threshold: m, count: n)
        }
    }

    /// The default PBKDF2 iteration exponent (40,000 iterations), as Trezor's tools use.
    public static let defaultIterationExponent = 1
    static let maximumShareCount = 16
    static let digestIndex: UInt8 = 254
    static let secretIndex: UInt8 = 255
    static let digestLength = 4

    /// Encrypts `masterSecret` with `passphrase` and splits it into shares, one array per group.
    ///
    /// - Parameter random: the source of random bytes (the operating system's by default; tests
    ///   pass a fixed stream to compare with the reference implementation byte for byte).
    /// - Throws: `SLIP39Error.invalidParameters`, `.invalidSecretLength`, `.invalidPassphrase`.
    public static func split(masterSecret: SecretBytes, passphrase: SecretBytes = SecretBytes([]),
                             groupThreshold: Int, groups: [Group], extendable: Bool = true,
                             iterationExponent: Int = defaultIterationExponent,
                             random: (Int) -> [UInt8] = SystemRandom.bytes) throws(SLIP39Error) -> [[SLIP39Share]] {
        try checkSecretLength(masterSecret.count)
        try checkPassphrase(passphrase)
        guard (0...15).contains(iterationExponent) else { throw .invalidParameters("the iteration exponent must be 0 to 15") }
        try checkLayout(groupThreshold: groupThreshold, groups: groups)
        let idBytes = random(2)
        let identifier = (UInt16(idBytes[0]) << 8 | UInt16(idBytes[1])) & 0x7FFF
        let encrypted = crypt(masterSecret, passphrase: passphrase, iterationExponent: iterationExponent,
                              identifier: identifier, extendable: extendable, decrypt: false)
        let groupShares = splitSecret(threshold: groupThreshold, count: groups.count, secret: encrypted.unsafeCopy(), random: random)
        return zip(groups, groupShares).map { group, groupShare in
            splitSecret(threshold: group.threshold, count: group.count, secret: groupShare.value, random: random).map { member in
                SLIP39Share(identifier: identifier, extendable: extendable, iterationExponent: iterationExponent,
                            groupIndex: Int(groupShare.x), groupThreshold: groupThreshold, groupCount: groups.count,
                            memberIndex: Int(member.x), memberThreshold: group.threshold, value: SecretBytes(member.value))
            }
        }
    }

    /// Recovers the master secret from shares, decrypting it with `passphrase`.
    ///
    /// Identical duplicates are ignored; groups with fewer shares than their threshold are
    /// ignored when enough other groups are complete; shares beyond a threshold are checked to
    /// lie on the same polynomial. A wrong passphrase cannot be detected: it yields another
    /// secret (SLIP-39's plausible deniability).
    public static func combine(_ shares: [SLIP39Share], passphrase: SecretBytes = SecretBytes([])) throws(SLIP39Error) -> SecretBytes {
        let (encrypted, first) = try recoverEncrypted(shares)
        return crypt(encrypted, passphrase: passphrase, iterationExponent: first.iterationExponent,
                     identifier: first.identifier, extendable: first.extendable, decrypt: true)
    }

    /// Parses one share per line (blank lines and `#` comments skipped) and recovers the secret.
    public static func combine(mnemonics: [String], passphrase: SecretBytes = SecretBytes([])) throws(SLIP39Error) -> SecretBytes {
        var shares = [SLIP39Share]()
        for (i, m) in mnemonics.enumerated() { shares.append(try SLIP39Share(mnemonic: m, number: i + 1)) }
        return try combine(shares, passphrase: passphrase)
    }

    /// For the fuzzer: the Shamir recovery without the (deliberately slow) decryption.
    @_spi(Fuzzing) public static func recoverEncryptedForFuzzing(_ shares: [SLIP39Share]) throws -> SecretBytes {
        try recoverEncrypted(shares).0
    }

    /// The encrypted master secret and a share carrying the common parameters.
    static func recoverEncrypted(_ shares: [SLIP39Share]) throws(SLIP39Error) -> (SecretBytes, SLIP39Share) {
        guard let first = shares.first else { throw .noShares }
        guard shares.allSatisfy({ $0.value.count == first.value.count }) else { throw .mismatchedShares("their lengths differ") }
        for share in shares.dropFirst() {
            for (a, b) in zip(first.commonFields, share.commonFields) where a.1 != b.1 {
                throw .mismatchedShares("their \(a.0)s differ")
            }
        }
        // group index → member index → value
        var groups = [Int: (threshold: Int, members: [Int: SecretBytes])]()
        for share in shares {
            var group = groups[share.groupIndex] ?? (share.memberThreshold, [:])
            guard group.threshold == share.memberThreshold else {
                throw .mismatchedShares("group \(share.groupIndex + 1) has shares with different member thresholds")
            }
            if let existing = group.members[share.memberIndex] {
                guard existing == share.value else { throw .duplicateMemberIndex(group: share.groupIndex + 1, member: share.memberIndex + 1) }
                continue
            }
            group.members[share.memberIndex] = share.value
            groups[share.groupIndex] = group
        }

        var groupShares = [(x: UInt8, value: [UInt8])]()
        var shortest: (group: Int, have: Int, need: Int)?
        for (index, group) in groups.sorted(by: { $0.key < $1.key }) {
            guard group.members.count >= group.threshold else {
                if shortest == nil { shortest = (index + 1, group.members.count, group.threshold) }
                continue
            }
            let points = group.members.sorted { $0.key < $1.key }.map { (x: UInt8($0.key), value: $0.value.unsafeCopy()) }
            groupShares.append((UInt8(index), try recoverSecret(threshold: group.threshold, points, group: index + 1)))
        }
        defer { for i in groupShares.indices { SecretBytes.wipe(&groupShares[i].value) } }
        guard groupShares.count >= first.groupThreshold else {
            if let shortest, groupShares.count + 1 >= first.groupThreshold {
                throw .notEnoughMembers(group: shortest.group, have: shortest.have, need: shortest.need)
            }
            throw .notEnoughGroups(have: groupShares.count, need: first.groupThreshold)
        }
        var secret = try recoverSecret(threshold: first.groupThreshold, groupShares, group: nil)
        defer { SecretBytes.wipe(&secret) }
        try checkSecretLength(secret.count)
        return (SecretBytes(secret), first)
    }

    // MARK: Shamir over GF(256)

    /// Points of a random polynomial through (255, secret) and (254, digest ‖ random), at
    /// x = 0…count−1 — the same order of random draws as the reference implementation.
    static func splitSecret(threshold: Int, count: Int, secret: [UInt8], random: (Int) -> [UInt8]) -> [(x: UInt8, value: [UInt8])] {
        if threshold == 1 { return (0..<count).map { (UInt8($0), secret) } }
        var shares = (0..<(threshold - 2)).map { (x: UInt8($0), value: random(secret.count)) }
        let randomPart = random(secret.count - digestLength)
        let base = shares + [(digestIndex, digest(randomPart, secret) + randomPart), (secretIndex, secret)]
        for x in (threshold - 2)..<count { shares.append((UInt8(x), GF256.interpolate(base, at: UInt8(x)))) }
        return shares
    }

    /// The secret at x = 255 from at least `threshold` points, its digest checked; points beyond
    /// the threshold must lie on the same polynomial.
    static func recoverSecret(threshold: Int, _ points: [(x: UInt8, value: [UInt8])], group: Int?) throws(SLIP39Error) -> [UInt8] {
        let basis = Array(points.prefix(threshold))
        for extra in points.dropFirst(threshold) where GF256.interpolate(basis, at: extra.x) != extra.value {
            throw group.map { .inconsistentShare(group: $0, member: Int(extra.x) + 1) } ?? .inconsistentGroup(Int(extra.x) + 1)
        }
        if threshold == 1 { return basis[0].value }
        let secret = GF256.interpolate(basis, at: secretIndex)
        let digestShare = GF256.interpolate(basis, at: digestIndex)
        let expected = digest(Array(digestShare[digestLength...]), secret)
        guard constantTimeEqual(expected, Array(digestShare[..<digestLength])) else { throw .invalidDigest }
        return secret
    }

    static func digest(_ randomPart: [UInt8], _ secret: [UInt8]) -> [UInt8] {
        Array(Hash.hmacSHA256(key: SecretBytes(randomPart), secret).prefix(digestLength))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Encryption (a four-round Feistel network over PBKDF2-HMAC-SHA256)

    static func crypt(_ input: SecretBytes, passphrase: SecretBytes, iterationExponent: Int, identifier: UInt16,
                      extendable: Bool, decrypt: Bool) -> SecretBytes {
        var bytes = input.unsafeCopy()
        defer { SecretBytes.wipe(&bytes) }
        let half = bytes.count / 2
        var left = Array(bytes[..<half]), right = Array(bytes[half...])
        defer { SecretBytes.wipe(&left); SecretBytes.wipe(&right) }
        let salt = extendable ? [] : Array("shamir".utf8) + [UInt8(identifier >> 8), UInt8(identifier & 0xFF)]
        let iterations = (10_000 << iterationExponent) / 4
        let rounds: [UInt8] = decrypt ? [3, 2, 1, 0] : [0, 1, 2, 3]
        for round in rounds {
            let password = SecretBytes(count: passphrase.count + 1) { buffer in
                buffer[0] = round
                passphrase.withUnsafeBytes { if !$0.isEmpty { buffer.baseAddress!.advanced(by: 1).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            }
            let f = Hash.pbkdf2SHA256(password: password, salt: salt + right, rounds: iterations, outputByteCount: right.count)
            let newRight = f.withUnsafeBytes { f in zip(left, f).map { $0 ^ $1 } }
            SecretBytes.wipe(&left)
            left = right
            right = newRight
        }
        return SecretBytes(right + left)
    }

    /// Refuses an impossible layout of groups (the checks `split` makes before any work).
    public static func checkLayout(groupThreshold: Int, groups: [Group]) throws(SLIP39Error) {
        guard !groups.isEmpty, groups.count <= maximumShareCount else { throw .invalidParameters("there must be 1 to 16 groups") }
        guard (1...groups.count).contains(groupThreshold) else {
            throw .invalidParameters("the group threshold must be 1 to the number of groups (\(groups.count))")
        }
        for (i, g) in groups.enumerated() {
            guard (1...maximumShareCount).contains(g.count), (1...g.count).contains(g.threshold) else {
                throw .invalidParameters("group \(i + 1): \(g.threshold) of \(g.count) is impossible (1 ≤ threshold ≤ shares ≤ 16)")
            }
            guard !(g.threshold == 1 && g.count > 1) else {
                throw .invalidParameters("group \(i + 1): 1 of \(g.count) would make identical copies; use 1/1 for a single share")
            }
        }
    }

    static func checkSecretLength(_ count: Int) throws(SLIP39Error) {
        guard count >= 16, count <= 64, count % 2 == 0 else { throw .invalidSecretLength(count) }
    }

    /// Refuses a passphrase outside printable ASCII, as SLIP-39 requires.
    public static func checkPassphrase(_ passphrase: SecretBytes) throws(SLIP39Error) {
        let printable = passphrase.withUnsafeBytes { $0.allSatisfy { (32...126).contains($0) } }
        guard printable else { throw .invalidPassphrase }
    }
}
