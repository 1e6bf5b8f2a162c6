import Foundation
@testable import HawalaApp
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaWallet
import Testing

/// What every page shares (issue 32): the menu with its current page, the return to the page a
/// lock interrupted (a form refilled, never a password), a fresh sign-in link, dates in the
/// browser's zone, the session's event stream, Lightning's first-run defaults.
extension AppSecurityTests {
    @Test func theMenuMarksTheCurrentPageAndTitlesAgree() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            for (path, label) in [("/", "Home"), ("/send", "Send"), ("/receive", "Receive"), ("/history", "History"), ("/wallets", "Wallets"),
                                  ("/backups", "Backups"), ("/vault", "Vault"), ("/settings", "Settings")] {
                let page = try await browser.send(.get, path)
                #expect(page.status == 200, "\(path)")
                #expect(page.body.contains(#"<a href="\#(path)" aria-current="page">\#(label)</a>"#), "\(path) is marked")
                #expect(page.body.components(separatedBy: #"aria-current="page""#).count == 2 || path == "/receive", "one current page on \(path)")
                #expect(page.body.contains("<title>\(label) · Hawala</title>"), "the menu's word is the title of \(path)")
                #expect(page.body.contains(##"<a class="skip" href="#main">"##) && page.body.contains(#"<main id="main""#))
            }
        }
    }

    /// After an idle lock, a GET returns to itself; a form sent while locked returns to its page
    /// with what was typed (never the password); the Lock button returns where it was.
    @Test func theUnlockReturnsToThePageAndTheFormTheLockInterrupted() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            _ = try await onDevnet(app, &browser, ledger: temporaryFolder("devnet").appendingPathComponent("ledger").path)
            let history = try await browser.send(.get, "/history?type=send")
            let csrf = try #require(Browser.csrf(history.body))
            clock.advance(301)
            let idle = try await browser.send(.get, "/history?type=send")
            #expect(idle.status == 303 && Browser.header("Location", idle.headers) == "/unlock?next=%2Fhistory%3Ftype%3Dsend")
            let unlockPage = try await browser.send(.get, "/unlock?next=%2Fhistory%3Ftype%3Dsend")
            #expect(unlockPage.body.contains(#"name="next" value="/history?type=send""#))
            // A form sent after the lock: kept, and the unlock returns to it.
            let sent = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "alice@example.com", "amount": "2,500",
                                                                             "comment": "for tea", "password": "correct horse"])
            #expect(sent.status == 303 && Browser.header("Location", sent.headers) == "/unlock?next=%2Fsend")
            let again = try await browser.send(.get, "/unlock?next=%2Fsend")
            #expect(again.body.contains("what you had typed is kept"))
            let unlocked = try await browser.send(.post, "/unlock", form: ["csrf": try #require(Browser.csrf(again.body)), "password": "correct horse",
                                                                          "next": "/send"])
            #expect(unlocked.status == 303 && Browser.header("Location", unlocked.headers) == "/send")
            browser.cookie = Browser.sessionID(unlocked.headers)
            let refilled = try await browser.send(.get, "/send")
            #expect(refilled.body.contains(">alice@example.com</textarea>") && refilled.body.contains(#"value="2,500""#) && refilled.body.contains(#"value="for tea""#))
            #expect(refilled.body.contains("here is what you had typed"))
            #expect(!refilled.body.contains("correct horse"), "never a password")
            #expect(!(try await browser.send(.get, "/send")).body.contains("alice@example.com"), "refilled once")
            // The Lock button: back to the page after the unlock.
            let page = try await browser.send(.get, "/wallets")
            let locked = try await browser.send(.post, "/lock", form: ["csrf": try #require(Browser.csrf(page.body)), "next": "/wallets"])
            #expect(locked.status == 303 && Browser.header("Location", locked.headers) == "/unlock?next=%2Fwallets")
            browser.cookie = Browser.sessionID(locked.headers)
            for hostile in ["//evil.example/x", "https://evil.example", "/\\evil", "/lightning/invoice/events?hash=1", "/start?token=x"] {
                let form = try await browser.send(.get, "/unlock")
                let back = try await browser.send(.post, "/unlock", form: ["csrf": try #require(Browser.csrf(form.body)), "password": "correct horse",
                                                                          "next": hostile])
                #expect(back.status == 303 && Browser.header("Location", back.headers) == "/", "\(hostile) is not a page of this app")
                browser.cookie = Browser.sessionID(back.headers)
                let lockAgain = try await browser.send(.get, "/")
                let relocked = try await browser.send(.post, "/lock", form: ["csrf": try #require(Browser.csrf(lockAgain.body))])
                browser.cookie = Browser.sessionID(relocked.headers)
            }
        }
    }

    /// "Stay unlocked" keeps the session awake; asking how long is left, an invoice's status or
    /// the session's stream does not.
    @Test func onlyUseKeepsASessionAwake() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            try await logIn(app, &browser)
            clock.advance(250)
            #expect(try await browser.send(.get, "/alive", fetchSite: "same-origin").status == 204)
            #expect(try await browser.send(.get, "/alive", fetchSite: "cross-site").status == 403)
            clock.advance(250)
            #expect(try await browser.send(.get, "/").status == 200, "awake: 'Stay unlocked' counted as use")
            clock.advance(200)
            #expect(try await browser.send(.get, "/alive?peek", fetchSite: "same-origin").body == "100\n")
            _ = try await browser.send(.get, "/events", fetchSite: "same-origin")
            _ = try await browser.send(.get, "/lightning/invoice/status?hash=" + String(repeating: "ab", count: 32), fetchSite: "same-origin")
            clock.advance(101)
            #expect(try await browser.send(.get, "/alive?peek", fetchSite: "same-origin").body == "0\n")
            let locked = try await browser.send(.get, "/history")
            #expect(locked.status == 303 && Browser.header("Location", locked.headers) == "/unlock?next=%2Fhistory")
        }
    }

    /// A fresh sign-in link replaces the one before; the used or replaced link says so plainly.
    @Test func aFreshSignInLinkReplacesTheOldOne() async throws {
        try await withApp { app, browser, _ in
            let port = browser.port
            let first = app.startPath
            let fresh = await app.freshStartURL(port: port)
            #expect(fresh.hasPrefix("http://127.0.0.1:\(port)/start?token=") && !fresh.hasSuffix(app.token))
            let old = try await browser.send(.get, first)
            #expect(old.status == 403 && old.body.contains("Link expired") && old.body.contains("Press Enter in the terminal"))
            let path = String(fresh.dropFirst("http://127.0.0.1:\(port)".count))
            let used = try await browser.send(.get, path)
            #expect(used.status == 303 && Browser.sessionID(used.headers) != nil)
            #expect(try await browser.send(.get, path).status == 403, "each link works once")
        }
    }

    /// Dates in the browser's time zone (its cookie), the machine's without one; UTC in details.
    @Test func datesAreShownInTheBrowsersZone() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try #require(try store.current())
            let at = try #require(ISO8601DateFormatter().date(from: "2025-03-04T23:30:00Z"))
            try store.savePayment(Payment(id: "tz1", type: .receive, status: .completed, amountMsat: 1_234_000, feeMsat: 0, timestamp: at,
                                          backend: "devnet", details: Payment.Details(description: "zoned")), walletID: wallet.id)
            browser.timeZone = "Asia%2FTokyo"
            let tokyo = try await browser.send(.get, "/history")
            #expect(tokyo.body.contains("5 Mar 2025") && tokyo.body.contains("+1,234 sat"), "08:30 on the 5th in Tokyo")
            browser.timeZone = "America%2FNew_York"
            let newYork = try await browser.send(.get, "/history")
            #expect(newYork.body.contains("4 Mar 2025"))
            browser.timeZone = "Not%2FA_Zone%3Cscript%3E"
            #expect(try await browser.send(.get, "/history").status == 200, "an unknown zone is ignored")
            let detail = try await browser.send(.get, "/history/payment?id=tz1")
            #expect(detail.body.contains("2025-03-04T23:30:00Z"), "UTC in the details")
        }
    }

    /// The session's stream: nothing to say without Lightning (it ends at once); a payment
    /// received is announced; the app stopping ends it.
    @Test func theSessionStreamAnnouncesPaymentsAndEnds() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let none = try await browser.send(.get, "/events", fetchSite: "same-origin")
            #expect(none.status == 200 && none.body == "event: end\ndata: {}\n\n")
            #expect(try await browser.send(.get, "/events", fetchSite: "cross-site").status == 403)
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/").body))
            #expect(try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet", "ledger": ledger]).status == 303)
            let made = try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "1,500", "description": "cake"])
            let location = try #require(Browser.header("Location", made.headers))
            let invoice = try #require(try await browser.send(.get, location).body
                .components(separatedBy: #"<code id="invoice-text" class="address">"#).dropFirst().first?.prefix { $0 != "<" })
            var stream = try await browser.stream("/events", fetchSite: "same-origin")
            #expect(try await stream.read(until: ": listening\n\n"))
            let other = try OtherNode(ledger: ledger)
            _ = try await other.session().closing { session in
                _ = try await session.fund(sats: 5_000)
                let prepared = try await session.prepare(try PaymentInput.parse(String(invoice)), text: String(invoice), amountSats: nil, comment: nil, maxFeeSats: nil)
                return try await session.lightning.pay(prepared, idempotencyKey: nil)
            }
            #expect(try await stream.read(until: "cake"))
            let started = Date()
            app.stopping.stop()
            #expect(try await stream.read(until: "event: end\ndata: {}\n\n"))
            #expect(Date().timeIntervalSince(started) < 2.5, "the stream ends within a second or two of the app stopping")
            #expect(stream.text.contains("event: received\ndata: ") && stream.text.contains(#""amount":"1,500 sat""#) && stream.text.contains("cake"))
            #expect(stream.text.hasSuffix("event: end\ndata: {}\n\n"))
        }
    }

    /// Devnet chosen without a path: its ledger under the home, as `ln config --backend devnet`
    /// saves it too.
    @Test func lightningSetupDefaults() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let home = try await browser.send(.get, "/")
            #expect(home.body.contains("How should") && home.body.contains(#"value="devnet" checked"#), "the first-run choice, devnet preselected")
            let csrf = try #require(Browser.csrf(home.body))
            let unknown = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet:/tmp/x"])
            #expect(unknown.status == 400 && unknown.body.contains("Choose one of the networks"))
            let relative = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet", "ledger": "ledger.sqlite"])
            #expect(relative.status == 400 && relative.body.contains("full path"))
            let chosen = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet", "ledger": ""])
            #expect(chosen.status == 303)
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try #require(try store.current())
            let expected = BackendSpec.defaultDevnetLedger(home: app.home.directory)
            #expect(try LightningSettings.load(store: store, walletID: wallet.id).backend == "devnet:" + expected)
            #expect(FileManager.default.fileExists(atPath: expected))
            #expect(try BackendSpec.parse("devnet", home: app.home.directory) == .devnet(path: expected))
            let page = try await browser.send(.get, "/lightning")
            #expect(page.body.contains(#"value="\#(expected)""#) && page.body.contains("uses <strong>test money on this machine (devnet)</strong>"))
        }
    }
}
