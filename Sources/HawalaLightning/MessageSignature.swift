import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// A message signed with a wallet's Lightning identity key, as the Spark SDK signs one: ECDSA
/// over SHA-256 of the message's UTF-8, the signature hex (DER, or 64-byte compact r ‖ s).
public struct SignedMessage: Sendable, Equatable, JSONRepresentable {
    public let message: String
    /// The signer's compressed public key, hex.
    public let publicKey: String
    /// The signature, hex.
    public let signature: String

    public init(message: String, publicKey: String, signature: String) {
        self.message = message
        self.publicKey = publicKey
        self.signature = signature
    }

    /// `{message, pubkey, signature}`.
    public var json: JSONValue {
        .object([("message", .string(message)), ("pubkey", .string(publicKey)), ("signature", .string(signature))])
    }
}

/// Why a message can't be signed or checked.
public enum MessageSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Longer than `MessageSignature.maximumBytes`.
    case tooLong(bytes: Int)
    case empty
    /// Prefixes the Spark SDK keeps for its own requests (a Lightning address server's, a
    /// rewards service's): signing one could act in the wallet's name.
    case reserved(String)
    case invalidPublicKey
    case invalidSignature

    public var description: String {
        switch self {
        case .tooLong(let bytes): "the message is \(bytes) bytes; at most \(MessageSignature.maximumBytes) are signed"
        case .empty: "there is no message to sign"
        case .reserved(let prefix): "messages starting with \"\(prefix)\" are reserved for the wallet's own requests; not signed"
        case .invalidPublicKey: "the public key is not a compressed secp256k1 key in hex (66 characters)"
        case .invalidSignature: "the signature is not hex of a DER or 64-byte compact signature"
        }
    }
}

/// The rules of signing and checking a message, the same on every backend.
public enum MessageSignature {
    public static let maximumBytes = 64 * 1024
    static let reservedPrefixes = ["breez-lnurl:", "kind: rewards_endorsement"]

    /// Checks `message` may be signed: not empty, not too long, not reserved.
    public static func check(_ message: String) throws(MessageSignatureError) {
        guard !message.isEmpty else { throw .empty }
        guard message.utf8.count <= maximumBytes else { throw .tooLong(bytes: message.utf8.count) }
        if let prefix = reservedPrefixes.first(where: message.hasPrefix) { throw .reserved(prefix) }
    }

    /// Signs `message` with `privateKey` (DER, hex).
    public static func sign(_ message: String, privateKey: SecretBytes) throws -> SignedMessage {
        try check(message)
        let signature = try Secp256k1.signDER(digest: Hash.sha256(Array(message.utf8)), privateKey: privateKey)
        return SignedMessage(message: message, publicKey: hexString(try Secp256k1.PublicKey(privateKey: privateKey).compressed),
                             signature: hexString(signature))
    }

    /// Whether `signature` (hex: DER or compact) over `message` was made by `publicKey` (hex).
    /// - Throws: when the key or the signature is not even well formed.
    public static func verify(_ message: String, publicKey: String, signature: String) throws(MessageSignatureError) -> Bool {
        guard publicKey.count == 66, let keyBytes = bytes(fromHex: publicKey), let key = try? Secp256k1.PublicKey(sec1: keyBytes) else {
            throw .invalidPublicKey
        }
        guard signature.count <= 144, let sig = bytes(fromHex: signature), !sig.isEmpty else { throw .invalidSignature }
        let digest = Hash.sha256(Array(message.utf8))
        if sig.count == 64 { return Secp256k1.verify(compact: sig, digest: digest, publicKey: key) }
        guard sig.first == 0x30 else { throw .invalidSignature }
        return Secp256k1.verify(der: sig, digest: digest, publicKey: key)
    }
}
