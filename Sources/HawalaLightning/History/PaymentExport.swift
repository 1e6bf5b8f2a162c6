import Foundation
import GRDB
import HawalaText
import HawalaWallet

/// The history as CSV or JSON, newest first, streamed to `write` in 256 KiB blocks. Columns
/// (docs/reference.md): `date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id,txid,address,connection`.
/// CSV amounts are whole sats as every face shows them (`WholeSatsSent`: a send's amount and
/// total rounded up, the fee their difference; a receive rounded down); JSON adds the exact
/// millisatoshis. Dates are UTC ISO 8601.
/// Rows are formatted straight into bytes: 100,000 payments in well under two seconds.
public enum PaymentExport {
    public enum Format: String, Sendable, CaseIterable { case csv, json }

    public static let csvHeader = "date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id,txid,address,connection"

    /// Column order of the export query (read by index, not by name).
    private static let columns = "id, type, status, amountMsat, feeMsat, timestamp, fiatValue, fiatCurrency, description, paymentHash, invoice, preimage, destination, failureReason, backend, network, comment, successAction, txid, onChainAddress, confirmations, connection"
    private static let blockSize = 1 << 18

    /// Writes the wallet's payments matching `filter` (all of them, newest first, when its
    /// page is not set) in `format`; returns how many.
    @discardableResult
    public static func write(_ format: Format, store: WalletStore, walletID: String, filter: PaymentFilter = PaymentFilter(),
                             to write: (Data) throws -> Void) throws -> Int {
        var out = [UInt8]()
        out.reserveCapacity(blockSize + 16_384)
        var count = 0
        switch format {
        case .csv: out += Array((csvHeader + "\r\n").utf8)
        case .json: out.append(UInt8(ascii: "["))
        }
        try store.read { db in
            let request = PaymentRecord.matching(walletID: walletID, filter: filter).newestFirst(filter).select(sql: columns)
            let cursor = try Row.fetchCursor(db, request)
            while let row = try cursor.next() {
                switch format {
                case .csv: csvLine(row, into: &out)
                case .json:
                    out += Array((count == 0 ? "\n  " : ",\n  ").utf8)
                    jsonObject(row, into: &out)
                }
                count += 1
                if out.count >= blockSize {
                    try write(Data(out))
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        if format == .json { out += Array((count == 0 ? "]\n" : "\n]\n").utf8) }
        try write(Data(out))
        return count
    }

    // MARK: Rows

    private static func csvLine(_ row: Row, into out: inout [UInt8]) {
        date(seconds: row[5], into: &out)
        out.append(UInt8(ascii: ","))
        out += (row[1] as String) == "send" ? Array("sent".utf8) : Array("received".utf8)
        out.append(UInt8(ascii: ","))
        out += (row[2] as String).utf8
        out.append(UInt8(ascii: ","))
        let (amount, fee) = wholeSats(row)
        out += String(amount.value).utf8
        out.append(UInt8(ascii: ","))
        out += String(fee.value).utf8
        for (index, neutralize) in [(6, false), (7, false), (8, true), (9, false), (10, false), (0, false), (18, false), (19, true), (21, true)] {
            out.append(UInt8(ascii: ","))
            if let text = row[index] as String? { csvField(text, neutralize: neutralize, into: &out) }
        }
        out += [0x0D, 0x0A]
    }

    private static func jsonObject(_ row: Row, into out: inout [UInt8]) {
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out += [UInt8(ascii: ","), 0x20] }
            out.append(UInt8(ascii: "\""))
            out += UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            out += [UInt8(ascii: "\""), UInt8(ascii: ":"), 0x20]
        }
        func string(_ index: Int) {
            if let text = row[index] as String? { quote(text, into: &out) } else { out += Array("null".utf8) }
        }
        out.append(UInt8(ascii: "{"))
        key("id", first: true); string(0)
        key("date"); out.append(UInt8(ascii: "\"")); date(seconds: row[5], into: &out); out.append(UInt8(ascii: "\""))
        key("type"); quote((row[1] as String) == "send" ? "sent" : "received", into: &out)
        key("status"); string(2)
        let (amountSats, feeSats) = wholeSats(row)
        key("amountMsat"); out += String(max(0, row[3] as Int64)).utf8
        key("amountSats"); out += String(amountSats.value).utf8
        key("feeMsat"); out += String(max(0, row[4] as Int64)).utf8
        key("feeSats"); out += String(feeSats.value).utf8
        key("fiatValue"); string(6)
        key("fiatCurrency"); string(7)
        key("description"); string(8)
        key("paymentHash"); string(9)
        key("preimage"); string(11)
        key("destination"); string(12)
        key("invoice"); string(10)
        key("failureReason"); string(13)
        key("backend"); string(14)
        key("network"); string(15)
        key("comment"); string(16)
        key("successAction"); string(17)
        key("txid"); string(18)
        key("address"); string(19)
        key("confirmations"); if let n = row[20] as Int? { out += String(n).utf8 } else { out += Array("null".utf8) }
        key("connection"); string(21)
        out.append(UInt8(ascii: "}"))
    }

    // MARK: Fields

    /// A row's amount and fee in whole sats, as the faces show them.
    private static func wholeSats(_ row: Row) -> (amount: Sats, fee: Sats) {
        let amount = Msat(clamping: UInt64(max(0, row[3] as Int64))), fee = Msat(clamping: UInt64(max(0, row[4] as Int64)))
        guard (row[1] as String) == "send" else { return (amount.sats(.down), fee.sats(.up)) }
        let sent = WholeSatsSent(amount: amount, fee: fee)
        return (sent.amount, sent.fee)
    }

    /// "sent" / "received", the words the CLI uses.
    public static func word(_ type: Payment.Kind) -> String { type == .send ? "sent" : "received" }

    /// Millisatoshis as sats, exactly: 1234567 → "1234.567", 5000 → "5".
    public static func sats(_ msat: UInt64) -> String {
        var out = [UInt8]()
        sats(msat, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func sats(_ msat: UInt64, into out: inout [UInt8]) {
        out += String(msat / 1000).utf8
        var rest = msat % 1000
        guard rest > 0 else { return }
        out.append(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while rest > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// UTC, ISO 8601, whole seconds.
    public static func date(_ date: Date) -> String {
        var out = [UInt8]()
        self.date(seconds: date.timeIntervalSince1970, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Civil date from days since 1970 (H. Hinnant's algorithm), without the C library.
    static func date(seconds: Double, into out: inout [UInt8]) {
        let total = Int64(seconds.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int64, _ width: Int) {
            var v = value, buffer = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            for i in stride(from: width - 1, through: 0, by: -1) {
                buffer[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            out += buffer
        }
        digits(year, 4); out.append(UInt8(ascii: "-")); digits(month, 2); out.append(UInt8(ascii: "-")); digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); out.append(UInt8(ascii: ":")); digits(secondOfDay / 60 % 60, 2); out.append(UInt8(ascii: ":")); digits(secondOfDay % 60, 2)
        out.append(UInt8(ascii: "Z"))
    }

    /// RFC 4180 quoting; with `neutralize`, text a spreadsheet would run as a formula (starting
    /// with = + - @ tab or CR) gets a leading `'`: descriptions come from strangers.
    static func csvField(_ text: String, neutralize: Bool, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            let formula = neutralize && bytes.first.map { "=+-@\t\r".utf8.contains($0) } == true
            let needsQuotes = bytes.contains { (b: UInt8) -> Bool in b == 0x2C || b == 0x22 || b == 0x0A || b == 0x0D }  // , " LF CR
            if needsQuotes { out.append(UInt8(ascii: "\"")) }
            if formula { out.append(UInt8(ascii: "'")) }
            if needsQuotes {
                for byte in bytes {
                    out.append(byte)
                    if byte == UInt8(ascii: "\"") { out.append(byte) }
                }
                out.append(UInt8(ascii: "\""))
            } else {
                out += bytes
            }
        }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped,
    /// and U+2028/2029 (which break JavaScript parsers).
    static func quote(_ text: String, into out: inout [UInt8]) {
        var text = text
        out.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            if !bytes.contains(where: { (b: UInt8) -> Bool in b < 0x20 || b == 0x22 || b == 0x5C || b == 0xE2 }) {
                out += bytes  // the common case: nothing to escape
                return
            }
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), b]
                case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
                case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20: out += Array(String(format: "\\u%04x", b).utf8)
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    out += Array((bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
