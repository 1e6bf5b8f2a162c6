import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaKeys
import HawalaWallet

/// The payment engine behind Hawala's Lightning wallet, shaped like the Breez Spark SDK (see
/// docs/decisions/0003-lightning-payment-backend.md and 0004-spark-sdk-backend.md for the mapping). The layers above keep the
/// rules whatever the backend: pending is not final, one idempotency key never pays twice, the
/// fee is shown before confirming.
public protocol PaymentBackend: AnyObject, Sendable {
    /// The name a user sees ("devnet" for the development backend).
    var name: String { get }
    /// The network the backend's invoices are for.
    var network: LightningNetwork { get }

    /// Connects with the wallet's keys; the node key is derived from them.
    func connect(_ request: ConnectRequest) async throws
    /// Stops listening; events stop.
    func disconnect() async
    /// Brings the backend's view up to date and emits `.synced`.
    func sync() async throws
    /// The node id and balance.
    func getInfo() async throws -> NodeInfo
    /// What `input` is (BOLT11, Lightning address, LNURL, BIP21 URI, Bitcoin address).
    func parse(_ input: String) async throws -> PaymentInput
    /// Checks an invoice can be paid and computes the fee, without paying.
    func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse
    /// Pays a prepared invoice. The same `idempotencyKey` never pays twice: a repeated call
    /// returns the first payment.
    func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> Payment
    /// Fetches and checks an LNURL-pay invoice (LUD-06/12/16), then prepares paying it.
    func prepareLnurlPay(_ request: PrepareLnurlPayRequest) async throws -> PrepareLnurlPayResponse
    /// Pays a prepared LNURL-pay invoice (idempotent like `sendPayment`).
    func lnurlPay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String) async throws -> Payment
    /// Creates a BOLT11 invoice signed by this node.
    func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse
    /// Payments of this node, newest first.
    func listPayments(_ filter: PaymentFilter) async throws -> [Payment]
    /// One payment by id.
    func getPayment(id: String) async throws -> Payment?
    /// Bitcoin prices in fiat currencies.
    func listFiatRates() async throws -> [FiatRate]
    /// On-chain fee rates in sat/vB.
    func recommendedFees() async throws -> RecommendedFees
    /// An address to be paid at by another method than a BOLT11 invoice (a Spark address, an
    /// on-chain deposit address), for backends that have one.
    func receiveAddress(_ method: ReceiveMethod) async throws -> String
    /// Signs `message` with the node's identity key (`MessageSignature`: SHA-256, DER).
    func signMessage(_ message: String) async throws -> SignedMessage
    /// How the backend's network reports itself now; nil when it does not say (devnet) or
    /// can't be asked.
    func networkStatus() async -> NetworkStatus?
    /// The most a deposit's claim may cost, from now on (the wallet's setting).
    func setClaimFeePolicy(_ policy: ClaimFeePolicy)
    /// A deposit address never given before.
    func newDepositAddress() async throws -> String
    /// Deposits to the wallet's addresses not claimed yet, and recent ones.
    func listDeposits() async throws -> [Deposit]
    /// Claims one deposit under `policy` (a higher cap than the wallet's, say).
    func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit
    /// Sends one unclaimed deposit to `address` (of the backend's network) at `satPerVbyte`.
    func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit
    /// The wallet's Lightning address (LUD-16), nil when it has none.
    func lightningAddress() async throws -> LightningAddressInfo?
    /// Whether `name` (checked: `LightningAddressInfo.checkName`) is free, or this wallet's.
    func isLightningAddressAvailable(_ name: String) async throws -> Bool
    /// Registers `name` as the wallet's Lightning address (replacing its earlier one).
    /// - Throws: `LightningError.addressTaken` when another wallet holds it.
    func registerLightningAddress(name: String, description: String) async throws -> LightningAddressInfo
    /// Gives the wallet's Lightning address up.
    func deleteLightningAddress() async throws
    /// Prices a withdrawal to a Bitcoin address at each speed (nothing is sent).
    func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote
    /// Sends a priced withdrawal at `speed` (at most once per key); the pending payment, with its txid.
    func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment
    /// Everything needed to leave without the operators, as of now; nil when the backend has none.
    func exportExitState() async throws -> ExitSnapshot?
    /// Gives the backend a kept exit state (from this device or a backup).
    func importExitState(_ state: SecretBytes) async throws
    /// Plans leaving with the kept state at `satPerVbyte`, sending what is recovered to `destination`.
    func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan
    /// Builds (and signs) a planned exit: its transactions in broadcast order.
    func runExit(_ plan: ExitPlan) async throws -> [ExitTransaction]
    /// Calls `listener` with every event from now on; returns an id for `removeEventListener`.
    func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String
    func removeEventListener(_ id: String)
}

/// How a payment is to be received.
public enum ReceiveMethod: String, Sendable, CaseIterable {
    /// A BOLT11 invoice (any Lightning wallet can pay it).
    case bolt11
    /// The wallet's Spark address (Spark wallets pay it without Lightning fees).
    case spark
    /// An on-chain Bitcoin deposit address.
    case bitcoin
}

/// The health a payment network reports of itself (the Spark SDK's status of its operators).
public enum NetworkStatus: String, Sendable, CaseIterable {
    case operational, degraded, partial, major, unknown

    /// One line for a person when something is wrong; nil when all is well or unknown.
    public func warning(network: String) -> String? {
        switch self {
        case .operational, .unknown: nil
        case .degraded: "the \(network) reports degraded service: payments may be slow"
        case .partial: "the \(network) reports a partial outage: some payments may fail; what you hold is safe"
        case .major: "the \(network) reports a major outage: payments may fail until it recovers; what you hold is safe"
        }
    }
}

extension PaymentBackend {
    public func setClaimFeePolicy(_ policy: ClaimFeePolicy) {}
    public func newDepositAddress() async throws -> String { try await receiveAddress(.bitcoin) }
    public func listDeposits() async throws -> [Deposit] {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }
    public func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }
    public func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit {
        throw LightningError.unsupported(backend: name, .otherCall("deposits"))
    }

    public func lightningAddress() async throws -> LightningAddressInfo? {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func isLightningAddressAvailable(_ name: String) async throws -> Bool {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func registerLightningAddress(name: String, description: String) async throws -> LightningAddressInfo {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }
    public func deleteLightningAddress() async throws {
        throw LightningError.unsupported(backend: name, .otherCall("lightning addresses"))
    }

    /// Backends that do not report their network's health.
    public func networkStatus() async -> NetworkStatus? { nil }
    public func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote {
        throw LightningError.unsupported(backend: name, .onChainAddress)
    }
    public func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment {
        throw LightningError.unsupported(backend: name, .onChainAddress)
    }
    public func exportExitState() async throws -> ExitSnapshot? { nil }
    public func importExitState(_ state: SecretBytes) async throws {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }
    public func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }
    public func runExit(_ plan: ExitPlan) async throws -> [ExitTransaction] {
        throw LightningError.unsupported(backend: name, .otherCall("exit"))
    }

    /// Backends without an identity key to sign with say so.
    public func signMessage(_ message: String) async throws -> SignedMessage {
        throw LightningError.unsupported(backend: name, .otherCall("signMessage"))
    }

    /// Backends without other receive methods say so.
    public func receiveAddress(_ method: ReceiveMethod) async throws -> String {
        throw LightningError.unsupported(backend: name, .receiveMethod(method))
    }
}

/// What `connect` needs: the wallet's secret (words and passphrase, or a bare seed) and a
/// directory the backend may keep its own files in.
public struct ConnectRequest: Sendable {
    /// The HD keys (devnet derives its node key from them).
    public let keys: HDWallet
    /// The BIP32 seed: the BIP39 seed of the words and passphrase, or a SLIP-39 master secret.
    /// The Spark SDK derives its keys from it (the same keys as from the words).
    public let seed: SecretBytes
    public let storageDirectory: URL
    public init(secret: WalletSecret, storageDirectory: URL) {
        keys = secret.keys
        seed = secret.seed
        self.storageDirectory = storageDirectory
    }
}

public struct NodeInfo: Sendable, Equatable {
    /// Hex of the node's compressed public key.
    public let nodeID: String
    public let balanceMsat: Msat
    public var balanceSats: Sats { balanceMsat.sats(.down) }
    public init(nodeID: String, balanceMsat: Msat) {
        self.nodeID = nodeID
        self.balanceMsat = balanceMsat
    }
}

public struct PrepareSendRequest: Sendable {
    /// A BOLT11 invoice (or a BIP21 URI carrying one).
    public let input: String
    /// Required for an amountless invoice; must match an invoice's own amount otherwise.
    public let amountSats: Sats?
    public init(input: String, amountSats: Sats? = nil) {
        self.input = input
        self.amountSats = amountSats
    }
}

/// A fee preview: what will be paid, to whom, for what. Nothing is paid yet.
public struct PrepareSendResponse: Sendable {
    public let invoiceText: String
    public let invoice: Bolt11Invoice
    public let amountMsat: Msat
    public let feeMsat: Msat
    /// Amount + fee.
    /// - Throws: `AmountError.aboveSupply` when the two add up to more than all the bitcoin there is.
    public func totalMsat() throws(AmountError) -> Msat { try amountMsat + feeMsat }
    public var description: String? { invoice.description }
    public var expiresAt: Date { invoice.expiresAt }
    public init(invoiceText: String, invoice: Bolt11Invoice, amountMsat: Msat, feeMsat: Msat) {
        self.invoiceText = invoiceText
        self.invoice = invoice
        self.amountMsat = amountMsat
        self.feeMsat = feeMsat
    }
}

extension PrepareSendRequest {
    /// The invoice this request pays: a BOLT11 invoice, or the `lightning=` one of a BIP21 URI.
    /// - Throws: `LightningError.unsupported` for anything else, naming `backendName`.
    public func invoice(backendName: String) throws -> Bolt11Invoice {
        switch try PaymentInput.parse(input) {
        case .bolt11(let invoice): return invoice
        case .bitcoinURI(let uri):
            guard let invoice = uri.lightning else { throw LightningError.unsupported(backend: backendName, .uriWithoutInvoice) }
            return invoice
        case .bitcoinAddress:
            throw LightningError.unsupported(backend: backendName, .onChainAddress)
        case .lnurl, .lightningAddress:
            throw LightningError.unsupported(backend: backendName, .otherCall("prepareLnurlPay"))
        }
    }

    /// The amount to pay `invoice`, checked against this request, the network and the clock:
    /// an invoice's own amount, or the request's for an amountless invoice.
    public static func amountMsat(paying invoice: Bolt11Invoice, amountSats: Sats?, network: LightningNetwork,
                                  backendName: String, now: Date) throws -> Msat {
        guard invoice.network == network else { throw LightningError.wrongNetwork(invoice: invoice.network, backend: network, backendName: backendName) }
        guard !invoice.isExpired(at: now) else { throw LightningError.expired(invoice.expiresAt) }
        let amountMsat: Msat
        switch (invoice.amountMsat, amountSats) {
        case (nil, nil): throw LightningError.amountRequired
        case (let invoiceMsat?, let given?) where given.msat != invoiceMsat:
            throw LightningError.amountMismatch(invoiceSats: invoiceMsat.sats(.down), givenSats: given)
        case (let invoiceMsat?, _): amountMsat = invoiceMsat
        case (nil, let given?): amountMsat = given.msat
        }
        guard amountMsat > .zero, amountMsat < .supply else { throw LightningError.outOfRange(.amount) }
        return amountMsat
    }
}

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

    /// The on-chain fee rates Hawala pays at, sat/vB: claims, refunds, exits.
    public static let feeRates: ClosedRange<UInt64> = 1...10_000

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

public struct PrepareLnurlPayRequest: Sendable {
    public let payRequest: LNURLPayRequest
    public let amountSats: Sats
    public let comment: String?
    public init(payRequest: LNURLPayRequest, amountSats: Sats, comment: String? = nil) {
        self.payRequest = payRequest
        self.amountSats = amountSats
        self.comment = comment
    }
}

public struct PrepareLnurlPayResponse: Sendable {
    public let payRequest: LNURLPayRequest
    public let prepared: PrepareSendResponse
    public let successAction: SuccessAction?
    /// The comment sent to the payee (LUD-12), kept in the payer's history too.
    public let comment: String?
    public init(payRequest: LNURLPayRequest, prepared: PrepareSendResponse, successAction: SuccessAction?, comment: String? = nil) {
        self.comment = comment
        self.payRequest = payRequest
        self.prepared = prepared
        self.successAction = successAction
    }
}

public struct ReceiveRequest: Sendable {
    /// nil: an amountless invoice (the payer chooses).
    public let amountSats: Sats?
    public let description: String
    public let expirySeconds: UInt64
    public init(amountSats: Sats?, description: String = "", expirySeconds: UInt64 = Bolt11Invoice.defaultExpiry) {
        self.amountSats = amountSats
        self.description = description
        self.expirySeconds = expirySeconds
    }
}

public struct ReceiveResponse: Sendable {
    public let invoice: String
    public let paymentHash: String
    /// What receiving costs (0 on devnet).
    public let feeMsat: Msat
    public let expiresAt: Date
    public init(invoice: String, paymentHash: String, feeMsat: Msat, expiresAt: Date) {
        self.invoice = invoice
        self.paymentHash = paymentHash
        self.feeMsat = feeMsat
        self.expiresAt = expiresAt
    }
}

/// On-chain fee rates, sat/vB.
public struct RecommendedFees: Sendable, Equatable {
    public let fastest, halfHour, hour, economy, minimum: UInt64
    public init(fastest: UInt64, halfHour: UInt64, hour: UInt64, economy: UInt64, minimum: UInt64) {
        (self.fastest, self.halfHour, self.hour, self.economy, self.minimum) = (fastest, halfHour, hour, economy, minimum)
    }
}

public enum PaymentEvent: Sendable {
    case synced
    case paymentSucceeded(Payment)
    case paymentPending(Payment)
    case paymentFailed(Payment)
    /// Deposits seen for the first time (waiting for confirmations).
    case newDeposits([Deposit])
    /// Deposits claimed (each with its claim's fee).
    case claimedDeposits([Deposit])
    /// Deposits that were not claimed, each with the reason.
    case unclaimedDeposits([Deposit])
    /// What a unilateral exit needs changed: the kept state should be exported again.
    case exitStateChanged

    public var payment: Payment? {
        switch self {
        case .synced, .newDeposits, .claimedDeposits, .unclaimedDeposits, .exitStateChanged: nil
        case .paymentSucceeded(let p), .paymentPending(let p), .paymentFailed(let p): p
        }
    }

    /// The event for a payment in its current status.
    public static func about(_ payment: Payment) -> PaymentEvent {
        switch payment.status {
        case .completed: .paymentSucceeded(payment)
        case .pending: .paymentPending(payment)
        case .failed: .paymentFailed(payment)
        }
    }
}

/// Everything the Lightning wallet layer refuses, as one line a person can act on.
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

        func description(backend: String) -> String {
            switch self {
            case .receiveMethod(let method): "\(backend) receives by BOLT11 invoice only, not by a \(method.rawValue) address"
            case .onChainAddress: "\(backend) pays Lightning invoices only, not on-chain addresses"
            case .uriWithoutInvoice: "\(backend) pays Lightning invoices only; this bitcoin: URI has no lightning= invoice"
            case .otherCall(let call): "\(backend): this is done with \(call)"
            case .lnurlWithoutClient: "\(backend) was opened without access to LNURL services"
            case .preparedElsewhere: "this payment was not prepared on \(backend)"
            }
        }
    }

    /// What a wait was for.
    public enum Awaited: Equatable, Sendable {
        case payment(hash: String)
        case answer
    }

    case notConnected
    /// Not a backend spec (the text as given).
    case unknownBackend(String)
    /// Not a network a history can be shown for (the text as given).
    case unknownNetwork(String)
    /// Not a Lightning address name (LUD-16: a-z, 0-9, -, _ and ., 1 to 64).
    case invalidAddressName(String)
    /// Another wallet holds this Lightning address name.
    case addressTaken(String)
    /// The wallet has no Lightning address.
    case noAddress
    /// Devnet: no LNURL server runs on this ledger (its Lightning addresses and vouchers need one).
    case noLNURLServer(ledger: String)
    /// Not TXID:VOUT.
    case invalidOutpoint(String)
    /// Not a claim fee policy (network, N/vB, N sats).
    case invalidClaimFeePolicy(String)
    /// Not a Bitcoin address of the backend's network.
    case wrongAddress(String, network: LightningNetwork)
    /// No deposit of the wallet's at this outpoint.
    case unknownDeposit(String)
    /// Devnet: not one of its deposit addresses.
    case notADevnetAddress(String)
    /// The deposit can't be claimed or refunded in its state (its words).
    case depositNotAvailable(String, state: String)
    /// The balance does not cover a withdrawal at this speed (amount + fee), or what it would
    /// send is below dust.
    case insufficientOnChainBalance(neededSat: Sats, balanceSat: Sats, speed: String)
    /// The exit planned recovers nothing (why: a leaf's reason, or none kept with funds).
    case nothingToRecover(String)
    /// The exit needs `fundingSat` from an on-chain output of the wallet's own for its fees,
    /// which Hawala cannot sign yet.
    case exitNeedsFunding(fundingSat: Sats)
    /// A bitcoin: link asks for `linkSats`; another amount (nil: everything) was asked.
    case linkAmountMismatch(linkSats: Sats, givenSats: Sats?)
    /// Everything was asked for, and the balance less the fee is below dust.
    case nothingToSend(balanceSat: Sats, feeSat: Sats, speed: String)
    /// The wallet keeps no exit state for this network yet (it is kept at each sync).
    case noExitState(network: String)
    /// An exit state that does not read (altered, or another backend's).
    case invalidExitState(String)
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
    /// The network did not answer: nothing is known to have failed, what was known stands.
    public var isOffline: Bool {
        switch self {
        case .unreachable, .timeout(waitingFor: .answer, _), .notSyncedYet: true
        default: false
        }
    }

    /// An idempotency key of `bytes` bytes, outside `LightningWallet.idempotencyKeyBytes`.
    case invalidIdempotencyKey(bytes: Int)
    /// A key chosen with a "#" in it: the attempts after a failure are numbered with one.
    case idempotencyKeyWithHash

    public var description: String {
        switch self {
        case .notConnected: "the payment backend is not connected"
        case .unknownBackend(let text) where text.hasPrefix("spark:"):
            "unknown Spark network \"\(text.dropFirst(6))\": spark:mainnet or spark:regtest"
        case .unknownBackend(let text):
            "unknown backend \"\(text)\": spark:mainnet, spark:regtest, devnet (test money on this machine, its ledger under the wallets' home) or devnet:PATH (a ledger elsewhere)"
        case .invalidAddressName(let text):
            "\"\(text.prefix(80))\" can't be a Lightning address name: use 1 to 64 of a-z, 0-9, -, _ and ."
        case .addressTaken(let name): "the name \"\(name)\" is taken: choose another"
        case .noAddress: "this wallet has no Lightning address yet"
        case .noLNURLServer(let ledger): "no devnet LNURL server is running on the ledger \(ledger)"
        case .invalidOutpoint(let text): "\"\(text.prefix(80))\" is not a deposit: TXID:VOUT (64 hex digits, a colon, the output number)"
        case .invalidClaimFeePolicy(let text):
            "\"\(text.prefix(40))\" is not a claim fee cap: network (the recommended rate + 1 sat/vB), network+N, N/vB (a rate), or N (sats in all)"
        case let .wrongAddress(text, network): "\"\(text.prefix(100))\" is not a valid Bitcoin address on \(network.displayName): check it was copied whole, and is for this network"
        case .unknownDeposit(let outpoint): "no deposit \(outpoint) to this wallet"
        case .notADevnetAddress(let text): "\"\(text.prefix(100))\" is not a devnet deposit address (a wallet's, from its receive with bitcoin)"
        case let .depositNotAvailable(outpoint, state): "deposit \(outpoint) is \(state)"
        case let .insufficientOnChainBalance(needed, balance, speed):
            needed < OnChainQuote.dustSat
                ? "an on-chain payment must send at least \(AmountText.sats(OnChainQuote.dustSat)) (less is dust, which no node relays)"
                : "the balance (\(AmountText.sats(balance))) does not cover \(AmountText.sats(needed)) (the amount and the \(speed) fee)"
        case .nothingToRecover(let why): "nothing to take out: \(why)"
        case .exitNeedsFunding(let sats):
            "this exit needs \(AmountText.sats(sats)) from an on-chain output of your own to pay its fees, which Hawala cannot sign yet"
        case let .linkAmountMismatch(link, given):
            "the bitcoin: link asks for \(AmountText.sats(link)), not " + (given.map { "\(AmountText.sats($0))" } ?? "everything") + ": the payee set it"
        case let .nothingToSend(balance, fee, speed):
            "nothing to send: the balance (\(AmountText.sats(balance))) less the \(speed) fee (\(AmountText.sats(fee))) is below \(AmountText.sats(OnChainQuote.dustSat))"
        case .noExitState(let network):
            "no exit state is kept for \(network) yet: it is kept at each sync (sync once while the network answers)"
        case .invalidExitState(let why): "the exit state does not read: \(why)"
        case .unknownNetwork(let text):
            "unknown network \"\(text)\": current, all, spark:mainnet, spark:regtest, devnet or devnet:PATH"
        case let .devnetLedger(path, reason): "cannot use the devnet ledger \(path): \(reason)"
        case .amountRequired: "the invoice has no amount: an amount in sat must be given"
        case let .amountMismatch(invoice, given): "the invoice asks for \(invoice) sat, not \(given)"
        case .commentNotAccepted: "a comment goes only to a Lightning address or an LNURL-pay service"
        case .outOfRange(let limit): limit.description
        case let .wrongNetwork(invoice, backend, name):
            "the invoice is for \(invoice.displayName), and this wallet's backend (\(name)) pays on \(backend.displayName) only"
        case .expired(let date): "the invoice expired at \(ISO8601DateFormatter().string(from: date))"
        case let .insufficientBalance(have, need): "insufficient balance: \(satsText(have, .down)) available, \(satsText(need, .up)) needed (amount + fee)"
        case .ownInvoice: "this invoice is this wallet's own"
        case .alreadyPaid: "the invoice has already been paid"
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
        }
    }
}

extension LightningNetwork {
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

// MARK: - Waiting on events

extension PaymentBackend {
    /// Waits until the payment with `paymentHash` completes or fails, built on the event
    /// listeners. A payment already final is returned at once.
    /// - Throws: `LightningError.timeout` after `timeout` (a pending payment may still settle).
    public func waitForPayment(paymentHash: String, timeout: Duration) async throws -> Payment {
        let (stream, continuation) = AsyncStream<Payment>.makeStream(bufferingPolicy: .unbounded)
        let id = addEventListener { event in
            if let p = event.payment, p.details.paymentHash == paymentHash, p.status != .pending { continuation.yield(p) }
        }
        defer { removeEventListener(id) }
        // Listen first, then look: a payment that settled in between is not missed.
        if let done = try await listPayments(PaymentFilter(paymentHash: paymentHash)).first(where: { $0.status != .pending }) {
            return done
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await payment in stream { return payment }
        throw LightningError.timeout(waitingFor: .payment(hash: paymentHash), after: timeout)
    }
}
