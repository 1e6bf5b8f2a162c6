import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaWallet
import HTTPTypes
import Hummingbird

/// What the middleware chain resolves once for a request, before any controller's handler:
/// the browser's session (`SessionMiddleware`, or `FormMiddleware` for a form), a form checked against cross-site requests
/// (`FormMiddleware`), and the unlocked wallet (`OpenWalletMiddleware`). Handlers read them
/// from the child contexts below, where they are never missing.
struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The session the request's cookie names (nil: none, or unknown).
    var session: AppSessions.Session?
    /// The form sent (form routes only).
    var form: FormBody?
    /// The unlocked current wallet (wallet routes only).
    var openWallet: OpenWallet?

    init(source: Source) { coreContext = .init(source: source) }

    /// What each child context requires of the chain; a missing part is its refusal.
    func signedIn() throws(AppRefusal) -> AppSessions.Session {
        guard let session else { throw .noSession }
        return session
    }

    func sentForm() throws(AppRefusal) -> FormBody {
        guard let form else { throw .crossSite }
        return form
    }

    func unlocked() throws(AppRefusal) -> Keyring {
        guard let keyring = try signedIn().keyring else { throw .locked }
        return keyring
    }

    func unlockedWallet() throws(AppRefusal) -> OpenWallet {
        guard let openWallet else { throw .locked }
        return openWallet
    }
}

/// The current wallet, unlocked: its store, its summary and the session's keyring.
struct OpenWallet: Sendable {
    let keyring: Keyring
    let store: WalletStore
    let wallet: WalletSummary
}

/// Why the chain answered before the handler; `RefusalMiddleware` answers each the same way
/// for every route.
enum AppRefusal: Error {
    /// No session: the page that says how to sign in.
    case noSession
    /// A form from elsewhere than the app's page.
    case crossSite
    /// The session is locked: to the unlock page, back here afterwards.
    case locked
    /// No wallet yet: the home, which offers to make one.
    case noWallet
}

/// A page for someone signed in (locked or not).
struct SignedInContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session

    init(context: AppRequestContext) throws {
        session = try context.signedIn()
        coreContext = context.coreContext
    }
}

/// A page of the home's (`SessionMiddleware`, then `HomeMiddleware`): open to anyone signed in
/// while the home has no wallet password, else only unlocked. `keyring` is nil only before a
/// password exists.
struct HomePageContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let keyring: Keyring?

    init(context: AppRequestContext) throws {
        session = try context.signedIn()
        keyring = session.keyring
        coreContext = context.coreContext
    }
}

/// A read a page makes to bring itself up to date (`LiveMiddleware`): the session as it is,
/// untouched, and the unlocked current wallet when there is one (nil: signed out, locked, or no
/// wallet).
struct LiveContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session?
    let open: OpenWallet?

    init(context: AppRequestContext) throws {
        (session, open) = (context.session, context.openWallet)
        coreContext = context.coreContext
    }
}

/// A page of the unlocked current wallet (`SessionMiddleware`, then `OpenWalletMiddleware`).
struct WalletPageContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let open: OpenWallet

    init(context: AppRequestContext) throws {
        (session, open) = (try context.signedIn(), try context.unlockedWallet())
        coreContext = context.coreContext
    }
}

/// A page for an unlocked session (`SessionMiddleware`, then `UnlockedMiddleware`): its keyring.
struct UnlockedPageContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let keyring: Keyring

    init(context: AppRequestContext) throws {
        (session, keyring) = (try context.signedIn(), try context.unlocked())
        coreContext = context.coreContext
    }
}

/// A form of an unlocked session (`FormMiddleware`; locked, it is kept for after the unlock).
struct UnlockedFormContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let form: FormBody
    let keyring: Keyring

    init(context: AppRequestContext) throws {
        (session, form, keyring) = (try context.signedIn(), try context.sentForm(), try context.unlocked())
        coreContext = context.coreContext
    }
}

/// A form from the app's own page, in a session that may send it (`FormMiddleware`).
struct FormContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let form: FormBody

    init(context: AppRequestContext) throws {
        (session, form) = (try context.signedIn(), try context.sentForm())
        coreContext = context.coreContext
    }
}

/// A form acting on the unlocked current wallet (`FormMiddleware`, then `OpenWalletMiddleware`).
struct WalletFormContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AppSessions.Session
    let form: FormBody
    let open: OpenWallet

    init(context: AppRequestContext) throws {
        (session, form, open) = (try context.signedIn(), try context.sentForm(), try context.unlockedWallet())
        coreContext = context.coreContext
    }
}

/// Reads the session from the cookie, once, for the pages (it counts as use of the session:
/// the reads that must not, like the event streams, are `open` routes that peek).
struct SessionMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.session = await routes.session(of: request)
        return try await next(request, context)
    }
}

/// A state change: the session's form, read once and checked against cross-site requests; a
/// form sent while locked is kept (its plain fields) and shown again after the unlock. The
/// handler's page becomes the form's answer (POST/redirect/GET, Answers.swift), and the vault
/// agent's snapshot is refreshed after any change.
struct FormMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let session = await routes.session(of: request) else { throw AppRefusal.noSession }
        let form = try await routes.formBody(request)
        let app = routes.app
        guard CrossSiteCheck.passes(request, form: form, csrf: session.csrf, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            throw AppRefusal.crossSite
        }
        let action = request.uri.path
        if action != "/unlock", action != "/lock", try await routes.mustUnlock(session) {
            let page = ReturnPath.page(forAction: action)
            let fields = ReturnPath.refilled.contains(page) ? form.plainFields(AppSessions.InterruptedForm.kept) : [:]
            await app.sessions.update(session.id) { $0.interrupted = fields.isEmpty ? nil : .init(page: page, fields: fields) }
            return AppResponse.redirect(ReturnPath.unlockPath(returningTo: page))
        }
        var context = context
        context.session = session
        context.form = form
        let rendered = AppRoutes.RenderedPages()
        let response = try await AppRoutes.$rendering.withValue(rendered) {
            do {
                return try await next(request, context)
            } catch let refusal as AppRefusal {
                return try routes.answer(refusal)
            }
        }
        await routes.refreshAgentSnapshot(session.id)
        return try await routes.answered(response, of: session, rendered: rendered)
    }
}

/// A home with a wallet password opens only to an unlocked session (even with no wallet left):
/// a locked one goes to the unlock page, and back.
struct HomeMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let session = context.session else { throw AppRefusal.noSession }
        if try await routes.mustUnlock(session) { throw AppRefusal.locked }
        return try await next(request, context)
    }
}

/// The event streams and status reads of the app's own pages: refused from anywhere else, and
/// never counted as use — the session is peeked, so news arriving never keeps a wallet unlocked.
struct LiveMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let app = routes.app
        guard CrossSiteCheck.sameOriginRead(request, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            return AppResponse.plain(.forbidden, "refused: not the app's page")
        }
        var context = context
        context.session = await app.sessions.peek(request.cookies[AppRoutes.cookie]?.value)
        if let keyring = context.session?.keyring {
            let (store, wallet) = try await routes.currentWallet()
            context.openWallet = wallet.map { OpenWallet(keyring: keyring, store: store, wallet: $0) }
        }
        return try await next(request, context)
    }
}

/// The unlocked current wallet, resolved once: a locked session goes to the unlock page, a home
/// without a wallet to the home.
struct OpenWalletMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let session = context.session else { throw AppRefusal.noSession }
        guard let keyring = session.keyring else { throw AppRefusal.locked }
        let (store, wallet) = try await routes.currentWallet()
        guard let wallet else { throw AppRefusal.noWallet }
        var context = context
        context.openWallet = OpenWallet(keyring: keyring, store: store, wallet: wallet)
        return try await next(request, context)
    }
}

/// Answers the chain's refusals, the same way for every route.
struct RefusalMiddleware: RouterMiddleware {
    let routes: AppRoutes

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as AppRefusal {
            return try routes.answer(refusal)
        }
    }
}

extension AppRoutes {
    /// The answer to a refusal of the middleware chain.
    func answer(_ refusal: AppRefusal) throws -> Response {
        switch refusal {
        case .noSession: try noSession()
        case .crossSite: try crossSite()
        case .locked: AppResponse.toUnlock()
        case .noWallet: AppResponse.redirect("/")
        }
    }
}

/// What the app's areas share: the routes and their helpers (below), and the pages more than
/// one area shows (`…Pages.swift`: the vault page, the backups page, the Lightning page…), so
/// no controller constructs another to render one.
protocol AppArea: Sendable {
    var routes: AppRoutes { get }
}

/// One area of the app (home, send, wallets, vault…): its routes, added to the router's groups.
protocol AppController: AppArea {
    func addRoutes(to router: AppRouter)
}

/// The router's groups, each behind its part of the middleware chain: `pages` for anyone
/// signed in, `home` for the home's pages (unlocked once a password exists), `unlockedPages` for
/// an unlocked session, `walletPages` for a page of the unlocked wallet; `forms` for a checked
/// form, `unlockedForms` for one of an unlocked session, `walletForms` for one acting on the
/// unlocked wallet; `live` for a page's own event streams and status reads (the session peeked,
/// never used); and `open` for what needs no session (start, static files). A locked session is
/// sent to the unlock page, and back, by the group's context (`AppRefusal.locked`).
struct AppRouter {
    let open: RouterGroup<AppRequestContext>
    let pages: RouterGroup<SignedInContext>
    let home: RouterGroup<HomePageContext>
    let live: RouterGroup<LiveContext>
    let unlockedPages: RouterGroup<UnlockedPageContext>
    let walletPages: RouterGroup<WalletPageContext>
    let forms: RouterGroup<FormContext>
    let unlockedForms: RouterGroup<UnlockedFormContext>
    let walletForms: RouterGroup<WalletFormContext>

    init(_ router: Router<AppRequestContext>, routes: AppRoutes) {
        open = router.group()
        pages = router.group().add(middleware: SessionMiddleware(routes: routes)).group(context: SignedInContext.self)
        live = router.group().add(middleware: LiveMiddleware(routes: routes)).group(context: LiveContext.self)
        home = router.group().add(middleware: SessionMiddleware(routes: routes)).add(middleware: HomeMiddleware(routes: routes)).group(context: HomePageContext.self)
        unlockedPages = router.group().add(middleware: SessionMiddleware(routes: routes)).group(context: UnlockedPageContext.self)
        unlockedForms = router.group().add(middleware: FormMiddleware(routes: routes)).group(context: UnlockedFormContext.self)
        walletPages = router.group().add(middleware: SessionMiddleware(routes: routes)).add(middleware: OpenWalletMiddleware(routes: routes))
            .group(context: WalletPageContext.self)
        forms = router.group().add(middleware: FormMiddleware(routes: routes)).group(context: FormContext.self)
        walletForms = router.group().add(middleware: FormMiddleware(routes: routes)).add(middleware: OpenWalletMiddleware(routes: routes))
            .group(context: WalletFormContext.self)
    }
}

/// What every controller's handlers share: the app, rendering, the session and the wallet.
extension AppArea {
    var app: WebApp { routes.app }

    func render(_ status: HTTPResponse.Status, _ template: String, _ page: Page) throws -> Response {
        try routes.render(status, template, page)
    }

    func mustUnlock(_ session: AppSessions.Session, overview: WalletOverview? = nil) async throws -> Bool {
        try await routes.mustUnlock(session, overview: overview)
    }

    func lightningSession(_ session: AppSessions.Session, _ store: WalletStore, _ wallet: WalletSummary, keyring: Keyring) async throws -> LightningSession {
        try await routes.lightningSession(session, store, wallet, keyring: keyring)
    }

    func checkPassword(_ form: FormBody, _ session: AppSessions.Session) async throws -> AppRoutes.PasswordCheck {
        try await routes.checkPassword(form, session)
    }

    func session(of request: Request) async -> AppSessions.Session? { await routes.session(of: request) }
    func formBody(_ request: Request) async throws -> FormBody { try await routes.formBody(request) }
    func noSession() throws -> Response { try routes.noSession() }
    func crossSite() throws -> Response { try routes.crossSite() }
}

extension AppArea {
    /// Until when the words stay on a page once shown.
    func wordsDeadline() async -> Date { await routes.wordsDeadline() }
}
