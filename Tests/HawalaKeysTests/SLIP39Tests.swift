import Foundation
import Testing
@testable import HawalaCrypto
@testable import HawalaKeys

@Suite("SLIP-39")
struct SLIP39Tests {
    struct Official: Decodable { let description: String; let mnemonics: [String]; let masterSecret: String; let xprv: String }

    /// The error each invalid official vector must give, by the start of its description.
    static func expectedError(_ description: String) -> ((SLIP39Error) -> Bool)? {
        let d = description.drop(while: { $0 != " " }).dropFirst()
        let table: [(String, (SLIP39Error) -> Bool)] = [
            ("Mnemonic with invalid checksum", { $0 == .invalidChecksum(share: 1) }),
            ("Mnemonic with invalid padding", { $0 == .invalidPadding(share: 1) }),
            ("Basic sharing 2-of-3", { $0 == .notEnoughMembers(group: 1, have: 1, need: 2) }),
            ("Mnemonics with different identifiers", { $0 == .mismatchedShares("their identifiers differ") }),
            ("Mnemonics with different iteration exponents", { $0 == .mismatchedShares("their iteration exponents differ") }),
            ("Mnemonics with mismatching group thresholds", { $0 == .mismatchedShares("their group thresholds differ") }),
            ("Mnemonics with mismatching group counts", { $0 == .mismatchedShares("their group counts differ") }),
            ("Mnemonics with greater group threshold", { if case .groupThresholdAboveCount = $0 { true } else { false } }),
            ("Mnemonics with duplicate member indices", { if case .duplicateMemberIndex = $0 { true } else { false } }),
            ("Mnemonics with mismatching member thresholds", { if case .mismatchedShares = $0 { true } else { false } }),
            ("Mnemonics giving an invalid digest", { $0 == .invalidDigest }),
            ("Insufficient number of groups", { if case .notEnoughGroups = $0 { true } else { false } }),
            ("Threshold number of groups, but insufficient", { if case .notEnoughMembers = $0 { true } else { false } }),
            ("Mnemonic with insufficient length", { $0 == .tooShort(share: 1, words: 19) }),
            ("Mnemonic with invalid master secret length", { $0 == .invalidLength(share: 1, words: 21) }),
        ]
        return table.first { d.hasPrefix($0.0) }?.1
    }

    /// The 45 vectors published with SLIP-39 (passphrase "TREZOR"): valid sets recover the secret
    /// and its root xprv; each invalid set gives its specific error.
    @Test func officialVectors() throws {
        let vectors = try loadVectors("slip39-official", as: [Official].self)
        #expect(vectors.count == 45)
        for v in vectors {
            if v.masterSecret.isEmpty {
                let matches = try #require(SLIP39Tests.expectedError(v.description), "\(v.description)")
                #expect(throws: SLIP39Error.self, "\(v.description)") {
                    do { _ = try SLIP39.combine(mnemonics: v.mnemonics, passphrase: SecretBytes(utf8: "TREZOR")) } catch let error as SLIP39Error {
                        #expect(matches(error), "\(v.description): \(error)")
                        throw error
                    }
                }
            } else {
                let secret = try SLIP39.combine(mnemonics: v.mnemonics, passphrase: SecretBytes(utf8: "TREZOR"))
                #expect(hex(secret.unsafeCopy()) == v.masterSecret, "\(v.description)")
                #expect(try ExtendedPrivateKey(seed: secret).serialized() == v.xprv, "\(v.description)")
                // Parsing and re-encoding gives the same words.
                for m in v.mnemonics { #expect(try SLIP39Share(mnemonic: m).words.joined(separator: " ") == m) }
            }
        }
    }

    struct Cross: Decodable {
        struct Vector: Decodable {
            let masterSecret, passphrase, random, xprv: String
            let extendable: Bool
            let iterationExponent, groupThreshold: Int
            let groups: [[Int]]
            let mnemonics: [[String]]
            let subset: [String]
        }
        let vectors: [Vector]
    }

    /// Splits made by PyPI shamir-mnemonic from a recorded random stream: replaying the stream
    /// gives the same words (so the reference recovers ours), and its shares recover here.
    @Test func crossImplementation() throws {
        let cross = try loadVectors("slip39-cross", as: Cross.self)
        #expect(cross.vectors.count >= 40)
        for v in cross.vectors {
            let stream = Stream(unhex(v.random))
            let groups = try SLIP39.split(
                masterSecret: SecretBytes(unhex(v.masterSecret)), passphrase: SecretBytes(utf8: v.passphrase),
                groupThreshold: v.groupThreshold, groups: v.groups.map { SLIP39.Group(threshold: $0[0], count: $0[1]) },
                extendable: v.extendable, iterationExponent: v.iterationExponent, random: stream.next)
            #expect(groups.map { $0.map { $0.words.joined(separator: " ") } } == v.mnemonics)
            #expect(stream.isExhausted)
            let secret = try SLIP39.combine(mnemonics: v.subset, passphrase: SecretBytes(utf8: v.passphrase))
            #expect(hex(secret.unsafeCopy()) == v.masterSecret)
            #expect(try ExtendedPrivateKey(seed: secret).serialized() == v.xprv)
        }
    }

    final class Stream: @unchecked Sendable {
        private var bytes: [UInt8]
        private var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func next(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }
        var isExhausted: Bool { offset == bytes.count }
    }

    /// Random splits recover from every threshold subset of members, in any order, and with
    /// extra members and extra complete groups; a wrong passphrase gives another secret.
    @Test func roundTripAnySubset() throws {
        let secret = SystemRandom.secret(count: 32)
        let passphrase = SecretBytes(utf8: "hunter2 hunter2")
        let groups = try SLIP39.split(masterSecret: secret, passphrase: passphrase, groupThreshold: 2,
                                      groups: [.init(threshold: 2, count: 3), .init(threshold: 3, count: 5), .init(threshold: 1, count: 1)],
                                      iterationExponent: 0)
        #expect(groups.map(\.count) == [3, 5, 1])
        for a in 0..<3 { for b in 0..<3 where a != b {
            let shares = [groups[0][a], groups[0][b], groups[2][0]].shuffled()
            #expect(try SLIP39.combine(shares, passphrase: passphrase) == secret)
        } }
        #expect(try SLIP39.combine(groups[1] + groups[0] + groups[2], passphrase: passphrase) == secret)  // everything
        #expect(try SLIP39.combine(Array(groups[1].prefix(3)) + [groups[0][1]] + groups[2], passphrase: passphrase) == secret)
        #expect(try SLIP39.combine(groups[1].suffix(3) + groups[2], passphrase: SecretBytes(utf8: "wrong")) != secret)
        #expect(throws: SLIP39Error.notEnoughGroups(have: 1, need: 2)) { try SLIP39.combine(groups[2], passphrase: passphrase) }
        #expect(throws: SLIP39Error.notEnoughMembers(group: 2, have: 2, need: 3)) {
            try SLIP39.combine(groups[2] + groups[1].prefix(2), passphrase: passphrase)
        }
    }

    /// An extra share that does not lie on the group's polynomial is named, not silently ignored.
    @Test func inconsistentExtraShare() throws {
        let secret = SystemRandom.secret(count: 16)
        let one = try SLIP39.split(masterSecret: secret, groupThreshold: 1, groups: [.init(threshold: 2, count: 3)], iterationExponent: 0)[0]
        let s = one[2]
        var value = s.value.unsafeCopy()
        value[0] ^= 1
        let forged = SLIP39Share(identifier: s.identifier, extendable: s.extendable, iterationExponent: s.iterationExponent,
                                 groupIndex: s.groupIndex, groupThreshold: s.groupThreshold, groupCount: s.groupCount,
                                 memberIndex: s.memberIndex, memberThreshold: s.memberThreshold, value: SecretBytes(value))
        #expect(throws: SLIP39Error.inconsistentShare(group: 1, member: 3)) { try SLIP39.combine([one[0], one[1], forged]) }
        #expect(throws: SLIP39Error.invalidDigest) { try SLIP39.combine([one[0], forged]) }
    }

    /// Typing: prefixes and case are accepted; an unknown word is named with suggestions; every
    /// single-word substitution is caught by the checksum.
    @Test func parsingAndChecksum() throws {
        let m = "duckling enlarge academic academic agency result length solution fridge kidney coal piece deal husband erode duke ajar critical decision keyboard"
        let typed = m.split(separator: " ").map { String($0.prefix(4)).uppercased() }.joined(separator: "  ")
        #expect(try SLIP39Share(mnemonic: typed).words.joined(separator: " ") == m)
        #expect(throws: SLIP39Error.unknownWord(share: 2, position: 3, suggestions: ["academic"])) {
            try SLIP39Share(mnemonic: m.replacingOccurrences(of: "enlarge academic", with: "enlarge acadmic"), number: 2)
        }
        var words = m.split(separator: " ").map(String.init)
        let list = Wordlist.slip39.words
        for position in words.indices {
            let original = words[position]
            words[position] = list[(list.firstIndex(of: original)! + 1 + position * 37) % 1024]
            #expect(throws: SLIP39Error.self) { try SLIP39Share(mnemonic: words.joined(separator: " ")) }
            words[position] = original
        }
    }

    /// Impossible layouts, secrets and passphrases are refused before anything is made.
    @Test func invalidSplits() {
        let secret = SecretBytes([UInt8](repeating: 7, count: 16))
        let cases: [(Int, [SLIP39.Group], SecretBytes, SecretBytes, Int)] = [
            (2, [.init(threshold: 1, count: 1)], secret, SecretBytes([]), 1),
            (0, [.init(threshold: 1, count: 1)], secret, SecretBytes([]), 1),
            (1, [.init(threshold: 4, count: 3)], secret, SecretBytes([]), 1),
            (1, [.init(threshold: 1, count: 2)], secret, SecretBytes([]), 1),
            (1, [.init(threshold: 2, count: 17)], secret, SecretBytes([]), 1),
            (1, [], secret, SecretBytes([]), 1),
            (1, [.init(threshold: 1, count: 1)], SecretBytes([1, 2, 3]), SecretBytes([]), 1),
            (1, [.init(threshold: 1, count: 1)], SecretBytes([UInt8](repeating: 1, count: 17)), SecretBytes([]), 1),
            (1, [.init(threshold: 1, count: 1)], secret, SecretBytes(utf8: "pässword"), 1),
            (1, [.init(threshold: 1, count: 1)], secret, SecretBytes([]), 16),
        ]
        for (t, g, s, p, e) in cases {
            #expect(throws: SLIP39Error.self) { try SLIP39.split(masterSecret: s, passphrase: p, groupThreshold: t, groups: g, iterationExponent: e) }
        }
    }

    /// The word list is SLIP-39's: 1024 words, the file copied from shamir-mnemonic 0.3.0, unique four-letter prefixes.
    @Test func wordlist() {
        let words = Wordlist.slip39.words
        #expect(words.count == 1024)
        #expect(hex(Hash.sha256(Array((words.joined(separator: "\n") + "\n").utf8))) == "bcc4555340332d169718aed8bf31dd9d5248cb7da6e5d355140ef4f1e601eec3")
        #expect(Set(words.map { $0.prefix(4) }).count == 1024)
    }

    /// Multiplication in GF(256) agrees with the log/exp tables for every pair.
    @Test func fieldMultiplication() {
        for a in 1...255 { for b in 1...255 {
            let expected = GF256.exp[(GF256.log[a] + GF256.log[b]) % 255]
            if GF256.multiply(UInt8(a), UInt8(b)) != expected { Issue.record("\(a)·\(b)"); return }
        } }
        #expect(GF256.multiply(0, 77) == 0 && GF256.multiply(77, 0) == 0)
    }
}
