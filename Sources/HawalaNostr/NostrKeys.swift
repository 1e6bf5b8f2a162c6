import Foundation
import HawalaCrypto
import HawalaText

/// A Nostr key pair: a secp256k1 private key and its x-only public key (BIP-340), as NIP-01
/// names people and programs. The secret stays in `SecretBytes`.
public struct NostrKeys: Sendable {
    public let secret: SecretBytes
    /// The 32-byte x-only public key.
    public let publicKey: [UInt8]

    /// - Throws: `Secp256k1.Error.invalidPrivateKey`.
    public init(secret: SecretBytes) throws(Secp256k1.Error) {
        self.secret = secret
        publicKey = try Schnorr.xOnlyPublicKey(privateKey: secret)
    }

    /// A fresh key pair from the system's randomness.
    public static func generate() -> NostrKeys {
        while true {
            let candidate = SecretBytes(SystemRandom.bytes(32))
            if let keys = try? NostrKeys(secret: candidate) { return keys }
        }
    }

    /// The public key in lower-case hex, as events and URIs carry it.
    public var publicKeyHex: String { NostrHex.encode(publicKey) }
}

/// Lower-case hex, as Nostr writes ids, keys and signatures.
public enum NostrHex {
    public static func encode(_ bytes: [UInt8]) -> String { hexString(bytes) }

    /// The bytes of `text` when it is exactly `count` bytes of hex (either case); nil otherwise.
    public static func decode(_ text: String, count: Int) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == count * 2 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(count)
        var i = 0
        while i < utf8.count {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
}
