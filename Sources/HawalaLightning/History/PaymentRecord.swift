import Foundation
import GRDB
import HawalaText
import HawalaWallet

/// A row of the `payment` table (Schema/V3.swift and later), as GRDB reads and writes it: the
/// columns by name, converted to a `Payment` and back in one place.
struct PaymentRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "payment"

    var walletId: String
    var id: String
    var type: String
    var status: String
    var amountMsat: Int64
    var feeMsat: Int64
    var timestamp: Double
    var method: String
    var backend: String
    var invoice: String?
    var description: String?
    var paymentHash: String?
    var preimage: String?
    var destination: String?
    var idempotencyKey: String?
    var failureReason: String?
    var fiatCurrency: String?
    var fiatValue: String?
    var network: String?
    var comment: String?
    var successAction: String?
    var txid: String?
    var onChainAddress: String?
    var confirmations: Int?
    var connection: String?
    var heldUntil: Double?

    /// The row for `payment` of `walletID`; a preimage is kept only once the payment completed.
    init(_ payment: Payment, walletID: String) {
        walletId = walletID
        id = payment.id
        type = payment.type.rawValue
        status = payment.status.rawValue
        amountMsat = payment.amountMsat.int64
        feeMsat = payment.feeMsat.int64
        timestamp = payment.timestamp.timeIntervalSince1970
        method = payment.method
        backend = payment.backend
        invoice = payment.details.invoice
        description = payment.details.description
        paymentHash = payment.details.paymentHash
        preimage = payment.status == .completed ? payment.details.preimage : nil
        destination = payment.details.destination
        idempotencyKey = payment.idempotencyKey
        failureReason = payment.failureReason
        fiatCurrency = payment.fiat?.currency
        fiatValue = payment.fiat.map { "\($0.value)" }
        network = payment.network
        comment = payment.details.comment
        successAction = payment.details.successAction
        txid = payment.details.txid
        onChainAddress = payment.details.address
        confirmations = payment.details.confirmations
        connection = payment.connection
        heldUntil = payment.heldUntil?.timeIntervalSince1970
    }

    /// The fiat value recorded with it, when both columns read.
    var fiat: Payment.FiatValue? {
        guard let fiatCurrency, let fiatValue, let value = Decimal(string: fiatValue) else { return nil }
        return Payment.FiatValue(currency: fiatCurrency, value: value)
    }

    /// The payment this row holds.
    /// - Throws: `WalletError.unreadableRecord` for a type, a status or an amount out of range.
    func payment() throws(WalletError) -> Payment {
        guard let kind = Payment.Kind(rawValue: type), let status = Payment.Status(rawValue: status),
              let amount = try? Msat(amountMsat), let fee = try? Msat(feeMsat) else {
            throw .unreadableRecord(.payment)
        }
        return Payment(
            id: id, type: kind, status: status, amountMsat: amount, feeMsat: fee,
            timestamp: Date(timeIntervalSince1970: timestamp), method: method, backend: backend,
            details: Payment.Details(invoice: invoice, description: description, paymentHash: paymentHash, preimage: preimage,
                                     destination: destination, comment: comment, successAction: successAction, txid: txid,
                                     address: onChainAddress, confirmations: confirmations),
            idempotencyKey: idempotencyKey, failureReason: failureReason, fiat: fiat, network: network, connection: connection,
            heldUntil: heldUntil.map(Date.init(timeIntervalSince1970:)))
    }
}

extension PaymentRecord {
    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
        static let id = Column(CodingKeys.id)
        static let idempotencyKey = Column(CodingKeys.idempotencyKey)
        static let status = Column(CodingKeys.status)
        static let type = Column(CodingKeys.type)
        static let timestamp = Column(CodingKeys.timestamp)
        static let paymentHash = Column(CodingKeys.paymentHash)
        static let network = Column(CodingKeys.network)
        static let connection = Column(CodingKeys.connection)
        static let description = Column(CodingKeys.description)
        static let heldUntil = Column(CodingKeys.heldUntil)
    }

    /// The rows of `walletID` that `filter` keeps (its page aside): every list, count and
    /// export of payments reads through this.
    static func matching(walletID: String, filter: PaymentFilter) -> QueryInterfaceRequest<PaymentRecord> {
        var request = of(wallet: walletID)
        if let type = filter.type { request = request.filter(Columns.type == type.rawValue) }
        if let status = filter.status { request = request.filter(Columns.status == status.rawValue) }
        if let from = filter.from { request = request.filter(Columns.timestamp >= from.timeIntervalSince1970) }
        if let to = filter.to { request = request.filter(Columns.timestamp < to.timeIntervalSince1970) }
        if let hash = filter.paymentHash { request = request.filter(Columns.paymentHash == hash) }
        if let network = filter.network { request = request.filter(Columns.network == network) }
        if let connection = filter.connection { request = request.filter(Columns.connection == connection) }
        if !filter.openInvoices {
            // An open invoice: a pending receive kept under its invoice key.
            let invoiceKey = (Columns.idempotencyKey ?? "").like(likePrefix(Payment.invoiceKeyPrefix), escape: "\\")
            request = request.filter(!(Columns.type == Payment.Kind.receive.rawValue && Columns.status == Payment.Status.pending.rawValue && invoiceKey
                && Columns.heldUntil == nil))
        }
        if let text = filter.search, !text.isEmpty {
            let prefix = likePrefix(text)
            request = request.filter(Columns.description.like("%" + prefix, escape: "\\") || Columns.id.like(prefix, escape: "\\")
                                     || Columns.paymentHash.like(prefix, escape: "\\"))
        }
        return request
    }

    /// `text` as a LIKE pattern matching what starts with it (its own `%`, `_` and `\` escaped).
    static func likePrefix(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// The rows of `walletID`.
    static func of(wallet walletID: String) -> QueryInterfaceRequest<PaymentRecord> {
        filter(Columns.walletId == walletID)
    }
}

extension QueryInterfaceRequest<PaymentRecord> {
    /// Newest first, then `filter`'s page.
    func newestFirst(_ filter: PaymentFilter) -> Self {
        order(PaymentRecord.Columns.timestamp.desc, PaymentRecord.Columns.id.desc)
            .limit(filter.limit.map { max(0, $0) } ?? -1, offset: max(0, filter.offset))
    }
}
