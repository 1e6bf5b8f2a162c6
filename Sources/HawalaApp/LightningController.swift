import Foundation
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore

/// Lightning: the balance, receiving (an invoice whose "Paid" arrives by server-sent events,
/// or by polling without them), sending (prepare → preview → the password → the result), the
/// wallet's Lightning settings, and devnet's test funds. `LightningSession` does the work.
struct LightningController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/lightning") { _, context in try await lightning(context.session, context.open) }
        router.walletForms.post("/lightning/settings") { _, context in try await saveLightningSettings(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/fund") { _, context in try await fund(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/invoice") { _, context in try await createInvoice(context.session, context.form, context.open) }
        router.walletPages.get("/lightning/invoice") { request, context in try await invoicePage(request, context.session, context.open) }
        router.live.get("/lightning/invoice/events") { request, context in try await invoiceEvents(request, context.session, context.open) }
        router.live.get("/lightning/invoice/status") { request, context in try await invoiceStatus(request, context.session, context.open) }
        router.walletForms.post("/lightning/send") { _, context in try await prepareSend(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/pay") { _, context in try await confirmSend(context.session, context.form, context.open) }
    }
}

/// The lightning area's handlers: each reads the request, asks the library and renders.
extension LightningController {

    // MARK: - The Lightning page

    /// The choice saved: the network (a `LightningChoice`, devnet's ledger under the home unless
    /// another is given), the Breez API key for Spark with real bitcoin, the fiat currency.
    func saveLightningSettings(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let before = try LightningSettings.load(store: store, walletID: wallet.id)
        var change = LightningSettingsChange()
        do {
            if let value = form.text("choice") {
                guard let choice = LightningChoice(rawValue: value) else { return try await lightning(session, open, status: .badRequest,
                                                                                                     problem: "Choose one of the networks below.") }
                change.backend = try choice.spec(home: app.store.home.directory, ledger: form.text("ledger")?.trimmed)
                if choice.needsAPIKey, before.hasAPIKey != true, (form.secret("apiKey")?.trimmingWhitespace().count ?? 0) == 0 {
                    return try await lightning(session, open, status: .badRequest,
                                               problem: "Spark with real bitcoin needs a Breez API key: paste it in its field.")
                }
            }
            if let key = form.secret("apiKey")?.trimmingWhitespace(), key.count > 0 { change.apiKey = key }
            if let typed = form.text("acceptRisk") { change.acceptRisk = typed }
            if let fiat = form.text("fiat")?.trimmed {
                if fiat.isEmpty { change.clearFiat = before.fiat != nil || before.rates != nil } else { change.fiat = fiat }
            }
            if !change.clearFiat, let rates = form.text("rates")?.trimmed, !rates.isEmpty { change.rates = try RatesSource(typed: rates) }
            if let cap = form.text("maxClaimFee")?.trimmed, !cap.isEmpty {
                let policy = try ClaimFeePolicy(parsing: cap)
                if policy != before.maxClaimFee { change.maxClaimFee = policy }
            }
            let outcome = try await LightningSettings.apply(change, store: store, wallet: wallet, backends: app.options.backends) { keyring }
            await app.lightningSessions.close(session.id)  // an API key or backend: opened again with it
            var said: [String] = []
            if let spec = change.backend, spec.description != before.backend { said.append("Lightning now uses \(spec.plainName).") }
            if outcome.savedAPIKeyFor != nil { said.append("The API key is saved, sealed by the wallet password.") }
            if let fiat = outcome.settings.fiat, fiat != before.fiat { said.append("Amounts also show in \(fiat).") }
            if change.clearFiat { said.append("Amounts show in sat only.") }
            if let cap = change.maxClaimFee { said.append("A deposit's claim may cost \(cap).") }
            if change.acceptRisk != nil { said.append("Real bitcoin before the words are checked, at your risk: back them up any time from Wallets.") }
            if let unchecked = outcome.ratesUnchecked { said.append("The rates source could not be checked now (\(unchecked)).") }
            let note = said.isEmpty ? "Nothing changed." : "Saved. " + said.joined(separator: " ")
            if before.backend == nil, change.backend != nil {
                return AppResponse.redirect("/")  // the first choice: the home, with its balance
            }
            return try await lightning(session, open, message: note)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await lightning(session, open, status: .badRequest, problem: words)
        }
    }

    /// Devnet only: test funds.
    func fund(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let typed = form.text("amount") ?? ""
        let sats: Sats
        do {
            sats = try AmountText.parse(typed, unit: AmountText.unit)
        } catch {
            return try await lightning(session, open, status: .badRequest, fund: (nil, error.description.sentence, typed))
        }
        do {
            _ = try await lightningSession(session, store, wallet, keyring: keyring).fund(sats: sats)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await lightning(session, open, status: .badRequest, fund: (nil, words, typed))
        }
        return try await lightning(session, open, fund: ("Added \(AmountText.sats(sats)) of test money.", nil, typed))
    }

    // MARK: - Receiving

    func createInvoice(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        var typed = InvoiceFormView(amount: form.text("amount") ?? "", description: form.text("description") ?? "")
        var amount: Sats?
        if !typed.amount.trimmed.isEmpty {
            do {
                amount = try AmountText.parse(typed.amount, unit: AmountText.unit)
            } catch {
                typed.amountProblem = error.description.sentence + " Leave it empty to let the payer choose."
                return try await invoiceForm(session, open, form: typed, status: .badRequest)
            }
        }
        let description = typed.description.trimmed
        let created: CreatedInvoice
        do {
            created = try await lightningSession(session, store, wallet, keyring: keyring)
                .receive(ReceiveRequest(amountSats: amount, description: description, expirySeconds: Bolt11Invoice.defaultExpiry))
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            switch error {
            case LightningError.outOfRange(.amount): typed.amountProblem = words
            case LightningError.outOfRange(.description): typed.descriptionProblem = words
            default: typed.problem = words
            }
            return try await invoiceForm(session, open, form: typed, status: .badRequest)
        }
        // A payment hash is 64 hex digits: safe in a path.
        return AppResponse.redirect("/lightning/invoice?hash=\(created.response.paymentHash)")
    }

    func invoicePage(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        var page = Page(title: "Invoice", session: session, overview: try await app.store.overview())
        guard let invoice = try receivedInvoice(request, store: store, wallet: wallet) else {
            page.message = "No such invoice in wallet “\(wallet.name)”."
            return try render(.notFound, "message", page)
        }
        let view = try InvoiceView(invoice, now: await app.sessions.time(), timeZone: session.timeZone)
        // Without scripts, the page reloads itself while it waits; with them, events say "paid".
        if view.waiting { page.pollSeconds = 5 }
        page.invoice = view
        return try render(.ok, "invoice", page)
    }

    /// Server-sent events for one invoice: `paid`, `failed`, `expired` or `locked` (each with
    /// an `InvoiceStatus`), then the stream ends; a comment every 15 s keeps it open meanwhile.
    func invoiceEvents(_ request: Request, _ session: AppSessions.Session?, _ open: OpenWallet?) async throws -> Response {
        let found: FoundInvoice
        switch try invoiceRead(request, session, open) {
        case .refused(let response): return response
        case .found(let invoice): found = invoice
        }
        let (session, keyring, store, wallet, invoice) = (found.session, found.keyring, found.store, found.wallet, found.invoice)
        let sessions = app.sessions, stopping = app.stopping
        let now = await sessions.time()
        let expiry: Date
        if case .waiting(let at) = invoice.receiveState(at: now) { expiry = at } else { expiry = now }
        let end = min(expiry, now.addingTimeInterval(AppRoutes.eventStreamLimit))
        let hash = invoice.details.paymentHash ?? ""
        let opener: @Sendable () async throws -> LightningSession = { [self] in try await lightningSession(session, store, wallet, keyring: keyring) }
        // The body is written after the request's handler returned: its unit, kept.
        let unit = AmountText.unit
        let body = ResponseBody { writer in try await AmountText.$unit.withValue(unit) {
            var status = InvoiceStatus(invoice, now: now)
            if status.status == "waiting" {
                let lightning = try await opener()
                // Until the outcome, the end, the lock (checked without counting as a request;
                // the lock also closes the session, which ends a wait) or the app stopping:
                // waits of a second, a comment every 15 s.
                var quiet = 0
                while status.status == "waiting", await sessions.time() < end, !stopping.isStopping {
                    guard await sessions.isStillUnlocked(session.id) else {
                        status = InvoiceStatus(status: "locked")
                        break
                    }
                    do {
                        let settled = try await lightning.lightning.waitForPayment(paymentHash: hash, timeout: .seconds(1))
                        status = InvoiceStatus(settled, now: await sessions.time())
                    } catch LightningError.timeout {
                        quiet += 1
                        if quiet >= 15 {
                            quiet = 0
                            try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                        }
                    } catch {
                        guard await sessions.isStillUnlocked(session.id) else { continue }
                        throw error
                    }
                }
                if status.status == "waiting" { status = InvoiceStatus(invoice, now: await sessions.time()) }
            }
            if status.status != "waiting" {
                try await writer.write(ByteBuffer(string: "event: \(status.status)\ndata: \(status.json)\n\n"))
            }
            try await writer.finish(nil)
        } }
        return Response(status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8"], body: body)
    }

    /// The polling fallback: the invoice's status as JSON, after a short sync with the backend.
    func invoiceStatus(_ request: Request, _ session: AppSessions.Session?, _ open: OpenWallet?) async throws -> Response {
        let found: FoundInvoice
        switch try invoiceRead(request, session, open) {
        case .refused(let response): return response
        case .found(let invoice): found = invoice
        }
        var invoice = found.invoice
        if invoice.status == .pending, let lightning = try? await lightningSession(found.session, found.store, found.wallet, keyring: found.keyring) {
            _ = await lightning.lightning.sync(timeout: .seconds(5))
            invoice = try receivedInvoice(request, store: found.store, wallet: found.wallet) ?? invoice
        }
        let status = InvoiceStatus(invoice, now: await app.sessions.time())
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: status.json)))
    }

    /// What both invoice reads check first (after `LiveMiddleware`'s own page): an unlocked
    /// session, the invoice.
    enum InvoiceRead {
        case refused(Response)
        case found(FoundInvoice)
    }

    struct FoundInvoice {
        let session: AppSessions.Session
        let keyring: Keyring
        let store: WalletStore
        let wallet: WalletSummary
        let invoice: Payment
    }

    func invoiceRead(_ request: Request, _ session: AppSessions.Session?, _ open: OpenWallet?) throws -> InvoiceRead {
        guard let session, session.isUnlocked else { return .refused(AppResponse.plain(.unauthorized, "not signed in")) }
        guard let open, let invoice = try receivedInvoice(request, store: open.store, wallet: open.wallet), invoice.details.paymentHash != nil else {
            return .refused(AppResponse.plain(.notFound, "no such invoice"))
        }
        return .found(FoundInvoice(session: session, keyring: open.keyring, store: open.store, wallet: open.wallet, invoice: invoice))
    }

    /// The receive recorded for the `hash` in the query (64 hex digits), if any.
    func receivedInvoice(_ request: Request, store: WalletStore, wallet: WalletSummary) throws -> Payment? {
        guard let hash = request.uri.queryParameters["hash"].map(String.init)?.lowercased(), hash.count == 64,
              hash.allSatisfy(\.isHexDigit) else { return nil }
        return try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .receive, paymentHash: hash, limit: 1)).first
    }

    // MARK: - Sending

    /// Step 1: what was pasted, prepared (nothing sent) and shown with its fee; the password
    /// confirms it.
    func prepareSend(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        var typed = SendFormView(input: form.text("input") ?? "", amount: form.text("amount") ?? "", comment: form.text("comment") ?? "")
        typed.all = form.text("all") == "on"
        func refuse(_ change: (inout SendFormView) -> Void) async throws -> Response {
            change(&typed)
            return try await sendForm(session, store: store, wallet: wallet, form: typed, status: .badRequest)
        }
        let text = typed.input.trimmed
        var amount: Sats?
        if !typed.amount.trimmed.isEmpty {
            do {
                amount = try AmountText.parse(typed.amount, unit: AmountText.unit)
            } catch {
                return try await refuse { $0.amountProblem = error.description.sentence }
            }
        }
        do {
            let onDevnet = (try? LightningSettings.load(store: store, walletID: wallet.id).backend.flatMap { try BackendSpec.parse($0) }?.allowsLoopbackHTTP) ?? false
            let input = try PaymentInput.parse(text, allowLoopbackHTTP: onDevnet == true)
            let request = try SendRequest(input: input, amount: amount, everything: typed.all, comment: form.text("comment"))
            switch request.route {
            case let .onChain(address, amountChosen, key):
                return try await previewWithdrawal(session, open, address: address, amount: amountChosen, key: key)
            case .lightning(let comment):
                return try await previewPayment(session, open, input: input, text: text, amount: amount, comment: comment)
            }
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await refuse { $0.show(error, words: words, amountTyped: amount != nil) }
        }
    }

    /// A Bitcoin address (or a bitcoin: link without an invoice): a withdrawal, priced at each
    /// speed. The key is the preview's: a second click, or a retry after no answer, never sends
    /// twice.
    func previewWithdrawal(_ session: AppSessions.Session, _ open: OpenWallet, address: String, amount: OnChainAmount, key: String) async throws -> Response {
        let lightning = try await lightningSession(session, open.store, open.wallet, keyring: open.keyring)
        let quote = try await lightning.lightning.prepareOnChain(address: address, amount: amount)
        let pending = AppSessions.PendingOnChain(walletID: open.wallet.id, quote: quote, key: key)
        await app.sessions.update(session.id) { $0.onChain = pending }
        return try await onChainPreview(session, quote)
    }

    /// A Lightning payment prepared and shown with its fee; one paid before under the invoice's
    /// key is shown instead, and an LNURL that offers money or asks for a login is confirmed on
    /// its own page.
    func previewPayment(_ session: AppSessions.Session, _ open: OpenWallet, input: PaymentInput, text: String, amount: Sats?,
                        comment: String?) async throws -> Response {
        if let earlier = try LightningWallet.earlier(for: input, key: nil, store: open.store, walletID: open.wallet.id) {
            return try await paymentResult(session, earlier.payment, headline: earlier.headline.sentence)
        }
        let lightning = try await lightningSession(session, open.store, open.wallet, keyring: open.keyring)
        if let confirm = try await lnurlConfirmation(session, lightning: lightning, input: input, text: text, amount: amount) {
            return confirm
        }
        let (payment, rate) = (try await lightning.prepare(input, text: text, amountSats: amount, comment: comment, maxFeeSats: nil),
                               await lightning.configuredRate())
        let pending = AppSessions.PendingSend(walletID: open.wallet.id, payment: payment, input: text, network: lightning.backendLabel)
        await app.sessions.update(session.id) { $0.send = pending }
        return try await sendPreview(session, pending, rate: rate)
    }

    func sendPreview(_ session: AppSessions.Session, _ pending: AppSessions.PendingSend, rate: FiatRate?,
                     status: HTTPResponse.Status = .ok, problem: String? = nil) async throws -> Response {
        var page = Page(title: "Confirm the payment", session: session, overview: try await app.store.overview(), problem: problem)
        page.send = SendView(input: pending.input, network: pending.network, preview: pending.payment.previewRows(rate: rate),
                             total: SendFigures(amountMsat: pending.payment.prepared.amountMsat, feeMsat: pending.payment.prepared.feeMsat).total)
        return try render(status, "send", page)
    }

    /// Step 2: the password again, then the payment, once (its idempotency key is the invoice's
    /// payment hash: a second click returns the first result).
    func confirmSend(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        guard let pending = session.send else { return try await confirmedBefore(session, form, open) }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await sendPreview(session, pending, rate: nil, status: status, problem: problem)
        }
        // Taken once: a second submission finds nothing to pay (and the key would refuse it).
        guard await app.sessions.update(session.id, { s -> Bool in
            let taken = s.send != nil
            s.send = nil
            return taken
        }) == true else { return try await confirmedBefore(session, form, open) }
        let (store, wallet) = (open.store, open.wallet)
        guard wallet.id == pending.walletID else {
            return try render(.conflict, "message", Page(title: "Not paid", session: session, overview: try await app.store.overview(),
                                                          message: "The current wallet changed since the preview: nothing was paid."))
        }
        do {
            let payment = try await lightningSession(session, store, wallet, keyring: keyring).lightning.pay(pending.payment, idempotencyKey: nil)
            let message = pending.payment.payeeMessage(after: payment)
            let headline = switch payment.status {
            case .completed: "Paid"
            case .failed: "Payment failed"
            case .pending: "Pending: not final, it may still settle"
            }
            return try await paymentResult(session, payment, headline: headline, message: message)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try render(.badRequest, "message", Page(title: "Not paid", session: session, overview: try await app.store.overview(),
                                                            message: words))
        }
    }

    /// "Pay" sent again for a confirmation already used (Back, then Pay): the payment it made,
    /// said as such — "already paid: nothing was sent again" — else the Send form.
    func confirmedBefore(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        guard let text = form.text("input")?.trimmed, !text.isEmpty, let input = try? PaymentInput.parse(text),
              let earlier = try? LightningWallet.earlier(for: input, key: nil, store: open.store, walletID: open.wallet.id) else {
            return AppResponse.redirect("/send")
        }
        return try await paymentResult(session, earlier.payment, headline: earlier.headline.sentence)
    }

    // MARK: - Helpers



}

/// Shared by every area's handlers.
extension AppRoutes {
    /// The app session's Lightning session for `wallet`: opened once and kept until the session
    /// locks or the wallet or its settings change (`LightningSessionCache`).
    func lightningSession(_ session: AppSessions.Session, _ store: WalletStore, _ wallet: WalletSummary,
                          keyring: Keyring) async throws -> LightningSession {
        let key = LightningSessionCache.key(walletID: wallet.id, settings: try LightningSettings.load(store: store, walletID: wallet.id))
        let backends = app.options.backends
        let sessions = app.lightningSessions
        let network = (try? LightningSettings.load(store: store, walletID: wallet.id).backend.flatMap { try BackendSpec.parse($0) }?.networkName) ?? nil
        // Opening goes on in the background past the bound; the next request finds it open.
        return try await Deadline.run(.seconds(10), timedOut: { LightningError.unreachable(network: network ?? "network", reason: "no answer within 10 s") }) {
            try await sessions.session(for: session.id, key: key) {
                // A page's action waits at most 10 s for Spark's network (then it fails, the form kept).
                try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: backends, networkTimeout: .seconds(10),
                                                reachesLNURL: true) { keyring }
            }
        }
    }

    /// A person's words for the library's refusals; nil for anything else (a bug: a plain error page).
    static func lightningWords(_ error: Error) -> String? {
        switch error {
        case LightningSessionError.noBackend:
            "This wallet does not use Lightning yet: choose a network on the Lightning page."
        case LightningError.amountRequired:
            "This payment needs an amount: type how much to send."
        case LightningError.commentNotAccepted, SendRequestError.commentNotAccepted:
            "A comment is for Lightning addresses and LNURL-pay only."
        case SendRequestError.amountIsZero:
            "The amount must be at least 1 sat."
        case SendRequestError.amountMissing:
            "Type how much to send in sat, or tick “Send everything”."
        case SendRequestError.everythingNeedsAddress:
            "“Send everything” is for a Bitcoin address; type an amount, or leave both empty for an invoice's own."
        case SendRequestError.amountAndEverything:
            "Type an amount or tick “Send everything”, not both."
        case LightningSettingsError.invalidCurrencyCode:
            "A currency is three letters, like USD."
        case LightningSettingsError.ratesNotHTTPS, LightningSettingsError.unrecognizedRatesSource:
            "A rates source is an https:// address or the full path of a rates file."
        case FiatSettingError.noRatesSource:
            "A fiat currency needs a rates source: an https:// address or a rates file."
        case let error as LightningError: error.description.sentence
        case let error as BackendSpecError: error.description.sentence
        case let error as WithdrawalError: error.description.sentence
        case let error as DepositError: error.description.sentence
        case let error as ExitError: error.description.sentence
        case let error as LightningSessionError: error.description.sentence
        case let error as LightningSettingsError: error.description.sentence
        case let error as BackupBeforeRealMoney.Refusal: error.description.sentence
        case let error as FiatSettingError: error.description.sentence
        case let error as FiatRatesError: error.description.sentence
        case let error as PaymentInputError: error.description.sentence
        case let error as Bolt11Error: error.description.sentence
        case let error as LNURLError: error.description.sentence
        case let error as WalletError: error.description.sentence
        case let error as AmountError: error.description.sentence
        case let error as AmountInputError: error.description.sentence
        case let error as SendRequestError: error.description.sentence
        default: nil
        }
    }

    /// How long one event stream stays open at most (the page opens another when it ends).
    static let eventStreamLimit: TimeInterval = 30 * 60
}
