import Foundation
import HawalaText

/// A payment as files carry it — the `.hawala` payload's history (docs/hawala-format.md): flat
/// fields, amounts in msat, times as fractional seconds since 1970 (ISO 8601 would drop the
/// fraction), the fiat value as decimal text. The one place its fields are listed for files: a
/// field added to `Payment` and not here fails the backup round trip (BackupTests, `everyField`).
extension Payment: Codable {
    enum CodingKeys: String, CodingKey {
        case id, type, status, amountMsat, feeMsat, timestamp, method, backend, network, idempotencyKey, failureReason, connection, heldUntil
        case invoice, description, paymentHash, preimage, destination, comment, successAction, txid, address, confirmations
        case fiatCurrency, fiatValue
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(type.rawValue, forKey: .type)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(amountMsat.value, forKey: .amountMsat)
        try c.encode(feeMsat.value, forKey: .feeMsat)
        try c.encode(timestamp.timeIntervalSince1970, forKey: .timestamp)
        try c.encode(method, forKey: .method)
        try c.encode(backend, forKey: .backend)
        try c.encodeIfPresent(network, forKey: .network)
        try c.encodeIfPresent(idempotencyKey, forKey: .idempotencyKey)
        try c.encodeIfPresent(failureReason, forKey: .failureReason)
        try c.encodeIfPresent(connection, forKey: .connection)
        try c.encodeIfPresent(heldUntil?.timeIntervalSince1970, forKey: .heldUntil)
        try c.encodeIfPresent(details.invoice, forKey: .invoice)
        try c.encodeIfPresent(details.description, forKey: .description)
        try c.encodeIfPresent(details.paymentHash, forKey: .paymentHash)
        try c.encodeIfPresent(details.preimage, forKey: .preimage)
        try c.encodeIfPresent(details.destination, forKey: .destination)
        try c.encodeIfPresent(details.comment, forKey: .comment)
        try c.encodeIfPresent(details.successAction, forKey: .successAction)
        try c.encodeIfPresent(details.txid, forKey: .txid)
        try c.encodeIfPresent(details.address, forKey: .address)
        try c.encodeIfPresent(details.confirmations, forKey: .confirmations)
        try c.encodeIfPresent(fiat?.currency, forKey: .fiatCurrency)
        try c.encodeIfPresent(fiat.map { "\($0.value)" }, forKey: .fiatValue)
    }

    /// - Throws: `DecodingError.dataCorrupted` saying what is wrong ("a payment is malformed",
    ///   "a payment's fiat value is not a decimal") where the JSON reads but the payment doesn't.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func corrupted(_ words: String) -> DecodingError { .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: words)) }
        let timestamp = try c.decode(Double.self, forKey: .timestamp)
        guard let type = Kind(rawValue: try c.decode(String.self, forKey: .type)), let status = Status(rawValue: try c.decode(String.self, forKey: .status)),
              timestamp.isFinite, let amount = try? Msat(try c.decode(UInt64.self, forKey: .amountMsat)),
              let fee = try? Msat(try c.decode(UInt64.self, forKey: .feeMsat)) else {
            throw corrupted("a payment is malformed")
        }
        var fiat: FiatValue?
        if let currency = try c.decodeIfPresent(String.self, forKey: .fiatCurrency), let text = try c.decodeIfPresent(String.self, forKey: .fiatValue) {
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw corrupted("a payment's fiat value is not a decimal") }
            fiat = FiatValue(currency: currency, value: value)
        }
        let details = Details(invoice: try c.decodeIfPresent(String.self, forKey: .invoice), description: try c.decodeIfPresent(String.self, forKey: .description),
                              paymentHash: try c.decodeIfPresent(String.self, forKey: .paymentHash), preimage: try c.decodeIfPresent(String.self, forKey: .preimage),
                              destination: try c.decodeIfPresent(String.self, forKey: .destination), comment: try c.decodeIfPresent(String.self, forKey: .comment),
                              successAction: try c.decodeIfPresent(String.self, forKey: .successAction), txid: try c.decodeIfPresent(String.self, forKey: .txid),
                              address: try c.decodeIfPresent(String.self, forKey: .address), confirmations: try c.decodeIfPresent(Int.self, forKey: .confirmations))
        let heldUntil = try c.decodeIfPresent(Double.self, forKey: .heldUntil)
        self.init(id: try c.decode(String.self, forKey: .id), type: type, status: status, amountMsat: amount, feeMsat: fee,
                  timestamp: Date(timeIntervalSince1970: timestamp), method: try c.decode(String.self, forKey: .method),
                  backend: try c.decode(String.self, forKey: .backend), details: details,
                  idempotencyKey: try c.decodeIfPresent(String.self, forKey: .idempotencyKey), failureReason: try c.decodeIfPresent(String.self, forKey: .failureReason),
                  fiat: fiat, network: try c.decodeIfPresent(String.self, forKey: .network), connection: try c.decodeIfPresent(String.self, forKey: .connection),
                  heldUntil: heldUntil.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil })
    }
}
