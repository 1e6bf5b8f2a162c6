import Foundation
import HawalaWallet

/// The history as CSV or JSON, newest first, streamed to `write` in blocks (100,000 payments
/// never sit in memory twice). Columns are documented in the README:
/// `date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id`.
/// Amounts are exact (millisatoshis as a decimal fraction of a sat); dates are UTC ISO 8601.
public enum PaymentExport {
    public enum Format: String, Sendable, CaseIterable { case csv, json }

    public static let csvHeader = "date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id"

    /// Writes the wallet's payments in `format`; returns how many.
    @discardableResult
    public static func write(_ format: Format, store: WalletStore, walletID: String, to write: (Data) throws -> Void) throws -> Int {
        var buffer = ""
        buffer.reserveCapacity(1 << 18)
        func flush(force: Bool) throws {
            guard force || buffer.utf8.count >= 1 << 18 else { return }
            try write(Data(buffer.utf8))
            buffer.removeAll(keepingCapacity: true)
        }
        var count = 0
        switch format {
        case .csv:
            buffer += csvHeader + "\r\n"
            try store.forEachPayment(walletID: walletID) { payment in
                buffer += csvLine(payment)
                count += 1
                try flush(force: false)
            }
        case .json:
            buffer += "["
            try store.forEachPayment(walletID: walletID) { payment in
                buffer += (count == 0 ? "\n  " : ",\n  ") + jsonObject(payment)
                count += 1
                try flush(force: false)
            }
            buffer += count == 0 ? "]\n" : "\n]\n"
        }
        try flush(force: true)
        return count
    }

    /// One CSV record (RFC 4180, CRLF). Text that a spreadsheet would run as a formula
    /// (starting with = + - @ or a tab) is prefixed with `'`: descriptions come from strangers.
    public static func csvLine(_ p: Payment) -> String {
        let fields = [
            date(p.timestamp), word(p.type), p.status.rawValue, sats(p.amountMsat), sats(p.feeMsat),
            p.fiat.map { "\($0.value)" } ?? "", p.fiat?.currency ?? "", neutralized(p.details.description ?? ""),
            p.details.paymentHash ?? "", p.details.invoice ?? "", p.id,
        ]
        return fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// One JSON object, keys in a fixed order.
    public static func jsonObject(_ p: Payment) -> String {
        let pairs: [(String, String)] = [
            ("id", quote(p.id)), ("date", quote(date(p.timestamp))), ("type", quote(word(p.type))), ("status", quote(p.status.rawValue)),
            ("amountMsat", String(p.amountMsat)), ("amountSats", sats(p.amountMsat)), ("feeMsat", String(p.feeMsat)), ("feeSats", sats(p.feeMsat)),
            ("fiatValue", p.fiat.map { quote("\($0.value)") } ?? "null"), ("fiatCurrency", p.fiat.map { quote($0.currency) } ?? "null"),
            ("description", optional(p.details.description)), ("paymentHash", optional(p.details.paymentHash)),
            ("preimage", optional(p.details.preimage)), ("destination", optional(p.details.destination)),
            ("invoice", optional(p.details.invoice)), ("failureReason", optional(p.failureReason)), ("backend", quote(p.backend)),
        ]
        return "{" + pairs.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// "sent" / "received", the words the CLI uses.
    public static func word(_ type: Payment.Kind) -> String { type == .send ? "sent" : "received" }

    /// Millisatoshis as sats, exactly: 1234567 → "1234.567", 5000 → "5".
    public static func sats(_ msat: UInt64) -> String {
        let whole = msat / 1000, rest = msat % 1000
        guard rest > 0 else { return String(whole) }
        var fraction = String(rest)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    /// UTC, ISO 8601, whole seconds.
    public static func date(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))Z"
    }

    static func neutralized(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func optional(_ text: String?) -> String { text.map(quote) ?? "null" }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x2028 || c.value == 0x2029:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
