import Foundation
import HawalaFormat
import HawalaKeys
import HawalaWallet

// What a person reads about payments, the same in every front end: the amount formatter, a
// history line, a payment's details and a payment's preview before it is confirmed. Text from
// payees and invoices passes through `DisplayText.safe`.

/// Millisatoshis as sats for people: exact when not whole ("1234.567 sat").
public func satsText(_ msat: UInt64) -> String { PaymentExport.sats(msat) + " sat" }

extension Payment {
    /// One line of a history: date, signed amount (with the fee of a send), status, id,
    /// description, failure reason, and an unpaid invoice's expiry.
    public func historyLine(now: Date = Date()) -> String {
        var text = "\(PaymentExport.date(timestamp))  \(type == .send ? "-" : "+")\(satsText(amountMsat))"
        if type == .send { text += " (fee \(satsText(feeMsat)))" }
        text += "  \(status.rawValue)  \(id)"
        if let d = details.description, !d.isEmpty { text += "  \(DisplayText.safe(String(d.prefix(60))))" }
        if let reason = failureReason { text += "  [\(DisplayText.safe(reason))]" }
        if let expiry = invoiceExpiry { text += expiry < now ? "  (invoice expired \(expiry.iso8601))" : "  (unpaid invoice, expires \(expiry.iso8601))" }
        return text
    }

    /// The payment's details as labelled rows, present fields only.
    public func detailRows(now: Date = Date()) -> [(label: String, value: String)] {
        var rows: [(String, String?)] = [
            ("type", PaymentExport.word(type)),
            ("status", status.rawValue + (status == .pending ? " (not final: it may still settle)" : "")),
            ("amount", satsText(amountMsat)),
            ("fee", satsText(feeMsat)),
            ("date", PaymentExport.date(timestamp)),
            ("backend", backend),
            ("fiat then", fiat.map { "\($0.value) \($0.currency)" }),
            ("expires", invoiceExpiry.map { "\($0.iso8601)\($0 < now ? " (expired, not paid)" : " (not paid yet)")" }),
            ("description", details.description.map(DisplayText.safe)),
            ("payment hash", details.paymentHash),
            ("preimage", details.preimage),
            ("node", details.destination),
            ("failure", failureReason.map(DisplayText.safe)),
            ("invoice", details.invoice),
        ]
        rows.removeAll { $0.1 == nil }
        return rows.map { ($0.0, $0.1!) }
    }
}

extension PreparedPayment {
    /// What a person confirms before paying: amount, fee, total (and its fiat value at `rate`),
    /// description, payee and expiry.
    public func previewRows(rate: FiatRate?) -> [(label: String, value: String)] {
        var rows = [("amount", satsText(prepared.amountMsat)), ("fee", satsText(prepared.feeMsat)), ("total", satsText(prepared.totalMsat))]
        if let rate { rows.append(("≈", "\(rate.value(msat: prepared.totalMsat)) \(rate.currency) in total")) }
        rows += [
            ("description", prepared.description.flatMap { $0.isEmpty ? nil : DisplayText.safe($0) } ?? "(none)"),
            ("to", hexString(prepared.invoice.payee)),
            ("expires", prepared.expiresAt.iso8601),
        ]
        if let terms = payRequest {
            rows.insert(("service", "\(terms.domain) accepts \(satsText(terms.minSendableMsat))–\(satsText(terms.maxSendableMsat)): \(DisplayText.safe(terms.description))"), at: 0)
        }
        return rows
    }
}

/// Rows as aligned `label: value` lines, indented by `indent` (a label that is a symbol, such as
/// "≈", takes no colon).
public func alignedRows(_ rows: [(label: String, value: String)], indent: String = "  ") -> [String] {
    let width = (rows.map(\.label.count).max() ?? 0) + 2
    return rows.map { row in
        let key = row.label.first?.isLetter == true ? row.label + ":" : row.label
        return indent + key.padding(toLength: width, withPad: " ", startingAt: 0) + row.value
    }
}
