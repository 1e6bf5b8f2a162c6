import Foundation
import HawalaCrypto
import HawalaKeys

/// The token a paywall sells (the `macaroon` of an L402 challenge), bound to the invoice's
/// payment hash by an HMAC under the wallet's paywall key, with its caveats inside: the path
/// rule it covers, when it stops working, and how many requests it buys. Nothing in it is
/// secret; without the preimage of its payment hash it buys nothing.
///
/// Layout (85 bytes, then base64): version 1, payment hash 32, path rule digest 8, expiry 8
/// (seconds since 1970, big-endian; 0: none), uses 4 (big-endian; 0: no limit), HMAC-SHA256 32.
public struct PaywallCredential: Sendable, Equatable {
    public let paymentHash: [UInt8]
    public let rule: [UInt8]
    public let expiresAt: Date?
    public let uses: Int?

    static let version: UInt8 = 1
    static let length = 1 + 32 + 8 + 8 + 4 + 32

    /// The token, tagged with `key`.
    func token(key: SecretBytes) -> String {
        let body = self.body
        return Data(body + Hash.hmacSHA256(key: key, Array("hawala paywall v1".utf8) + body)).base64EncodedString()
    }

    var body: [UInt8] {
        var bytes: [UInt8] = [Self.version] + paymentHash + rule
        let expiry = UInt64(max(0, expiresAt?.timeIntervalSince1970.rounded(.up) ?? 0))
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: expiry >> (8 * UInt64($0))) }
        let count = UInt32(uses ?? 0)
        bytes += (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * UInt32($0))) }
        return bytes
    }

    /// The credential `token` stands for, when `key` tagged it; nil for anything else.
    static func read(_ token: String, key: SecretBytes) -> PaywallCredential? {
        guard token.utf8.count <= 256, let data = Data(base64Encoded: token), data.count == length else { return nil }
        let bytes = [UInt8](data)
        let body = Array(bytes.prefix(length - 32))
        let tag = Hash.hmacSHA256(key: key, Array("hawala paywall v1".utf8) + body)
        guard bytes[0] == version, zip(tag, bytes.suffix(32)).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        let expiry = bytes[41..<49].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let uses = bytes[49..<53].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return PaywallCredential(paymentHash: Array(bytes[1..<33]), rule: Array(bytes[33..<41]),
                                 expiresAt: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiry)), uses: uses == 0 ? nil : Int(uses))
    }
}
