import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird

/// The wallets page: every wallet with its dates, accounts and backups; switching (confirmed
/// when the current wallet has payments pending: `WalletStore.switchWarning`), and a private key
/// imported into the current wallet (`WalletStore.importKey`).
struct WalletsController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/wallets") { request, context in try await walletsPage(request, context.session) }
        router.unlockedForms.post("/wallets/use") { _, context in try await useWallet(context.session, context.form) }
        router.unlockedForms.post("/wallets/import-key") { _, context in try await importKey(context.session, context.form, context.keyring) }
    }
}

/// The wallets area's handlers: each reads the request, asks the library and renders.
extension WalletsController {
    func walletsPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        return try await wallets(session)
    }

    /// The wallets: each with its dates, accounts and backups; switching, adding, importing a key.
    func wallets(_ session: AppSessions.Session, status: HTTPResponse.Status = .ok, message: String? = nil,
                 _ adjust: (inout WalletsView) -> Void = { _ in }) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Wallets", session: session, overview: overview, message: message)
        page.wide = true
        var view = WalletsView(current: overview.current)
        adjust(&view)
        page.walletsView = view
        return try render(status, "wallets", page)
    }

    /// A private key becomes an account of the current wallet (`WalletStore.importKey`: the key
    /// sealed under the wallet password, held by the session's keyring).
    func importKey(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        let chainName = form.text("chain") ?? "", label = form.text("label") ?? ""
        let keep = { (view: inout WalletsView) in view.keep(chain: chainName, label: label) }
        guard let chain = ImportedPrivateKey.chains.first(where: { $0.name == chainName }) else {
            return try await wallets(session, status: .badRequest) { keep(&$0); $0.keyProblem = "Choose the key's chain." }
        }
        let store = try await app.store.get()
        do {
            guard let wallet = try store.current() else { return AppResponse.redirect("/") }
            // Into the wallet the page named: another tab may have switched wallets meanwhile.
            guard form.text("wallet") == wallet.id else {
                return try await wallets(session, status: .conflict) { keep(&$0); $0.keyProblem = "The wallet in use changed since this page was shown: nothing was imported. Check the wallet, then import again." }
            }
            let key = try ImportedPrivateKey(text: form.secret("key") ?? SecretBytes([]), chain: chain)
            let account = try store.importKey(key, into: wallet, label: label, keyring: keyring)
            return try await wallets(session, message: "Imported \(account.address) (\(chain.name)) into \u{201C}\(wallet.name)\u{201D}.")
        } catch let error as ImportedPrivateKey.Error {
            return try await wallets(session, status: .badRequest) { keep(&$0); $0.keyProblem = error.description.sentence }
        } catch let error as WalletError {
            if case .invalidName = error {
                return try await wallets(session, status: .badRequest) { keep(&$0); $0.labelProblem = error.description.sentence }
            }
            return try await wallets(session, status: .badRequest) { keep(&$0); $0.keyProblem = error.description.sentence }
        }
    }

    func useWallet(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        do {
            let store = try await app.store.get(), name = form.text("name") ?? ""
            if form.text("confirm") != "yes", let warning = try store.switchWarning(to: name) {
                return try await wallets(session) { $0.switching = .init(warning) }
            }
            await app.lightningSessions.close(session.id)  // the other wallet's backend, if open
            try store.use(name)
        } catch let error as WalletError {
            return try render(.badRequest, "message", Page(title: "Wallet not switched", session: session,
                                                            overview: try await app.store.overview(), message: error.description))
        }
        return AppResponse.redirect("/")
    }
}

/// The wallets page's own parts.
struct WalletsView {
    /// A switch waiting for its confirmation.
    struct Switching {
        let from: String, to: String, warning: String
        init(_ warning: WalletSwitchWarning) {
            from = warning.from
            to = warning.to
            self.warning = warning.description
        }
    }

    struct ChainChoice { let name: String, label: String, selected: Bool }

    /// The wallet in use: its name, and its id (the key import names it).
    let current: String?
    let currentID: String?
    var switching: Switching?
    var keyChains: [ChainChoice]
    var keyLabel = ""
    var keyProblem: String?
    var labelProblem: String?
    var keyFormOpen: Bool { keyProblem != nil || labelProblem != nil }

    init(current wallet: WalletSummary?) {
        current = wallet?.name
        currentID = wallet?.id
        keyChains = ImportedPrivateKey.chains.map { ChainChoice(name: $0.name, label: $0.name, selected: false) }
    }

    /// The form as it was sent (never the key).
    mutating func keep(chain: String, label: String) {
        keyChains = keyChains.map { ChainChoice(name: $0.name, label: $0.label, selected: $0.name == chain) }
        keyLabel = label
    }
}
