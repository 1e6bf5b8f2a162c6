internal import CSecp256k1
import Foundation

/// BIP-340 Schnorr signatures and x-only keys over secp256k1 (libsecp256k1's schnorrsig and
/// extrakeys modules), and the unhashed ECDH NIP-44 and NIP-04 start from. No curve arithmetic
/// is done in Swift.
public enum Schnorr {
    /// The 32-byte x-only public key of `privateKey` (BIP-340's `bytes(d·G)`).
    /// - Throws: `Secp256k1.Error.invalidPrivateKey`.
    public static func xOnlyPublicKey(privateKey: SecretBytes) throws(Secp256k1.Error) -> [UInt8] {
        var keypair = try keypair(privateKey)
        defer { wipe(&keypair) }
        var xonly = secp256k1_xonly_pubkey()
        guard secp256k1_keypair_xonly_pub(Secp256k1.ctx, &xonly, nil, &keypair) == 1 else { throw .invalidPrivateKey }
        var out = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(Secp256k1.ctx, &out, &xonly)
        return out
    }

    /// A 64-byte BIP-340 signature of the 32-byte `message` (an event id, a digest), with
    /// `auxiliaryRandom` (32 bytes; fresh randomness when nil, as BIP-340 recommends).
    /// - Throws: `Secp256k1.Error.invalidPrivateKey`, `.invalidMessage` (not 32 bytes).
    public static func sign(_ message: [UInt8], privateKey: SecretBytes, auxiliaryRandom: [UInt8]? = nil) throws(Secp256k1.Error) -> [UInt8] {
        guard message.count == 32 else { throw .invalidMessage }
        var keypair = try keypair(privateKey)
        defer { wipe(&keypair) }
        return try sign(message, keypair: &keypair, auxiliaryRandom: auxiliaryRandom)
    }

    /// A BIP-341 key-path signature of the 32-byte `message` (a taproot sighash): signed with
    /// `internalPrivateKey` tweaked by `hashTapTweak(P ‖ merkleRoot)` (BIP-86: no merkle root),
    /// the key whose x-only public key is the output's. The tweak is libsecp256k1's.
    /// - Throws: `Secp256k1.Error.invalidPrivateKey`, `.invalidTweak`, `.invalidMessage`.
    public static func signTaprootKeyPath(_ message: [UInt8], internalPrivateKey: SecretBytes, merkleRoot: [UInt8]? = nil,
                                          auxiliaryRandom: [UInt8]? = nil) throws(Secp256k1.Error) -> [UInt8] {
        guard message.count == 32 else { throw .invalidMessage }
        var keypair = try keypair(internalPrivateKey)
        defer { wipe(&keypair) }
        var xonly = secp256k1_xonly_pubkey()
        guard secp256k1_keypair_xonly_pub(Secp256k1.ctx, &xonly, nil, &keypair) == 1 else { throw .invalidPrivateKey }
        var internalKey = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(Secp256k1.ctx, &internalKey, &xonly)
        let tweak = Hash.tagged("TapTweak", internalKey + (merkleRoot ?? []))
        guard secp256k1_keypair_xonly_tweak_add(Secp256k1.ctx, &keypair, tweak) == 1 else { throw .invalidTweak }
        return try sign(message, keypair: &keypair, auxiliaryRandom: auxiliaryRandom)
    }

    /// BIP-340's signing with a keypair at hand (fresh auxiliary randomness when nil).
    private static func sign(_ message: [UInt8], keypair: inout secp256k1_keypair, auxiliaryRandom: [UInt8]?) throws(Secp256k1.Error) -> [UInt8] {
        var aux = auxiliaryRandom ?? SystemRandom.bytes(32)
        defer { SecretBytes.wipe(&aux) }
        var signature = [UInt8](repeating: 0, count: 64)
        guard aux.count == 32, secp256k1_schnorrsig_sign32(Secp256k1.ctx, &signature, message, &keypair, aux) == 1 else {
            throw .invalidPrivateKey
        }
        return signature
    }

    /// Whether `signature` is `publicKey`'s BIP-340 signature of `message` (any length).
    public static func isValid(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        var xonly = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(Secp256k1.ctx, &xonly, publicKey) == 1 else { return false }
        return secp256k1_schnorrsig_verify(Secp256k1.ctx, signature, message, message.count, &xonly) == 1
    }

    /// Whether `publicKey` is an x-only key on the curve (BIP-340's `lift_x` succeeds).
    public static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        var xonly = secp256k1_xonly_pubkey()
        return publicKey.count == 32 && secp256k1_xonly_pubkey_parse(Secp256k1.ctx, &xonly, publicKey) == 1
    }

    /// The x coordinate of `privateKey · P`, where P is the even-y point with x `publicKey`:
    /// unhashed, as NIP-44 and NIP-04 use it (libsecp256k1's ECDH module hashes; the tweak
    /// multiplication does not).
    /// - Throws: `Secp256k1.Error` for a key off the curve or a private key out of range.
    public static func sharedX(privateKey: SecretBytes, publicKey: [UInt8]) throws(Secp256k1.Error) -> SecretBytes {
        guard publicKey.count == 32 else { throw .invalidPublicKey }
        var point = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_parse(Secp256k1.ctx, &point, [0x02] + publicKey, 33) == 1 else { throw .invalidPublicKey }
        let ok = privateKey.withUnsafeBytes { raw in
            raw.count == 32 && secp256k1_ec_pubkey_tweak_mul(Secp256k1.ctx, &point, raw.bindMemory(to: UInt8.self).baseAddress!) == 1
        }
        guard ok else { throw .invalidPrivateKey }
        var out = [UInt8](repeating: 0, count: 33)
        var length = 33
        _ = secp256k1_ec_pubkey_serialize(Secp256k1.ctx, &out, &length, &point, UInt32(SECP256K1_EC_COMPRESSED))
        defer { SecretBytes.wipe(&out) }
        return SecretBytes(out[1..<33])
    }

    private static func keypair(_ privateKey: SecretBytes) throws(Secp256k1.Error) -> secp256k1_keypair {
        var keypair = secp256k1_keypair()
        let ok = privateKey.withUnsafeBytes { raw in
            raw.count == 32 && secp256k1_keypair_create(Secp256k1.ctx, &keypair, raw.bindMemory(to: UInt8.self).baseAddress!) == 1
        }
        guard ok else { throw .invalidPrivateKey }
        return keypair
    }

    private static func wipe(_ keypair: inout secp256k1_keypair) {
        withUnsafeMutableBytes(of: &keypair) { $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
