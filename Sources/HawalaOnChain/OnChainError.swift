import HawalaText

/// Why the on-chain wallet refused or could not do something, in words a person reads.
public enum OnChainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is no address of any network Hawala knows.
    case notAnAddress(String, why: String)
    /// The address belongs to another network or chain than the account's.
    case wrongNetwork(address: String, itsNetwork: String, account: String)
    /// An amount below what the network relays.
    case dust(amount: Sats, minimum: Sats, unit: String)
    /// The coins can't pay the amount and the fee.
    case insufficientFunds(needed: Sats, available: Sats, unit: String)
    /// The coins not frozen can't pay; frozen ones would.
    case insufficientUnfrozen(needed: Sats, available: Sats, frozen: Sats, unit: String)
    /// A fee rate outside 1…10,000 per virtual byte.
    case feeRateOutOfRange(UInt64)
    /// An amount or sum past what the type holds.
    case amount(AmountError)
    /// An amount as typed that doesn't read.
    case amountInput(AmountInputError)
    /// No node is saved for this account.
    case noNode(String)
    /// The node answered from another chain or network than the account's.
    case nodeOnWrongNetwork(url: String, nodeSays: String, account: String)
    /// The node could not be reached or did not answer in time.
    case nodeUnreachable(url: String, why: String)
    /// The node's cookie or credentials file can't be read.
    case credentials(String)
    /// The node answered, with an error of its own.
    case nodeRefused(String)
    /// The node's answer made no sense (not JSON, too large, a transaction that doesn't parse).
    case badAnswer(String)
    /// A transaction's bytes don't parse.
    case malformedTransaction(String)
    /// The wallet has no such transaction or coin.
    case unknown(String)
    /// Something this wallet can't do (an account type, a watch-only key).
    case unsupported(String)
    /// The wallet's store failed.
    case storage(String)

    public var description: String {
        switch self {
        case .notAnAddress(let text, let why): "\(Self.short(text)) is not an address (\(why))"
        case .wrongNetwork(let address, let network, let account):
            "\(Self.short(address)) is a \(network) address; this account is on \(account): nothing was sent"
        case .dust(let amount, let minimum, let unit):
            "\(amount) \(unit) is too small to send: the network relays no output below \(minimum) \(unit)"
        case .insufficientFunds(let needed, let available, let unit):
            "not enough coins: this needs \(needed) \(unit) with the fee, and \(available) \(unit) can be spent"
        case .insufficientUnfrozen(let needed, let available, let frozen, let unit):
            "not enough coins: this needs \(AmountText.grouped(needed)) \(unit) with the fee, and \(AmountText.grouped(available)) \(unit) can be spent; \(AmountText.grouped(frozen)) \(unit) more are in frozen coins (unfreeze one to spend it)"
        case .feeRateOutOfRange(let rate): "a fee rate of \(rate) per virtual byte is outside 1 to 10,000"
        case .amount(let error): "\(error)"
        case .amountInput(let error): "\(error)"
        case .noNode(let account): "no node is set up for \(account) yet"
        case .nodeOnWrongNetwork(let url, let says, let account):
            "the node at \(url) is on \(says), but this account is on \(account): nothing was read from it"
        case .nodeUnreachable(let url, let why): "cannot reach the node at \(url): \(why)"
        case .credentials(let why): "cannot log in to the node: \(why)"
        case .nodeRefused(let why): "the node refused: \(why)"
        case .badAnswer(let why): "the node's answer makes no sense: \(why)"
        case .malformedTransaction(let why): "not a valid transaction: \(why)"
        case .unknown(let what): "this wallet has no \(what)"
        case .unsupported(let why): why
        case .storage(let why): "the wallet's store failed: \(why)"
        }
    }

    /// An address as long as a person recognises it, never a whole pasted page.
    static func short(_ text: String) -> String {
        let scalars = text.unicodeScalars
        return scalars.count <= 100 ? "“\(text)”" : "“\(String(String.UnicodeScalarView(scalars.prefix(97))))…”"
    }
}
