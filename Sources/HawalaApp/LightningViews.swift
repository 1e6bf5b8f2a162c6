import Foundation
import HawalaFormat
import HawalaLightning
import HawalaWallet

/// A label and its value (a payment's details, a payment's preview).
struct LabelledRow {
    let label: String
    let value: String

    /// The library's rows, their labels capitalised for a page.
    static func rows(_ rows: [(label: String, value: String)]) -> [LabelledRow] {
        rows.map { LabelledRow(label: $0.label.capitalizedFirst, value: $0.value) }
    }
}

/// One payment in a list. Descriptions come from other people: they pass through
/// `DisplayText.safe`, and the template escapes them.
struct PaymentRow {
    let id: String
    let date: String
    let type: String
    let status: String
    let amount: String
    let description: String
    let sent: Bool
    let pending: Bool
    let failed: Bool

    init(_ payment: Payment) {
        id = payment.id
        date = PaymentExport.date(payment.timestamp)
        type = PaymentExport.word(payment.type)
        status = payment.status.rawValue
        amount = payment.signedAmountText
        description = DisplayText.safe(String((payment.details.description ?? "").prefix(80)))
        sent = payment.type == .send
        pending = payment.status == .pending
        failed = payment.status == .failed
    }
}

/// The Lightning screen: balance, receive and send forms, the latest payments, the settings.
struct LightningView {
    struct Settings {
        let backend: String, fiat: String, rates: String
        /// A currency or rates source is set (an empty string is true to a template).
        let hasFiat: Bool
    }

    let wallet: String
    /// Whether the wallet has a backend (otherwise only the settings show).
    let configured: Bool
    var backend = ""
    var isDevnet = false
    var balance: String?
    var fiat: String?
    /// Why the balance or its fiat value is missing (the backend did not answer, no rate).
    var offline: String?
    var recent: [PaymentRow] = []
    var anyRecent = false
    let settings: Settings
    let sparkAvailable: Bool

    init(wallet: WalletSummary, settings saved: LightningSettings, sparkAvailable: Bool) {
        self.wallet = wallet.name
        configured = saved.backend != nil
        settings = Settings(backend: saved.backend ?? "", fiat: saved.fiat ?? "", rates: saved.rates.map(Self.ratesText) ?? "",
                            hasFiat: saved.fiat != nil || saved.rates != nil)
        self.sparkAvailable = sparkAvailable
    }

    /// A saved rates source as a person types it: the URL, or the file's path.
    static func ratesText(_ saved: String) -> String {
        switch RatesSource(saved: saved) {
        case .url(let url)?: url.absoluteString
        case .file(let path)?: path
        case nil: saved
        }
    }
}

/// An invoice made here: its text, its QR code and whether it is paid.
struct InvoiceView {
    let invoice: String
    let qrPath: String
    let qrSize: Int
    let amount: String
    let description: String
    let paymentHash: String
    let expiresAt: String
    /// Seconds since 1970, for the countdown the script shows.
    let expiresEpoch: Int
    let paid: Bool
    let failed: Bool
    let expired: Bool
    let waiting: Bool
    let paidAmount: String

    init(_ payment: Payment, now: Date) throws {
        let text = payment.details.invoice ?? ""
        let decoded = try Bolt11Invoice(text)
        invoice = text
        (qrPath, qrSize) = try svgQRCode(text, caseInsensitive: true)
        amount = decoded.amountMsat.map(AmountText.exactSats) ?? "any amount (the payer chooses)"
        description = DisplayText.safe(payment.details.description ?? "")
        paymentHash = payment.details.paymentHash ?? ""
        expiresAt = decoded.expiresAt.iso8601
        expiresEpoch = Int(decoded.expiresAt.timeIntervalSince1970)
        let state = payment.receiveState(at: now)
        paid = state.word == "paid"
        failed = state == .failed
        expired = state == .expired
        waiting = state.word == "waiting"
        paidAmount = satsText(payment.amountMsat, .down)
    }
}

/// What the event stream and the status endpoint say about an invoice (JSON).
struct InvoiceStatus: Codable, Equatable {
    /// "waiting", "paid", "failed", "expired" or "locked".
    let status: String
    /// The amount received, when paid.
    let amount: String?

    init(status: String, amount: String? = nil) {
        self.status = status
        self.amount = amount
    }

    init(_ payment: Payment, now: Date) {
        let state = payment.receiveState(at: now)
        if case .paid(let amount) = state { self.init(status: "paid", amount: satsText(amount, .down)) } else { self.init(status: state.word) }
    }

    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}

/// A payment previewed: the rows to confirm, and what was pasted.
struct SendView {
    let input: String
    let rows: [LabelledRow]
    let total: String
}

/// A payment's outcome or its details.
struct PaymentView {
    let id: String
    let headline: String
    let paid: Bool
    let failed: Bool
    let pending: Bool
    let rows: [LabelledRow]
    /// The payee's message after paying (LNURL success action), if any.
    let message: String?

    init(_ payment: Payment, headline: String? = nil, message: String? = nil) {
        id = payment.id
        paid = payment.status == .completed
        failed = payment.status == .failed
        pending = payment.status == .pending
        self.headline = headline ?? (payment.type == .send ? "Sent" : "Received")
        rows = LabelledRow.rows(payment.detailRows())
        self.message = message.map(DisplayText.safe)
    }
}

/// The history: filters, one page of payments, and the links to the next and previous pages.
struct HistoryView {
    struct Choice { let value: String, label: String, selected: Bool }
    let rows: [PaymentRow]
    let anyRows: Bool
    let types: [Choice]
    let statuses: [Choice]
    let search: String
    /// Query strings (percent-encoded) of the neighbouring pages, when there are any.
    let previous: String?
    let next: String?
    let pageStart: Int

    static let pageSize = 50

    init(rows: [Payment], hasMore: Bool, type: Payment.Kind?, status: Payment.Status?, search: String, offset: Int) {
        self.rows = rows.map(PaymentRow.init)
        anyRows = !rows.isEmpty
        types = [Choice(value: "", label: "All", selected: type == nil)]
            + Payment.Kind.allCases.map { Choice(value: $0.rawValue, label: PaymentExport.word($0), selected: $0 == type) }
        statuses = [Choice(value: "", label: "All", selected: status == nil)]
            + Payment.Status.allCases.map { Choice(value: $0.rawValue, label: $0.rawValue, selected: $0 == status) }
        self.search = search
        pageStart = offset + 1
        func query(_ offset: Int) -> String {
            var items = [URLQueryItem(name: "offset", value: String(offset))]
            if let type { items.append(URLQueryItem(name: "type", value: type.rawValue)) }
            if let status { items.append(URLQueryItem(name: "status", value: status.rawValue)) }
            if !search.isEmpty { items.append(URLQueryItem(name: "q", value: search)) }
            var components = URLComponents()
            components.queryItems = items
            // URLComponents leaves `+` and `&` inside values alone in some cases: encode them too.
            return components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        }
        previous = offset > 0 ? query(max(0, offset - Self.pageSize)) : nil
        next = hasMore ? query(offset + Self.pageSize) : nil
    }
}
