import _CryptoExtras
import Crypto
import Foundation
import HawalaCrypto

/// NIP-04, accepted from older NWC clients only: AES-256-CBC (PKCS#7) under the unhashed ECDH
/// x coordinate, written `base64(ciphertext)?iv=base64(iv)`. It has no MAC: NIP-47 answers a
/// request in the scheme it came in, and prefers NIP-44.
public enum NIP04 {
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case invalidKey
        case invalidPayload

        public var description: String {
            switch self {
            case .invalidKey: "not a valid secp256k1 key"
            case .invalidPayload: "not a NIP-04 payload"
            }
        }
    }

    /// The most a NIP-04 payload may be here (what an NWC answer needs, with room).
    public static let maximumPayloadBytes = 128 * 1024

    public static func encrypt(_ plaintext: String, privateKey: SecretBytes, publicKey: [UInt8], iv: [UInt8]? = nil) throws(Error) -> String {
        let key = try sharedKey(privateKey, publicKey)
        let iv = iv ?? SystemRandom.bytes(16)
        guard iv.count == 16 else { throw .invalidPayload }
        do {
            let ciphertext = try key.withUnsafeBytes { raw in
                try AES._CBC.encrypt(Array(plaintext.utf8), using: SymmetricKey(data: raw), iv: AES._CBC.IV(ivBytes: iv))
            }
            return Data(ciphertext).base64EncodedString() + "?iv=" + Data(iv).base64EncodedString()
        } catch {
            throw .invalidPayload
        }
    }

    public static func decrypt(_ payload: String, privateKey: SecretBytes, publicKey: [UInt8]) throws(Error) -> String {
        guard payload.utf8.count <= maximumPayloadBytes else { throw .invalidPayload }
        let parts = payload.split(separator: "?", maxSplits: 1)
        guard parts.count == 2, parts[1].hasPrefix("iv="), let ciphertext = Data(base64Encoded: String(parts[0])),
              let iv = Data(base64Encoded: String(parts[1].dropFirst(3))), iv.count == 16, !ciphertext.isEmpty else {
            throw .invalidPayload
        }
        let key = try sharedKey(privateKey, publicKey)
        do {
            let plaintext = try key.withUnsafeBytes { raw in
                try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: raw), iv: AES._CBC.IV(ivBytes: Array(iv)))
            }
            guard let text = String(validating: Array(plaintext), as: UTF8.self) else { throw Error.invalidPayload }
            return text
        } catch {
            throw .invalidPayload
        }
    }

    private static func sharedKey(_ privateKey: SecretBytes, _ publicKey: [UInt8]) throws(Error) -> SecretBytes {
        do { return try Schnorr.sharedX(privateKey: privateKey, publicKey: publicKey) } catch { throw .invalidKey }
    }
}
