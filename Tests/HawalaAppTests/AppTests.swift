import AsyncHTTPClient
import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaWallet
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `hawala app` as an attacker and a browser see it: the server runs for real on a loopback
/// port (HummingbirdTesting's live mode); requests go through AsyncHTTPClient with redirects
/// off, so every 303 and Set-Cookie is seen as sent.
// One test at a time: each starts and stops a live server, and fewer shutdowns at once leave
// less room for the accept/shutdown race above.
@Suite("hawala app: sessions, host and cross-site checks, headers, escaping", .serialized)
struct AppSecurityTests {
    /// A store with one wallet whose name is hostile markup, password "correct horse".
    static let hostileName = #"W"><script>alert(1)</script>{{x}}'"#

    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var offset: TimeInterval = 0
        func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
        var now: Date { lock.withLock { Date().addingTimeInterval(offset) } }
    }

    /// A browser: one cookie, no redirects followed, Host and Origin as a page on the app sends them.
    struct Browser {
        let client: HTTPClient
        let port: Int
        var cookie: String?
        /// The time zone the page's script would have put in its cookie (percent-encoded).
        var timeZone: String?

        func send(_ method: HTTPRequest.Method, _ path: String, form: [String: String]? = nil, host: String? = nil,
                  origin: String?? = .none, fetchSite: String? = nil, cookie: String?? = .none) async throws -> (status: Int, headers: [(String, String)], body: String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = .init(rawValue: method.rawValue)
            request.headers.add(name: "Host", value: host ?? "127.0.0.1:\(port)")
            if let c = cookie ?? self.cookie { request.headers.add(name: "Cookie", value: "hawala_sid=\(c)" + (timeZone.map { "; hawala_tz=" + $0 } ?? "")) }
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
                request.body = .bytes(ByteBuffer(string: body))
                if let o = origin ?? "http://127.0.0.1:\(port)" { request.headers.add(name: "Origin", value: o) }
            } else if case .some(.some(let o)) = origin {
                request.headers.add(name: "Origin", value: o)
            }
            if let fetchSite { request.headers.add(name: "Sec-Fetch-Site", value: fetchSite) }
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            let headers = response.headers.map { ($0.name, $0.value) }
            if let answer = try await followAnswer(status: Int(response.status.code), headers: headers, cookie: cookie ?? self.cookie) {
                return (answer.status, answer.headers, String(decoding: answer.body, as: UTF8.self))
            }
            return (Int(response.status.code), headers, String(buffer: body))
        }

        /// A form's answer is a 303 to `/answer/ID` (POST/redirect/GET): followed as a browser
        /// does, so a test reads the page (and its status) the person sees. The POST's own
        /// Set-Cookie, if any, stays among the headers.
        func followAnswer(status: Int, headers: [(String, String)], cookie: String??) async throws -> (status: Int, headers: [(String, String)], body: [UInt8])? {
            guard status == 303, let location = Browser.header("Location", headers)?.split(separator: "#").first.map(String.init),
                  location.hasPrefix("/answer/") else { return nil }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(location)")
            request.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            let session = Browser.sessionID(headers) ?? (cookie ?? nil)
            if let session { request.headers.add(name: "Cookie", value: "hawala_sid=\(session)" + (timeZone.map { "; hawala_tz=" + $0 } ?? "")) }
            let response = try await client.execute(request, timeout: .seconds(30))
            var body = try await response.body.collect(upTo: 64 << 20)
            let cookieHeader = headers.filter { $0.0.lowercased() == "set-cookie" }
            return (Int(response.status.code), response.headers.map { ($0.name, $0.value) } + cookieHeader, body.readBytes(length: body.readableBytes) ?? [])
        }

        /// A GET whose body is read as it arrives (server-sent events), `until` a marker is seen.
        func stream(_ path: String, fetchSite: String) async throws -> EventStream {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            if let cookie { request.headers.add(name: "Cookie", value: "hawala_sid=\(cookie)") }
            request.headers.add(name: "Sec-Fetch-Site", value: fetchSite)
            let response = try await client.execute(request, timeout: .seconds(30))
            return EventStream(chunks: response.body.makeAsyncIterator())
        }

        /// A request with a body as given (a multipart upload), the Origin of the app's page.
        func send(_ method: HTTPRequest.Method, _ path: String, raw: [UInt8], contentType: String) async throws -> (status: Int, headers: [(String, String)], body: String) {
            let answer = try await sendBytes(method, path, raw: raw, contentType: contentType)
            return (answer.status, answer.headers, String(decoding: answer.body, as: UTF8.self))
        }

        /// `send`, with the answer's body as bytes (a download).
        func sendBytes(_ method: HTTPRequest.Method, _ path: String, form: [String: String]? = nil, raw: [UInt8]? = nil,
                       contentType: String? = nil) async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = .init(rawValue: method.rawValue)
            request.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            request.headers.add(name: "Origin", value: "http://127.0.0.1:\(port)")
            if let cookie { request.headers.add(name: "Cookie", value: "hawala_sid=\(cookie)") }
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
                request.body = .bytes(ByteBuffer(string: body))
            } else if let raw, let contentType {
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = .bytes(ByteBuffer(bytes: raw))
            }
            let response = try await client.execute(request, timeout: .seconds(60))
            var body = try await response.body.collect(upTo: 64 << 20)
            let headers = response.headers.map { ($0.name, $0.value) }
            if let answer = try await followAnswer(status: Int(response.status.code), headers: headers, cookie: cookie) { return answer }
            return (Int(response.status.code), headers, body.readBytes(length: body.readableBytes) ?? [])
        }

        /// The session cookie a response sets, with its attributes.
        static func setCookie(_ headers: [(String, String)]) -> String? { headers.first { $0.0.lowercased() == "set-cookie" }?.1 }

        static func sessionID(_ headers: [(String, String)]) -> String? {
            setCookie(headers).flatMap { $0.split(separator: ";").first }.map { String($0.dropFirst("hawala_sid=".count)) }
        }

        static func csrf(_ html: String) -> String? {
            guard let r = html.range(of: #"name="csrf" value=""#) else { return nil }
            return String(html[r.upperBound...].prefix { $0 != "\"" })
        }

        /// The form token in the upload form's address (a multipart body comes after the head
        /// the token is checked on).
        static func uploadToken(_ html: String) -> String? {
            guard let r = html.range(of: #"action="/backups/import?csrf="#) else { return nil }
            return String(html[r.upperBound...].prefix { $0 != "\"" })
        }

        static func header(_ name: String, _ headers: [(String, String)]) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    func withApp(wallet: Bool = true, network: Network = .mainnet, maximumBackupBytes: Int? = nil, spark: SparkOpener? = nil,
                 _ body: @Sendable (WebApp, Browser, Clock) async throws -> Void) async throws {
        let home = temporaryHome()
        if wallet {
            let store = try WalletStore(home: home, create: true)
            let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
            try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: Self.hostileName, network: network, keyring: keyring)
        }
        let clock = Clock()
        var options = AppOptions()
        options.backends = .devnet
        options.now = { clock.now }
        if let maximumBackupBytes { options.maximumBackupBytes = maximumBackupBytes }
        if let spark { options.backends.spark = spark }
        let app = try await WebApp(home: home, options: options)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            try await app.application().test(.live) { testClient in
                // The client's connections close before the server shuts down: no connection is
                // left half-served then (swift-nio#3481 traps on one that is).
                do {
                    try await body(app, Browser(client: client, port: try #require(testClient.port)), clock)
                } catch {
                    try? await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Logs in: token → locked session → password → unlocked session.
    func logIn(_ app: WebApp, _ browser: inout Browser) async throws {
        let start = try await browser.send(.get, app.startPath)
        browser.cookie = Browser.sessionID(start.headers)
        let page = try await browser.send(.get, "/unlock")
        let unlocked = try await browser.send(.post, "/unlock", form: ["csrf": try #require(Browser.csrf(page.body)), "password": "correct horse"])
        #expect(unlocked.status == 303 && Browser.header("Location", unlocked.headers) == "/")
        let newID = Browser.sessionID(unlocked.headers)
        #expect(newID != nil && newID != browser.cookie, "a new session id at login")
        browser.cookie = newID
    }

    @Test func theTokenWorksOnceAndTheCookieIsStrict() async throws {
        try await withApp { app, browser, _ in
            let wrong = try await browser.send(.get, "/start?token=" + String(repeating: "0", count: 64))
            #expect(wrong.status == 403 && Browser.setCookie(wrong.headers) == nil)
            let start = try await browser.send(.get, app.startPath)
            #expect(start.status == 303 && Browser.header("Location", start.headers) == "/")
            let cookie = try #require(Browser.setCookie(start.headers))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.lowercased().contains("domain"))
            let again = try await browser.send(.get, app.startPath)
            #expect(again.status == 403, "the token is one-time")
            // Without a session: no page, no wallet names.
            let anonymous = try await browser.send(.get, "/")
            #expect(anonymous.status == 401 && !anonymous.body.contains("alert(1)"))
            // A locked session sees the unlock page, not the wallets.
            let locked = try await browser.send(.get, "/", cookie: Browser.sessionID(start.headers))
            #expect(locked.status == 303 && Browser.header("Location", locked.headers) == "/unlock")
        }
    }

    @Test func foreignHostNamesAreRefused() async throws {
        try await withApp { app, browser, _ in
            for host in ["evil.example:\(browser.port)", "127.0.0.1", "localhost:1", "127.0.0.1.nip.io:\(browser.port)"] {
                let r = try await browser.send(.get, app.startPath, host: host)
                #expect(r.status == 403, "\(host)")
                #expect(Browser.setCookie(r.headers) == nil)
            }
            for host in ["localhost:\(browser.port)", "[::1]:\(browser.port)"] {
                #expect(try await browser.send(.get, "/", host: host).status == 401, "\(host)")
            }
        }
    }

    @Test func stateChangesNeedTheFormTokenAndTheOrigin() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let start = try await browser.send(.get, app.startPath)
            browser.cookie = Browser.sessionID(start.headers)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/unlock").body))
            let good = ["csrf": csrf, "password": "correct horse"]
            #expect(try await browser.send(.post, "/unlock", form: ["password": "correct horse"]).status == 403, "no form token")
            #expect(try await browser.send(.post, "/unlock", form: ["csrf": String(repeating: "a", count: 64), "password": "correct horse"]).status == 403)
            #expect(try await browser.send(.post, "/unlock", form: good, origin: "http://evil.example").status == 403, "foreign Origin")
            #expect(try await browser.send(.post, "/unlock", form: good, origin: "null").status == 403)
            #expect(try await browser.send(.post, "/unlock", form: good, origin: "null", fetchSite: "cross-site").status == 403)
            #expect(try await browser.send(.post, "/unlock", form: good, origin: "http://evil.example", fetchSite: "same-origin").status == 403,
                    "a named foreign Origin is never outweighed")
            #expect(try await browser.send(.post, "/unlock", form: good, origin: .some(nil)).status == 403, "neither Origin nor Sec-Fetch-Site")
            // What Chromium sends for a form under Referrer-Policy: no-referrer.
            #expect(try await browser.send(.post, "/unlock", form: ["csrf": csrf, "password": "wrong horse"], origin: "null", fetchSite: "same-origin").status == 401)
            // A GET changes nothing.
            #expect(try await browser.send(.get, "/lock").status == 404)
            let wrong = try await browser.send(.post, "/unlock", form: ["csrf": csrf, "password": "wrong horse"])
            #expect(wrong.status == 401 && wrong.body.contains("Wrong password"))
            #expect(!wrong.body.contains("wrong horse"), "a password is never echoed")
            let unlocked = try await browser.send(.post, "/unlock", form: good)
            #expect(unlocked.status == 303)
        }
    }

    @Test func everyAnswerCarriesTheHeaders() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let answers = [
                try await browser.send(.get, "/"), try await browser.send(.get, "/unlock"), try await browser.send(.get, "/static/app.css"),
                try await browser.send(.get, "/nothing-here"), try await browser.send(.get, "/", host: "evil.example:1"),
                try await browser.send(.get, "/lightning"), try await browser.send(.get, "/history"),
                try await browser.send(.get, "/history/export?format=json"),
                try await browser.send(.get, "/lightning/invoice/events?hash=" + String(repeating: "0", count: 64)),
                try await browser.send(.get, app.startPath), try await browser.send(.post, "/lock", form: [:]),
            ]
            for (i, answer) in answers.enumerated() {
                #expect(Browser.header("Content-Security-Policy", answer.headers) == "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'", "answer \(i)")
                #expect(Browser.header("X-Content-Type-Options", answer.headers) == "nosniff", "answer \(i)")
                #expect(Browser.header("Referrer-Policy", answer.headers) == "no-referrer", "answer \(i)")
                #expect(Browser.header("Cache-Control", answer.headers) == "no-store", "answer \(i)")
                #expect(!answer.headers.contains { $0.0.lowercased().hasPrefix("access-control-") }, "no CORS, answer \(i)")
            }
        }
    }

    @Test func strangersTextIsEscapedEverywhere() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let home = try await browser.send(.get, "/")
            #expect(home.status == 200)
            #expect(!home.body.contains("<script>") && !home.body.contains(#"W"><"#))
            #expect(home.body.contains("W&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;{{x}}&#39;"))
            // In an attribute (the wallets page's "use" form) and in the reminder too.
            let wallets = try await browser.send(.get, "/wallets")
            #expect(wallets.body.contains(#"name="name" value="W&quot;&gt;&lt;script&gt;"#) || wallets.body.contains(#"<span class="name">W&quot;&gt;&lt;script&gt;"#))
            #expect(!wallets.body.contains("<script>alert"))
            #expect(home.body.contains("Back up “W&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;{{x}}&#39;”"), "the backup card")
        }
    }

    @Test func anIdleSessionLocksAndLockDropsTheSession() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            try await logIn(app, &browser)
            #expect(try await browser.send(.get, "/").status == 200)
            clock.advance(301)
            let idle = try await browser.send(.get, "/")
            #expect(idle.status == 303 && Browser.header("Location", idle.headers) == "/unlock")
            try await logIn2(&browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/").body))
            let lock = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            #expect(lock.status == 303 && Browser.header("Location", lock.headers) == "/unlock")
            let old = browser.cookie
            #expect(try await browser.send(.get, "/").status == 401, "the old session id is gone")
            browser.cookie = Browser.sessionID(lock.headers)
            #expect(browser.cookie != old)
            #expect(try await browser.send(.get, "/").status == 303, "the new session is locked")
        }
    }

    /// The idle lock drops the keyring on time (the app's service runs this every 10 s), not
    /// only when the browser comes back.
    @Test func idleKeyringsAreDroppedOnTime() async throws {
        let clock = Clock()
        let sessions = AppSessions(token: "one-time", idleLock: 300, now: { clock.now })
        #expect(await sessions.exchange(token: "one-tim") == nil)
        let locked = try #require(await sessions.exchange(token: "one-time"))
        #expect(await sessions.exchange(token: "one-time") == nil, "once only")
        let (_, keyring) = try newStore()
        let unlocked = try #require(await sessions.unlock(locked.id, keyring: keyring))
        #expect(await sessions.session(locked.id) == nil, "the pre-login id is gone")
        #expect(await sessions.lockIdle() == 0)
        clock.advance(301)
        #expect(await sessions.lockIdle() == 1)
        let after = try #require(await sessions.session(unlocked.id))
        #expect(!after.isUnlocked)
    }

    /// The password again on an existing (locked) session.
    func logIn2(_ browser: inout Browser) async throws {
        let page = try await browser.send(.get, "/unlock")
        let unlocked = try await browser.send(.post, "/unlock", form: ["csrf": try #require(Browser.csrf(page.body)), "password": "correct horse"])
        #expect(unlocked.status == 303)
        browser.cookie = Browser.sessionID(unlocked.headers)
    }

    @Test func wrongPasswordsAreRateLimited() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            let start = try await browser.send(.get, app.startPath)
            browser.cookie = Browser.sessionID(start.headers)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/unlock").body))
            // Each wrong one says how many tries are left before the wait, then until when.
            for left in (0..<5).reversed() {
                let wrong = try await browser.send(.post, "/unlock", form: ["csrf": csrf, "password": "guess"])
                #expect(wrong.status == 401)
                let words = left == 0 ? "That was the last try: the next one must wait 5 minutes."
                    : left == 1 ? "1 more try before a wait of 5 minutes." : "\(left) more tries before a wait of 5 minutes."
                #expect(wrong.body.contains(words), "\(left): \(wrong.body.suffix(900))")
            }
            let refused = try await browser.send(.post, "/unlock", form: ["csrf": csrf, "password": "correct horse"])
            #expect(refused.status == 429, "even the right password waits")
            let times = [-60.0, 0, 60].map { clock.now.addingTimeInterval(300 + $0).clock(timeZone: .current) }
            #expect(times.contains { refused.body.contains("Too many wrong passwords. Try again at \($0) (in ") }, "\(refused.body.suffix(900))")
            clock.advance(301)
            #expect(try await browser.send(.post, "/unlock", form: ["csrf": csrf, "password": "correct horse"]).status == 303)
        }
    }

    /// Wrong passwords sent all at once are counted as they arrive, before the key derivation:
    /// of 20 at once, 5 are tried and 15 refused untried. (Before, all 20 were evaluated.)
    @Test func parallelWrongPasswordsAreCountedBeforeTheyAreTried() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let start = try await browser.send(.get, app.startPath)
            browser.cookie = Browser.sessionID(start.headers)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/unlock").body))
            let sent = browser
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await sent.send(.post, "/unlock", form: ["csrf": csrf, "password": "guess"]).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count == AppSessions.failuresAllowed, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 429 }.count == 20 - AppSessions.failuresAllowed, "\(statuses.sorted())")
        }
    }

    /// The app reads through one store (WAL) opened once: while another process holds the
    /// wallet database's write lock — a CLI command writing — pages still answer at once.
    /// (Before, every page opened a store of its own, and with the database locked each waited.)
    @Test func pagesAnswerWhileAnotherProcessWrites() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            holder.arguments = ["-c", """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("BEGIN EXCLUSIVE"); print("locked", flush=True); time.sleep(3); c.execute("COMMIT")
                """, app.home.databaseURL.path]
            let out = Pipe()
            holder.standardOutput = out
            try holder.run()
            #expect(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
            for path in ["/", "/receive", "/history", "/backups", "/settings", "/lightning"] {
                let asked = ContinuousClock.now
                let page = try await browser.send(.get, path)
                #expect(page.status == 200 && ContinuousClock.now - asked < .seconds(1), "\(path): \(page.status) after \(ContinuousClock.now - asked)")
            }
            holder.waitUntilExit()
        }
    }

    /// A right password given again (before an export, a payment) does not count as a try.
    @Test func rightPasswordsDoNotCount() async throws {
        let sessions = AppSessions(token: "t", idleLock: 300, now: { Date() })
        for _ in 0..<10 {
            guard case .check(let attempt, let left) = await sessions.startPasswordTry().0 else { Issue.record("refused"); return }
            #expect(left == AppSessions.failuresAllowed - 1)
            await sessions.passwordWasRight(attempt)
        }
        guard case .check = await sessions.startPasswordTry().0 else { Issue.record("a right password counted"); return }
    }

    @Test func templatesNeverWriteRawText() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/HawalaApp/Templates").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }
        #expect(names.count >= 4)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name) writes unescaped text")
            // Scripts only as files this app serves.
            let inlineScript = text.range(of: #"<script(?![^>]*src="/static/[a-z]+\.js")"#, options: .regularExpression) != nil
            #expect(!inlineScript && !text.contains(" style=") && text.range(of: #" on[a-z]+="#, options: .regularExpression) == nil,
                    "\(name): no inline script, style or event handler")
        }
    }
}

/// A streamed body read as it arrives: `read(until:)` waits for a marker (the server's event),
/// never a fixed time.
struct EventStream {
    var chunks: HTTPClientResponse.Body.AsyncIterator
    private(set) var text = ""

    init(chunks: HTTPClientResponse.Body.AsyncIterator) { self.chunks = chunks }

    /// Reads until `marker` has arrived or the body ends; whether it arrived.
    @discardableResult
    mutating func read(until marker: String) async throws -> Bool {
        while !text.contains(marker) {
            guard let chunk = try await chunks.next() else { return false }
            text += String(buffer: chunk)
        }
        return true
    }
}
