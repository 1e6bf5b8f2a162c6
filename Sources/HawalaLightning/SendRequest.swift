import HawalaCrypto
import HawalaKeys
import HawalaText

/// What a person asked to send, checked once for both faces: what was pasted (read), the amount
/// typed, "everything", a comment, an on-chain speed, a fee cap and a chosen key. The CLI and the
/// app build one and act on its `route`; neither checks these rules itself.
public struct SendRequest: Sendable {
    /// Where the money goes.
    public enum Route: Sendable, Equatable {
        /// Over Lightning (an invoice, a Lightning address, an LNURL); `comment` only for an
        /// LNURL-pay service.
        case lightning(comment: String?)
        /// On-chain to `address`, a withdrawal. It has no invoice to key it, so `key` is the
        /// chosen one or a new one: kept with a preview, a second click never sends twice.
        case onChain(address: String, amount: OnChainAmount, key: String)
    }

    public let input: PaymentInput
    public let route: Route
    /// The amount typed (an amountless invoice, an LNURL, a withdrawal).
    public let amount: Sats?
    /// The on-chain speed asked for; nil lets the quote choose (`OnChainQuote.defaultSpeed`).
    public let speed: OnChainSpeed?
    /// Refuse when the fee is above this.
    public let maxFee: Sats?
    /// The key chosen by the person; nil for the default (a Lightning invoice's payment hash).
    public let chosenKey: String?

    /// Checks what was asked, before any password or network.
    /// - Throws: `SendRequestError`, the first rule broken.
    public init(input: PaymentInput, amount: Sats? = nil, everything: Bool = false, comment: String? = nil,
                speed: OnChainSpeed? = nil, maxFee: Sats? = nil, idempotencyKey: String? = nil) throws(SendRequestError) {
        if let idempotencyKey {
            do { try LightningWallet.checkIdempotencyKey(idempotencyKey) } catch { throw .invalidIdempotencyKey(error.description) }
        }
        if amount == .zero { throw .amountIsZero }
        if everything && amount != nil { throw .amountAndEverything }
        let comment = comment?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
        if let target = input.onChainTarget {
            if comment != nil { throw .commentNotAccepted }
            let chosen: OnChainAmount?
            do { chosen = try OnChainAmount.chosen(all: everything, typed: amount, fromURI: target.amountSats) } catch {
                guard case let .linkAmountMismatch(linkSats, givenSats) = error else { throw .amountMissing }
                throw .linkAmountMismatch(linkSats: linkSats, givenSats: givenSats)
            }
            guard let chosen else { throw .amountMissing }
            route = .onChain(address: target.address, amount: chosen, key: idempotencyKey ?? Self.newWithdrawalKey())
        } else {
            if everything { throw .everythingNeedsAddress }
            if speed != nil { throw .speedNeedsAddress }
            if comment != nil && !input.isLNURL { throw .commentNotAccepted }
            route = .lightning(comment: comment)
        }
        self.input = input
        self.amount = amount
        self.speed = speed
        self.maxFee = maxFee
        self.chosenKey = idempotencyKey
    }

    /// A withdrawal's key when none is chosen: `onchain:` and 16 random bytes in hex.
    static func newWithdrawalKey() -> String { "onchain:" + hexString(SystemRandom.bytes(16)) }
}

/// Why a send request was refused before anything was prepared.
public enum SendRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    case amountIsZero
    /// An amount and "everything" both.
    case amountAndEverything
    /// "Everything" for something that is not a Bitcoin address.
    case everythingNeedsAddress
    /// A speed for something that is not a Bitcoin address.
    case speedNeedsAddress
    /// A comment for an invoice or a Bitcoin address.
    case commentNotAccepted
    /// A withdrawal with no amount and not "everything".
    case amountMissing
    /// A bitcoin: link asks for `linkSats`, and another amount (nil: everything) was asked.
    case linkAmountMismatch(linkSats: Sats, givenSats: Sats?)
    case invalidIdempotencyKey(String)

    public var description: String {
        switch self {
        case .amountIsZero: "the amount must be at least 1 sat"
        case .amountAndEverything: "give an amount or send everything, not both"
        case .everythingNeedsAddress: "sending everything is for a Bitcoin address (an on-chain withdrawal)"
        case .speedNeedsAddress: "a speed is for a Bitcoin address (an on-chain withdrawal)"
        case .commentNotAccepted: LightningError.commentNotAccepted.description
        case .amountMissing: "how much? give an amount, or send the whole balance"
        case let .linkAmountMismatch(link, given): WithdrawalError.linkAmountMismatch(linkSats: link, givenSats: given).description
        case .invalidIdempotencyKey(let why): why
        }
    }
}

extension OnChainQuote {
    /// The speed a withdrawal goes at when none is chosen: medium when the balance covers it,
    /// else the fastest it covers (medium when it covers none: its refusal is the one said).
    public var defaultSpeed: OnChainSpeed {
        if option(.medium)?.affordable == true { return .medium }
        return options.first { $0.affordable }?.speed ?? .medium
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
