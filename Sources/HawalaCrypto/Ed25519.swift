import Crypto

/// Ed25519 public keys from 32-byte seeds (RFC 8032, swift-crypto).
public enum Ed25519 {
    /// The public key of a 32-byte seed. Every 32-byte string is a valid seed; any other
    /// length is a programming error of the caller (the key types here hold exactly 32).
    public static func publicKey(seed: SecretBytes) -> [UInt8] {
        precondition(seed.count == 32, "an Ed25519 seed is 32 bytes")
        let key = seed.withUnsafeBytes { bytes -> Curve25519.Signing.PrivateKey? in try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) }
        guard let key else { preconditionFailure("swift-crypto refused a 32-byte Ed25519 seed") }
        return Array(key.publicKey.rawRepresentation)
    }
}
