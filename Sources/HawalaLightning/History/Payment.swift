import Foundation
import HawalaText

/// One payment in a wallet's history, shaped like the Spark SDK's `Payment`.
/// Amounts are millisatoshis; a pending payment is not final (it may still settle).
public struct Payment: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable { case send, receive }
    public enum Status: String, Sendable, Codable, CaseIterable { case pending, completed, failed }

    /// What a payment paid or was paid by.
    public struct Details: Sendable, Equatable {
        public var invoice: String?
        public var description: String?
        public var paymentHash: String?
        /// Proof of payment; kept only once the payment completed.
        public var preimage: String?
        /// The payee's node id (hex) for a send, ours for a receive.
        public var destination: String?
        /// The payer's comment to the payee (LUD-12), sent with a payment to a Lightning
        /// address or an LNURL-pay service.
        public var comment: String?
        /// What the payee's LNURL service said once paid (LUD-09/10: its message, or its link).
        public var successAction: String?
        /// An on-chain payment's transaction (a withdrawal's, or the deposit a claim credited).
        public var txid: String?
        /// An on-chain payment's Bitcoin address: where a withdrawal went, or where a deposit came.
        public var address: String?
        /// An on-chain transaction's confirmations when the history last synced (0: in no block yet).
        public var confirmations: Int?

        public init(invoice: String? = nil, description: String? = nil, paymentHash: String? = nil, preimage: String? = nil, destination: String? = nil,
                    comment: String? = nil, successAction: String? = nil, txid: String? = nil, address: String? = nil, confirmations: Int? = nil) {
            self.txid = txid
            self.address = address
            self.confirmations = confirmations
            self.comment = comment
            self.successAction = successAction
            self.invoice = invoice
            self.description = description
            self.paymentHash = paymentHash
            self.preimage = preimage
            self.destination = destination
        }
    }

    /// A payment's value in a fiat currency at the time it was made.
    public struct FiatValue: Sendable, Equatable {
        public let currency: String
        public let value: Decimal
        public init(currency: String, value: Decimal) {
            self.currency = currency
            self.value = value
        }
    }

    public let id: String
    public let type: Kind
    public var status: Status
    public let amountMsat: Msat
    public var feeMsat: Msat
    public let timestamp: Date
    /// "lightning", or "bitcoin" for an on-chain payment (a withdrawal to an address, a claimed
    /// deposit), which carries its transaction in `details`.
    public let method: String
    /// The backend that made it: "devnet" or a real network's name.
    public let backend: String
    /// The network it was made on, as its backend is saved (`devnet:PATH`, `spark:regtest`,
    /// `spark:mainnet`): a history shows one network's payments, never another's under its
    /// name. nil until recorded: the store fills it in (`WalletStore.network(of:walletBackend:)`).
    public var network: String?
    public var details: Details
    public var idempotencyKey: String?
    public var failureReason: String?
    public var fiat: FiatValue?
    /// The app connection that made this payment ("paid by agent-1"), nil for a person's.
    public var connection: String?
    /// A payment to one of this wallet's hold invoices, held (pending) until the wallet settles
    /// or cancels it: the time it must be settled by, when it goes back to its payer. Kept after
    /// it ended; nil for every other payment.
    public var heldUntil: Date?

    public init(id: String, type: Kind, status: Status, amountMsat: Msat, feeMsat: Msat, timestamp: Date,
                method: String = "lightning", backend: String, details: Details, idempotencyKey: String? = nil,
                failureReason: String? = nil, fiat: FiatValue? = nil, network: String? = nil, connection: String? = nil, heldUntil: Date? = nil) {
        self.heldUntil = heldUntil
        self.network = network
        self.connection = connection
        self.id = id
        self.type = type
        self.status = status
        self.amountMsat = amountMsat
        self.feeMsat = feeMsat
        self.timestamp = timestamp
        self.method = method
        self.backend = backend
        self.details = details
        self.idempotencyKey = idempotencyKey
        self.failureReason = failureReason
        self.fiat = fiat
    }

    /// Whether this is a payment to a hold invoice of this wallet's, waiting for the wallet to
    /// settle or cancel it.
    public var isHeld: Bool { type == .receive && status == .pending && heldUntil != nil }

    /// The amount in whole sats, rounded down.
    public var amountSats: Sats { amountMsat.sats(.down) }
    /// Whether this payment moved bitcoin on-chain (a withdrawal or a deposit).
    public var isOnChain: Bool { method == Payment.onChainMethod }
    /// The `method` of an on-chain payment.
    public static let onChainMethod = "bitcoin"
    /// Fees rounded up to whole satoshis (never shown lower than paid).
    public var feeSats: Sats { feeMsat.sats(.up) }

    /// The key a new invoice is kept under as a pending receive until paid: this prefix and
    /// its payment hash.
    public static let invoiceKeyPrefix = "receive:"
    /// An invoice of this wallet's not paid (yet): kept in the history, but not a payment.
    public var isOpenInvoice: Bool {
        type == .receive && status == .pending && heldUntil == nil && idempotencyKey?.hasPrefix(Payment.invoiceKeyPrefix) == true
    }
}

/// Which payments to list: newest first, optional type, status and time range, paging.
public struct PaymentFilter: Sendable, Equatable {
    public var type: Payment.Kind?
    public var status: Payment.Status?
    public var from: Date?
    public var to: Date?
    /// Hex payment hash.
    public var paymentHash: String?
    /// Text a person searches for: in the description (anywhere, ASCII case ignored), or the
    /// start of the payment's id or payment hash.
    public var search: String?
    /// Only the payments of this network (`Payment.network`); nil: every network.
    public var network: String?
    /// Only the payments and invoices of this app connection (`Payment.connection`).
    public var connection: String?
    /// Whether invoices not paid yet are listed (`Payment.isOpenInvoice`): they are not payments.
    public var openInvoices: Bool
    public var offset: Int
    public var limit: Int?

    public init(type: Payment.Kind? = nil, status: Payment.Status? = nil, from: Date? = nil, to: Date? = nil,
                paymentHash: String? = nil, search: String? = nil, network: String? = nil, connection: String? = nil, openInvoices: Bool = true,
                offset: Int = 0, limit: Int? = nil) {
        self.network = network
        self.connection = connection
        self.openInvoices = openInvoices
        self.paymentHash = paymentHash
        self.search = search
        self.type = type
        self.status = status
        self.from = from
        self.to = to
        self.offset = offset
        self.limit = limit
    }
}
