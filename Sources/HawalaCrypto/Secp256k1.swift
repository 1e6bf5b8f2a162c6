internal import CSecp256k1
import Foundation

/// secp256k1 through Bitcoin Core's libsecp256k1. No curve arithmetic is done in Swift.
public enum Secp256k1 {
    /// Errors from secp256k1 operations.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The 32 bytes are zero or not below the curve order.
        case invalidPrivateKey
        /// The bytes are not a valid SEC1 encoding of a point on the curve.
        case invalidPublicKey
        /// A tweak produced an invalid key (probability about 2^-127): derive the next index.
        case invalidTweak
        /// What is signed here is a 32-byte digest.
        case invalidMessage

        public var description: String {
            switch self {
            case .invalidPrivateKey: "invalid secp256k1 private key"
            case .invalidPublicKey: "invalid secp256k1 public key"
            case .invalidTweak: "key tweak produced an invalid key"
            case .invalidMessage: "a signed message here is a 32-byte digest"
            }
        }
    }

    /// One context, created and randomized once, shared by every thread. libsecp256k1 allows
    /// concurrent use of a context for everything except randomization, which happens here only.
    final class Context: @unchecked Sendable {
        let pointer: OpaquePointer

        init() {
            guard let ctx = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
                fatalError("libsecp256k1: cannot create a context")
            }
            var seed = [UInt8](repeating: 0, count: 32)
            SystemRandom.fill(&seed)
            // Randomization blinds signing and key generation against side channels.
            _ = secp256k1_context_randomize(ctx, seed)
            SecretBytes.wipe(&seed)
            pointer = ctx
        }
    }

    static let context = Context()
    static var ctx: OpaquePointer { context.pointer }

    /// The order n of the group, big-endian.
    public static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    /// Whether `bytes` is a valid private key: 32 bytes, non-zero, below the order.
    public static func isValidPrivateKey<Bytes: ContiguousBytes>(_ bytes: Bytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            raw.count == 32 && secp256k1_ec_seckey_verify(ctx, raw.bindMemory(to: UInt8.self).baseAddress!) == 1
        }
    }

    /// A parsed public key, kept in libsecp256k1's internal form so repeated use costs nothing.
    public struct PublicKey: Sendable, Equatable {
        fileprivate var raw: secp256k1_pubkey

        /// Parses a 33-byte compressed or 65-byte uncompressed SEC1 encoding.
        /// - Throws: `Secp256k1.Error.invalidPublicKey`.
        public init<Bytes: ContiguousBytes>(sec1 bytes: Bytes) throws {
            var key = secp256k1_pubkey()
            let ok = bytes.withUnsafeBytes { raw -> Bool in
                guard raw.count == 33 || raw.count == 65 else { return false }
                return secp256k1_ec_pubkey_parse(ctx, &key, raw.bindMemory(to: UInt8.self).baseAddress!, raw.count) == 1
            }
            guard ok else { throw Error.invalidPublicKey }
            raw = key
        }

        fileprivate init(raw: secp256k1_pubkey) { self.raw = raw }

        /// The public key of a private key.
        /// - Throws: `Secp256k1.Error.invalidPrivateKey`.
        public init(privateKey: SecretBytes) throws {
            var key = secp256k1_pubkey()
            let ok = privateKey.withUnsafeBytes { raw in
                raw.count == 32 && secp256k1_ec_pubkey_create(ctx, &key, raw.bindMemory(to: UInt8.self).baseAddress!) == 1
            }
            guard ok else { throw Error.invalidPrivateKey }
            raw = key
        }

        /// The 33-byte compressed SEC1 encoding.
        public var compressed: [UInt8] { serialize(compressed: true) }

        /// The 65-byte uncompressed SEC1 encoding (`04 ‖ x ‖ y`).
        public var uncompressed: [UInt8] { serialize(compressed: false) }

        private func serialize(compressed: Bool) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: compressed ? 33 : 65)
            var len = out.count
            var key = raw
            _ = secp256k1_ec_pubkey_serialize(
                ctx, &out, &len, &key,
                UInt32(compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED))
            return out
        }

        /// `self + tweak·G`, the step of BIP32 public derivation.
        /// - Throws: `Secp256k1.Error.invalidTweak` when the tweak is not below the order or the
        ///   result is the point at infinity.
        public func adding(tweak: [UInt8]) throws -> PublicKey {
            precondition(tweak.count == 32)
            // tweak·G through the generator's precomputed table, then one point addition:
            // about 12% faster with libsecp256k1 0.2.0 than `ec_pubkey_tweak_add`, whose general
            // multiplication doubles ~128 times. The tweak is public here (BIP32 public derivation).
            var tweakPoint = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_create(ctx, &tweakPoint, tweak) == 1 else {
                // Zero is a valid tweak (the key itself); anything else rejected is ≥ n.
                if tweak.allSatisfy({ $0 == 0 }) { return self }
                throw Error.invalidTweak
            }
            var sum = secp256k1_pubkey()
            let combined = withUnsafePointer(to: raw) { keyPointer in
                withUnsafePointer(to: tweakPoint) { tweakPointer in
                    var points: [UnsafePointer<secp256k1_pubkey>?] = [keyPointer, tweakPointer]
                    return secp256k1_ec_pubkey_combine(ctx, &sum, &points, 2)
                }
            }
            // 0 only when the sum is the point at infinity.
            guard combined == 1 else { throw Error.invalidTweak }
            return PublicKey(raw: sum)
        }

        /// The x-only output key of a BIP341 key-path-only output (BIP86):
        /// `Q = P + int(hashTapTweak(bytes(P)))·G`, returned as 32 bytes.
        public func taprootOutputKey() throws -> [UInt8] {
            var key = raw
            var xonly = secp256k1_xonly_pubkey()
            guard secp256k1_xonly_pubkey_from_pubkey(ctx, &xonly, nil, &key) == 1 else { throw Error.invalidPublicKey }
            var internalKey = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_xonly_pubkey_serialize(ctx, &internalKey, &xonly)
            let tweak = Hash.tagged("TapTweak", internalKey)
            var output = secp256k1_pubkey()
            guard secp256k1_xonly_pubkey_tweak_add(ctx, &output, &xonly, tweak) == 1 else { throw Error.invalidTweak }
            var outputX = secp256k1_xonly_pubkey()
            _ = secp256k1_xonly_pubkey_from_pubkey(ctx, &outputX, nil, &output)
            var out = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_xonly_pubkey_serialize(ctx, &out, &outputX)
            return out
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.compressed == rhs.compressed
        }
    }

    /// `(key + tweak) mod n`, the step of BIP32 private derivation.
    /// - Throws: `Secp256k1.Error.invalidTweak` when the tweak is not below the order or the sum is zero.
    public static func privateKey(_ key: SecretBytes, adding tweak: [UInt8]) throws -> SecretBytes {
        precondition(tweak.count == 32)
        return try SecretBytes(count: 32) { out in
            key.withUnsafeBytes { out.copyMemory(from: $0) }
            let dest = out.bindMemory(to: UInt8.self).baseAddress!
            guard secp256k1_ec_seckey_tweak_add(ctx, dest, tweak) == 1 else { throw Error.invalidTweak }
        }
    }

    // MARK: ECDSA (BOLT11 invoice signatures)

    /// A compact ECDSA signature (r ‖ s, 64 bytes) with its recovery id (0–3).
    public struct RecoverableSignature: Sendable, Equatable {
        public let compact: [UInt8]
        public let recoveryID: Int
        public init(compact: [UInt8], recoveryID: Int) {
            self.compact = compact
            self.recoveryID = recoveryID
        }
    }

    /// Signs a 32-byte digest with RFC 6979 deterministic nonces; the signature is low-S.
    /// - Throws: `Secp256k1.Error.invalidPrivateKey`.
    public static func signRecoverable(digest: [UInt8], privateKey: SecretBytes) throws -> RecoverableSignature {
        precondition(digest.count == 32)
        var signature = secp256k1_ecdsa_recoverable_signature()
        let ok = privateKey.withUnsafeBytes { key in
            key.count == 32 && secp256k1_ecdsa_sign_recoverable(ctx, &signature, digest, key.bindMemory(to: UInt8.self).baseAddress!, nil, nil) == 1
        }
        guard ok else { throw Error.invalidPrivateKey }
        var compact = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, &compact, &recid, &signature)
        return RecoverableSignature(compact: compact, recoveryID: Int(recid))
    }

    /// The public key that made `signature` over `digest`, or nil when none can have.
    public static func recover(_ signature: RecoverableSignature, digest: [UInt8]) -> PublicKey? {
        guard signature.compact.count == 64, (0...3).contains(signature.recoveryID), digest.count == 32 else { return nil }
        var parsed = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, &parsed, signature.compact, Int32(signature.recoveryID)) == 1 else { return nil }
        var key = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(ctx, &key, &parsed, digest) == 1 else { return nil }
        return PublicKey(raw: key)
    }

    /// Signs a 32-byte message with RFC 6979 deterministic nonces; the low-S signature in DER
    /// (LNURL-auth's `sig`, LUD-04).
    /// - Throws: `Secp256k1.Error.invalidPrivateKey`.
    public static func signDER(digest: [UInt8], privateKey: SecretBytes) throws -> [UInt8] {
        precondition(digest.count == 32)
        var signature = secp256k1_ecdsa_signature()
        let ok = privateKey.withUnsafeBytes { key in
            key.count == 32 && secp256k1_ecdsa_sign(ctx, &signature, digest, key.bindMemory(to: UInt8.self).baseAddress!, nil, nil) == 1
        }
        guard ok else { throw Error.invalidPrivateKey }
        var der = [UInt8](repeating: 0, count: 72)
        var length = der.count
        _ = secp256k1_ecdsa_signature_serialize_der(ctx, &der, &length, &signature)
        return Array(der.prefix(length))
    }

    /// Whether the DER signature over `digest` is valid for `publicKey` (strict DER, low S).
    public static func verify(der: [UInt8], digest: [UInt8], publicKey: PublicKey) -> Bool {
        guard digest.count == 32, !der.isEmpty, der.count <= 72 else { return false }
        var signature = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_der(ctx, &signature, der, der.count) == 1 else { return false }
        var key = publicKey.raw
        return secp256k1_ecdsa_verify(ctx, &signature, digest, &key) == 1
    }

    /// Whether the compact signature (r ‖ s) over `digest` is valid for `publicKey`. High-S
    /// signatures are refused (libsecp256k1 accepts only the low-S form).
    public static func verify(compact: [UInt8], digest: [UInt8], publicKey: PublicKey) -> Bool {
        guard compact.count == 64, digest.count == 32 else { return false }
        var signature = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(ctx, &signature, compact) == 1 else { return false }
        var key = publicKey.raw
        return secp256k1_ecdsa_verify(ctx, &signature, digest, &key) == 1
    }
}
