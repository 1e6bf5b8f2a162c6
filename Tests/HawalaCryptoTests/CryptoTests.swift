import Foundation
import Testing
@testable import HawalaCrypto

@Suite("SecretBytes")
struct SecretBytesTests {
    @Test func redactedEverywhere() {
        let secret = SecretBytes(utf8: "correct horse battery staple")
        #expect(secret.description == "<redacted>")
        #expect(secret.debugDescription == "<redacted>")
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("horse"))
        #expect(dumped.contains("<redacted>"))
        #expect(!"\([secret])".contains("horse"))
    }

    @Test func constantTimeEquality() {
        #expect(SecretBytes([1, 2, 3]) == SecretBytes([1, 2, 3]))
        #expect(SecretBytes([1, 2, 3]) != SecretBytes([1, 2, 4]))
        #expect(SecretBytes([1, 2]) != SecretBytes([1, 2, 3]))
        #expect(SecretBytes([]) == SecretBytes([]))
    }

    @Test func slicesAndCopies() {
        let s = SecretBytes([0, 1, 2, 3, 4, 5])
        #expect(s.slice(2..<5).unsafeCopy() == [2, 3, 4])
        #expect(s.count == 6)
        #expect(SecretBytes([]).isEmpty)
        #expect(SecretBytes(utf8: " \thwv_token\r\n").trimmingWhitespace() == SecretBytes(utf8: "hwv_token"))
        #expect(SecretBytes(utf8: "a b").trimmingWhitespace() == SecretBytes(utf8: "a b"))
        #expect(SecretBytes(utf8: " \n ").trimmingWhitespace().isEmpty)
    }

    /// Regression: a throwing initializer once freed the buffer and then `deinit` freed it again,
    /// corrupting the heap (glibc aborts on a repeated double free; AddressSanitizer reports it).
    @Test func throwingInitializerFreesOnce() {
        struct Refused: Error {}
        for _ in 0..<2_000 {
            #expect(throws: Refused.self) { try SecretBytes(count: 32) { _ in throw Refused() } }
        }
        // The heap is still sound: allocations of the same size work and hold their bytes.
        let survivors = (0..<64).map { i in SecretBytes(count: 32) { $0.storeBytes(of: UInt8(i), as: UInt8.self) } }
        #expect(survivors.enumerated().allSatisfy { $0.element.unsafeCopy()[0] == UInt8($0.offset) })
    }

    @Test func wipeZeroes() {
        var bytes: [UInt8] = [9, 9, 9]
        SecretBytes.wipe(&bytes)
        #expect(bytes == [0, 0, 0])
    }
}

@Suite("libsecp256k1 wrapper")
struct Secp256k1Tests {
    @Test func privateKeyRange() {
        #expect(!Secp256k1.isValidPrivateKey([UInt8](repeating: 0, count: 32)))
        #expect(!Secp256k1.isValidPrivateKey(Secp256k1.order))
        #expect(Secp256k1.isValidPrivateKey([UInt8](repeating: 0, count: 31) + [1]))
        #expect(!Secp256k1.isValidPrivateKey([UInt8](repeating: 1, count: 31)))
    }

    @Test func generatorPoint() throws {
        let one = SecretBytes([UInt8](repeating: 0, count: 31) + [1])
        let g = try Secp256k1.PublicKey(privateKey: one)
        #expect(hex(g.compressed) == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        #expect(try Secp256k1.PublicKey(sec1: g.uncompressed) == g)
        #expect(throws: Secp256k1.Error.invalidPublicKey) { try Secp256k1.PublicKey(sec1: [2] + [UInt8](repeating: 0, count: 31) + [7]) }  // x = 7 is not on the curve
        #expect(throws: Secp256k1.Error.invalidPublicKey) { try Secp256k1.PublicKey(sec1: [UInt8](repeating: 2, count: 20)) }
    }

    @Test func tweaks() throws {
        let one = SecretBytes([UInt8](repeating: 0, count: 31) + [1])
        let two = try Secp256k1.privateKey(one, adding: [UInt8](repeating: 0, count: 31) + [1])
        let g = try Secp256k1.PublicKey(privateKey: one)
        #expect(try g.adding(tweak: [UInt8](repeating: 0, count: 31) + [1]) == Secp256k1.PublicKey(privateKey: two))
        #expect(throws: Secp256k1.Error.invalidTweak) { try g.adding(tweak: Secp256k1.order) }
        // n-1 + 1 = 0: refused.
        var nMinusOne = Secp256k1.order
        nMinusOne[31] -= 1
        #expect(throws: Secp256k1.Error.invalidTweak) { try Secp256k1.privateKey(SecretBytes(nMinusOne), adding: [UInt8](repeating: 0, count: 31) + [1]) }
        // G + (n-1)·G is the point at infinity: refused; a zero tweak gives the key back.
        #expect(throws: Secp256k1.Error.invalidTweak) { try g.adding(tweak: nMinusOne) }
        #expect(try g.adding(tweak: [UInt8](repeating: 0, count: 32)) == g)
        #expect(throws: Secp256k1.Error.invalidTweak) { try g.adding(tweak: [UInt8](repeating: 0xFF, count: 32)) }
    }

    /// Public derivation (`P + t·G`) agrees with private derivation (`(k + t)·G`) for random keys and tweaks.
    @Test func publicTweakMatchesPrivateTweak() throws {
        for _ in 0..<200 {
            var key = [UInt8](repeating: 0, count: 32), tweak = [UInt8](repeating: 0, count: 32)
            SystemRandom.fill(&key)
            SystemRandom.fill(&tweak)
            guard Secp256k1.isValidPrivateKey(key), Secp256k1.isValidPrivateKey(tweak) else { continue }
            let secret = SecretBytes(key)
            let viaPublic = try Secp256k1.PublicKey(privateKey: secret).adding(tweak: tweak)
            let viaPrivate = try Secp256k1.PublicKey(privateKey: Secp256k1.privateKey(secret, adding: tweak))
            #expect(viaPublic == viaPrivate)
        }
    }
}

@Suite("libsodium and swift-crypto wrappers")
struct SodiumTests {
    @Test func blake2b() {
        // BLAKE2b-512("abc") from RFC 7693 appendix A.
        #expect(hex(Sodium.blake2b(Array("abc".utf8), outputLength: 64)) ==
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(Sodium.blake2b([], outputLength: 28).count == 28)
    }

    @Test func argon2idIsDeterministicAndBounded() throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let a = try Sodium.argon2id(password: SecretBytes(utf8: "pw"), salt: salt, opsLimit: 2, memLimitBytes: 1 << 20)
        let b = try Sodium.argon2id(password: SecretBytes(utf8: "pw"), salt: salt, opsLimit: 2, memLimitBytes: 1 << 20)
        let c = try Sodium.argon2id(password: SecretBytes(utf8: "pX"), salt: salt, opsLimit: 2, memLimitBytes: 1 << 20)
        #expect(a == b && a != c && a.count == 32)
        _ = try Sodium.argon2id(password: SecretBytes([]), salt: salt, opsLimit: 2, memLimitBytes: 1 << 20)
        #expect(throws: Sodium.Error.invalidParameters) { try Sodium.argon2id(password: SecretBytes([]), salt: [1], opsLimit: 2, memLimitBytes: 1 << 20) }
    }

    @Test func sha2AndHmac() {
        #expect(hex(Hash.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // RFC 4231 test case 2.
        #expect(hex(Hash.hmacSHA512(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))) ==
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
        #expect(hex(Hash.hash160(Array("".utf8))) == "b472a266d0bd89c13706a4132ccfb16f7c3b9fcb")
    }

    @Test func pbkdf2() {
        // RFC 6070-style vector for PBKDF2-HMAC-SHA512 ("password", "salt", 1 round).
        let out = Hash.pbkdf2SHA512(password: SecretBytes(utf8: "password"), salt: Array("salt".utf8), rounds: 1, outputByteCount: 64)
        #expect(hex(out.unsafeCopy()) == "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce")
    }

    @Test func hkdf() {
        // RFC 5869 test case 1 (SHA-256).
        let okm = Hash.hkdfSHA256(
            SecretBytes([UInt8](repeating: 0x0b, count: 22)),
            salt: Array(0x00...0x0c), info: Array(0xf0...0xf9), length: 42)
        #expect(hex(okm.unsafeCopy()) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }
}

@Suite("AES-256-GCM")
struct AESGCMTests {
    // The GCM specification's test case 16 (McGrew and Viega): AES-256, 60-byte plaintext, 20 bytes of associated data.
    let key = SecretBytes(bytes(fromHex: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
    let nonce = bytes(fromHex: "cafebabefacedbaddecaf888")
    let aad = bytes(fromHex: "feedfacedeadbeeffeedfacedeadbeefabaddad2")
    let plaintext = bytes(fromHex: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
    let expected = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662" + "76fc6ece0f4e1768cddf8853bb2d551b"

    @Test func specificationVector() throws {
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(hex(sealed) == expected)
        #expect(try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: aad).unsafeCopy() == plaintext)
    }

    @Test func everyChangeIsRefused() throws {
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        for i in [0, 30, sealed.count - 1] {
            var tampered = sealed
            tampered[i] ^= 1
            #expect(throws: AESGCM.Error.authenticationFailed) { try AESGCM.open(tampered, key: key, nonce: nonce, associatedData: aad) }
        }
        var otherAAD = aad
        otherAAD[0] ^= 1
        #expect(throws: AESGCM.Error.authenticationFailed) { try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: otherAAD) }
        #expect(throws: AESGCM.Error.authenticationFailed) { try AESGCM.open(Array(sealed.dropLast()), key: key, nonce: nonce, associatedData: aad) }
        #expect(throws: AESGCM.Error.authenticationFailed) { try AESGCM.open([1, 2, 3], key: key, nonce: nonce) }
        #expect(throws: AESGCM.Error.authenticationFailed) { try AESGCM.open(sealed, key: SystemRandom.secret(count: 32), nonce: nonce, associatedData: aad) }
        #expect(throws: AESGCM.Error.invalidKeyLength(16)) { try AESGCM.seal(plaintext, key: SecretBytes([UInt8](repeating: 1, count: 16)), nonce: nonce) }
        #expect(throws: AESGCM.Error.invalidNonceLength(8)) { try AESGCM.seal(plaintext, key: key, nonce: [UInt8](repeating: 0, count: 8)) }
    }

    @Test func emptyPlaintextRoundTrips() throws {
        let nonce = AESGCM.randomNonce()
        let sealed = try AESGCM.seal([UInt8](), key: key, nonce: nonce)
        #expect(sealed.count == AESGCM.tagLength)
        #expect(try AESGCM.open(sealed, key: key, nonce: nonce).isEmpty)
    }
}

private func bytes(fromHex hex: String) -> [UInt8] {
    var out = [UInt8]()
    var chars = Array(hex.utf8)[...]
    while chars.count >= 2 {
        out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!)
        chars = chars.dropFirst(2)
    }
    return out
}
