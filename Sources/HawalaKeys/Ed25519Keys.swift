import HawalaCrypto

/// SLIP-10 key derivation on Ed25519 (Solana): hardened steps only.
public struct SLIP10Ed25519Key: Sendable, CustomStringConvertible {
    /// The 32-byte private key (the Ed25519 seed), secret.
    public let privateKey: SecretBytes
    public let chainCode: SecretBytes

    /// The SLIP-10 master key: `HMAC-SHA512("ed25519 seed", seed)`.
    public init(seed: SecretBytes) {
        let i = seed.withUnsafeBytes { Hash.hmacSHA512Secret(key: Array("ed25519 seed".utf8), $0) }
        privateKey = i.slice(0..<32)
        chainCode = i.slice(32..<64)
    }

    private init(privateKey: SecretBytes, chainCode: SecretBytes) {
        self.privateKey = privateKey
        self.chainCode = chainCode
    }

    /// The hardened child (SLIP-10 defines no non-hardened Ed25519 derivation).
    /// - Throws: `ExtendedKeyError.hardenedFromPublic` for a non-hardened step.
    public func derive(_ child: ChildNumber) throws -> SLIP10Ed25519Key {
        guard child.isHardened else { throw SLIP10Error.nonHardened(child.index) }
        let raw = child.rawValue
        var data = [0] + privateKey.unsafeCopy() + [UInt8(raw >> 24), UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF)]
        defer { SecretBytes.wipe(&data) }
        let i = chainCode.withUnsafeBytes { Hash.hmacSHA512Secret(key: $0, data) }
        return SLIP10Ed25519Key(privateKey: i.slice(0..<32), chainCode: i.slice(32..<64))
    }

    /// The descendant along `path`.
    public func derive(path: DerivationPath) throws -> SLIP10Ed25519Key {
        try path.components.reduce(self) { try $0.derive($1) }
    }

    /// The 32-byte Ed25519 public key.
    public var publicKey: [UInt8] { Ed25519.publicKey(seed: privateKey) }

    public var description: String { "<redacted>" }
}

/// SLIP-10 Ed25519 errors.
public enum SLIP10Error: Error, Equatable, CustomStringConvertible {
    case nonHardened(UInt32)
    public var description: String {
        switch self {
        case .nonHardened(let i): "Ed25519 (SLIP-10) derivation is hardened only; step \(i) is not hardened"
        }
    }
}

/// Cardano's BIP32-Ed25519 keys (Khovratovich–Law), with the Icarus master key of CIP-3.
public struct CardanoExtendedKey: Sendable, CustomStringConvertible {
    /// kL ‖ kR, the 64-byte extended private key, secret.
    public let extendedKey: SecretBytes
    public let chainCode: SecretBytes

    /// The Icarus master key (CIP-3): `PBKDF2-HMAC-SHA512(passphrase, entropy, 4096, 96)`,
    /// then the bits of kL clamped.
    public init(icarusEntropy entropy: SecretBytes, passphrase: SecretBytes) {
        let raw = entropy.withUnsafeBytes { e in
            Hash.pbkdf2SHA512(password: passphrase, salt: Array(e), rounds: 4096, outputByteCount: 96)
        }
        var bytes = raw.unsafeCopy()
        defer { SecretBytes.wipe(&bytes) }
        bytes[0] &= 0b1111_1000
        bytes[31] &= 0b0001_1111
        bytes[31] |= 0b0100_0000
        extendedKey = SecretBytes(bytes[0..<64])
        chainCode = SecretBytes(bytes[64..<96])
    }

    /// A key from its parts (64-byte kL ‖ kR and 32-byte chain code).
    init(restoring extendedKey: SecretBytes, chainCode: SecretBytes) {
        self.extendedKey = extendedKey
        self.chainCode = chainCode
    }

    /// The public key `A = kL·B`, 32 bytes (libsodium, no clamping).
    public var publicKey: [UInt8] {
        // kL of a valid key is a non-zero scalar.
        try! Sodium.ed25519PublicKey(noClampScalar: extendedKey.slice(0..<32))
    }

    /// The child at `child`, hardened or soft.
    public func derive(_ child: ChildNumber) -> CardanoExtendedKey {
        let raw = child.rawValue
        let le: [UInt8] = [UInt8(raw & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw >> 16 & 0xFF), UInt8(raw >> 24)]
        var zData: [UInt8], cData: [UInt8]
        if child.isHardened {
            let k = extendedKey.unsafeCopy()
            zData = [0x00] + k + le
            cData = [0x01] + k + le
        } else {
            let a = publicKey
            zData = [0x02] + a + le
            cData = [0x03] + a + le
        }
        defer { SecretBytes.wipe(&zData); SecretBytes.wipe(&cData) }
        var z = chainCode.withUnsafeBytes { Hash.hmacSHA512Secret(key: $0, zData) }.unsafeCopy()
        let c = chainCode.withUnsafeBytes { Hash.hmacSHA512(key: $0, cData) }
        var k = extendedKey.unsafeCopy()
        defer { SecretBytes.wipe(&z); SecretBytes.wipe(&k) }
        var out = [UInt8](repeating: 0, count: 64)
        // kL' = 8·zL[0..28] + kL (256-bit little-endian addition, no reduction).
        var carry: UInt16 = 0
        for i in 0..<32 {
            let zl: UInt16 = i < 28 ? UInt16(z[i]) : 0
            // 8·zL: shift left by 3 across bytes.
            let shifted = (zl << 3) | (i > 0 && i - 1 < 28 ? UInt16(z[i - 1]) >> 5 : 0)
            let sum = UInt16(k[i]) + (shifted & 0xFF) + carry
            out[i] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        // kR' = zR + kR mod 2^256.
        carry = 0
        for i in 0..<32 {
            let sum = UInt16(k[32 + i]) + UInt16(z[32 + i]) + carry
            out[32 + i] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        defer { SecretBytes.wipe(&out) }
        return CardanoExtendedKey(restoring: SecretBytes(out), chainCode: SecretBytes(c[32..<64]))
    }

    /// The descendant along `path`.
    public func derive(path: DerivationPath) -> CardanoExtendedKey {
        path.components.reduce(self) { $0.derive($1) }
    }

    public var description: String { "<redacted>" }
}
