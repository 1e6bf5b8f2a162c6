import HawalaText

extension Payment: JSONRepresentable {
    /// One payment (`ln history`, `ln show`, `ln pay`, `ln watch`).
    public var json: JSONValue {
        .object([
            ("id", .string(id)), ("type", .string(PaymentExport.word(type))), ("status", .string(status.rawValue)),
            ("amountMsat", .amount(amountMsat)), ("feeMsat", .amount(feeMsat)),
            ("date", .string(PaymentExport.date(timestamp))), ("method", .string(method)), ("backend", .string(backend)),
            ("network", .nullable(network)), ("description", .nullable(details.description)), ("paymentHash", .nullable(details.paymentHash)),
            ("preimage", .nullable(details.preimage)), ("destination", .nullable(details.destination)),
            ("invoice", .nullable(details.invoice)), ("failureReason", .nullable(failureReason)), ("comment", .nullable(details.comment)),
            ("successAction", .nullable(details.successAction)),
            ("txid", .nullable(details.txid)), ("address", .nullable(details.address)),
            ("confirmations", details.confirmations.map { .int($0) } ?? .null),
            ("fiat", fiat.map { .object([("currency", .string($0.currency)), ("value", .string("\($0.value)"))]) } ?? .null),
            ("connection", .nullable(connection)),
        ])
    }
}
