import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaLightning
import HawalaText
import HawalaVaultAgent
import HawalaWallet
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// What every controller shares: the app, rendering a page (or keeping it as a form's answer),
/// the session of a request, the current wallet and its Lightning session, the password asked
/// again, the library's errors in a person's words. No wallet rule lives here or in a controller.
struct AppRoutes: Sendable {
    let app: WebApp
    static let cookie = "hawala_sid"
    static let logger = Logger(label: "hawala-app")

    /// The routes of every area, on groups behind the middleware chain (AppContext.swift).
    func register(on router: Router<AppRequestContext>) {
        let groups = AppRouter(router, routes: self)
        let controllers: [any AppController] = [
            SessionController(routes: self), HomeController(routes: self), WalletsController(routes: self), BackupController(routes: self),
            RecoveryController(routes: self), ReceiveController(routes: self), LightningController(routes: self), LNURLController(routes: self),
            OnChainController(routes: self), ChainController(routes: self), HistoryController(routes: self), BackupFilesController(routes: self),
            SettingsController(routes: self), VaultController(routes: self), ShamirController(routes: self), ConnectionsController(routes: self), ApprovalsController(routes: self),
        ]
        for controller in controllers { controller.addRoutes(to: groups) }
    }

    // MARK: - Helpers

    /// With the vault agent enabled, a change made in an unlocked session leaves a fresh snapshot
    /// for it to upload (as every CLI command that unlocks does). Cheap when nothing changed;
    /// never fails the request. A failure is recorded (the vault page says the snapshot is
    /// stale) and logged.
    func refreshAgentSnapshot(_ id: String) async {
        guard let keyring = await app.sessions.update(id, { $0.keyring }) ?? nil, let store = try? await app.store.existing() else { return }
        let producer = app.options.producer
        let outcome = try? await NIOThreadPool.singleton.runIfActive { VaultAgent.afterChange(store: store, keyring: keyring, app: producer) }
        if case .failed(let why)? = outcome { AppRoutes.logger.warning("the vault agent's snapshot was not refreshed: \(why)") }
    }

    /// Whether `session` must unlock first: a home with a wallet password opens only to an
    /// unlocked session (even with no wallet left). Without `overview`, only the password is read.
    func mustUnlock(_ session: AppSessions.Session, overview: WalletOverview? = nil) async throws -> Bool {
        guard !session.isUnlocked else { return false }
        if let overview { return overview.hasPassword }
        return try await app.store.existing()?.hasPassword() ?? false
    }

    /// The wallet store and its current wallet (nil when there is none): for the middleware.
    func currentWallet() async throws -> (WalletStore, WalletSummary?) {
        let store = try await app.store.get()
        return (store, try store.current())
    }

    func session(of request: Request) async -> AppSessions.Session? {
        // A page bringing itself up to date after a payment (app.js) is no use of the session:
        // news arriving must never keep a wallet unlocked.
        if request.headers[Self.liveHeader] != nil { return await app.sessions.peek(request.cookies[AppRoutes.cookie]?.value) }
        return await app.sessions.session(request.cookies[AppRoutes.cookie]?.value, timeZone: Self.timeZone(request))
    }

    /// Sent by a page reading itself again for its live parts.
    static let liveHeader = HTTPField.Name("X-Hawala-Live")!

    /// The browser's time zone, from the cookie the page's script sets (an IANA name).
    static func timeZone(_ request: Request) -> TimeZone? {
        guard let raw = request.cookies["hawala_tz"]?.value, raw.utf8.count <= 96, let name = raw.removingPercentEncoding,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_+-".contains($0)) }) else { return nil }
        return TimeZone(identifier: name)
    }

    func formBody(_ request: Request) async throws -> FormBody {
        var buffer = try await request.body.collect(upTo: FormBody.maximumSize)
        var bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        defer { SecretBytes.wipe(&bytes) }
        return FormBody(bytes)
    }

    func noSession() throws -> Response {
        try render(.unauthorized, "message", Page(title: "Not signed in", message: """
            Open the app with the link it printed when it started (each link works once). \
            Press Enter in the terminal where Hawala runs for a new link.
            """))
    }

    func crossSite() throws -> Response {
        try render(.forbidden, "message", Page(title: "Refused", message: "This request did not come from the app's own page. Reload the page and try again."))
    }

    func render(_ status: HTTPResponse.Status, _ template: String, _ page: Page) throws -> Response {
        var page = page
        page.place(in: template)
        // A form's answer: kept, and the POST redirects to it (Answers.swift).
        if let rendering = AppRoutes.rendering {
            return Response(status: .ok, headers: [Self.renderedMark: rendering.add(.init(status: status, template: template, page: page))])
        }
        guard let html = app.pages.render(page, withTemplate: template) else { throw AppError.resourcesMissing }
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A styled page for an address the app does not have, or a method it does not take there
    /// (a form's address opened directly): what happened and the way home.
    func notFound(_ request: Request, status: HTTPResponse.Status) async throws -> Response {
        let session = await session(of: request)
        let overview = try await app.store.overview()
        var page = session.map { Page(title: "Not found", session: $0, overview: overview) } ?? Page(title: "Not found")
        // A form's address (one ReturnPath knows the page of) opened as a page, or nothing at all.
        let isFormAddress = status == .methodNotAllowed || ReturnPath.page(forAction: request.uri.path) != "/"
        page.message = isFormAddress
            ? "This address is where a form is sent, not a page to open. Go back, or start again from the home."
            : "There is no page at this address."
        return try render(status, "message", page)
    }
}

/// Answers that are not pages.
enum AppResponse {
    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// 303 to a path on this server (never an absolute address), optionally with a new session
    /// cookie: HttpOnly, SameSite=Strict, no Domain.
    static func redirect(_ path: String, cookie: String? = nil) -> Response {
        precondition(path.hasPrefix("/") && !path.hasPrefix("//"), "redirects stay on this server")
        var headers: HTTPFields = [.location: path]
        if let cookie { headers[.setCookie] = Self.cookie(cookie) }
        return Response(status: .seeOther, headers: headers)
    }

    /// The session cookie: HttpOnly, SameSite=Strict, no Domain.
    static func cookie(_ id: String) -> String { "\(AppRoutes.cookie)=\(id); Path=/; HttpOnly; SameSite=Strict" }
}

/// Signing in and out: the start link, the unlock and the lock, keeping a session awake, a
/// form's answer, the password meter; the static files.
struct SessionController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        for (name, type) in [("app.css", "text/css"), ("app.js", "text/javascript")] {
            let body = routes.app.staticFiles[name]!
            router.open.get("/static/\(name)") { _, _ in
                Response(status: .ok, headers: [.contentType: "\(type); charset=utf-8"], body: .init(byteBuffer: body))
            }
        }
        router.open.get("/start") { request, _ in try await start(request) }
        router.pages.get("/unlock") { request, context in try await unlockPage(request, context.session) }
        router.open.get("/alive") { request, _ in try await alive(request) }
        router.pages.get("/answer/:id") { request, context in try await routes.answerPage(request, context.session, id: context.parameters.get("id") ?? "") }
        router.forms.post("/unlock") { _, context in try await unlock(context.session, context.form) }
        router.forms.post("/lock") { _, context in try await lock(context.session, context.form) }
        router.open.post("/strength") { request, _ in try await passwordStrength(request) }
    }
}

/// The session area's handlers.
extension SessionController {
    /// The token from `hawala app`, once: a locked session and the home page.
    func start(_ request: Request) async throws -> Response {
        guard let token = request.uri.queryParameters["token"].map(String.init),
              let session = await app.sessions.exchange(token: token) else {
            return try render(.forbidden, "message", Page(title: "Link expired", message: """
                This sign-in link was used already (each link works once) or is not this app's. \
                Press Enter in the terminal where Hawala runs for a new link.
                """))
        }
        return AppResponse.redirect("/", cookie: session.id)
    }

    func unlockPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        let next = ReturnPath.safe(request.uri.queryParameters["next"].map(String.init))
        if session.isUnlocked { return AppResponse.redirect(next ?? "/") }
        var page = Page(title: "Unlock", session: session, overview: try await app.store.overview())
        page.next = next ?? ""
        page.interrupted = session.interrupted != nil
        return try render(.ok, "unlock", page)
    }

    /// The login: the wallet password opens the store; the session gets a new id; back to the
    /// page the lock interrupted.
    func unlock(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let overview = try await app.store.overview()
        guard overview.hasPassword else { return AppResponse.redirect("/") }
        let next = ReturnPath.safe(form.text("next")) ?? "/"
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem):
            var page = Page(title: "Unlock", session: session, overview: overview, problem: problem)
            page.next = next
            page.interrupted = session.interrupted != nil
            return try render(status, "unlock", page)
        }
        guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
        // The Lightning backend starts connecting now, in the background: the first page finds
        // it open, or still opening (and shows what is known meanwhile).
        if let (store, wallet) = try? await routes.currentWallet(), let wallet,
           (try? LightningSettings.load(store: store, walletID: wallet.id).backend) != nil {
            Task { _ = try? await lightningSession(unlocked, store, wallet, keyring: keyring) }
        }
        return AppResponse.redirect(next, cookie: unlocked.id)
    }

    /// The lock: the keyring is dropped and the browser holds a new, locked session; the unlock
    /// returns to the page that was open.
    func lock(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let locked = await app.sessions.lock(session.id)
        await app.lightningSessions.close(session.id)
        return AppResponse.redirect(ReturnPath.unlockPath(returningTo: form.text("next")), cookie: locked.id)
    }

    /// Keeps an unlocked session awake ("Stay unlocked"): 204, or 401 once it has locked. With
    /// `?peek`, only says how many seconds are left (another tab may have kept it awake).
    func alive(_ request: Request) async throws -> Response {
        guard CrossSiteCheck.sameOriginRead(request, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            return AppResponse.plain(.forbidden, "refused: not the app's page")
        }
        if request.uri.queryParameters["peek"] != nil {
            return AppResponse.plain(.ok, String(await app.sessions.secondsLeft(request.cookies[AppRoutes.cookie]?.value)))
        }
        guard let session = await session(of: request), session.isUnlocked else { return AppResponse.plain(.unauthorized, "locked") }
        return Response(status: .noContent)
    }

    /// A new password's strength while it is typed (app.js): the library's verdict as JSON
    /// `{acceptable, rating, words}`. The form token and the Origin as for any form; no session
    /// state changes, and the password is in the body only.
    func passwordStrength(_ request: Request) async throws -> Response {
        guard let session = await session(of: request) else { return AppResponse.plain(.unauthorized, "not signed in") }
        let form = try await formBody(request)
        guard CrossSiteCheck.passes(request, form: form, csrf: session.csrf, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            return AppResponse.plain(.forbidden, "refused: not the app's page")
        }
        let meter = PasswordStrength.meter(form.secret("password") ?? SecretBytes([]), for: form.text("use") == "backup" ? .backup : .wallet)
        let json = JSONValue.object([("acceptable", .bool(meter.acceptable)), ("rating", .string(meter.rating)), ("words", .string(meter.words))])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json.render())))
    }
}
