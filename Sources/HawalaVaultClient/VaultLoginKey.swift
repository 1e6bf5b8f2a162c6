import Foundation
import HawalaCrypto

/// The key a wallet logs in to one vault with when it has nothing but its words: an Ed25519
/// key made from the wallet's BIP32 seed for that vault's origin alone (as LNURL-auth makes one
/// per domain), so two vaults can't link a wallet by it, and a signature for one is worth
/// nothing at another. Bound to the account at an ordinary login (`VaultClient.bindLoginKey`);
/// after a device is lost, `wallet restore` brings the words back and the same key signs in.
///
/// Derivation: k = HMAC-SHA512(key: "hawala vault login", data: seed)[0..<32];
/// private seed = HMAC-SHA256(key: k, data: origin), origin as `origin(of:)` writes it.
public struct VaultLoginKey: Sendable {
    private let privateSeed: SecretBytes
    /// The public key the vault binds (32 bytes).
    public let publicKey: [UInt8]

    public init(seed: SecretBytes, vault: URL) {
        let k = seed.withUnsafeBytes { Hash.hmacSHA512Secret(key: Array("hawala vault login".utf8), $0) }.slice(0..<32)
        privateSeed = SecretBytes(Hash.hmacSHA256(key: k, Array(VaultLoginKey.origin(of: vault).utf8)))
        publicKey = Ed25519.publicKey(seed: privateSeed)
    }

    /// The signature of `message` (a words login's: `WordsLogin.message`).
    public func sign(_ message: Data) -> [UInt8] { Ed25519.sign(Array(message), seed: privateSeed) }

    /// `scheme://host[:port]`, lower-case, the default port left out: the same vault whatever
    /// path or letter case its URL was typed with.
    public static func origin(of url: URL) -> String {
        let scheme = (url.scheme ?? "https").lowercased()
        let host = (url.host ?? "").lowercased()
        let port = url.port.flatMap { (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0 }
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (port.map { ":\($0)" } ?? "")
    }
}
