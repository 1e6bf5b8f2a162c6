import Foundation
import HawalaKeys
import HawalaWallet
import Hummingbird

/// Receiving: the current wallet's address on one chain with its QR code (inline SVG), and a new
/// address on request. The same address is shown until a new one is asked for.
extension AppRoutes {
    func registerReceive(on router: Router<BasicRequestContext>) {
        router.get("/receive") { request, _ in try await receivePage(request) }
        router.post("/receive/new") { request, _ in try await posted(request, newAddress) }
    }

    func receivePage(_ request: Request) async throws -> Response {
        guard let session = await session(of: request) else { return try noSession() }
        guard let keyring = session.keyring else { return AppResponse.redirect("/unlock") }
        let chainName = request.uri.queryParameters["chain"].map(String.init)
        return try receive(session, keyring: keyring, chainName: chainName, advance: false)
    }

    func newAddress(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard let keyring = session.keyring else { return AppResponse.redirect("/unlock") }
        let chainName = form.text("chain")
        let response = try receive(session, keyring: keyring, chainName: chainName, advance: true)
        guard response.status == .ok else { return response }
        // Chain names are lower-case letters and dashes: safe in a path.
        return AppResponse.redirect(chainName.flatMap(Chain.named).map { "/receive?chain=\($0.name)" } ?? "/receive")
    }

    func receive(_ session: AppSessions.Session, keyring: Keyring, chainName: String?, advance: Bool) throws -> Response {
        let overview = try WalletOverview(home: app.home)
        let store = try WalletStore(home: app.home, create: false)
        guard let wallet = try store.current() else { return AppResponse.redirect("/") }
        let chains = wallet.accounts.compactMap { Chain.named($0.chain) }
        var page = Page(title: "Receive", session: session, overview: overview)
        guard let chain = chainName.map({ name in chains.first { $0.name == name } }) ?? WalletStore.defaultReceiveChain(of: wallet) else {
            page.problem = "This wallet has no such chain."
            return try render(.badRequest, "message", page)
        }
        do {
            let request = try store.addressRequest(wallet: wallet, chain: chain, advance: advance, unlock: { keyring })
            page.receive = try ReceiveView(wallet: wallet, request: request, chains: chains)
        } catch let error as WalletError {
            page.message = error.description
            return try render(.badRequest, "message", page)
        }
        return try render(.ok, "receive", page)
    }
}
