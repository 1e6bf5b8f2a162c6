import Crypto
import _CryptoExtras
import Foundation

/// Hash functions and MACs. SHA-2, HMAC and PBKDF2 come from swift-crypto; RIPEMD-160 and
/// Keccak-256 are hand-written (no library here offers them) and proven with official vectors.
public enum Hash {
    /// SHA-256.
    public static func sha256<D: DataProtocol>(_ data: D) -> [UInt8] {
        bytes(SHA256.hash(data: data))
    }

    /// SHA-256 of an array, without the generic path (address derivation hashes one key per
    /// address; generic calls across modules cost runtime metadata lookups on every call).
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { bytes(SHA256.hash(data: $0)) }
    }

    /// A digest's bytes, copied as one block (`Array(digest)` iterates byte by byte).
    @inline(__always)
    static func bytes<D: ContiguousBytes>(_ digest: D) -> [UInt8] {
        digest.withUnsafeBytes { Array($0) }
    }

    /// SHA-256 applied twice, as Bitcoin uses it for checksums.
    public static func doubleSHA256<D: DataProtocol>(_ data: D) -> [UInt8] {
        bytes(SHA256.hash(data: bytes(SHA256.hash(data: data))))
    }

    /// SHA-512.
    public static func sha512<D: DataProtocol>(_ data: D) -> [UInt8] {
        bytes(SHA512.hash(data: data))
    }

    /// RIPEMD-160(SHA-256(data)), Bitcoin's key and script hash.
    public static func hash160<D: DataProtocol>(_ data: D) -> [UInt8] {
        RIPEMD160.hash(sha256(data))
    }

    /// RIPEMD-160(SHA-256(data)) of an array, without the generic path.
    public static func hash160(_ data: [UInt8]) -> [UInt8] {
        RIPEMD160.hash(sha256(data))
    }

    /// BIP340 tagged hash: `SHA256(SHA256(tag) ‖ SHA256(tag) ‖ data)`.
    public static func tagged(_ tag: String, _ data: [UInt8]) -> [UInt8] {
        let tagHash = bytes(SHA256.hash(data: Array(tag.utf8)))
        var hasher = SHA256()
        hasher.update(data: tagHash)
        hasher.update(data: tagHash)
        hasher.update(data: data)
        return bytes(hasher.finalize())
    }

    /// HMAC-SHA512 under one key, for many messages: the key's inner and outer pads are hashed
    /// once (BIP32 public derivation hashes thousands of children under one chain code).
    // Unchecked: HMAC's hash state is copy-on-write; every use copies `prepared` before updating,
    // so threads never write to the shared state.
    public struct KeyedHMACSHA512: @unchecked Sendable {
        private let prepared: HMAC<SHA512>

        public init<K: ContiguousBytes>(key: K) {
            prepared = HMAC<SHA512>(key: SymmetricKey(data: key))
        }

        /// The 64-byte MAC of `data`.
        public func authenticationCode(_ data: UnsafeRawBufferPointer) -> [UInt8] {
            var mac = prepared
            mac.update(data: data)
            return Hash.bytes(mac.finalize())
        }
    }

    /// HMAC-SHA256 (identifiers derived from a secret key without revealing it).
    public static func hmacSHA256<D: DataProtocol>(key: SecretBytes, _ data: D) -> [UInt8] {
        key.withUnsafeBytes { bytes(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: $0))) }
    }

    /// HMAC-SHA512 with a public key (BIP32 chain codes, SLIP-10 curve names).
    public static func hmacSHA512<K: ContiguousBytes, D: DataProtocol>(key: K, _ data: D) -> [UInt8] {
        bytes(HMAC<SHA512>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// HMAC-SHA512 whose output is secret (derived private keys).
    public static func hmacSHA512Secret<K: ContiguousBytes, D: DataProtocol>(key: K, _ data: D) -> SecretBytes {
        let mac = HMAC<SHA512>.authenticationCode(for: data, using: SymmetricKey(data: key))
        return mac.withUnsafeBytes { SecretBytes($0) }
    }

    /// PBKDF2-HMAC-SHA512 (BIP39 seeds, CIP-3 Icarus master keys).
    public static func pbkdf2SHA512(password: SecretBytes, salt: [UInt8], rounds: Int, outputByteCount: Int) -> SecretBytes {
        pbkdf2(password, salt, rounds, outputByteCount, .sha512)
    }

    /// PBKDF2-HMAC-SHA256 (SLIP-39's Feistel round function).
    public static func pbkdf2SHA256(password: SecretBytes, salt: [UInt8], rounds: Int, outputByteCount: Int) -> SecretBytes {
        pbkdf2(password, salt, rounds, outputByteCount, .sha256)
    }

    private static func pbkdf2(_ password: SecretBytes, _ salt: [UInt8], _ rounds: Int, _ outputByteCount: Int,
                               _ hash: KDF.Insecure.PBKDF2.HashFunction) -> SecretBytes {
        password.withUnsafeBytes { pw in
            // The API throws only for parameters outside what BoringSSL accepts; callers pass fixed ones.
            let key = try! KDF.Insecure.PBKDF2.deriveKey(from: pw, salt: salt, using: hash, outputByteCount: outputByteCount, unsafeUncheckedRounds: rounds)
            return key.withUnsafeBytes { SecretBytes($0) }
        }
    }
}
