import Foundation
import HawalaLightning
import HawalaOnChain
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore

/// The send form and what a send shows before it is confirmed (an on-chain quote, an LNURL
/// payee's terms), as the send, Lightning and LNURL forms render them.
extension AppArea {

    func sendForm(_ session: AppSessions.Session, store: WalletStore, wallet: WalletSummary, form: SendFormView,
                  status: HTTPResponse.Status = .ok) async throws -> Response {
        var page = Page(title: "Send", session: session, overview: try await app.store.overview())
        var form = form
        form.needsSetup = try LightningSettings.load(store: store, walletID: wallet.id).backend == nil
        form.openComment = !form.comment.isEmpty || form.commentProblem != nil
        page.sendForm = form
        return try render(status, "send-form", page)
    }

    func onChainPreview(_ session: AppSessions.Session, _ quote: OnChainQuote, chosen: OnChainSpeed? = nil,
                        status: HTTPResponse.Status = .ok, problem: String? = nil) async throws -> Response {
        var page = Page(title: "Send bitcoin on-chain", session: session, overview: try await app.store.overview(), problem: problem)
        page.onChainSend = OnChainSendView(quote, chosen: chosen)
        return try render(status, "send-onchain", page)
    }

    /// The send box's LNURL that offers money (withdraw) or asks for a login: what it is, and
    /// one button. nil when `input` is neither (then it is paid as usual).
    func lnurlConfirmation(_ session: AppSessions.Session, lightning: LightningSession, input: PaymentInput, text: String,
                           amount: Sats?) async throws -> Response? {
        guard case .lnurl(let url) = input else { return nil }
        var view: LNURLConfirmView
        if URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains(where: { $0.name == "tag" && $0.value == "login" }) == true {
            let request = try LNURLAuthRequest(url)
            view = LNURLConfirmView(title: "Sign in", question: request.question + "?", action: "/lightning/auth", lnurl: text, button: "Sign in")
            view.note = "\(request.domain) will know this wallet by a key made for it alone. Nothing is paid."
        } else {
            let offer: LNURLWithdrawRequest
            do {
                offer = try await lightning.withdrawOffer(input)
            } catch {
                // (Not `catch .lnurl(.notAWithdrawal)`: with typed throws it crashes Swift 6.3's SILGen.)
                if case .lnurl(.notAWithdrawal) = error { return nil }
                throw error
            }
            let sats = try offer.amountSats(amount)
            return try await withdrawConfirmation(session, offer: offer, lnurl: text, amount: AmountText.field(sats), note: offer.remainderNote(sats: sats))
        }
        var page = Page(title: view.title, session: session, overview: try await app.store.overview())
        page.lnurlConfirm = view
        return try render(.ok, "lnurl-confirm", page)
    }

    /// What a withdrawal link offers, with one button; the amount typed (and why it can't be
    /// taken) kept by its field.
    func withdrawConfirmation(_ session: AppSessions.Session, offer: LNURLWithdrawRequest, lnurl: String, amount: String, note: String?,
                              status: HTTPResponse.Status = .ok, amountProblem: String? = nil) async throws -> Response {
        var view = LNURLConfirmView(title: "Receive", question: offer.summary, action: "/lightning/withdraw", lnurl: lnurl, button: "Receive")
        view.amount = amount
        // Not shown (a fixed amount): kept in sat, so a unit changed meanwhile can't change it.
        view.fixedAmount = offer.minWithdrawableMsat.sats(.down).value.description + " sat"
        view.note = note.map { "If you take less: \($0)." }
        view.askAmount = offer.minWithdrawableMsat.sats(.down) != offer.maxWithdrawableMsat.sats(.down) || amountProblem != nil
        view.amountProblem = amountProblem
        var page = Page(title: view.title, session: session, overview: try await app.store.overview())
        page.lnurlConfirm = view
        return try render(status, "lnurl-confirm", page)
    }
}
