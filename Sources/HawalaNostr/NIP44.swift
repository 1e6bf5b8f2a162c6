import Crypto
import Foundation
import HawalaCrypto

/// NIP-44 version 2: the encryption of NIP-47's requests and answers. A conversation key from
/// unhashed ECDH through HKDF-extract (salt "nip44-v2"); per message, HKDF-expand of a random
/// nonce into a ChaCha20 key, its nonce and an HMAC key; padded plaintext (1 to 65,535 bytes,
/// as the official vectors hold), MAC over nonce ‖ ciphertext, base64 of version ‖ nonce ‖
/// ciphertext ‖ MAC. Checked with paulmillr/nip44's vectors.
public enum NIP44 {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case invalidKey
        case unsupportedVersion
        case invalidPayload
        case invalidMAC
        case invalidPadding
        case invalidPlaintextLength

        public var description: String {
            switch self {
            case .invalidKey: "not a valid secp256k1 key"
            case .unsupportedVersion: "an encryption version not supported (NIP-44 v2 is)"
            case .invalidPayload: "not a NIP-44 payload"
            case .invalidMAC: "the message was changed or is not for this key (invalid MAC)"
            case .invalidPadding: "invalid padding"
            case .invalidPlaintextLength: "a message is 1 to 65,535 bytes"
            }
        }
    }

    /// The key two parties share: the same either way round.
    public static func conversationKey(privateKey: SecretBytes, publicKey: [UInt8]) throws(Error) -> SecretBytes {
        let shared: SecretBytes
        do { shared = try Schnorr.sharedX(privateKey: privateKey, publicKey: publicKey) } catch { throw .invalidKey }
        let prk = shared.withUnsafeBytes { raw in
            HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: raw), salt: Array("nip44-v2".utf8))
        }
        return prk.withUnsafeBytes { SecretBytes(Array($0)) }
    }

    /// `plaintext` encrypted for the conversation (`nonce`: 32 random bytes unless a test gives them).
    public static func encrypt(_ plaintext: String, conversationKey: SecretBytes, nonce: [UInt8]? = nil) throws(Error) -> String {
        let nonce = nonce ?? SystemRandom.bytes(32)
        guard nonce.count == 32, conversationKey.count == 32 else { throw .invalidKey }
        let keys = messageKeys(conversationKey: conversationKey, nonce: nonce)
        let padded = try pad(Array(plaintext.utf8))
        let ciphertext: [UInt8]
        do { ciphertext = try Sodium.chacha20(padded, key: keys.chachaKey, nonce: keys.chachaNonce) } catch { throw .invalidKey }
        let mac = hmac(key: keys.hmacKey, nonce + ciphertext)
        return Data([2] + nonce + ciphertext + mac).base64EncodedString()
    }

    /// The plaintext of `payload`, its MAC checked first (in constant time).
    public static func decrypt(_ payload: String, conversationKey: SecretBytes) throws(Error) -> String {
        guard !payload.hasPrefix("#") else { throw .unsupportedVersion }
        // Bounds before decoding: 132 characters at least; at most what 65,535 bytes pad to.
        guard payload.utf8.count >= 132, payload.utf8.count <= 87_472 else { throw .invalidPayload }
        guard let data = Data(base64Encoded: payload) else { throw .invalidPayload }
        let bytes = [UInt8](data)
        guard bytes.count >= 99, bytes.count <= 65_603 else { throw .invalidPayload }
        guard bytes[0] == 2 else { throw .unsupportedVersion }
        let nonce = Array(bytes[1..<33]), ciphertext = Array(bytes[33..<(bytes.count - 32)]), mac = Array(bytes[(bytes.count - 32)...])
        let keys = messageKeys(conversationKey: conversationKey, nonce: nonce)
        let expected = hmac(key: keys.hmacKey, nonce + ciphertext)
        guard constantTimeEqual(expected, mac) else { throw .invalidMAC }
        let padded: [UInt8]
        do { padded = try Sodium.chacha20(ciphertext, key: keys.chachaKey, nonce: keys.chachaNonce) } catch { throw .invalidKey }
        return try unpad(padded)
    }

    /// The length a plaintext of `length` bytes is padded to.
    public static func paddedLength(_ length: Int) -> Int {
        guard length > 32 else { return 32 }
        let nextPower = 1 << (Int.bitWidth - (length - 1).leadingZeroBitCount)
        let chunk = nextPower <= 256 ? 32 : nextPower / 8
        return chunk * ((length - 1) / chunk + 1)
    }

    struct MessageKeys {
        let chachaKey: SecretBytes
        let chachaNonce: [UInt8]
        let hmacKey: SecretBytes
    }

    static func messageKeys(conversationKey: SecretBytes, nonce: [UInt8]) -> MessageKeys {
        let okm = conversationKey.withUnsafeBytes { raw in
            HKDF<SHA256>.expand(pseudoRandomKey: SymmetricKey(data: raw), info: nonce, outputByteCount: 76)
        }
        var bytes = okm.withUnsafeBytes { Array($0) }
        defer { SecretBytes.wipe(&bytes) }
        return MessageKeys(chachaKey: SecretBytes(bytes[0..<32]), chachaNonce: Array(bytes[32..<44]), hmacKey: SecretBytes(bytes[44..<76]))
    }

    static func pad(_ plaintext: [UInt8]) throws(Error) -> [UInt8] {
        guard (1...65_535).contains(plaintext.count) else { throw .invalidPlaintextLength }
        let prefix: [UInt8] = [UInt8(plaintext.count >> 8), UInt8(plaintext.count & 0xFF)]
        return prefix + plaintext + [UInt8](repeating: 0, count: paddedLength(plaintext.count) - plaintext.count)
    }

    static func unpad(_ padded: [UInt8]) throws(Error) -> String {
        guard padded.count >= 2 else { throw .invalidPadding }
        let length = Int(padded[0]) << 8 | Int(padded[1])
        guard length >= 1, padded.count == 2 + paddedLength(length), padded.count >= 2 + length else { throw .invalidPadding }
        guard let text = String(validating: padded[2..<(2 + length)], as: UTF8.self) else { throw .invalidPayload }
        return text
    }

    static func hmac(key: SecretBytes, _ message: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { raw in Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: raw))) }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
