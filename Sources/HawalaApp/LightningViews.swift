import Foundation
import HawalaLightning
import HawalaText
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

/// One payment in a list: its name, when (in the reader's time zone), the signed amount and,
/// until it is done, where it stands. Descriptions come from other people: they pass through
/// `DisplayText.safe`, and the template escapes them.
struct PaymentRow {
    let id: String
    let what: String
    let when: String
    /// ISO 8601 (UTC), for `<time datetime>`.
    let date: String
    let amount: String
    let state: String?
    /// Under the amount: where it stands, else a send's fee ("incl. 4 sat fee").
    let note: String?
    let sent: Bool
    let failed: Bool
    /// Which program made it ("Paid by compute-agent"), when one did.
    let by: String?

    init(_ payment: Payment, now: Date, timeZone: TimeZone) {
        id = payment.id
        what = payment.plainTitle
        by = payment.byLine
        when = payment.timestamp.relative(now: now, timeZone: timeZone)
        date = payment.timestamp.iso8601
        amount = payment.signedAmountText
        state = payment.plainState(at: now)
        note = state ?? payment.feeNote
        sent = payment.type == .send
        failed = payment.status == .failed
    }
}

/// The Lightning screen: which network the wallet uses (chosen, not typed), fiat, test funds.
struct LightningView {
    struct Choice { let value: String, title: String, detail: String, checked: Bool, needsKey: Bool }
    struct Currency { let code: String, selected: Bool }

    let wallet: String
    /// Whether the wallet has a backend (otherwise: the first-run choice).
    let configured: Bool
    var networkName = ""
    var isDevnet = false
    var balance: String?
    let choices: [Choice]
    /// Spark with real bitcoin is offered (the SDK is in this build).
    let offersMainnet: Bool
    let hasAPIKey: Bool
    /// Devnet's ledger: the one in use, or the default under the home.
    let ledger: String
    var currencies: [Currency] = []
    var anyCurrencies = false
    var currenciesProblem: String?
    let fiat: String
    let hasFiat: Bool
    /// A rates source typed by hand (a file or an https address), under "Details".
    let rates: String
    /// The wallet's Lightning address (name@domain), when it has one.
    var address: String?
    /// The name typed in the address form (kept after a refusal).
    var addressName = ""
    /// Why the address can't be shown now.
    var addressUnavailable: String?
    /// Bitcoin sent on-chain to the wallet, and why the list can't be shown now.
    var deposits: [DepositRow] = []
    /// The claim fee cap as saved (`ClaimFeePolicy.saved`).
    var maxClaimFee = ClaimFeePolicy.default.saved
    /// The cap in words ("at most 5 sat/vB").
    var claimCapText = ClaimFeePolicy.default.description
    var anyDeposits = false
    /// Real bitcoin held back until the words are checked (`BackupBeforeRealMoney`): why, in words.
    var backupFirst: String?
    var walletQuery = ""
    let acceptance = BackupBeforeRealMoney.acceptance
    var depositsProblem: String?
    /// What adding test money did (or why not), said in its box, where the page opens.
    var fundMessage: String?
    var fundProblem: String?
    var fundAmount = AmountText.field(100_000)

    init(wallet: WalletSummary, settings saved: LightningSettings, sparkAvailable: Bool, home: URL) {
        self.wallet = wallet.name
        let spec = saved.backend.flatMap { try? BackendSpec.parse($0) }
        configured = spec != nil
        let chosen = spec.map(LightningChoice.init) ?? .devnet
        let offered = LightningChoice.offered(sparkAvailable: sparkAvailable, network: wallet.network)
        choices = offered.map {
            Choice(value: $0.rawValue, title: $0.title, detail: $0.detail, checked: $0 == chosen, needsKey: $0.needsAPIKey)
        }
        offersMainnet = offered.contains(.sparkMainnet)
        hasAPIKey = saved.hasAPIKey == true
        if case .devnet(let path)? = spec { ledger = path } else { ledger = BackendSpec.defaultDevnetLedger(home: home) }
        if let spec {
            networkName = spec.plainName
            if case .devnet = spec { isDevnet = true }
        }
        fiat = saved.fiat ?? ""
        hasFiat = saved.fiat != nil
        rates = saved.rates.map(Self.ratesText) ?? ""
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
    /// The expiry in the reader's time zone ("today 14:37").
    let expiresText: String
    /// Seconds since 1970, for the countdown the script shows.
    let expiresEpoch: Int
    let paid: Bool
    let failed: Bool
    let expired: Bool
    let waiting: Bool
    let paidAmount: String

    init(_ payment: Payment, now: Date, timeZone: TimeZone) throws {
        let text = payment.details.invoice ?? ""
        let decoded = try Bolt11Invoice(text)
        invoice = text
        (qrPath, qrSize) = try svgQRCode(text, caseInsensitive: true)
        amount = decoded.amountMsat.map { satsText($0, .down) } ?? "Any amount"
        description = DisplayText.safe(payment.details.description ?? "")
        paymentHash = payment.details.paymentHash ?? ""
        expiresAt = decoded.expiresAt.iso8601
        expiresText = decoded.expiresAt.relative(now: now, timeZone: timeZone)
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

/// A payment previewed: the rows to confirm (the payee's key and the expiry under "Details"),
/// and what was pasted.
struct SendView {
    let input: String
    /// "Pay on devnet (development network on this machine, not the Lightning network)".
    let network: String
    let rows: [LabelledRow]
    let details: [LabelledRow]
    let total: String

    init(input: String, network: String, preview: [(label: String, value: String)], total: String) {
        self.input = input
        self.network = network
        let technical: Set<String> = ["to", "expires"]
        rows = LabelledRow.rows(preview.filter { !technical.contains($0.label) })
        details = LabelledRow.rows(preview.filter { technical.contains($0.label) })
        self.total = total
    }
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
    /// A payment held by a hold invoice of this wallet's: settle it or cancel it (its hash),
    /// before `heldUntilText`. `canSettle`: the wallet kept its preimage.
    let heldHash: String?
    let heldUntilText: String?
    var canSettle = false
    /// Why settling or cancelling did not happen, in words.
    var holdProblem: String?

    /// Hashes, keys, the invoice, exact amounts and the UTC date: behind "Details".
    let details: [LabelledRow]
    /// A failed send: the send form filled to try again (`Payment.retry`), or why it can't be.
    let retryLink: String?
    let retryExpired: Bool

    init(_ payment: Payment, headline: String? = nil, message: String? = nil, now: Date, timeZone: TimeZone) {
        id = payment.id
        paid = payment.status == .completed
        failed = payment.status == .failed
        pending = payment.status == .pending
        self.headline = headline ?? payment.plainTitle
        rows = LabelledRow.rows(payment.summaryRows(now: now, timeZone: timeZone))
        details = LabelledRow.rows(payment.technicalRows(now: now))
        self.message = message.map(DisplayText.safe)
        heldHash = payment.isHeld ? payment.details.paymentHash : nil
        heldUntilText = payment.isHeld ? payment.heldUntil.map { $0.relative(now: now, timeZone: timeZone) } : nil
        switch payment.retry(at: now) {
        case .payAgain(let to, let amount)?:
            var query = "to=" + (to.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            if let amount { query += "&amount=\(amount)%20sat" }  // in sat whatever the unit shown
            retryLink = "/send?" + query
            retryExpired = false
        case .askForANewInvoice?:
            retryLink = nil
            retryExpired = true
        case nil:
            retryLink = nil
            retryExpired = false
        }
    }
}

/// The history: filters, one page of payments, and the links to the next and previous pages.
struct HistoryView {
    struct Choice { let value: String, label: String, selected: Bool }
    let rows: [PaymentRow]
    let anyRows: Bool
    let types: [Choice]
    let statuses: [Choice]
    /// The networks to choose from, when the wallet has payments on more than one.
    let networks: [Choice]
    let anyNetworks: Bool
    /// The export links' query: what the page lists (type, status, search, network).
    let exportQuery: String
    /// How many payments the filters match (every page): what the downloads hold.
    let matching: String
    let search: String
    /// Query strings (percent-encoded) of the neighbouring pages, when there are any. (Named
    /// apart from the page's own `next`: a template reads a missing name from the page around it.)
    let newerPage: String?
    let olderPage: String?
    let pageStart: Int

    static let pageSize = 50

    init(rows: [Payment], hasMore: Bool, type: Payment.Kind?, status: Payment.Status?, search: String, offset: Int, now: Date, timeZone: TimeZone,
         network: (asked: String, choices: [(network: String, name: String)]), matching: Int) {
        let current = network.choices.first?.network
        networks = network.choices.enumerated().map { index, choice in
            Choice(value: index == 0 ? "" : choice.network, label: choice.name + (index == 0 ? " (now)" : ""),
                   selected: index == 0 ? network.asked.isEmpty || network.asked == current : network.asked == choice.network)
        } + [Choice(value: "all", label: "All networks", selected: network.asked == "all")]
        anyNetworks = network.choices.count > 1
        self.matching = matching == 1 ? "this payment" : "these \(AmountText.grouped(UInt64(max(0, matching)))) payments"
        self.rows = rows.map { PaymentRow($0, now: now, timeZone: timeZone) }
        anyRows = !rows.isEmpty
        types = [Choice(value: "", label: "All", selected: type == nil)]
            + Payment.Kind.allCases.map { Choice(value: $0.rawValue, label: PaymentExport.word($0).capitalizedFirst, selected: $0 == type) }
        statuses = [Choice(value: "", label: "All", selected: status == nil)]
            + Payment.Status.allCases.map { Choice(value: $0.rawValue, label: $0.rawValue.capitalizedFirst, selected: $0 == status) }
        self.search = search
        pageStart = offset + 1
        func query(_ offset: Int?) -> String {
            var items = offset.map { [URLQueryItem(name: "offset", value: String($0))] } ?? []
            if let type { items.append(URLQueryItem(name: "type", value: type.rawValue)) }
            if let status { items.append(URLQueryItem(name: "status", value: status.rawValue)) }
            if !search.isEmpty { items.append(URLQueryItem(name: "q", value: search)) }
            if !network.asked.isEmpty { items.append(URLQueryItem(name: "network", value: network.asked)) }
            var components = URLComponents()
            components.queryItems = items
            // URLComponents leaves `+` and `&` inside values alone in some cases: encode them too.
            return components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        }
        newerPage = offset > 0 ? query(max(0, offset - Self.pageSize)) : nil
        olderPage = hasMore ? query(offset + Self.pageSize) : nil
        let filters = query(nil)
        exportQuery = filters.isEmpty ? "" : "&" + filters
    }
}
