import AsyncHTTPClient
import Foundation
@testable import HawalaApp
import HawalaLightning
import HawalaTestSupport
import HTTPTypes
import NIOCore
import Testing

/// Issue 39, item 7: every POST answers with a redirect to a page that can be reloaded (no
/// "Confirm Form Resubmission", nothing done twice), and an address the app has no page at —
/// a form's address opened directly among them — gets a styled page with the way home.
extension AppSecurityTests {
    @Test func formsAnswerWithAPageThatReloads() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            // The POST itself: a 303 to its answer (a raw request, not the test browser's following).
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(browser.port)/lightning/fund")
            request.method = .POST
            request.headers.add(name: "Host", value: "127.0.0.1:\(browser.port)")
            request.headers.add(name: "Origin", value: "http://127.0.0.1:\(browser.port)")
            request.headers.add(name: "Cookie", value: "hawala_sid=\(browser.cookie ?? "")")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: "csrf=\(csrf)&amount=2500"))
            let posted = try await browser.client.execute(request, timeout: .seconds(30))
            let location = try #require(posted.headers.first(name: "Location"))
            #expect(posted.status.code == 303 && location.hasPrefix("/answer/") && location.hasSuffix("#test-money"), "\(location)")
            let path = String(location.prefix { $0 != "#" })
            // Reloaded: the same answer, and the money added once.
            let first = try await browser.send(.get, path), again = try await browser.send(.get, path)
            #expect(first.status == 200 && first.body.contains("Added 2,500 sat of test money.") && again.body.contains("Added 2,500 sat of test money."))
            #expect(again.body.contains("Balance: 2,500 sat"), "reloading did not fund twice: \(again.body.suffix(900))")
            // A refusal is an answer too, with its status, the typed value kept by its field.
            let refused = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "lots"])
            #expect(refused.status == 400 && refused.body.contains(#"value="lots""#) && refused.body.contains("fund-problem"))
            // Another session can't read it; after the lock it is gone, said in words.
            #expect(try await browser.send(.get, path, cookie: .some("nobody")).status == 401)
            let locked = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            #expect(locked.status == 303)
            browser.cookie = Browser.sessionID(locked.headers)
            try await logIn2(&browser)
            let gone = try await browser.send(.get, path)
            #expect(gone.status == 404 && gone.body.contains("not after the app locks") && gone.body.contains(#"href="/">Home</a>"#), "\(gone.body.suffix(900))")

            // No page here: styled, with the way home; a form's address opened as a page too.
            for (path, words) in [("/nothing-here", "There is no page at this address."),
                                  ("/lightning/pay", "where a form is sent, not a page to open")] {
                let page = try await browser.send(.get, path)
                #expect([404, 405].contains(page.status) && page.body.contains("<!doctype html>") && page.body.contains(words)
                        && page.body.contains(#"href="/">Home</a>"#) && page.body.contains("/static/app.css"), "\(path): \(page.status) \(page.body.prefix(300))")
            }
        }
    }
}

extension AppSecurityTests {
    /// Issue 39, item 4: a wrong password typed anywhere (here: to show the words) counts toward
    /// the one limit the unlock keeps too, and every refusal says how many tries are left.
    @Test func aWrongPasswordAnywhereCountsTowardTheUnlock() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/settings").body))
            for left in [4, 3] {
                let wrong = try await browser.send(.post, "/words", form: ["csrf": csrf, "wallet": Self.hostileName, "purpose": "show", "password": "guess"])
                #expect(wrong.status == 401 && wrong.body.contains("Wrong password. \(left) more tries before a wait of 5 minutes."), "\(wrong.body.suffix(900))")
            }
            let locked = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            browser.cookie = Browser.sessionID(locked.headers)
            let unlockCSRF = try #require(Browser.csrf(try await browser.send(.get, "/unlock").body))
            let third = try await browser.send(.post, "/unlock", form: ["csrf": unlockCSRF, "password": "guess"])
            #expect(third.status == 401 && third.body.contains("Wrong password. 2 more tries before a wait of 5 minutes."), "\(third.body.suffix(900))")
        }
    }
}

extension AppSecurityTests {
    /// Issue 48, items 12 and 13: a lock on a payment's confirmation brings the confirmation back
    /// after the unlock (its password field empty), never "Not kept"; Back after paying and Pay
    /// again says the payment was made already, nothing sent twice.
    @Test func theConfirmationSurvivesTheLockAndPayAgainSaysPaid() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "5000"]).status == 200)
            let other = try await OtherNode(ledger: ledger).session()
            let invoice = try await other.receive(ReceiveRequest(amountSats: 700, description: "kept through the lock")).response.invoice
            await other.close()
            // The preview, by a raw request: its answer's address.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(browser.port)/lightning/send")
            request.method = .POST
            request.headers.add(name: "Host", value: "127.0.0.1:\(browser.port)")
            request.headers.add(name: "Origin", value: "http://127.0.0.1:\(browser.port)")
            request.headers.add(name: "Cookie", value: "hawala_sid=\(browser.cookie ?? "")")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: "csrf=\(csrf)&input=\(invoice)"))
            let posted = try await browser.client.execute(request, timeout: .seconds(30))
            let answer = try #require(posted.headers.first(name: "Location")).prefix { $0 != "#" }
            #expect(try await browser.send(.get, String(answer)).body.contains("Confirm the payment"))
            // Locked (the button), then unlocked: the confirmation again, not "Not kept".
            let locked = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            browser.cookie = Browser.sessionID(locked.headers)
            let whileLocked = try await browser.send(.get, String(answer))
            #expect(!whileLocked.body.contains("Confirm the payment"), "shown only once unlocked")
            try await logIn2(&browser)
            let back = try await browser.send(.get, String(answer))
            #expect(back.status == 200 && back.body.contains("Confirm the payment") && back.body.contains("kept through the lock") && !back.body.contains("Not kept"),
                    "\(back.body.suffix(1200))")
            let fresh = try #require(Browser.csrf(back.body))
            let paid = try await browser.send(.post, "/lightning/pay", form: ["csrf": fresh, "input": invoice, "password": "correct horse"])
            #expect(paid.status == 200 && paid.body.contains("Paid"), "\(paid.body.suffix(900))")
            // Back to the confirmation, Pay again: said as paid before, nothing sent twice.
            let again = try await browser.send(.post, "/lightning/pay", form: ["csrf": fresh, "input": invoice, "password": "correct horse"])
            #expect(again.body.contains("Already paid: nothing was sent again"), "\(again.body.suffix(900))")
            let store = try await app.store.get()
            let sent = try store.payments(walletID: try #require(try store.current()).id, filter: PaymentFilter(type: .send))
            #expect(sent.count == 1)
        }
    }
}
