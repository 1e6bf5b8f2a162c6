import Foundation
import HawalaKeys
import HawalaLightning
import HawalaOnChain
import HawalaWallet
import HTTPTypes
import Hummingbird

/// Receiving: with Lightning, an invoice (the form; its page is in LightningRoutes); on a chain,
/// the current wallet's address with its QR code (inline SVG), and a new address on request.
/// The same address is shown until a new one is asked for.
struct ReceiveController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/receive") { request, context in try await receivePage(request, context.session, context.open) }
        router.unlockedForms.post("/receive/new") { _, context in try await newAddress(context.session, context.form, context.keyring) }
    }
}

/// The receive area's handlers: each reads the request, asks the library and renders.
extension ReceiveController {
    func receivePage(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        let chainName = request.uri.queryParameters["chain"].map(String.init)
        if chainName == nil {
            if try LightningSettings.load(store: open.store, walletID: open.wallet.id).backend != nil {
                let refill = await app.sessions.takeInterrupted(session.id, page: "/receive")
                var form = InvoiceFormView(amount: refill?.value("amount") ?? "", description: refill?.value("description") ?? "")
                form.restored = refill != nil
                return try await invoiceForm(session, open, form: form)
            }
        }
        return try await receive(session, keyring: open.keyring, chainName: chainName, advance: false)
    }

    /// "New address": the next one is reserved, then the page shows it (nothing is rendered twice).
    func newAddress(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        switch try await receiveTarget(form.text("chain")) {
        case .noWallet: return AppResponse.redirect("/")
        case .noSuchChain: return try await noSuchChain(session)
        case let .found(store, wallet, chain, _):
            do {
                _ = try store.addressRequest(wallet: wallet, chain: chain, advance: true, unlock: { keyring })
            } catch let error as WalletError {
                return try render(.badRequest, "message", Page(title: "Receive", session: session, overview: try await app.store.overview(),
                                                                message: error.description))
            }
            // Chain names are lower-case letters and dashes: safe in a path.
            return AppResponse.redirect("/receive?chain=\(chain.name)")
        }
    }

    func receive(_ session: AppSessions.Session, keyring: Keyring, chainName: String?, advance: Bool) async throws -> Response {
        switch try await receiveTarget(chainName) {
        case .noWallet: return AppResponse.redirect("/")
        case .noSuchChain: return try await noSuchChain(session)
        case let .found(store, wallet, chain, chains):
            var page = Page(title: "Receive", session: session, overview: try await app.store.overview())
            do {
                // The receive counter's address, as `hawala wallet receive` gives it (the on-chain
                // wallet watches it); the chain's page, where payments show, beside it.
                let request = try store.addressRequest(wallet: wallet, chain: chain, advance: advance, unlock: { keyring })
                page.receive = try ReceiveView(wallet: wallet, request: request, chains: chains)
                let coin = OnChainAccount.coin(of: chain, in: wallet.network).flatMap { OnChainAccount.coins(of: wallet).contains($0) ? $0 : nil }
                page.receive?.chainPage = coin.map { "/chain/\($0.rawValue)" }
                page.receive?.watched = try coin.map { try OnChainWallet.savedNode(wallet: wallet, coin: $0, store: store) != nil } ?? false
                page.receive?.hasLightning = try LightningSettings.load(store: store, walletID: wallet.id).backend != nil
            } catch let error as WalletError {
                page.message = error.description
                return try render(.badRequest, "message", page)
            }
            return try render(.ok, "receive", page)
        }
    }

    /// Where to receive: the current wallet and the chain asked for (its default one without).
    enum ReceiveTarget {
        case found(WalletStore, WalletSummary, Chain, chains: [Chain])
        case noWallet
        case noSuchChain
    }

    func receiveTarget(_ chainName: String?) async throws -> ReceiveTarget {
        let store = try await app.store.get()
        guard let wallet = try store.current() else { return .noWallet }
        let chains = wallet.accounts.compactMap { Chain.named($0.chain) }
        guard let chain = chainName.map({ name in chains.first { $0.name == name } }) ?? WalletStore.defaultReceiveChain(of: wallet) else {
            return .noSuchChain
        }
        return .found(store, wallet, chain, chains: chains)
    }

    func noSuchChain(_ session: AppSessions.Session) async throws -> Response {
        var page = Page(title: "Receive", session: session, overview: try await app.store.overview())
        page.problem = "This wallet has no such chain."
        return try render(.badRequest, "message", page)
    }
}
