import Crypto

/// Ed25519 public keys from 32-byte seeds, signatures and their checks (RFC 8032, swift-crypto).
public enum Ed25519 {
    /// The 64-byte signature of `message` by the key of the 32-byte `seed`.
    public static func sign(_ message: [UInt8], seed: SecretBytes) -> [UInt8] {
        precondition(seed.count == 32, "an Ed25519 seed is 32 bytes")
        let key = seed.withUnsafeBytes { bytes -> Curve25519.Signing.PrivateKey? in try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) }
        guard let key, let signature = try? key.signature(for: message) else { preconditionFailure("swift-crypto refused a 32-byte Ed25519 seed") }
        return Array(signature)
    }

    /// Whether `signature` is `publicKey`'s signature of `message`.
    public static func isValid(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// The public key of a 32-byte seed. Every 32-byte string is a valid seed; any other
    /// length is a programming error of the caller (the key types here hold exactly 32).
    public static func publicKey(seed: SecretBytes) -> [UInt8] {
        precondition(seed.count == 32, "an Ed25519 seed is 32 bytes")
        let key = seed.withUnsafeBytes { bytes -> Curve25519.Signing.PrivateKey? in try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) }
        guard let key else { preconditionFailure("swift-crypto refused a 32-byte Ed25519 seed") }
        return Array(key.publicKey.rawRepresentation)
    }
}
