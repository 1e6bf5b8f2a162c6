import Foundation
import HawalaLightning
import HawalaOnChain
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore

/// The home (the current wallet's balance, Send and Receive, the latest payments, the backup
/// card), the wallets, the send form, and the session's event stream (payments received,
/// announced on every page).
struct HomeController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/") { request, context in try await home(request, context.session, context.keyring) }
        router.walletPages.get("/send") { request, context in try await sendFormPage(request, context.session, context.open) }
        router.live.get("/events") { request, context in try await sessionEvents(request, context.session, context.open) }
    }
}

/// The home area's handlers: each reads the request, asks the library and renders.
extension HomeController {
    func home(_ request: Request, _ session: AppSessions.Session, _ keyring: Keyring?) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Home", session: session, overview: overview)
        guard let keyring, let wallet = overview.current else { return try render(.ok, "home", page) }
        let store = try await app.store.get()
        let settings = try LightningSettings.load(store: store, walletID: wallet.id)
        var view = HomeView(wallet: wallet, walletCount: overview.wallets.count, lightningReady: settings.backend != nil && wallet.kind != .watchOnly)
        if wallet.kind == .watchOnly {
            // No secret, so no Lightning: its on-chain account is the whole wallet.
        } else if view.lightningReady {
            let now = await app.sessions.time()
            let spec = settings.backend.flatMap { try? BackendSpec.parse($0, home: store.home.directory) }
            do {
                // The page never waits on the network past a few seconds: the connection goes on
                // opening in the background (the next page finds it), and the last known balance
                // is shown meanwhile.
                let lightning = try await Deadline.run(AppRoutes.networkWait, timedOut: {
                    LightningError.unreachable(network: spec?.networkName ?? "network", reason: "still connecting")
                }) { try await lightningSession(session, store, wallet, keyring: keyring) }
                view.networkName = lightning.spec.plainName
                view.isDevnet = lightning.backend is any TestFundedBackend
                async let warning = try? await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
                    await lightning.networkWarning()
                }
                let balance = try await lightning.balance(syncTimeout: AppRoutes.networkWait)
                view.networkWarning = await warning?.capitalizedFirst
                view.balance = satsText(balance.info.balanceMsat, .down)
                view.fiat = balance.fiat.map { AmountText.fiat($0.value, currency: $0.rate.currency) }
                if let offline = balance.offline { view.offline = Self.offlineNote(offline, now: now, timeZone: session.timeZone) }
            } catch {
                guard let words = AppRoutes.lightningWords(error) else { throw error }
                view.networkName = spec?.plainName ?? ""
                if let offline = error as? LightningError, offline.isOffline {
                    if let spec, let known = try? Balance.lastKnown(store: store, wallet: wallet, spec: spec, reason: Balance.offlineReason(offline)) {
                        view.balance = satsText(known.info.balanceMsat, .down)
                        view.offline = known.offline.map { Self.offlineNote($0, now: now, timeZone: session.timeZone) }
                    } else {
                        view.offline = "Not synced yet: the \(spec?.networkName ?? "network") did not answer. Your funds are safe; this page will show them once it does."
                    }
                } else if case LightningError.apiKeyRequired? = error as? LightningError {
                    // The key, not the network: said so, with where to give it.
                    view.offline = "Lightning needs its Breez API key: add it on the Lightning page. Your funds are safe."
                } else {
                    view.offline = "Lightning is not available now. Your funds are safe."
                }
                view.offlineDetail = words
            }
            // Invoices not paid yet are no payments: counted apart.
            let network = LightningWallet.currentNetwork(store: store, walletID: wallet.id)
            view.recent = try store.payments(walletID: wallet.id, filter: PaymentFilter(network: network, openInvoices: false, limit: 5))
                .map { PaymentRow($0, now: now, timeZone: session.timeZone) }
            view.anyRecent = !view.recent.isEmpty
            let waiting = try LightningWallet.waitingInvoices(store: store, walletID: wallet.id, network: network, now: now)
            view.waitingInvoices = waiting == 0 ? nil : waiting == 1 ? "1 invoice" : "\(waiting) invoices"
        } else {
            page.lightning = LightningView(wallet: wallet, settings: settings, sparkAvailable: app.options.backends.spark != nil, home: app.store.home.directory)
        }
        view.onChain = ChainBalanceRow.rows(store: store, wallet: wallet)
        view.anyOnChain = !view.onChain.isEmpty
        page.home = view
        return try render(.ok, "home", page)
    }


    /// "Offline": the last known balance and when it last synced.
    static func offlineNote(_ offline: Balance.Offline, now: Date, timeZone: TimeZone) -> String {
        let when = offline.lastSyncedAt.map { " (last synced \($0.relative(now: now, timeZone: timeZone)))" } ?? ""
        return "Offline: this is the last known balance\(when); the \(offline.network) is not reachable now. Your funds are safe; try again in a minute."
    }

    // MARK: - Sending: the form

    func sendFormPage(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        let refill = await app.sessions.takeInterrupted(session.id, page: "/send")
        var form = SendFormView(input: refill?.value("input") ?? "", amount: refill?.value("amount") ?? "",
                                comment: refill?.value("comment") ?? "", restored: refill != nil)
        form.all = refill?.value("all") == "on"
        // A link to pay (a "lightning:" or "bitcoin:" address the browser handed over).
        if refill == nil, let pasted = request.uri.queryParameters["to"].map(String.init), pasted.utf8.count <= 8_192 {
            form.input = pasted
            // A payment tried again (`Payment.retry`): its amount, when the input does not carry one.
            if let amount = request.uri.queryParameters["amount"].map(String.init), amount.utf8.count <= 32 { form.amount = amount }
        }
        return try await sendForm(session, store: store, wallet: wallet, form: form)
    }

    // MARK: - Events for every page

    /// Server-sent events for the whole session: `received` (a payment came in: `{amount,
    /// what}`) while the session is unlocked and its wallet has Lightning, then `end` when the
    /// session locks, the app stops or the stream has been open for `eventStreamLimit`. Reading
    /// it never keeps a session awake.
    func sessionEvents(_ request: Request, _ session: AppSessions.Session?, _ open: OpenWallet?) async throws -> Response {
        let sessions = app.sessions, stopping = app.stopping
        guard let session, let open, try LightningSettings.load(store: open.store, walletID: open.wallet.id).backend != nil else { return Self.endedStream() }
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let end = await sessions.time().addingTimeInterval(AppRoutes.eventStreamLimit)
        let opener: @Sendable () async throws -> LightningSession = { [self] in try await lightningSession(session, store, wallet, keyring: keyring) }
        // The body is written after the request's handler returned: its unit, kept.
        let unit = AmountText.unit
        let body = ResponseBody { writer in try await AmountText.$unit.withValue(unit) {
            let lightning = try await opener()
            enum Item: Sendable { case event(PaymentEvent), tick }
            let (items, input) = AsyncStream<Item>.makeStream()
            let listener = lightning.backend.addEventListener { input.yield(.event($0)) }
            // An SSE comment (browsers skip it): the stream hears the wallet's news from now on.
            try await writer.write(ByteBuffer(string: ": listening\n\n"))
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    input.yield(.tick)
                }
            }
            defer {
                lightning.backend.removeEventListener(listener)
                ticker.cancel()
            }
            var quiet = 0
            var waiting = Set((try? store.waitingApprovals().map(\.id)) ?? [])
            loop: for await item in items {
                switch item {
                case .tick:
                    let unlocked = await sessions.isStillUnlocked(session.id), time = await sessions.time()
                    if stopping.isStopping || !unlocked || time >= end { break loop }
                    // A program's payment waiting for the person's yes: said at once, on every page.
                    let now = (try? store.waitingApprovals().map(\.id)).map(Set.init) ?? waiting
                    if now != waiting {
                        try await writer.write(ByteBuffer(string: Self.approvalAnnouncement(waiting: now.count, new: !now.isSubset(of: waiting))))
                        try await writer.write(ByteBuffer(string: "event: changed\ndata: {}\n\n"))
                        waiting = now
                    }
                    quiet += 1
                    if quiet >= 15 {
                        quiet = 0
                        try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                    }
                case .event(let event):
                    if let text = await Self.announcement(of: event, recordingIn: lightning) { try await writer.write(ByteBuffer(string: text)) }
                }
            }
            try await writer.write(ByteBuffer(string: "event: end\ndata: {}\n\n"))
            try await writer.finish(nil)
        } }
        return Response(status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8"], body: body)
    }

    /// `approval`: how many payments wait now and the notice's words (none: no notice), and
    /// whether one is new (then the page says so aloud).
    static func approvalAnnouncement(waiting: Int, new: Bool) -> String {
        let text = waiting == 0 ? "" : waiting == 1 ? "A program asks you to approve a payment." : "\(waiting) payments wait for your approval."
        return "event: approval\ndata: " + JSONValue.object([("count", .int(waiting)), ("text", .string(text)), ("new", .bool(new))]).compact + "\n\n"
    }

    /// What the stream says of `event` (nil: nothing): `received` for a payment that came in,
    /// `changed` for news of a payment sent, `deposit` for a deposit's. A payment is recorded
    /// before it is announced; a store that fails is logged (the next sync records it again),
    /// never silent.
    static func announcement(of event: PaymentEvent, recordingIn lightning: LightningSession) async -> String? {
        if let payment = event.payment {
            do { try await lightning.lightning.record([payment]) } catch {
                AppRoutes.logger.error("a payment's news was not recorded: \(error)")
            }
        }
        switch event {
        case .paymentSucceeded(let payment) where payment.type == .receive:
            let note = ReceivedNote(amount: satsText(payment.amountMsat, .down), what: payment.plainTitle, hash: payment.details.paymentHash ?? "")
            return "event: received\ndata: \(note.json)\n\n"
        case let event where event.payment != nil:
            // A payment sent settled, failed, or is pending: the page brings itself up to date.
            return "event: changed\ndata: {}\n\n"
        default:
            return event.depositNews.map { "event: deposit\ndata: \(DepositNote(text: $0).json)\n\n" }
        }
    }

    /// A stream that ends at once (nothing to announce): the page's script closes it.
    static func endedStream() -> Response {
        Response(status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: "event: end\ndata: {}\n\n")))
    }
}

/// A payment received, as the session's event stream announces it.
struct ReceivedNote: Codable {
    let amount: String
    let what: String
    /// The invoice's payment hash (its page shows "Paid" itself).
    let hash: String

    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}

/// News of an on-chain deposit (seen, claimed, not claimed), as the session's event stream says it.
struct DepositNote: Codable {
    let text: String
    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}

/// The home of an unlocked session with a wallet.
struct HomeView {
    let wallet: String
    let testnet: Bool
    /// More than one wallet: the home offers to switch.
    let switchable: Bool
    let lightningReady: Bool
    let watchOnly: Bool
    var networkName = ""
    var isDevnet = false
    var balance: String?
    var fiat: String?
    /// The backend did not answer: what the balance shown is (the last known one), calmly.
    var offline: String?
    /// The network reports trouble (Spark degraded or down).
    var networkWarning: String?
    /// The library's reason, behind "Details".
    var offlineDetail: String?
    var recent: [PaymentRow] = []
    var anyRecent = false
    /// "2 invoices" waiting for a payment (not paid, not expired), apart from the payments.
    var waitingInvoices: String?
    /// Each chain with a node: its coins as the last sync found them.
    var onChain: [ChainBalanceRow] = []
    var anyOnChain = false
    let notBackedUp: Bool
    let hasWords: Bool
    let backupLink: String

    init(wallet: WalletSummary, walletCount: Int, lightningReady: Bool) {
        self.wallet = wallet.name
        testnet = wallet.network == .testnet
        switchable = walletCount > 1
        self.lightningReady = lightningReady
        watchOnly = wallet.kind == .watchOnly
        notBackedUp = !wallet.backup.isBackedUp
        hasWords = wallet.kind == .bip39
        backupLink = "/words?purpose=backup&wallet=" + (wallet.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}

/// The send form: what was typed is kept through a problem or a lock; a problem is shown next
/// to the field it concerns.
struct SendFormView {
    var input: String
    var amount: String
    var comment: String
    /// "Send everything" (a withdrawal to a Bitcoin address, the fee taken from it).
    var all = false
    /// Refilled after an unlock.
    var restored = false
    var needsSetup = false
    var inputProblem: String?
    var amountProblem: String?
    var commentProblem: String?
    /// The comment's disclosure starts open (a comment typed, or a problem with it).
    var openComment = false
    /// The library's words, behind "Details", when the problem was put plainly.
    var detail: String?

    init(input: String = "", amount: String = "", comment: String = "", restored: Bool = false) {
        self.input = input
        self.amount = amount
        self.comment = comment
        self.restored = restored
    }

    /// Puts the library's refusal (`words`) by the field it is about: the amount, the comment,
    /// or what was pasted (a text that doesn't read is said plainly, its words behind Details).
    mutating func show(_ error: Error, words: String, amountTyped: Bool) {
        switch error {
        case LightningError.amountRequired, LightningError.outOfRange(.amount), LightningError.amountMismatch, LightningError.lnurl(.amountOutOfRange),
             LightningError.withdrawal, LightningError.amount, is WithdrawalError, is AmountError:
            amountProblem = words
        case LightningError.insufficientBalance where amountTyped:
            amountProblem = words
        case LightningError.commentNotAccepted, LightningError.lnurl(.commentTooLong), SendRequestError.commentNotAccepted:
            commentProblem = words
        case is SendRequestError:
            amountProblem = words
        case PaymentInputError.empty:
            inputProblem = "Paste an invoice, a Lightning address, an LNURL or a bitcoin: link."
        case PaymentInputError.tooLong:
            inputProblem = "That is too long to be an invoice or an address."
        case is PaymentInputError, is Bolt11Error:
            inputProblem = "Hawala can't read this as an invoice, a Lightning address, an LNURL or a bitcoin: link. Check it was copied whole."
            detail = words
        default:
            inputProblem = words
        }
    }
}

/// The invoice form (receiving on Lightning), kept like the send form.
struct InvoiceFormView {
    struct ChainLink { let name: String, label: String }
    /// The on-chain address whose deposits come into Lightning, and its QR code.
    var depositAddress: String?
    /// The network the deposit address is for, as the person chose it ("devnet (test money on this machine)").
    var depositNetwork: String?
    var depositQRPath = ""
    var depositQRSize = 0
    var amount: String
    var description: String
    var restored = false
    var amountProblem: String?
    var descriptionProblem: String?
    var problem: String?
    /// The wallet's chains, to receive on-chain instead.
    var chains: [ChainLink] = []
    /// The wallet's Lightning address, its LNURL (upper-case: a smaller QR code) and the code.
    var address: String?
    var addressLNURL = ""
    var addressQRPath = ""
    var addressQRSize = 0
}

/// Shared by every area's handlers.
extension AppRoutes {
    /// How long a page waits for the network before showing what is known.
    static let networkWait: Duration = .seconds(3)
}
