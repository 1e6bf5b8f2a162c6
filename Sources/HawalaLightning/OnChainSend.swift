import Foundation
import HawalaText
import HawalaWallet

/// How much an on-chain withdrawal sends: an amount (the fee comes on top), or everything (the
/// fee comes out of it, and nothing stays).
public enum OnChainAmount: Sendable, Equatable {
    case sats(Sats)
    case all
}

extension OnChainAmount {
    /// What a person asked to send: everything, else the amount typed, else the bitcoin: URI's;
    /// nil when none was given (the faces ask for one).
    /// - Throws: `WithdrawalError.linkAmountMismatch` when the link asks for an amount and
    ///   another (or everything) was asked: a link's amount is the payee's, never overridden.
    public static func chosen(all: Bool, typed: Sats?, fromURI: Sats?) throws(WithdrawalError) -> OnChainAmount? {
        if let asked = fromURI, all || (typed != nil && typed != asked) {
            throw .linkAmountMismatch(linkSats: asked, givenSats: all ? nil : typed)
        }
        if all { return .all }
        return (typed ?? fromURI).map { .sats($0) }
    }
}

/// A withdrawal to a Bitcoin address, priced at each speed. Nothing is sent yet.
public struct OnChainQuote: Sendable, JSONRepresentable {
    /// One speed's figures.
    public struct Option: Sendable, Equatable {
        public let speed: OnChainSpeed
        /// What the address receives.
        public let amountSat: Sats
        public let feeSat: Sats
        /// What leaves the wallet: amount + fee (at most the supply: a sum beyond it is never
        /// affordable, and is refused before it could be sent).
        public var totalSat: Sats { (try? amountSat + feeSat) ?? .supply }
        /// What the wallet keeps after it.
        public let remainingSat: Sats
        /// Whether the balance covers it (and it is above dust).
        public let affordable: Bool

        public init(speed: OnChainSpeed, amountSat: Sats, feeSat: Sats, remainingSat: Sats, affordable: Bool) {
            self.speed = speed
            self.amountSat = amountSat
            self.feeSat = feeSat
            self.remainingSat = remainingSat
            self.affordable = affordable
        }
    }

    public let address: String
    public let amount: OnChainAmount
    public let balanceSat: Sats
    /// Fast, medium, slow.
    public let options: [Option]
    /// The backend's own quote, handed back to send (Spark: the SDK's prepared payment).
    public let backendQuote: (any Sendable)?

    public init(address: String, amount: OnChainAmount, balanceSat: Sats, options: [Option], backendQuote: (any Sendable)? = nil) {
        self.address = address
        self.amount = amount
        self.balanceSat = balanceSat
        self.options = options
        self.backendQuote = backendQuote
    }

    /// The figures at `speed`.
    public func option(_ speed: OnChainSpeed) -> Option? { options.first { $0.speed == speed } }

    /// The figures at `speed`, refused when the balance does not cover them, or when the fee is
    /// above `maxFeeSats`.
    public func affordable(_ speed: OnChainSpeed, maxFeeSats: Sats? = nil) throws(WithdrawalError) -> Option {
        guard let option = option(speed) else { throw .speedNotOffered(speed) }
        if let maxFeeSats, option.feeSat > maxFeeSats {
            throw .feeAboveMaximum(feeSat: option.feeSat, maximumSat: maxFeeSats)
        }
        guard option.affordable else {
            if amount == .all { throw .nothingToSend(balanceSat: balanceSat, feeSat: option.feeSat, speed: speed.rawValue) }
            if option.amountSat < OnChainQuote.dustSat { throw .insufficientOnChainBalance(neededSat: option.amountSat, balanceSat: balanceSat, speed: speed.rawValue) }
            throw .insufficientOnChainBalance(neededSat: option.totalSat, balanceSat: balanceSat, speed: speed.rawValue)
        }
        return option
    }

    /// Prices a withdrawal of `amount` from `balanceSat` at each speed's fee (`feeSat`): what an
    /// amount leaves, or what everything less the fee sends. Below `dustSat` nothing is sent.
    public static func price(address: String, amount: OnChainAmount, balanceSat: Sats, dustSat: Sats = OnChainQuote.dustSat,
                             fees: [(OnChainSpeed, Sats)], backendQuote: (any Sendable)? = nil) -> OnChainQuote {
        let options = fees.map { speed, fee -> Option in
            switch amount {
            case .sats(let sats):
                let total = try? sats + fee
                let remaining = total.flatMap { try? balanceSat - $0 }
                let ok = remaining != nil && sats >= dustSat
                return Option(speed: speed, amountSat: sats, feeSat: fee, remainingSat: remaining ?? .zero, affordable: ok)
            case .all:
                let sent = balanceSat.minusOrZero(fee)
                return Option(speed: speed, amountSat: sent, feeSat: fee, remainingSat: .zero, affordable: sent >= dustSat)
            }
        }
        return OnChainQuote(address: address, amount: amount, balanceSat: balanceSat, options: options, backendQuote: backendQuote)
    }

    /// What a person compares before choosing a speed: for each, the fee, the total, and what
    /// stays (or why it can't be sent).
    public func previewRows() -> [(label: String, value: String)] {
        options.map { o in
            guard o.affordable else {
                let belowDust = amount == .all || o.amountSat < OnChainQuote.dustSat
                return (o.speed.rawValue, belowDust
                        ? "not possible: what would arrive is below \(AmountText.sats(OnChainQuote.dustSat))"
                        : "not possible: needs \(AmountText.sats(o.totalSat)), the balance is \(AmountText.sats(balanceSat))")
            }
            return (o.speed.rawValue, "\(AmountText.sats(o.amountSat)) arrives · fee \(AmountText.sats(o.feeSat)) · "
                    + "\(AmountText.sats(o.totalSat)) in total · \(AmountText.sats(o.remainingSat)) stays")
        }
    }

    /// The question asked before sending at `speed`.
    public func confirmation(_ speed: OnChainSpeed) -> String {
        guard let o = option(speed) else { return "Send?" }
        return "Send \(AmountText.sats(o.amountSat)) to \(address.prefix(12))…\(address.suffix(6)) at \(speed.rawValue) speed "
            + "(fee \(AmountText.sats(o.feeSat)), \(AmountText.sats(o.totalSat)) in total)?"
    }

    /// Outputs below this are not relayed.
    public static let dustSat: Sats = 546
    /// The size of a withdrawal transaction, for a rate's fee (one input, two outputs).
    public static let withdrawalVbytes: UInt64 = 141

    /// `{address, all, balanceSat, options: [{speed, amountSat, feeSat, totalSat, remainingSat, affordable}]}`
    public var json: JSONValue {
        .object([
            ("address", .string(address)), ("all", .bool(amount == .all)), ("balanceSat", .amount(balanceSat)),
            ("options", .array(options.map { o in
                .object([("speed", .string(o.speed.rawValue)), ("amountSat", .amount(o.amountSat)), ("feeSat", .amount(o.feeSat)),
                         ("totalSat", .amount(o.totalSat)), ("remainingSat", .amount(o.remainingSat)), ("affordable", .bool(o.affordable))])
            })),
        ])
    }
}

extension PaymentInput {
    /// The Bitcoin address this input pays on-chain, and the amount its URI asks for: a bare
    /// address, or a bitcoin: URI without a Lightning invoice. nil for anything paid over
    /// Lightning.
    public var onChainTarget: (address: String, amountSats: Sats?)? {
        switch self {
        case .bitcoinAddress(let address, _): (address, nil)
        case .bitcoinURI(let uri) where uri.lightning == nil && !uri.address.isEmpty: (uri.address, uri.amountSats)
        default: nil
        }
    }
}

extension LightningWallet {
    /// Prices a withdrawal of `amount` to `address` at each speed (nothing is sent); the
    /// address must be of the backend's network.
    public func prepareOnChain(address: String, amount: OnChainAmount) async throws(LightningError) -> OnChainQuote {
        try checkBackupBeforeRealMoney()
        try backend.network.checkBitcoinAddress(address, backend: backend.name)
        if case .sats(let sats) = amount, sats == 0 { throw .outOfRange(.amount) }
        return try await LightningError.during(backend.name) {
            try await backend.prepareOnChainSend(address: address.trimmingCharacters(in: .whitespaces), amount: amount)
        }
    }

}
