import Foundation
import HawalaLightning
import HawalaOnChain
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import Synchronization

/// The Bitcoin and Litecoin accounts as wallets that see and spend coins (`/chain/bitcoin`,
/// `/chain/litecoin`): the balance, the payments with their confirmations, receive, send with
/// the fee shown first, "speed it up", and the coins behind Details. `HawalaOnChain` decides;
/// these pages show its figures and words.
struct ChainController: AppController {
    let routes: AppRoutes

    /// How long a page waits for a sync before it shows what the last one found (the sync goes on).
    static let syncWait: Duration = .seconds(3)
    /// How long "Sync now" waits.
    static let syncNowWait: Duration = .seconds(30)

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/chain/:coin") { _, context in
            try await chainPage(context.session, context.open, coin: context.parameters.get("coin"), wait: Self.syncWait)
        }
        router.walletForms.post("/chain/:coin/node") { _, context in try await saveNode(context.session, context.form, context.open, context.parameters.get("coin")) }
        router.walletForms.post("/chain/:coin/sync") { _, context in
            try await chainPage(context.session, context.open, coin: context.parameters.get("coin"), wait: Self.syncNowWait)
        }
        router.walletForms.post("/chain/:coin/review") { _, context in try await reviewSend(context.session, context.form, context.open, context.parameters.get("coin")) }
        router.walletForms.post("/chain/:coin/speed-up") { _, context in try await reviewSpeedUp(context.session, context.form, context.open, context.parameters.get("coin")) }
        router.walletForms.post("/chain/:coin/send") { _, context in try await confirm(context.session, context.form, context.open, context.parameters.get("coin")) }
        router.walletForms.post("/chain/:coin/freeze") { _, context in try await freeze(context.session, context.form, context.open, context.parameters.get("coin")) }
    }
}

/// The chain area's handlers: each reads the request, asks the library and renders.
extension ChainController {
    /// The chain's page: synced first within `wait` (a longer sync goes on behind, and the page
    /// shows what the last one found).
    func chainPage(_ session: AppSessions.Session, _ open: OpenWallet, coin name: String?, wait: Duration,
                   status: HTTPResponse.Status = .ok, message: String? = nil, send: ChainPageView.SendFields = .init()) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        var view = ChainPageView(coin: coin, send: send)
        view.watchOnly = open.wallet.kind == .watchOnly
        var problem: String?
        guard let node = try OnChainWallet.savedNode(wallet: open.wallet, coin: coin, store: open.store) else {
            return try await render(session, status, view, problem: nil, message: message)
        }
        view.node = node.location
        do {
            let wallet = try OnChainWallet.open(open.wallet, coin: coin, store: open.store)
            view.syncNote = await app.chainSyncs.sync(wallet, key: "\(open.wallet.id)/\(coin.rawValue)", wait: wait)
            try view.show(wallet)
        } catch {
            guard let words = Self.words(error) else { throw error }
            problem = words
        }
        return try await render(session, status, view, problem: problem, message: message)
    }

    /// The node form: saved after the library checks it answers and is on the wallet's network.
    func saveNode(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet, _ name: String?) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        let url = form.text("url")?.trimmed ?? ""
        let cookie = form.text("cookie")?.trimmed ?? ""
        var view = ChainPageView(coin: coin)
        view.nodeURL = url
        view.cookieFile = cookie
        guard !url.isEmpty else { return try await render(session, .badRequest, view, problem: "Type the node's address, e.g. http://127.0.0.1:9332.") }
        let (kind, location) = NodeSettings.Kind.reading(typedAddress: url)
        guard kind == .core || cookie.isEmpty else {
            return try await render(session, .badRequest, view, problem: "An Electrum server needs no cookie file: leave it empty, or type the node's http:// address.")
        }
        let auth: NodeAuth = cookie.isEmpty ? .none : .cookieFile(cookie)
        // A node saved before keeps its gap limit (another would read every block again).
        let gapLimit = (try? OnChainWallet.savedNode(wallet: open.wallet, coin: coin, store: open.store))??.gapLimit ?? NodeSettings.defaultGapLimit
        do {
            let settings = { (chain: String) in NodeSettings(kind: kind, location: location, auth: auth, chain: chain, gapLimit: gapLimit) }
            _ = try await OnChainWallet.connect(wallet: open.wallet, coin: coin, source: try settings("").source(), node: settings, store: open.store)
        } catch {
            guard let words = Self.words(error) else { throw error }
            return try await render(session, .badRequest, view, problem: words)
        }
        return try await chainPage(session, open, coin: coin.rawValue, wait: Self.syncNowWait, message: kind == .core ? "\(coin.displayName) is read from your node now." : "\(coin.displayName) is read from the Electrum server now.")
    }

    /// A payment worked out: the preview, waiting for the password.
    func reviewSend(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet, _ name: String?) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        let fields = ChainPageView.SendFields(form)
        let retry = { (problem: String) in
            try await chainPage(session, open, coin: coin.rawValue, wait: .zero, status: .badRequest, send: fields.with(problem: problem))
        }
        do { try open.wallet.mustSign() } catch { return try await retry(error.description.sentence) }
        guard !fields.to.isEmpty else { return try await retry("Type the address to pay.") }
        let amount: SendAmount
        if fields.all {
            amount = .all
        } else {
            do {
                amount = .exact(try coin.parseAmount(fields.amount, unit: AmountText.unit))
            } catch {
                return try await retry("\(error)".sentence)
            }
        }
        do {
            let wallet = try OnChainWallet.open(open.wallet, coin: coin, store: open.store)
            let chosen = try await wallet.feeRate(try fields.feeChoice())
            let plan = try wallet.plan(to: fields.to, amount: amount, feeRate: chosen.rate)
            return try await review(session, open, plan, title: "Review the payment", notes: (chosen.note.map { [$0] } ?? []) + plan.notes)
        } catch {
            guard let words = Self.words(error) else { throw error }
            return try await retry(words)
        }
    }

    /// "Speed it up": a replacement or a child, as the library finds surer on this chain.
    func reviewSpeedUp(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet, _ name: String?) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        guard let txid = form.text("txid").flatMap(Txid.init) else { return AppResponse.redirect("/chain/\(coin.rawValue)") }
        do { try open.wallet.mustSign() } catch {
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, status: .badRequest, message: error.description.sentence)
        }
        do {
            let wallet = try OnChainWallet.open(open.wallet, coin: coin, store: open.store)
            let typed = form.text("rate")?.trimmed ?? ""
            let choice = typed.isEmpty ? FeeChoice.speed(.fast) : try FeeChoice(typedRate: typed)
            let chosen = try await wallet.feeRate(choice)
            let plan = try await wallet.planSpeedUp(txid, feeRate: chosen.rate)
            return try await review(session, open, plan, title: "Speed up the payment", notes: (chosen.note.map { [$0] } ?? []) + plan.notes, speedUp: txid)
        } catch {
            guard let words = Self.words(error) else { throw error }
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, status: .badRequest, message: words)
        }
    }

    func review(_ session: AppSessions.Session, _ open: OpenWallet, _ plan: SendPlan, title: String, notes: [String],
                speedUp: Txid? = nil, status: HTTPResponse.Status = .ok, problem: String? = nil) async throws -> Response {
        let pending = AppSessions.PendingChainPlan(walletID: open.wallet.id, plan: plan, id: AppSessions.randomToken())
        await app.sessions.update(session.id) { $0.chainPlan = pending }
        var page = Page(title: title, session: session, overview: try await app.store.overview(), problem: problem)
        page.chainReview = ChainReviewView(plan: plan, title: title, notes: notes, speedUp: speedUp, planID: pending.id)
        return try routes.render(status, "chain-review", page)
    }

    /// The password: the plan previewed, signed and sent once.
    func confirm(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet, _ name: String?) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        // The plan this page showed, and no other (another tab may have reviewed one since).
        let shown = form.text("plan") ?? ""
        guard let pending = session.chainPlan, pending.id == shown, pending.plan.network.coin == coin else {
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, status: .conflict,
                                       message: "That review was replaced by another: nothing was sent. Review the payment again.")
        }
        let title = pending.plan.replaces == nil && pending.plan.speedsUp == nil ? "Review the payment" : "Speed up the payment"
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem):
            return try await review(session, open, pending.plan, title: title, notes: pending.plan.notes, speedUp: pending.plan.replaces ?? pending.plan.speedsUp,
                                    status: status, problem: problem)
        }
        guard await app.sessions.update(session.id, { s -> Bool in
            guard s.chainPlan?.id == shown else { return false }
            s.chainPlan = nil
            return true
        }) == true else { return AppResponse.redirect("/chain/\(coin.rawValue)") }
        guard open.wallet.id == pending.walletID else {
            return try render(.conflict, "message", Page(title: "Not sent", session: session, overview: try await app.store.overview(),
                                                          message: "The current wallet changed since the preview: nothing was sent."))
        }
        do {
            let wallet = try OnChainWallet.open(open.wallet, coin: coin, store: open.store)
            let keys = try open.store.secret(of: open.wallet, keyring: keyring).keys
            let txid = try await wallet.broadcast(try wallet.sign(pending.plan, keys: keys), replacing: pending.plan.replaces)
            let what = pending.plan.replaces == nil && pending.plan.speedsUp == nil ? "Sent" : "Sped up"
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, message: "\(what): payment \(txid.description.prefix(12))… waits for its first confirmation.")
        } catch {
            guard let words = Self.words(error) else { throw error }
            return try render(.badRequest, "message", Page(title: "Not sent", session: session, overview: try await app.store.overview(),
                                                            message: words + " Nothing was sent."))
        }
    }

    /// Coin control: a coin frozen is never spent until unfrozen.
    func freeze(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet, _ name: String?) async throws -> Response {
        guard let coin = try chainCoin(name, open) else { return try await noSuchChain(session) }
        do {
            let outpoint = try OutPoint(form.text("outpoint") ?? "")
            let frozen = form.text("frozen") == "yes"
            try OnChainWallet.open(open.wallet, coin: coin, store: open.store).setFrozen(outpoint, frozen)
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, message: frozen ? "Frozen: that coin stays unspent." : "Unfrozen: that coin can pay again.")
        } catch {
            guard let words = Self.words(error) else { throw error }
            return try await chainPage(session, open, coin: coin.rawValue, wait: .zero, status: .badRequest, message: words)
        }
    }

    // MARK: - Helpers

    /// The coin named in the address, when the wallet has an account on it.
    func chainCoin(_ name: String?, _ open: OpenWallet) throws -> Coin? {
        guard let coin = name.flatMap(Coin.init(rawValue:)) else { return nil }
        return OnChainAccount.coins(of: open.wallet).contains(coin) ? coin : nil
    }

    func render(_ session: AppSessions.Session, _ status: HTTPResponse.Status, _ view: ChainPageView, problem: String?, message: String? = nil) async throws -> Response {
        var page = Page(title: view.name, session: session, overview: try await app.store.overview(), problem: problem, message: message)
        if view.send.sendProblem != nil { page.anchor = "send-title" }
        page.chain = view
        return try routes.render(status, "chain", page)
    }

    func noSuchChain(_ session: AppSessions.Session) async throws -> Response {
        var page = Page(title: "On-chain", session: session, overview: try await app.store.overview())
        page.message = "This wallet has no such chain."
        return try routes.render(.notFound, "message", page)
    }

    /// The library's words for what went wrong (nil: not a refusal a person can act on).
    static func words(_ error: any Error) -> String? {
        switch error {
        case let error as OnChainError: "\(error)".sentence
        case let error as AmountInputError: "\(error)".sentence
        case let error as WalletError: "\(error)".sentence
        default: nil
        }
    }
}

/// One running sync per wallet and chain: a page waits for it a little, and it goes on after.
actor ChainSyncs {
    private var running: [String: Task<SyncSummary, any Error>] = [:]

    /// Starts (or joins) the sync of `wallet` and waits up to `wait`: nil when it finished,
    /// else what to tell the person.
    func sync(_ wallet: OnChainWallet, key: String, wait: Duration) async -> String? {
        let task = running[key] ?? start(wallet, key: key)
        guard await Self.finishes(task, within: wait) else { return "Syncing with the node: this page shows what the last sync found." }
        if case .failure(let error) = await task.result {
            return ChainController.words(error) ?? "The last sync did not finish; your coins are shown as the sync before found them."
        }
        return nil
    }

    /// Whether `task` finishes within `wait`: whichever comes first answers, and the page never
    /// waits for the rest of a sync (waiting on a task's result can't be cancelled).
    static func finishes(_ task: Task<SyncSummary, any Error>, within wait: Duration) async -> Bool {
        let answered = Mutex(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = { @Sendable (done: Bool) in
                if answered.withLock({ was in defer { was = true }; return !was }) { continuation.resume(returning: done) }
            }
            Task { _ = await task.result; answer(true) }
            Task { try? await Task.sleep(for: wait); answer(false) }
        }
    }

    private func start(_ wallet: OnChainWallet, key: String) -> Task<SyncSummary, any Error> {
        let task = Task { try await wallet.sync() }
        running[key] = task
        Task { _ = await task.result; self.finished(key) }
        return task
    }

    private func finished(_ key: String) { running[key] = nil }
}
