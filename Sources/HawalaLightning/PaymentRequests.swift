import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

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
