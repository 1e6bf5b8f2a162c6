import Foundation
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird

/// The wallet's Lightning address (on the Lightning page; its card on the receive page), and
/// the LNURLs the send box recognizes that are not payments: a withdrawal (LUD-03: a voucher,
/// an ATM) and a login (LUD-04/05).
struct LNURLController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletForms.post("/lightning/address") { _, context in try await registerAddress(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/address/delete") { _, context in try await deleteAddress(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/withdraw") { _, context in try await withdraw(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/auth") { _, context in try await logIn(context.session, context.form, context.open) }
    }
}

/// The lnurl area's handlers: each reads the request, asks the library and renders.
extension LNURLController {
    /// The wallet's address, asked within a page's wait (nil offline, or without one).
    func lightningAddress(_ lightning: LightningSession) async -> LightningAddressInfo? {
        (try? await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
            try await lightning.backend.lightningAddress()
        }) ?? nil
    }

    func registerAddress(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let name = form.text("name") ?? ""
        do {
            let info = try await lightningSession(session, store, wallet, keyring: keyring)
                .registerAddress(name: name, description: form.text("description") ?? "")
            return try await lightning(session, open, message: "Your Lightning address is \(info.address).")
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await lightning(session, open, status: .badRequest, problem: words, addressName: name)
        }
    }

    func deleteAddress(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        do {
            try await lightningSession(session, store, wallet, keyring: keyring).backend.deleteLightningAddress()
            return try await lightning(session, open, message: "The Lightning address was given up: payments to it no longer arrive.")
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await lightning(session, open, status: .badRequest, problem: words)
        }
    }

    func withdraw(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let text = form.text("lnurl") ?? ""
        do {
            let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
            let offer = try await lightning.withdrawOffer(try PaymentInput.parse(text, allowLoopbackHTTP: lightning.spec.allowsLoopbackHTTP))
            let typed = (form.text("amount") ?? "").trimmed
            let amount: Sats?
            do {
                amount = typed.isEmpty ? nil : try AmountText.parse(typed, unit: AmountText.unit)
                _ = try offer.amountSats(amount)
            } catch {
                let words = (error as? AmountInputError)?.description ?? AppRoutes.lightningWords(error) ?? "\(error)"
                return try await withdrawConfirmation(session, offer: offer, lnurl: text, amount: typed, note: nil, status: .badRequest,
                                                      amountProblem: words.sentence)
            }
            let payment = try await lightning.withdraw(offer, amountSats: amount, timeout: .seconds(30))
            return try await paymentResult(session, payment, headline: "Received \(satsText(payment.amountMsat, .down)).")
        } catch {
            let words: String
            if case LightningError.timeout = error {
                words = "The service has not paid yet. The invoice stays valid: the payment will show in History when it comes."
            } else if let error = error as? AmountInputError {
                words = error.description.sentence
            } else {
                guard let known = AppRoutes.lightningWords(error) else { throw error }
                words = known
            }
            return try render(.badRequest, "message", Page(title: "Receive", session: session, overview: try await app.store.overview(), message: words))
        }
    }

    func logIn(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let text = form.text("lnurl") ?? ""
        do {
            let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
            guard case .lnurl(let url) = try PaymentInput.parse(text, allowLoopbackHTTP: lightning.spec.allowsLoopbackHTTP),
                  let fetcher = lightning.lnurl?.fetcher else { throw LNURLError.notALogin("none") }
            let request = try LNURLAuthRequest(url)
            let secret = try store.secret(of: wallet, keyring: keyring)
            _ = try await LNURLAuth.authenticate(request, secret: secret, fetcher: fetcher)
            return try render(.ok, "message", Page(title: "Signed in", session: session, overview: try await app.store.overview(),
                                                   message: "Signed in to \(request.domain)."))
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try render(.badRequest, "message", Page(title: "Sign in", session: session, overview: try await app.store.overview(), message: words))
        }
    }
}

/// A withdrawal or a login to confirm, with one button.
struct LNURLConfirmView {
    let title: String
    let question: String
    let action: String
    let lnurl: String
    let button: String
    var note: String?
    var amount = ""
    var fixedAmount = ""
    var askAmount = false
    var amountProblem: String?

    init(title: String, question: String, action: String, lnurl: String, button: String) {
        self.title = title
        self.question = question
        self.action = action
        self.lnurl = lnurl
        self.button = button
    }
}
