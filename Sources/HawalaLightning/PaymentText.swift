import Foundation
import HawalaKeys
import HawalaText
import HawalaWallet

// What a person reads about payments, the same in every front end: the amount formatter, a
// history line, a payment's details and a payment's preview before it is confirmed. Text from
// payees and invoices passes through `DisplayText.safe`.

/// Millisatoshis as whole sats for people ("1,216,045 sat"), rounded as `AmountText.Rounding`
/// says: up for what leaves the wallet, down for what it holds or receives.
public func satsText(_ msat: Msat, _ rounding: AmountText.Rounding) -> String { AmountText.sats(msat, rounding: rounding) }

/// What a payment sent costs, as every face shows it (the preview, the receipt, a history
/// line): the amount and the total rounded up, and the fee as their difference, so the three
/// add up and a preview and its receipt say the same.
public struct SendFigures: Sendable, Equatable {
    public let amount: String
    public let fee: String
    public let total: String

    public init(amountMsat: Msat, feeMsat: Msat) {
        let sent = WholeSatsSent(amount: amountMsat, fee: feeMsat)
        amount = AmountText.sats(sent.amount)
        fee = AmountText.sats(sent.fee)
        total = AmountText.sats(sent.total)
    }
}

extension Payment {
    /// The amount with its sign, as a person reads it in a list: "−2,504 sat" for a send (its
    /// total), "+2,500 sat" for a receive; an invoice not paid is no payment: "asks 2,500 sat",
    /// or "any amount".
    public var signedAmountText: String {
        if isOpenInvoice { return amountMsat > .zero ? "asks " + satsText(amountMsat, .down) : "any amount" }
        return type == .send ? "−" + SendFigures(amountMsat: amountMsat, feeMsat: feeMsat).total : "+" + satsText(amountMsat, .down)
    }
}

extension Payment {
    /// What a list says beside a send's total: "incl. 4 sat fee" (nil for a receive, or a send
    /// without a fee). The same figures as the preview and the receipt (`WholeSatsSent`).
    public var feeNote: String? {
        guard type == .send else { return nil }
        let sent = WholeSatsSent(amount: amountMsat, fee: feeMsat)
        return sent.fee > .zero ? "incl. \(AmountText.sats(sent.fee)) fee" : nil
    }

    /// What a list shows as the payment's name: its description, else "Received" or "Sent".
    public var plainTitle: String {
        let text = DisplayText.safe(TextLimit.prefix(details.description ?? "", scalars: 80)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? (type == .send ? "Sent" : "Received") : text
    }

    /// Which program made it, for a list row: "Paid by compute-agent", "Asked by shop" (an
    /// invoice a connection made), or "L402: host" (a paid URL fetched by a person); nil when
    /// the person did it themselves.
    public var byLine: String? {
        guard let connection, !connection.isEmpty else { return nil }
        let name = DisplayText.safe(TextLimit.prefix(connection, scalars: 64))
        if connection.hasPrefix("L402: ") { return name }
        return (type == .send ? "Paid by " : "Asked by ") + name
    }

    /// Where the payment stands, in a few words; nil once it is done (completed).
    public func plainState(at now: Date = Date()) -> String? {
        switch status {
        case .completed: return nil
        case .failed: return "Failed"
        case .pending:
            if isOnChain { return "Waiting for confirmation" }
            if isHeld { return "Held — settle or cancel" }
            guard type == .receive, details.invoice != nil else { return "Pending" }
            return receiveState(at: now) == .expired ? "Expired, not paid" : "Waiting for payment"
        }
    }

    /// What a person reads about a payment, in their time zone; the technical rows
    /// (`technicalRows`) go behind a "Details" disclosure.
    public func summaryRows(now: Date = Date(), timeZone: TimeZone = .current) -> [(label: String, value: String)] {
        var rows: [(String, String)] = []
        if type == .send {
            let figures = SendFigures(amountMsat: amountMsat, feeMsat: feeMsat)
            rows += [("amount", figures.amount), ("fee", figures.fee), ("total", figures.total)]
        } else {
            rows.append(("amount", satsText(amountMsat, .down)))
        }
        if let fiat { rows.append(("value then", AmountText.fiat(fiat.value, currency: fiat.currency))) }
        rows.append(("date", timestamp.relative(now: now, timeZone: timeZone)))
        if let state = plainState(at: now) { rows.append(("status", state)) }
        if let d = details.description, !d.isEmpty { rows.append(("description", DisplayText.safe(d))) }
        if let c = details.comment, !c.isEmpty { rows.append(("comment", DisplayText.safe(c))) }
        if isOnChain {
            if type == .receive, feeMsat > .zero { rows.append(("claim fee", satsText(feeMsat, .up))) }
            if let address = details.address { rows.append((type == .send ? "to address" : "your deposit address", address)) }
            if let confirmations = details.confirmations { rows.append(("confirmations", AmountText.grouped(UInt64(max(0, confirmations))))) }
        }
        if let m = details.successAction, !m.isEmpty { rows.append(("message from the payee", DisplayText.safe(m))) }
        if let connection { rows.append((type == .send ? "paid by" : "asked by", DisplayText.safe(connection))) }
        if let reason = failureReason { rows.append(("why", DisplayText.safe(reason))) }
        return rows
    }

    /// The details behind the disclosure: exact amounts, the UTC date, hashes, keys, the invoice.
    public func technicalRows(now: Date = Date()) -> [(label: String, value: String)] {
        detailRows(now: now).filter { !["description", "failure", "comment", "message from the payee", "paid by", "asked by"].contains($0.label) }
    }

    /// One line of a history: date, signed amount (with the fee of a send), status, id,
    /// description, failure reason, and an unpaid invoice's expiry.
    public func historyLine(now: Date = Date()) -> String {
        var text = "\(PaymentExport.date(timestamp))  "
        text += signedAmountText + (feeNote.map { " (\($0))" } ?? "")
        text += "  \(isHeld ? "held" : status.rawValue)  \(id)"
        if isHeld, let heldUntil { text += "  (held: settle or cancel before \(heldUntil.iso8601))" }
        if let d = details.description, !d.isEmpty { text += "  \(DisplayText.safe(TextLimit.prefix(d, scalars: 60)))" }
        if let c = details.comment, !c.isEmpty { text += "  “\(DisplayText.safe(TextLimit.prefix(c, scalars: 60)))”" }
        if let reason = failureReason { text += "  [\(DisplayText.safe(reason))]" }
        if let connection { text += type == .send ? "  paid by \(DisplayText.safe(connection))" : "  asked by \(DisplayText.safe(connection))" }
        if isOnChain, let txid = details.txid {
            if let address = details.address { text += type == .send ? "  to \(address)" : "  at \(address)" }
            if type == .receive, feeMsat > .zero { text += "  (claim fee \(satsText(feeMsat, .up)))" }
            text += "  tx \(txid.prefix(16))…, \(details.confirmations.map { "\($0) confirmation\($0 == 1 ? "" : "s")" } ?? "confirmations unknown")"
        }
        if let expiry = invoiceExpiry { text += receiveState(at: now) == .expired ? "  (invoice expired \(expiry.iso8601))" : "  (unpaid invoice, expires \(expiry.iso8601))" }
        return text
    }

    /// The payment's details as labelled rows, present fields only.
    public func detailRows(now: Date = Date()) -> [(label: String, value: String)] {
        var rows: [(String, String?)] = [
            ("type", PaymentExport.word(type)),
            ("status", isHeld ? "held (settle or cancel before \(heldUntil?.iso8601 ?? "it expires"); it goes back to the payer then)"
                : status.rawValue + (status == .pending ? " (not final: it may still settle)" : "")),
            ("amount", exactSatsText(amountMsat)),
            ("fee", exactSatsText(feeMsat)),
            ("date", PaymentExport.date(timestamp)),
            ("backend", backend),
            ("network", network.map(HistoryNetwork.plainName)),
            ("fiat then", fiat.map { "\($0.value) \($0.currency)" }),
            ("expires", invoiceExpiry.map { "\($0.iso8601)\(receiveState(at: now) == .expired ? " (expired, not paid)" : " (not paid yet)")" }),
            ("description", details.description.map(DisplayText.safe)),
            ("comment", details.comment.map(DisplayText.safe)),
            ("message from the payee", details.successAction.map(DisplayText.safe)),
            (type == .send ? "paid by" : "asked by", connection.map(DisplayText.safe)),
            ("payment hash", details.paymentHash),
            ("preimage", details.preimage),
            ("node", details.destination),
            ("transaction", details.txid),
            ("address", details.address),
            ("confirmations", details.confirmations.map(String.init)),
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
        let figures = SendFigures(amountMsat: prepared.amountMsat, feeMsat: prepared.feeMsat)
        var rows = [("amount", figures.amount), ("fee", figures.fee), ("total", figures.total)]
        if let rate { rows.append(("≈", "\(AmountText.fiat(rate.value(msat: (try? prepared.totalMsat()) ?? .supply), currency: rate.currency)) in total")) }
        rows += [
            ("description", prepared.description.flatMap { $0.isEmpty ? nil : DisplayText.safe($0) } ?? "(none)"),
            ("to", hexString(prepared.invoice.payee)),
            ("expires", prepared.expiresAt.iso8601),
        ]
        if let terms = payRequest {
            rows.insert(("service", "\(terms.domain) accepts \(satsText(terms.minSendableMsat, .up))–\(satsText(terms.maxSendableMsat, .down)): \(DisplayText.safe(terms.description))"), at: 0)
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

extension PaymentInput {
    /// What the input says, a line per field (`ln decode`): for an invoice every field and the
    /// checked signature; for an LNURL or a Lightning address the URL a payment would query.
    public var summaryLines: [String] {
        switch self {
        case .bolt11(let i):
            var out = ["Lightning invoice (\(i.network))"]
            out.append("  amount:          " + (i.amountMsat.map(exactSatsText) ?? "any amount (the payer chooses)"))
            if let d = i.description { out.append("  description:     \(DisplayText.safe(d))") }
            if let h = i.descriptionHash { out.append("  description hash: \(hexString(h))") }
            out.append("  payee:           \(hexString(i.payee))")
            out.append("  payment hash:    \(hexString(i.paymentHash))")
            let created = Date(timeIntervalSince1970: Double(i.timestamp))
            out.append("  created:         \(created.iso8601)")
            out.append("  expires:         \(i.expiresAt.iso8601)\(i.isExpired() ? " (expired)" : "")")
            out.append("  min final CLTV:  \(i.minFinalCltvExpiry) blocks")
            for f in i.fallbacks { out.append("  fallback:        \(f.address)") }
            for (n, route) in i.routeHints.enumerated() {
                out.append("  route hint \(n + 1):    " + route.map { "\(hexString($0.nodeID).prefix(16))… via \($0.shortChannelIDText)" }.joined(separator: " → "))
            }
            if !i.features.isEmpty { out.append("  features:        \(i.features.map(String.init).joined(separator: ", "))") }
            out.append("  signature:       valid")
            return out
        case .lnurl(let url): return ["LNURL: \(url.absoluteString)"]
        case let .lightningAddress(user, domain, url): return ["Lightning address \(user)@\(domain): \(url.absoluteString)"]
        case .bitcoinURI(let uri):
            var out = ["bitcoin: URI"]
            if !uri.address.isEmpty { out.append("  address:   \(uri.address) (\(uri.network?.rawValue ?? "?"))") }
            if let a = uri.amountSats { out.append("  amount:    \(AmountText.sats(a))") }
            if let l = uri.label { out.append("  label:     \(DisplayText.safe(l))") }
            if let m = uri.message { out.append("  message:   \(DisplayText.safe(m))") }
            if let i = uri.lightning { out.append("  lightning: invoice for \(i.amountMsat.map(exactSatsText) ?? "any amount") (preferred)") }
            return out
        case let .bitcoinAddress(address, network): return ["Bitcoin address \(address) (\(network.rawValue))"]
        }
    }

}

/// An amount in sat, exact: "2,503.5 sat" (details, a decoded invoice).
public func exactSatsText(_ msat: Msat) -> String { AmountText.exactSats(msat) }
