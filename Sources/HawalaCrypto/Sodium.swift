internal import CSodium

/// libsodium: BLAKE2b, Argon2id and the Ed25519 scalar and point operations that
/// BIP32-Ed25519 (Cardano) needs.
public enum Sodium {
    static let ready: Bool = sodium_init() >= 0

    /// Errors from libsodium.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The scalar is zero or gives the identity point.
        case invalidScalar
        /// Argon2id could not run with these parameters (usually: not enough memory).
        case kdfFailed
        /// Parameters outside what libsodium accepts.
        case invalidParameters

        public var description: String {
            switch self {
            case .invalidScalar: "invalid Ed25519 scalar"
            case .kdfFailed: "key derivation failed (not enough memory?)"
            case .invalidParameters: "invalid key-derivation parameters"
            }
        }
    }

    /// BLAKE2b with an output of `outputLength` bytes (16…64). Cardano key hashes use 28.
    public static func blake2b(_ data: [UInt8], outputLength: Int) -> [UInt8] {
        precondition(ready && outputLength >= 16 && outputLength <= 64)
        var out = [UInt8](repeating: 0, count: outputLength)
        _ = crypto_generichash(&out, outputLength, data, UInt64(data.count), nil, 0)
        return out
    }

    /// Argon2id (version 1.3) into a secret of `outputLength` bytes.
    /// - Parameters:
    ///   - password: the password bytes.
    ///   - salt: exactly 16 bytes.
    ///   - opsLimit: passes over memory (t).
    ///   - memLimitBytes: memory in bytes (m).
    /// - Throws: `Sodium.Error.invalidParameters` or `.kdfFailed`.
    public static func argon2id(password: SecretBytes, salt: [UInt8], opsLimit: Int, memLimitBytes: Int, outputLength: Int = 32) throws -> SecretBytes {
        precondition(ready)
        guard salt.count == Int(crypto_pwhash_SALTBYTES), opsLimit >= 1, memLimitBytes >= 8192, outputLength >= 16 else {
            throw Error.invalidParameters
        }
        return try SecretBytes(count: outputLength) { out in
            let outPointer = out.bindMemory(to: UInt8.self).baseAddress!
            let rc = password.withUnsafeBytes { pw -> Int32 in
                func run(_ chars: UnsafePointer<CChar>) -> Int32 {
                    crypto_pwhash(
                        outPointer, UInt64(outputLength), chars, UInt64(pw.count), salt,
                        UInt64(opsLimit), memLimitBytes, crypto_pwhash_ALG_ARGON2ID13)
                }
                if let base = pw.baseAddress { return run(base.assumingMemoryBound(to: CChar.self)) }
                var zero: CChar = 0  // libsodium wants a non-null pointer even for an empty password
                return withUnsafePointer(to: &zero) { run($0) }
            }
            guard rc == 0 else { throw Error.kdfFailed }
        }
    }

    /// `scalar·B` on Ed25519 without clamping (BIP32-Ed25519's `A = kL·B`).
    /// The scalar is reduced mod ℓ first, which gives the same point.
    public static func ed25519PublicKey(noClampScalar scalar: SecretBytes) throws -> [UInt8] {
        precondition(ready && scalar.count == 32)
        var wide = [UInt8](repeating: 0, count: 64)
        scalar.withUnsafeBytes { wide.replaceSubrange(0..<32, with: $0) }
        var reduced = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_reduce(&reduced, wide)
        var point = [UInt8](repeating: 0, count: 32)
        let rc = crypto_scalarmult_ed25519_base_noclamp(&point, reduced)
        SecretBytes.wipe(&wide)
        SecretBytes.wipe(&reduced)
        guard rc == 0 else { throw Error.invalidScalar }
        return point
    }

    /// ChaCha20 (RFC 8439: 32-byte key, 12-byte nonce, the block counter from `counter`) over
    /// `data`: encryption and decryption alike. NIP-44 v2's cipher.
    /// - Throws: `Sodium.Error.invalidParameters` for a key or nonce of another size.
    public static func chacha20(_ data: [UInt8], key: SecretBytes, nonce: [UInt8], counter: UInt32 = 0) throws(Sodium.Error) -> [UInt8] {
        precondition(ready)
        guard key.count == 32, nonce.count == 12 else { throw .invalidParameters }
        var out = [UInt8](repeating: 0, count: data.count)
        guard !data.isEmpty else { return out }
        key.withUnsafeBytes { k in
            _ = crypto_stream_chacha20_ietf_xor_ic(&out, data, UInt64(data.count), nonce, counter, k.bindMemory(to: UInt8.self).baseAddress!)
        }
        return out
    }
}
