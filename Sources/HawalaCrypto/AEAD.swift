import Crypto
import _CryptoExtras
import Foundation

/// AES-256-GCM through swift-crypto: every secret Hawala keeps at rest is sealed with it.
public enum AESGCM {
    /// Errors from sealing and opening.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The key is not 32 bytes.
        case invalidKeyLength(Int)
        /// The nonce is not 12 bytes.
        case invalidNonceLength(Int)
        /// The ciphertext, its tag or the associated data was changed, or the key is wrong.
        case authenticationFailed

        public var description: String {
            switch self {
            case .invalidKeyLength(let n): "AES-256-GCM needs a 32-byte key, not \(n) bytes"
            case .invalidNonceLength(let n): "AES-GCM needs a 12-byte nonce, not \(n) bytes"
            case .authenticationFailed: "authentication failed"
            }
        }
    }

    /// Bytes of the nonce and of the tag.
    public static let nonceLength = 12
    public static let tagLength = 16

    /// A fresh random 12-byte nonce. Random nonces are safe for fewer than 2^32 messages per key;
    /// Hawala's keys each seal far fewer.
    public static func randomNonce() -> [UInt8] { SystemRandom.bytes(nonceLength) }

    /// Encrypts `plaintext` under `key` with `nonce`, authenticating `associatedData` too.
    /// - Returns: ciphertext ‖ 16-byte tag.
    public static func seal<P: DataProtocol>(_ plaintext: P, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        let symmetricKey = try symmetric(key)
        guard nonce.count == nonceLength else { throw Error.invalidNonceLength(nonce.count) }
        let box = try AES.GCM.seal(plaintext, using: symmetricKey, nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
        // Copied through raw buffers: Array(Data) goes byte by byte.
        var out = [UInt8]()
        out.reserveCapacity(box.ciphertext.count + tagLength)
        box.ciphertext.withUnsafeBytes { out.append(contentsOf: $0) }
        box.tag.withUnsafeBytes { out.append(contentsOf: $0) }
        return out
    }

    /// Encrypts like `seal` and hands ciphertext ‖ tag to `body` without copying it out
    /// (streams write it straight to their sink).
    public static func seal<R>(_ plaintext: UnsafeRawBufferPointer, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8] = [],
                               into body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let symmetricKey = try symmetric(key)
        guard nonce.count == nonceLength else { throw Error.invalidNonceLength(nonce.count) }
        let box = try AES.GCM.seal(plaintext, using: symmetricKey, nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
        // `combined` is nonce ‖ ciphertext ‖ tag in one buffer.
        return try box.combined!.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[nonceLength...])) }
    }

    /// Decrypts and authenticates ciphertext ‖ tag. The plaintext is returned as a secret.
    /// - Throws: `AESGCM.Error.authenticationFailed` for any change or a wrong key; nothing of the
    ///   plaintext is released then.
    public static func open(_ sealed: [UInt8], key: SecretBytes, nonce: [UInt8], associatedData: [UInt8] = []) throws -> SecretBytes {
        let symmetricKey = try symmetric(key)
        guard nonce.count == nonceLength else { throw Error.invalidNonceLength(nonce.count) }
        guard sealed.count >= tagLength else { throw Error.authenticationFailed }
        do {
            // Raw buffers, not slices: swift-crypto copies a generic collection byte by byte.
            let box = try sealed.withUnsafeBytes { raw in
                try AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: nonce),
                    ciphertext: UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - tagLength)]),
                    tag: UnsafeRawBufferPointer(rebasing: raw[(raw.count - tagLength)...]))
            }
            var plain = try AES.GCM.open(box, using: symmetricKey, authenticating: associatedData)
            defer { plain.resetBytes(in: 0..<plain.count) }
            return plain.withUnsafeBytes { SecretBytes($0) }
        } catch {
            throw Error.authenticationFailed
        }
    }

    private static func symmetric(_ key: SecretBytes) throws -> SymmetricKey {
        guard key.count == 32 else { throw Error.invalidKeyLength(key.count) }
        return key.withUnsafeBytes { SymmetricKey(data: $0) }
    }
}

extension Hash {
    /// HKDF-SHA256 (RFC 5869): a `length`-byte key from input keying material, salt and context.
    public static func hkdfSHA256(_ inputKey: SecretBytes, salt: [UInt8], info: [UInt8], length: Int) -> SecretBytes {
        let key = inputKey.withUnsafeBytes { SymmetricKey(data: $0) }
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length)
        return derived.withUnsafeBytes { SecretBytes($0) }
    }
}

/// AES-256-CBC with PKCS#7 padding, for protocols that specify it (LNURL's LUD-10 success
/// action). Unauthenticated: never used for Hawala's own data, which is AES-GCM.
public enum AESCBC {
    public enum Error: Swift.Error, Equatable {
        case invalidKeyOrIV
        case decryptionFailed
    }

    public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard key.count == 32, iv.count == 16 else { throw Error.invalidKeyOrIV }
        do {
            let plain = try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv))
            return Array(plain)
        } catch {
            throw Error.decryptionFailed
        }
    }

    public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard key.count == 32, iv.count == 16 else { throw Error.invalidKeyOrIV }
        return Array(try AES._CBC.encrypt(plaintext, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv)))
    }
}
