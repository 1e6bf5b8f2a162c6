import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// POST/redirect/GET: a form's answer is never the POST's own page. The page a handler renders
/// is kept in the session (`AppSessions.Answer`) and the POST answers 303 to `/answer/ID`, so
/// Back and reload show it again — no "Confirm Form Resubmission", no second payment. An
/// answer is rendered again for each GET with the session as it is then (its form token, its
/// lock), kept for `keptFor` (shorter where it shows secrets) and forgotten at the lock.
extension AppRoutes {
    /// The pages a POST handler rendered, by the mark `render` put on their response.
    final class RenderedPages: Sendable {
        struct Rendered: Sendable {
            let status: HTTPResponse.Status
            let template: String
            let page: Page
        }
        private let pages = Mutex<[String: Rendered]>([:])

        func add(_ rendered: Rendered) -> String {
            let id = AppSessions.randomToken().prefix(24).description
            pages.withLock { $0[id] = rendered }
            return id
        }

        func take(_ id: String) -> Rendered? { pages.withLock { $0.removeValue(forKey: id) } }
    }

    /// Set while a POST handler runs: `render` keeps its page here instead of sending it.
    @TaskLocal static var rendering: RenderedPages?
    static let renderedMark = HTTPField.Name("X-Hawala-Answer")!

    /// How long an answer is kept for reloads: a quarter of an hour; pages that show secrets
    /// (SLIP-39 shares to print) no longer than the words are shown.
    static func keptFor(_ template: String) -> TimeInterval {
        ["shares", "connection-new"].contains(template) ? wordsShownFor : 900
    }

    /// The POST's response: a page it rendered becomes an answer to redirect to; anything else
    /// (a redirect, a download) goes as it is.
    func answered(_ response: Response, of session: AppSessions.Session, rendered: RenderedPages) async throws -> Response {
        guard let mark = response.headers[Self.renderedMark], let page = rendered.take(mark) else { return response }
        let answer = AppSessions.Answer(id: AppSessions.randomToken().prefix(32).description, status: page.status, template: page.template,
                                        page: page.page, keptUntil: await app.sessions.time().addingTimeInterval(Self.keptFor(page.template)))
        // The session the browser holds after this answer: a new one when the form logged in.
        let holder = response.headers[.setCookie].flatMap(Self.sessionID(inSetCookie:)) ?? session.id
        guard await app.sessions.keep(answer, for: holder) else {
            var direct = try render(page.status, page.template, page.page)
            if let cookie = response.headers[.setCookie] { direct.headers[.setCookie] = cookie }
            return direct
        }
        var redirect = AppResponse.redirect("/answer/" + answer.id + (page.page.anchor.map { "#" + $0 } ?? ""))
        if let cookie = response.headers[.setCookie] { redirect.headers[.setCookie] = cookie }
        return redirect
    }

    /// The session id a Set-Cookie header gives the browser.
    static func sessionID(inSetCookie header: String) -> String? {
        let first = header.split(separator: ";").first.map(String.init) ?? ""
        return first.hasPrefix(cookie + "=") ? String(first.dropFirst(cookie.count + 1)) : nil
    }

    /// `GET /answer/ID`: the page that answered a form, as the session stands now.
    func answerPage(_ request: Request, _ session: AppSessions.Session, id: String) async throws -> Response {
        guard let answer = await app.sessions.answer(id, for: session.id) else {
            if try await mustUnlock(session) { return AppResponse.toUnlock() }
            return try render(.notFound, "message", Page(title: "Not kept", session: session, overview: try await app.store.overview(), message: """
                This page answered a form. It is kept a while for reloads, but not after the app locks: \
                what it did is in History.
                """))
        }
        // A confirmation kept across the lock is shown once unlocked, its password field empty.
        if answer.survivesTheLock, try await mustUnlock(session) { return AppResponse.toUnlock() }
        var page = answer.page
        page.csrf = session.csrf
        page.unlocked = session.isUnlocked
        page.idleLockSeconds = Int(session.idleLock)
        return try render(answer.status, answer.template, page)
    }
}
