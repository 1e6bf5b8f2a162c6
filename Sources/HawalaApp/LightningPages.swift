import Foundation
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore

/// The Lightning page and a payment's outcome, as every sending form renders them.
extension AppArea {

    /// The Lightning page: the network chosen (or the first-run choice), fiat, devnet's test
    /// funds; with `problem` (and `status`) after a refused change, `message` after a saved one.
    func lightning(_ session: AppSessions.Session, _ open: OpenWallet, status: HTTPResponse.Status = .ok,
                   problem: String? = nil, message: String? = nil, addressName: String = "",
                   fund: (message: String?, problem: String?, typed: String)? = nil) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        var page = Page(title: "Lightning", session: session, overview: try await app.store.overview(), problem: problem, message: message)
        let settings = try LightningSettings.load(store: store, walletID: wallet.id)
        var view = LightningView(wallet: wallet, settings: settings, sparkAvailable: app.options.backends.spark != nil, home: app.store.home.directory)
        view.maxClaimFee = settings.maxClaimFee.saved
        if let spec = settings.backend.flatMap({ try? BackendSpec.parse($0, home: store.home.directory) }), BackupBeforeRealMoney.holdsBack(spec, wallet: wallet, store: store) {
            view.backupFirst = BackupBeforeRealMoney.Refusal.backupFirst(wallet: wallet.name).description.sentence
            view.walletQuery = wallet.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
        if let fund {
            (view.fundMessage, view.fundProblem, view.fundAmount) = (fund.message, fund.problem, fund.typed)
            page.anchor = "test-money"
        }
        view.claimCapText = settings.maxClaimFee.description.hasPrefix("at most") ? settings.maxClaimFee.description
            : "at most " + settings.maxClaimFee.description
        if view.configured {
            do {
                let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
                if view.isDevnet { view.balance = satsText(try await lightning.backend.getInfo().balanceMsat, .down) }
                view.addressName = addressName
                (view.deposits, view.depositsProblem) = await depositRows(lightning)
                view.anyDeposits = !view.deposits.isEmpty
                do {
                    view.address = try await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
                        try await lightning.backend.lightningAddress()
                    }?.address
                } catch {
                    view.addressUnavailable = AppRoutes.lightningWords(error).map { "Your Lightning address can't be shown now: \($0)" }
                }
                do {
                    let codes = try await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
                        try await lightning.fiatCurrencies()
                    }
                    view.currencies = codes.map { LightningView.Currency(code: $0, selected: $0 == view.fiat) }
                    if !view.fiat.isEmpty, !codes.contains(view.fiat) { view.currencies.insert(.init(code: view.fiat, selected: true), at: 0) }
                } catch {
                    view.currenciesProblem = "The list of currencies is not available now: \(error)"
                    if !view.fiat.isEmpty { view.currencies = [.init(code: view.fiat, selected: true)] }
                }
            } catch {
                guard let words = AppRoutes.lightningWords(error) else { throw error }
                view.currenciesProblem = "The Lightning network did not answer: \(words)"
                if !view.fiat.isEmpty { view.currencies = [.init(code: view.fiat, selected: true)] }
            }
            view.anyCurrencies = !view.currencies.isEmpty
        }
        page.lightning = view
        return try render(status, "lightning", page)
    }

    func paymentResult(_ session: AppSessions.Session, _ payment: Payment, headline: String, message: String? = nil) async throws -> Response {
        var page = Page(title: headline, session: session, overview: try await app.store.overview())
        page.payment = PaymentView(payment, headline: headline, message: message, now: await app.sessions.time(), timeZone: session.timeZone)
        return try render(.ok, "payment", page)
    }

    /// The wallet's deposits, for the Lightning page (within the page's wait for the network).
    func depositRows(_ lightning: LightningSession) async -> (rows: [DepositRow], problem: String?) {
        do {
            let deposits = try await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
                try await lightning.backend.listDeposits()
            }
            return (deposits.map(DepositRow.init), nil)
        } catch {
            return ([], AppRoutes.lightningWords(error).map { "The deposits can't be shown now: \($0)" })
        }
    }

    /// The invoice form, with the wallet's chains to receive on-chain instead.
    func invoiceForm(_ session: AppSessions.Session, _ open: OpenWallet, form: InvoiceFormView, status: HTTPResponse.Status = .ok) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        var page = Page(title: "Receive", session: session, overview: try await app.store.overview())
        var form = form
        form.chains = wallet.accounts.compactMap { Chain.named($0.chain) }.map { InvoiceFormView.ChainLink(name: $0.name, label: $0.displayName) }
        // The address card, when the network answers within a page's wait.
        let info = try? await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
            try await lightningSession(session, store, wallet, keyring: keyring).backend.lightningAddress()
        }
        if let info = info ?? nil {
            form.address = info.address
            form.addressLNURL = info.lnurl.uppercased()
            (form.addressQRPath, form.addressQRSize) = try svgQRCode(form.addressLNURL, caseInsensitive: true)
        }
        // Bitcoin sent on-chain into Lightning: the deposit address (the same until used).
        let deposit = try? await Deadline.run(AppRoutes.networkWait, timedOut: { LightningError.timeout(waitingFor: .answer, after: AppRoutes.networkWait) }) {
            try await lightningSession(session, store, wallet, keyring: keyring).receivingAddress(.bitcoin).address
        }
        if let deposit {
            form.depositAddress = deposit
            let backend = try await lightningSession(session, store, wallet, keyring: keyring).backend
            form.depositNetwork = backend.network.plainName(backend: backend.name)
            (form.depositQRPath, form.depositQRSize) = try svgQRCode("bitcoin:" + deposit.uppercased(), caseInsensitive: true)
        }
        page.invoiceForm = form
        return try render(status, "receive-lightning", page)
    }
}
