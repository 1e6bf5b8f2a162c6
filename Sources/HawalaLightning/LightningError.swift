import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// What a payment, or the backend it goes through, refuses: the closed set the payment calls
/// (`LightningSession.prepare`, `LightningWallet.pay`, `prepareOnChain`, `sendOnChain`,
/// `receive`, `withdraw`) throw, each case one line a person can act on. What another family
/// refuses on the way (an LNURL service, a withdrawal's own checks, the wallet's store) is
/// carried whole (`lnurl`, `withdrawal`, `store`), so a caller switches on one type.
public enum LightningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What a backend does not do.
    public enum Unsupported: Equatable, Sendable {
        /// It receives by BOLT11 invoice only.
        case receiveMethod(ReceiveMethod)
        /// It pays Lightning invoices only.
        case onChainAddress
        case uriWithoutInvoice
        /// This is done through another call of `PaymentBackend` (a caller's mistake).
        case otherCall(String)
        /// The session was opened without LNURL access.
        case lnurlWithoutClient
        /// The payment was prepared by another backend (or another session).
        case preparedElsewhere
        /// Test funds: devnet's alone.
        case testFunds

        func description(backend: String) -> String {
            switch self {
            case .receiveMethod(let method): "\(backend) receives by BOLT11 invoice only, not by a \(method.rawValue) address"
            case .onChainAddress: "\(backend) pays Lightning invoices only, not on-chain addresses"
            case .uriWithoutInvoice: "\(backend) pays Lightning invoices only; this bitcoin: URI has no lightning= invoice"
            case .otherCall(let call): "\(backend): this is done with \(call)"
            case .lnurlWithoutClient: "\(backend) was opened without access to LNURL services"
            case .preparedElsewhere: "this payment was not prepared on \(backend)"
            case .testFunds: "test funds exist on devnet only; this wallet's backend is \(backend)"
            }
        }
    }

    /// What a wait was for.
    public enum Awaited: Equatable, Sendable {
        case payment(hash: String)
        case answer
    }

    case notConnected
    /// Devnet: no LNURL server runs on this ledger (its Lightning addresses and vouchers need one).
    case noLNURLServer(ledger: String)
    /// Not a Bitcoin address of the backend's network.
    case wrongAddress(String, network: LightningNetwork, backendName: String = "")
    /// The devnet ledger at `path` can't be opened or read (the system's or SQLite's reason).
    case devnetLedger(path: String, reason: String)
    case amountRequired
    case amountMismatch(invoiceSats: Sats, givenSats: Sats)
    /// A comment for the payee goes only through an LNURL service (LUD-12); this input has none.
    case commentNotAccepted
    /// A request outside a bound every backend keeps (`PaymentLimits`).
    case outOfRange(PaymentLimit)
    case wrongNetwork(invoice: LightningNetwork, backend: LightningNetwork, backendName: String)
    case expired(Date)
    case insufficientBalance(haveMsat: Msat, needMsat: Msat)
    case ownInvoice
    case alreadyPaid
    /// Real bitcoin before the words are checked (`BackupBeforeRealMoney`): nothing was done.
    case backupFirst(wallet: String)
    case unknownDestination(String)
    case feeAboveMaximum(feeMsat: Msat, maximumMsat: Msat)
    /// Something the backend does not do, or was not set up for.
    case unsupported(backend: String, Unsupported)
    /// The backend, or a service it went through, refused: `reason` is its own words.
    case refused(by: String, reason: String)
    /// Nothing came within `after`: the payment awaited (a pending one may still settle), or
    /// the backend's answer.
    case timeout(waitingFor: Awaited, after: Duration)
    /// The backend's network did not answer (or not in time); nothing is known to have failed.
    case unreachable(network: String, reason: String)
    /// The backend's network did not answer and this wallet has never synced with it: no
    /// balance is known (never shown as 0).
    case notSyncedYet(network: String, reason: String)
    /// The backend needs an API key that is not configured.
    case apiKeyRequired(backend: String)
    /// The backend is not part of this build (or its library did not load).
    case backendUnavailable(String)
    /// Whether `error`, thrown by a backend while it was sending, leaves unknown whether the
    /// money went out: no answer in time, the network gone, or the task cancelled meanwhile.
    /// Such a payment stays pending under its key until a sync says what became of it.
    static func noAnswer(_ error: any Error) -> Bool {
        switch error {
        case LightningError.unreachable, LightningError.timeout, LightningError.cancelled, is CancellationError: true
        default: false
        }
    }

    /// Whether a payment call that threw this may still have sent the money: cancelled while
    /// the backend was sending, or the store failing once the backend had answered. What it
    /// reserved (a connection's budget) keeps counting.
    public var mayHaveGoneOut: Bool {
        switch self {
        case .cancelled, .store: true
        default: false
        }
    }

    /// The network did not answer: nothing is known to have failed, what was known stands.
    public var isOffline: Bool {
        switch self {
        case .unreachable, .timeout(waitingFor: .answer, _), .notSyncedYet: true
        default: false
        }
    }

    /// An idempotency key of `bytes` bytes, outside `LightningWallet.idempotencyKeyBytes`.
    case invalidIdempotencyKey(bytes: Int)
    /// The LNURL service paid or withdrawn through refused, or answered something unusable.
    case lnurl(LNURLError)
    /// An on-chain withdrawal's own refusal (balance at the speed, the fee, a link's amount).
    case withdrawal(WithdrawalError)
    /// A hold invoice's refusal (nothing held under that hash, settled already, too late…).
    case hold(HoldInvoiceError)
    /// A Lightning address name refused (malformed, taken) or missing.
    case address(LightningAddressError)
    /// Arithmetic on the amounts left what bitcoin can hold (amount + fee above the supply).
    case amount(AmountError)
    /// The wallet's store could not read or record the payment (a disk or database failure);
    /// nothing about the payment itself.
    case store(WalletError)
    /// The task paying was cancelled before an answer came (the app's request went away): if
    /// the payment had gone out it may still settle.
    case cancelled
    /// A key chosen with a "#" in it: the attempts after a failure are numbered with one.
    case idempotencyKeyWithHash

    public var description: String {
        switch self {
        case .notConnected: "the payment backend is not connected"
        case .noLNURLServer(let ledger): "no devnet LNURL server is running on the ledger \(ledger)"
        case let .wrongAddress(text, network, backend):
            "\"\(text.prefix(100))\" is not an address of \(network.plainName(backend: backend)), whose addresses start with \(network.addressPrefixes)"
                + (LightningNetwork.networkOf(address: text).map { $0 == network ? "" : ": it is for \($0.plainName(backend: ""))" } ?? ": check it was copied whole")
        case let .devnetLedger(path, reason): "cannot use the devnet ledger \(path): \(reason)"
        case .amountRequired: "the invoice has no amount: an amount in sat must be given"
        case let .amountMismatch(invoice, given): "the invoice asks for \(invoice) sat, not \(given)"
        case .commentNotAccepted: "a comment goes only to a Lightning address or an LNURL-pay service"
        case .outOfRange(let limit): limit.description
        case let .wrongNetwork(invoice, backend, name):
            "the invoice is for \(invoice.plainName(backend: "")), and this wallet's Lightning pays on \(backend.plainName(backend: name)) only: ask for an invoice on that network"
        case .expired(let date): "the invoice expired \(date.relative()): ask the payee for a new invoice"
        case let .insufficientBalance(have, need): "insufficient balance: \(satsText(have, .down)) available, \(satsText(need, .up)) needed (amount + fee)"
        case .ownInvoice: "this invoice is this wallet's own"
        case .alreadyPaid: "the invoice has already been paid"
        case .backupFirst(let wallet): BackupBeforeRealMoney.Refusal.backupFirst(wallet: wallet).description
        case .unknownDestination(let node): "unknown destination: no route to node \(node)"
        case let .feeAboveMaximum(fee, maximum): "the fee (\(exactSatsText(fee))) is above the maximum (\(exactSatsText(maximum)))"
        case let .unsupported(backend, what): what.description(backend: backend)
        case let .refused(by, reason): "\(by): \(reason)"
        case let .timeout(.payment(hash), after):
            "no payment for \(hash.prefix(16))… within \(after.components.seconds) s; if one is pending it may still settle"
        case let .timeout(.answer, after): "no answer within \(after.components.seconds) s"
        case let .unreachable(network, reason): "cannot reach the \(network): \(reason)"
        case let .notSyncedYet(network, reason): "not synced yet: cannot reach the \(network) (\(reason))"
        case .apiKeyRequired(let backend): "\(backend) needs a Breez API key (free from Breez: https://breez.technology/request-api-key/)"
        case .backendUnavailable(let why): why
        case .invalidIdempotencyKey(let bytes):
            "an idempotency key has \(LightningWallet.idempotencyKeyBytes.lowerBound) to \(LightningWallet.idempotencyKeyBytes.upperBound) bytes, not \(bytes)"
        case .idempotencyKeyWithHash: "an idempotency key can't contain \"#\" (Hawala numbers the attempts after a failure with it)"
        case .lnurl(let error): error.description
        case .withdrawal(let error): error.description
        case .hold(let error): error.description
        case .address(let error): error.description
        case .amount(let error): error.description
        case .store(let error): error.description
        case .cancelled: "stopped before the answer came; if the payment went out it may still settle"
        }
    }

    /// `error`, thrown on the way by `backend`'s payment call, as this family: the families a
    /// payment passes through are carried whole; anything else the backend threw is its
    /// refusal, in its own words.
    public init(_ error: any Error, backend: String) {
        switch error {
        case let error as LightningError: self = error
        case let error as LNURLError: self = .lnurl(error)
        case let error as WithdrawalError: self = .withdrawal(error)
        case let error as HoldInvoiceError: self = .hold(error)
        case let error as LightningAddressError: self = .address(error)
        case let error as AmountError: self = .amount(error)
        case let error as WalletError: self = .store(error)
        case is CancellationError: self = .cancelled
        default: self = .refused(by: backend, reason: String(describing: error))
        }
    }

    /// Runs a payment step of `backend`, its failures as this family: what a public payment
    /// call wraps its body in, so its signature says what can go wrong.
    static func during<T>(_ backend: String, _ body: () async throws -> T) async throws(LightningError) -> T {
        do { return try await body() } catch { throw LightningError(error, backend: backend) }
    }
}

extension LightningNetwork {
    /// The network as the person chose it: devnet's regtest is "devnet (test money on this
    /// machine)", Spark's is "Spark's test network"; the others by their Bitcoin names.
    public func plainName(backend: String) -> String {
        switch (self, backend) {
        case (.regtest, "devnet"): "devnet (test money on this machine)"
        case (.regtest, "spark"): "Spark's test network (regtest)"
        case (.bitcoin, _): "Bitcoin (real money)"
        case (.testnet, _): "Bitcoin's testnet"
        default: displayName
        }
    }

    /// How its addresses begin.
    public var addressPrefixes: String {
        switch self {
        case .bitcoin: "bc1, 1 or 3"
        case .testnet, .signet: "tb1, m, n or 2"
        case .regtest: "bcrt1"
        case .simnet: "sb1"
        }
    }

    /// The network a Bitcoin address belongs to, when it is one (regtest by its bcrt prefix).
    public static func networkOf(address: String) -> LightningNetwork? {
        let text = address.trimmingCharacters(in: .whitespaces)
        if (try? Bech32.decodeSegwitAddress(text, hrp: "bcrt")) != nil { return .regtest }
        if (try? Address.validate(text, chain: .bitcoin)) != nil { return .bitcoin }
        if (try? Address.validate(text, chain: .bitcoinTestnet)) != nil { return .testnet }
        return nil
    }

    /// How the network is named to a user.
    public var displayName: String {
        switch self {
        case .bitcoin: "bitcoin mainnet"
        case .testnet: "testnet"
        case .regtest: "regtest"
        case .signet: "signet"
        case .simnet: "simnet"
        }
    }
}
