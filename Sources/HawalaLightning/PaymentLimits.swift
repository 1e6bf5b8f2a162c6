import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaText
import HawalaWallet

/// Which bound of `PaymentLimits` a request broke.
public enum PaymentLimit: Equatable, Sendable, CustomStringConvertible {
    /// An amount: 1 sat (1 msat for an invoice's own), below the bitcoin supply.
    case amount
    /// An invoice's expiry: `PaymentLimits.expiryRange`.
    case expiry
    /// A description longer than `PaymentLimits.maximumDescriptionBytes`.
    case description
    /// A balance above the bitcoin supply (devnet's funding).
    case balance
    /// An on-chain fee rate outside 1 to 10,000 sat/vB.
    case feeRate
    /// Devnet blocks mined at once: 1 to 1,000.
    case blocks
    /// A Lightning address's description above `LightningAddressInfo.maximumDescriptionScalars`.
    case addressDescription

    public var description: String {
        switch self {
        case .amount: "the amount must be at least 1 sat and less than all the bitcoin there will ever be (20,999,999.9769 BTC)"
        case .expiry: "the expiry must be between 1 second and 1 year"
        case .description: "the description is too long for an invoice: it holds \(PaymentLimits.maximumDescriptionBytes) bytes, about as many plain letters (an accent or an emoji takes 2 to 4)"
        case .balance: "a balance can't exceed all the bitcoin there will ever be (20,999,999.9769 BTC)"
        case .feeRate: "a fee rate is a whole number of sat/vB, from 1 to 10,000"
        case .blocks: "mine 1 to 1,000 blocks at a time"
        case .addressDescription: "the description is longer than \(LightningAddressInfo.maximumDescriptionScalars) characters: payers see a short line"
        }
    }
}

/// Bounds every backend checks the same way.
public enum PaymentLimits {
    /// Invoice expiry: 1 second to 1 year.
    public static let expiryRange: ClosedRange<UInt64> = 1...31_536_000
    /// The longest description a BOLT11 `d` field carries.
    public static let maximumDescriptionBytes = 639

    /// The on-chain fee rates Hawala pays at, sat/vB: claims, refunds, exits — the on-chain
    /// wallet's own bound.
    public static let feeRates: ClosedRange<UInt64> = FeeRate.allowed

    /// Checks a fee rate typed by a person.
    public static func check(feeRate: UInt64) throws(LightningError) {
        guard feeRates.contains(feeRate) else { throw .outOfRange(.feeRate) }
    }

    /// Checks an amount to send, receive or fund: at least 1 sat, less than all the bitcoin there is.
    public static func check(amount: Sats) throws(LightningError) {
        guard amount > .zero, amount < .supply else { throw .outOfRange(.amount) }
    }

    /// Checks a receive request; returns its amount in msat (nil: amountless).
    public static func check(_ request: ReceiveRequest) throws -> Msat? {
        var amountMsat: Msat?
        if let sats = request.amountSats {
            try check(amount: sats)
            amountMsat = sats.msat
        }
        guard expiryRange.contains(request.expirySeconds) else {
            throw LightningError.outOfRange(.expiry)
        }
        guard request.description.utf8.count <= maximumDescriptionBytes else {
            throw LightningError.outOfRange(.description)
        }
        return amountMsat
    }
}
