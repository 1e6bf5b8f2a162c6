import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaVaultAgent
import HawalaWallet
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// The pages. Each handler reads the request, asks the library, and renders: no wallet rule
/// lives here.
struct AppRoutes: Sendable {
    let app: WebApp
    static let cookie = "hawala_sid"
    static let logger = Logger(label: "hawala-app")

    func register(on router: Router<BasicRequestContext>) {
        for (name, type) in [("app.css", "text/css"), ("app.js", "text/javascript")] {
            let body = app.staticFiles[name]!
            router.get("/static/\(name)") { _, _ in
                Response(status: .ok, headers: [.contentType: "\(type); charset=utf-8"], body: .init(byteBuffer: body))
            }
        }
        router.get("/start") { request, _ in try await start(request) }
        router.get("/") { request, _ in try await home(request) }
        router.get("/unlock") { request, _ in try await unlockPage(request) }
        router.post("/unlock") { request, _ in try await posted(request, unlock) }
        router.post("/lock") { request, _ in try await posted(request, lock) }
        router.post("/wallets/use") { request, _ in try await posted(request, useWallet) }
        registerBackup(on: router)
        registerRecovery(on: router)
        registerReceive(on: router)
        registerLightning(on: router)
        registerHistory(on: router)
        registerBackupFiles(on: router)
        registerSettings(on: router)
        registerVault(on: router)
        registerShamir(on: router)
    }

    // MARK: - Sessions

    /// The token from `hawala app`, once: a locked session and the home page.
    func start(_ request: Request) async throws -> Response {
        guard let token = request.uri.queryParameters["token"].map(String.init),
              let session = await app.sessions.exchange(token: token) else {
            return try render(.forbidden, "message", Page(title: "Link expired", message: "This link was used already or is not this app's. Run the app again for a new one."))
        }
        return AppResponse.redirect("/", cookie: session.id)
    }

    func home(_ request: Request) async throws -> Response {
        guard let session = await session(of: request) else { return try noSession() }
        let overview = try await app.store.overview()
        if try await mustUnlock(session, overview: overview) { return AppResponse.redirect("/unlock") }
        return try render(.ok, "home", Page(title: "Wallets", session: session, overview: overview))
    }

    func unlockPage(_ request: Request) async throws -> Response {
        guard let session = await session(of: request) else { return try noSession() }
        if session.isUnlocked { return AppResponse.redirect("/") }
        return try render(.ok, "unlock", Page(title: "Unlock", session: session, overview: try await app.store.overview()))
    }

    /// The login: the wallet password opens the store; the session gets a new id.
    func unlock(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let overview = try await app.store.overview()
        guard overview.hasPassword else { return AppResponse.redirect("/") }
        let keyring: Keyring
        switch try await checkPassword(form) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem):
            return try render(status, "unlock", Page(title: "Unlock", session: session, overview: overview, problem: problem))
        }
        guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
        return AppResponse.redirect("/", cookie: unlocked.id)
    }

    /// The lock: the keyring is dropped and the browser holds a new, locked session.
    func lock(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let locked = await app.sessions.lock(session.id)
        await app.lightningSessions.close(session.id)
        return AppResponse.redirect("/unlock", cookie: locked.id)
    }

    func useWallet(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard session.isUnlocked else { return AppResponse.redirect("/unlock") }
        await app.lightningSessions.close(session.id)  // the other wallet's backend, if open
        do {
            try await app.store.get().use(form.text("name") ?? "")
        } catch let error as WalletError {
            return try render(.badRequest, "message", Page(title: "Wallet not switched", session: session,
                                                            overview: try await app.store.overview(), message: error.description))
        }
        return AppResponse.redirect("/")
    }

    // MARK: - Helpers

    /// A state change: the session, its form, and the cross-site check before `handle` runs.
    func posted(_ request: Request, _ handle: (AppSessions.Session, FormBody) async throws -> Response) async throws -> Response {
        guard let session = await session(of: request) else { return try noSession() }
        let form = try await formBody(request)
        guard CrossSiteCheck.passes(request, form: form, csrf: session.csrf, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            return try crossSite()
        }
        let response = try await handle(session, form)
        await refreshAgentSnapshot(session.id)
        return response
    }

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

    func session(of request: Request) async -> AppSessions.Session? {
        await app.sessions.session(request.cookies[Self.cookie]?.value)
    }

    func formBody(_ request: Request) async throws -> FormBody {
        var buffer = try await request.body.collect(upTo: FormBody.maximumSize)
        var bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        defer { SecretBytes.wipe(&bytes) }
        return FormBody(bytes)
    }

    func noSession() throws -> Response {
        try render(.unauthorized, "message", Page(title: "Not signed in", message: "Open the app with the link it printed when it started (it works once). Run the app again for a new one."))
    }

    func crossSite() throws -> Response {
        try render(.forbidden, "message", Page(title: "Refused", message: "This request did not come from the app's own page. Reload the page and try again."))
    }

    func render(_ status: HTTPResponse.Status, _ template: String, _ page: Page) throws -> Response {
        guard let html = app.pages.render(page, withTemplate: template) else { throw AppError.resourcesMissing }
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
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
