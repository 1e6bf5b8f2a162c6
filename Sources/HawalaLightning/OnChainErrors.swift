import HawalaText

/// Why a deposit (bitcoin sent on-chain to the wallet's deposit address) can't be read, claimed
/// or refunded as asked.
public enum DepositError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not TXID:VOUT.
    case invalidOutpoint(String)
    /// Not a claim fee cap (network, N/vB, N sats).
    case invalidClaimFeePolicy(String)
    /// No deposit of the wallet's at this outpoint.
    case unknownDeposit(String)
    /// Devnet: not one of its deposit addresses.
    case notADevnetAddress(String)
    /// The deposit can't be claimed or refunded in its state (its words).
    case depositNotAvailable(String, state: String)
    /// A refusal shared with payments on the way: an address of another network, a fee rate
    /// out of bounds, the backend unreachable or refusing.
    case lightning(LightningError)

    /// `error`, thrown on the way by `backend`, as this family.
    public init(_ error: any Error, backend: String) {
        if let error = error as? DepositError { self = error } else { self = .lightning(LightningError(error, backend: backend)) }
    }

    public var description: String {
        switch self {
        case .invalidOutpoint(let text): "\"\(text.prefix(80))\" is not a deposit: TXID:VOUT (64 hex digits, a colon, the output number)"
        case .invalidClaimFeePolicy(let text):
            "\"\(text.prefix(40))\" is not a claim fee cap: network (the recommended rate + 1 sat/vB), network+N, N/vB (a rate), or N (sats in all)"
        case .unknownDeposit(let outpoint): "no deposit \(outpoint) to this wallet"
        case .notADevnetAddress(let text): "\"\(text.prefix(100))\" is not a devnet deposit address (a wallet's, from its receive with bitcoin)"
        case let .depositNotAvailable(outpoint, state): "deposit \(outpoint) is \(state)"
        case .lightning(let error): error.description
        }
    }
}

/// Why a withdrawal (a payment to a Bitcoin address) can't be sent as asked.
public enum WithdrawalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The balance does not cover the amount and the fee at this speed, or what would be sent is
    /// below dust.
    case insufficientOnChainBalance(neededSat: Sats, balanceSat: Sats, speed: String)
    /// Everything was asked for, and the balance less the fee is below dust.
    case nothingToSend(balanceSat: Sats, feeSat: Sats, speed: String)
    /// A bitcoin: link asks for `linkSats`; another amount (nil: everything) was asked.
    case linkAmountMismatch(linkSats: Sats, givenSats: Sats?)
    /// The fee at this speed is above the maximum the person set.
    case feeAboveMaximum(feeSat: Sats, maximumSat: Sats)
    /// The backend offers no price at this speed.
    case speedNotOffered(OnChainSpeed)

    public var description: String {
        switch self {
        case let .insufficientOnChainBalance(needed, balance, speed):
            needed < OnChainQuote.dustSat
                ? "an on-chain payment must send at least \(AmountText.sats(OnChainQuote.dustSat)) (less is dust, which no node relays)"
                : "the balance (\(AmountText.sats(balance))) does not cover \(AmountText.sats(needed)) (the amount and the \(speed) fee)"
        case let .nothingToSend(balance, fee, speed):
            "nothing to send: the balance (\(AmountText.sats(balance))) less the \(speed) fee (\(AmountText.sats(fee))) is below \(AmountText.sats(OnChainQuote.dustSat))"
        case let .linkAmountMismatch(link, given):
            "the bitcoin: link asks for \(AmountText.sats(link)), not " + (given.map { "\(AmountText.sats($0))" } ?? "everything") + ": the payee set it"
        case let .feeAboveMaximum(fee, maximum): LightningError.feeAboveMaximum(feeMsat: fee.msat, maximumMsat: maximum.msat).description
        case .speedNotOffered(let speed): "this backend offers no \(speed.rawValue) speed for an on-chain payment"
        }
    }
}

/// Why the wallet can't leave Spark without its operators (yet).
public enum ExitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exit planned recovers nothing (why: a leaf's reason, or none kept with funds).
    case nothingToRecover(String)
    /// The exit needs `fundingSat` from an on-chain output of the wallet's own for its fees,
    /// and no confirmed coin of the wallet's on-chain Bitcoin holds that much.
    case exitNeedsFunding(fundingSat: Sats)
    /// The wallet keeps no exit state for this network yet (it is kept at each sync).
    case noExitState(network: String)
    /// An exit state that does not read (altered, or another backend's).
    case invalidExitState(String)
    /// A refusal shared with payments on the way: an address of another network, a fee rate
    /// out of bounds, the backend unreachable or refusing, the wallet's store failing.
    case lightning(LightningError)

    /// `error`, thrown on the way by `backend`, as this family.
    public init(_ error: any Error, backend: String) {
        if let error = error as? ExitError { self = error } else { self = .lightning(LightningError(error, backend: backend)) }
    }

    public var description: String {
        switch self {
        case .nothingToRecover(let why): "nothing to take out: \(why)"
        case .exitNeedsFunding(let sats):
            "this exit needs a confirmed on-chain Bitcoin coin of your own of at least \(AmountText.sats(sats)) to pay its fees"
        case .noExitState(let network):
            "no exit state is kept for \(network) yet: it is kept at each sync (sync once while the network answers)"
        case .invalidExitState(let why): "the exit state does not read: \(why)"
        case .lightning(let error): error.description
        }
    }
}
