import HawalaCrypto

/// Why a BOLT11 invoice was refused. Each case is one line for the user.
public enum Bolt11Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Bech32 layer failed (checksum, mixed case, missing separator, bad character…).
    case bech32(Bech32.Error)
    /// The human-readable part does not start with `ln`.
    case notAnInvoice
    case tooLong(limit: Int)
    case unknownNetwork(String)
    case invalidAmount(String)
    case invalidMultiplier(Character)
    /// A pico-bitcoin amount that is not a whole number of millisatoshis.
    case subMillisatoshiAmount
    /// Shorter than a timestamp and a signature.
    case tooShort
    /// No public key produces this signature, or it does not verify against the `n` field.
    case invalidSignature
    case missingPaymentHash
    /// No valid `s` field (BOLT11 requires the payment secret).
    case missingPaymentSecret
    /// Neither a `d` nor an `h` field.
    case missingDescription
    /// Both a `d` and an `h` field.
    case descriptionAndHash
    /// An `f` field of a known version that breaks its address rules (BIP141, BIP341, Base58).
    case invalidFallback(String)
    case invalidDescription
    /// An even (compulsory) feature bit this wallet does not know.
    case unknownRequiredFeature(Int)
    case malformedField(String)

    public var description: String {
        switch self {
        case .bech32(let e): "not a valid invoice: Bech32 \(e)"
        case .notAnInvoice: "not a Lightning invoice (it must start with ln)"
        case .tooLong(let limit): "the invoice is longer than \(limit) characters"
        case .unknownNetwork(let n): "unknown Lightning network prefix \"\(n)\""
        case .invalidAmount(let why): "invalid amount: \(why)"
        case .invalidMultiplier(let c): "invalid amount multiplier \"\(c)\" (m, u, n or p)"
        case .subMillisatoshiAmount: "the amount is not a whole number of millisatoshis"
        case .tooShort: "the invoice is too short to hold a timestamp and a signature"
        case .invalidSignature: "the invoice's signature is invalid"
        case .missingPaymentHash: "the invoice has no payment hash"
        case .missingPaymentSecret: "the invoice has no payment secret (s field), which BOLT11 requires"
        case .missingDescription: "the invoice has neither a description nor a description hash"
        case .descriptionAndHash: "the invoice has both a description and a description hash"
        case .invalidFallback(let why): "invalid fallback address: \(why)"
        case .invalidDescription: "the description is not valid UTF-8"
        case .unknownRequiredFeature(let bit): "the invoice requires unknown feature \(bit)"
        case .malformedField(let why): "malformed field: \(why)"
        }
    }
}
