import Foundation
@testable import HawalaApp
import HawalaKeys
import HawalaTestSupport
import HawalaWallet
import Testing

/// The onboarding, backup, recovery and receive screens through HTTP, as a browser drives them:
/// the flows' rules as the pages apply them, the password asked again, words that hide on time.
extension AppSecurityTests {
    /// BIP84 m/84'/0'/0'/0/0 and /1 of "abandon … about" (BIP84's test vectors).
    static let abandonFirst = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
    static let abandonSecond = "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"

    /// The texts of `<span class="word">…</span>` on a page, in order.
    static func words(_ html: String) -> [String] {
        html.components(separatedBy: #"<span class="word">"#).dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    static func quizPosition(_ html: String) -> Int? {
        guard let r = html.range(of: #"<label for="answer">Word #"#) else { return nil }
        return Int(html[r.upperBound...].prefix { $0.isNumber })
    }

    @Test func aFirstWalletIsCreatedThenBackedUpThroughTheQuiz() async throws {
        try await withApp(wallet: false) { app, browser, _ in
            var browser = browser
            let start = try await browser.send(.get, app.startPath)
            browser.cookie = Browser.sessionID(start.headers)
            #expect(try await browser.send(.get, "/").body.contains("Welcome to Hawala"))
            let form = try await browser.send(.get, "/create")
            let csrf = try #require(Browser.csrf(form.body))
            #expect(form.body.contains(#"name="repeat""#), "a first wallet sets the password")
            let differ = try await browser.send(.post, "/create", form: ["csrf": csrf, "name": "Savings", "password": "correct horse", "repeat": "correct horsf"])
            #expect(differ.status == 400 && differ.body.contains("The two passwords differ") && differ.body.contains(#"value="Savings""#))
            #expect(!differ.body.contains("correct hors"), "passwords are never echoed")
            #expect(try await browser.send(.post, "/create", form: ["csrf": csrf, "password": "short", "repeat": "short"]).status == 400)
            let passphrases = try await browser.send(.post, "/create", form: ["csrf": csrf, "passphrase": "tree", "passphraseRepeat": "tre",
                                                                              "password": "correct horse", "repeat": "correct horse"])
            #expect(passphrases.status == 400 && passphrases.body.contains("The two passphrases differ"))
            #expect(try await browser.send(.post, "/create", form: ["csrf": csrf, "words": "13", "password": "correct horse", "repeat": "correct horse"]).status == 400)
            #expect((try? WalletStore(home: app.home, create: false).list().isEmpty) ?? true, "nothing saved by a refused form")
            let created = try await browser.send(.post, "/create", form: ["csrf": csrf, "name": "Savings", "words": "12", "network": "mainnet",
                                                                          "password": "correct horse", "repeat": "correct horse"])
            #expect(created.status == 303 && Browser.header("Location", created.headers) == "/backup")
            let unlocked = try #require(Browser.sessionID(created.headers), "creating the first wallet is the login")
            #expect(unlocked != browser.cookie)
            browser.cookie = unlocked
            let saved = try WalletStore(home: app.home, create: false).list()
            #expect(saved.count == 1 && saved[0].name == "Savings" && !saved[0].backup.isBackedUp, "saved at once, not backed up")

            var page = try await browser.send(.get, "/backup")
            #expect(page.body.contains("Your wallet is its words") && !page.body.contains("is not backed up."), "no reminder on the backup itself")
            let csrf2 = try #require(Browser.csrf(page.body))
            func step(_ fields: [String: String]) async throws -> (status: Int, headers: [(String, String)], body: String) {
                try await browser.send(.post, "/backup", form: fields.merging(["csrf": csrf2]) { a, _ in a })
            }
            #expect(try await step(["event": "proceed"]).status == 303)
            page = try await browser.send(.get, "/backup")
            let words = Self.words(page.body)
            #expect(words.count == 12)
            #expect(page.body.contains("Never share your words."), "the words page warns")
            #expect(page.body.components(separatedBy: #"<details name="seed-word">"#).count == 13, "each word behind its own disclosure, one open at a time")
            #expect(!page.body.contains("<details name=\"seed-word\" open"), "every word starts hidden")
            #expect(page.body.contains(#"<noscript><meta http-equiv="refresh""#) && page.body.contains("data-reload-after="), "the page reloads when the words hide")
            #expect(try await step(["event": "answer", "answer": "abandon"]).status == 303, "an answer while the words show is refused, not fatal")
            #expect(try await step(["event": "proceed"]).status == 303)
            page = try await browser.send(.get, "/backup")
            var position = try #require(Self.quizPosition(page.body))
            #expect(!page.body.contains(#"<span class="word">"#), "the quiz hides the words")
            #expect(page.body.contains(#"autocomplete="off""#) && page.body.contains(#"spellcheck="false""#))
            let wrong = words[position - 1] == "zoo" ? "abandon" : "zoo"
            let questionLine = try #require(page.body.components(separatedBy: "<p>Question ").dropFirst().first?.prefix { $0 != ":" })
            _ = try await step(["event": "answer", "answer": wrong])
            page = try await browser.send(.get, "/backup")
            // A typo is asked again in place: the same question, the field by its problem, the
            // typed word not written back.
            #expect(page.body.contains("That is not word #\(position).") && !page.body.contains(wrong))
            #expect(Self.quizPosition(page.body) == position && page.body.contains("<p>Question \(questionLine):"), "\(page.body.suffix(1500))")
            var asked = 0
            while true {
                page = try await browser.send(.get, "/backup")
                guard let p = Self.quizPosition(page.body) else { break }
                position = p
                asked += 1
                #expect(try await step(["event": "answer", "answer": words[position - 1].uppercased()]).status == 303)
            }
            #expect((3...5).contains(asked))
            #expect(page.body.contains("Every word was right"))
            let done = try await step(["event": "confirm"])
            #expect(done.status == 303 && Browser.header("Location", done.headers) == "/")
            #expect(try WalletStore(home: app.home, create: false).list()[0].backup.isBackedUp)
            let home = try await browser.send(.get, "/")
            #expect(!home.body.contains("Not backed up"), "the badge goes with the backup")
            #expect(try await browser.send(.get, "/backup").status == 303, "the flow and its words are gone")
        }
    }

    @Test func theWordsNeedThePasswordAgainAndHideOnTime() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            try await logIn(app, &browser)
            let name = Self.hostileName.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let form = try await browser.send(.get, "/words?purpose=show&wallet=\(name)")
            #expect(form.status == 200 && !form.body.contains("<script>alert"))
            #expect(form.body.contains(#"name="wallet" value="W&quot;&gt;&lt;script&gt;"#), "the name escaped in an attribute")
            let csrf = try #require(Browser.csrf(form.body))
            let fields = ["csrf": csrf, "wallet": Self.hostileName, "purpose": "show"]
            #expect(try await browser.send(.post, "/words", form: fields).status == 400, "no password")
            let wrong = try await browser.send(.post, "/words", form: fields.merging(["password": "wrong horse"]) { a, _ in a })
            #expect(wrong.status == 401 && !wrong.body.contains("abandon"))
            let right = try await browser.send(.post, "/words", form: fields.merging(["password": "correct horse"]) { a, _ in a })
            #expect(right.status == 303 && Browser.header("Location", right.headers) == "/backup")
            let shown = try await browser.send(.get, "/backup")
            #expect(Self.words(shown.body) == Array(repeating: "abandon", count: 11) + ["about"])
            #expect(!shown.body.contains("<script>alert"))
            // (In two steps: five idle minutes would lock the session, which drops the words too.)
            clock.advance(AppRoutes.wordsShownFor - 100)
            #expect(Self.words(try await browser.send(.get, "/backup").body).count == 12, "still shown")
            clock.advance(101)
            let hidden = try await browser.send(.get, "/backup")
            #expect(hidden.body.contains("Words hidden") && Self.words(hidden.body).isEmpty && !hidden.body.contains("abandon"))
            // Verify: the quiz, with the password again.
            let verify = try await browser.send(.post, "/words", form: ["csrf": csrf, "wallet": Self.hostileName, "purpose": "verify", "password": "correct horse"])
            #expect(verify.status == 303)
            let quiz = try await browser.send(.get, "/backup")
            #expect(Self.quizPosition(quiz.body) != nil && Self.words(quiz.body).isEmpty)
            // "Back up now": the flow from its start, the password first too.
            #expect(try await browser.send(.post, "/words", form: ["csrf": csrf, "wallet": Self.hostileName, "purpose": "backup", "password": "correct horse"]).status == 303)
            #expect(try await browser.send(.get, "/backup").body.contains("Your wallet is its words"))
            // Locking drops the flow with its words.
            _ = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            #expect(try await browser.send(.get, "/backup").status == 401, "the old session is gone")
        }
    }

    @Test func aRecoveryChecksEachWordAndRefusesAWalletAlreadyHere() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/restore").body))
            func step(_ fields: [String: String]) async throws -> (status: Int, headers: [(String, String)], body: String) {
                try await browser.send(.post, "/restore", form: fields.merging(["csrf": csrf]) { a, _ in a })
            }
            #expect(try await step(["event": "network", "network": "mainnet"]).status == 303)
            #expect(try await step(["event": "count", "words": "12"]).status == 303)
            let typo = try await step(["event": "word", "word": "abandn"])
            #expect(typo.status == 400 && typo.body.contains(#"<button type="submit" name="word" value="abandon""#), "the suggestion as a button")
            let ambiguous = try await step(["event": "word", "word": "ab"])
            #expect(ambiguous.status == 400 && ambiguous.body.contains("could be"))
            #expect(try await step(["event": "word", "word": "aban"]).status == 303, "four letters are enough")
            let page = try await browser.send(.get, "/restore")
            #expect(page.body.contains("Word #2 of 12"))
            // Start again and paste the phrase of the wallet already here: refused before any confirmation.
            #expect(try await step(["event": "cancel"]).status == 303)
            _ = try await browser.send(.get, "/restore")
            _ = try await step(["event": "network", "network": "mainnet"])
            #expect(try await step(["event": "phrase", "phrase": abandonAbout]).status == 303)
            let guarded = try await step(["event": "passphrase", "passphrase": ""])
            #expect(guarded.status == 409 && guarded.body.contains("already"))
            #expect(try WalletStore(home: app.home, create: false).list().count == 1)
            // A checksum failure keeps the words and asks for the wrong one.
            _ = try await browser.send(.get, "/restore")
            _ = try await step(["event": "network", "network": "testnet"])
            _ = try await step(["event": "phrase", "phrase": String(repeating: "abandon ", count: 12)])
            let failed = try await browser.send(.get, "/restore")
            #expect(failed.body.contains("don't form a valid phrase") && failed.body.contains(#"name="position""#))
        }
    }

    @Test func receiveShowsTheAddressWithAnInlineQRCode() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/receive")
            #expect(page.status == 200 && page.body.contains(Self.abandonFirst))
            let path = try #require(page.body.range(of: #"<path d=""#).map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })
            #expect(path.count > 100 && path.allSatisfy { "0123456789Mhvz- ".contains($0) })
            #expect(!page.body.contains("data:") && !page.body.contains("<img"))
            let csrf = try #require(Browser.csrf(page.body))
            let next = try await browser.send(.post, "/receive/new", form: ["csrf": csrf, "chain": "bitcoin"])
            #expect(next.status == 303 && Browser.header("Location", next.headers) == "/receive?chain=bitcoin")
            #expect(try await browser.send(.get, "/receive?chain=bitcoin").body.contains(Self.abandonSecond))
            #expect(try await browser.send(.get, "/receive").body.contains(Self.abandonSecond), "the same address until a new one is asked for")
            #expect(try await browser.send(.get, "/receive?chain=dogecoin").status == 400)
            #expect(try await browser.send(.post, "/receive/new", form: ["csrf": csrf, "chain": "dogecoin"]).status == 400)
        }
    }
}
