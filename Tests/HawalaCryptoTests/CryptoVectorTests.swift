import Foundation
import Testing
@testable import HawalaCrypto

func loadVectors<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors"))
    return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func unhex(_ s: String) -> [UInt8] {
    var out = [UInt8]()
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}

struct HashVectors: Decodable {
    let ripemd160: [[String]]
    let keccak256: [[String]]
    let base58: [[String]]
    let base58check: [[String]]
}

@Suite("Hand-written primitives against official vectors")
struct PrimitiveVectorTests {
    let vectors: HashVectors

    init() throws { vectors = try loadVectors("hashes-base58", as: HashVectors.self) }

    @Test func ripemd160() {
        for v in vectors.ripemd160 {
            #expect(hex(RIPEMD160.hash(Array(v[0].utf8))) == v[1], "RIPEMD-160(\(v[0]))")
        }
        // The designers' million-'a' vector crosses many blocks.
        #expect(hex(RIPEMD160.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "52783243c1697bdbe16d37f97f68f08325dc1528")
    }

    @Test func keccak256() {
        for v in vectors.keccak256 {
            let message = v[0].hasPrefix("hex:") ? unhex(String(v[0].dropFirst(4))) : Array(v[0].utf8)
            #expect(hex(Keccak256.hash(message)) == v[1], "Keccak-256 of \(message.count) bytes")
        }
        // Not SHA3-256, whose digest of "" is a7ffc6f8…
        #expect(hex(Keccak256.hash([])) != "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a")
    }

    @Test func base58() throws {
        for v in vectors.base58 {
            #expect(Base58.encode(unhex(v[0])) == v[1])
            #expect(try Base58.decode(v[1]) == unhex(v[0]))
        }
        for v in vectors.base58check {
            #expect(Base58.encodeCheck(unhex(v[0])) == v[1])
            #expect(try Base58.decodeCheck(v[1]) == unhex(v[0]))
        }
    }

    @Test func base58Rejects() {
        #expect(throws: Base58.Error.invalidCharacter(position: 1)) { try Base58.decode("10") }
        #expect(throws: Base58.Error.invalidCharacter(position: 0)) { try Base58.decode("l") }
        #expect(throws: Base58.Error.badChecksum) { try Base58.decodeCheck("1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAt") }
        #expect(throws: Base58.Error.tooShort) { try Base58.decodeCheck("11") }
        #expect(throws: Base58.Error.invalidCharacter(position: 2)) { try Base58.decode("ab\u{e9}") }
    }

    @Test func rippleAlphabetRoundTrip() throws {
        let payload: [UInt8] = [0] + Array(repeating: 0x42, count: 20)
        let text = Base58.encodeCheck(payload, alphabet: .ripple)
        #expect(text.hasPrefix("r"))
        #expect(try Base58.decodeCheck(text, alphabet: .ripple) == payload)
    }
}

struct Bech32Vectors: Decodable {
    let validBech32: [String]
    let validBech32m: [String]
    let invalidBech32: [String]
    let invalidBech32m: [String]
    let validAddresses: [[String]]
    let invalidAddresses: [String]
}

@Suite("Bech32 and Bech32m (BIP173, BIP350)")
struct Bech32Tests {
    let v: Bech32Vectors
    init() throws { v = try loadVectors("bech32", as: Bech32Vectors.self) }

    @Test func validStrings() throws {
        for s in v.validBech32 {
            let decoded = try Bech32.decode(s)
            #expect(decoded.variant == .bech32, "\(s)")
        }
        for s in v.validBech32m {
            let decoded = try Bech32.decode(s)
            #expect(decoded.variant == .bech32m, "\(s)")
        }
    }

    @Test func invalidStrings() {
        for s in v.invalidBech32 {
            #expect(throws: Bech32.Error.self, "\(s)") { let d = try Bech32.decode(s); if d.variant != .bech32 { throw Bech32.Error.wrongVariant } }
        }
        for s in v.invalidBech32m {
            #expect(throws: Bech32.Error.self, "\(s)") { let d = try Bech32.decode(s); if d.variant != .bech32m { throw Bech32.Error.wrongVariant } }
        }
    }

    @Test func validAddresses() throws {
        for pair in v.validAddresses {
            let hrp = pair[0].lowercased().hasPrefix("bc") ? "bc" : "tb"
            let (version, program) = try Bech32.decodeSegwitAddress(pair[0], hrp: hrp)
            let op = version == 0 ? 0 : 0x50 + version
            #expect(hex([UInt8(op), UInt8(program.count)] + program) == pair[1])
            #expect(Bech32.segwitAddress(hrp: hrp, version: version, program: program) == pair[0].lowercased())
        }
    }

    @Test func invalidAddresses() {
        for a in v.invalidAddresses {
            #expect(throws: Bech32.Error.self, "\(a)") {
                _ = try Bech32.decodeSegwitAddress(a, hrp: "bc")
                _ = try Bech32.decodeSegwitAddress(a, hrp: "tb")
            }
            // Either prefix: the address must fail for the one it claims.
            let hrp = a.lowercased().hasPrefix("tb") ? "tb" : "bc"
            #expect(throws: Bech32.Error.self, "\(a)") { _ = try Bech32.decodeSegwitAddress(a, hrp: hrp) }
        }
    }
}
