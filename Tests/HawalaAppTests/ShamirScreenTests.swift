import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaWallet
import Testing

/// SLIP-39 through HTTP: a split shown once for printing (the password again, the layout checked
/// first), and a new machine restoring from pasted shares, with a typo pointed out, the readings'
/// addresses shown before anything is saved, and the overwrite guard.
extension AppSecurityTests {
    /// The shares on a printed page, in order: each sheet's words.
    static func printedShares(_ html: String) -> [String] {
        html.components(separatedBy: #"<section class="share-sheet""#).dropFirst().map { sheet in
            sheet.components(separatedBy: #"<span class="word">"#).dropFirst().map { String($0.prefix { $0 != "<" }) }.joined(separator: " ")
        }
    }

    @Test func sharesArePrintedOnceAndRestoreANewMachine() async throws {
        let shares = try await withAppResult { app, browser in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/backups")
            let csrf = try #require(Browser.csrf(page.body))
            let split = ["csrf": csrf, "wallet": Self.hostileName, "groups": "2/3", "groupThreshold": "1", "password": "correct horse"]
            // The layout is checked before the password; the passphrase twice; the password again.
            let impossible = try await browser.send(.post, "/backups/shamir", form: split.merging(["groups": "4/3", "password": "wrong horse"]) { $1 })
            #expect(impossible.status == 400)
            #expect(try await browser.send(.post, "/backups/shamir", form: split.merging(["sharesPassphrase": "a", "sharesRepeat": "b"]) { $1 }).status == 400)
            let wrong = try await browser.send(.post, "/backups/shamir", form: split.merging(["password": "wrong horse"]) { $1 })
            #expect(wrong.status == 401 && !wrong.body.contains("share-sheet"))
            let printed = try await browser.send(.post, "/backups/shamir", form: split)
            #expect(printed.status == 200 && printed.body.contains("2 of these 3 shares recover the wallet"))
            #expect(!printed.body.contains("<script>alert"), "the wallet's name is escaped on the sheets")
            let shares = Self.printedShares(printed.body)
            #expect(shares.count == 3 && shares.allSatisfy { $0.split(separator: " ").count == 20 })
            #expect(Set(shares).count == 3)
            // As a PDF instead: one share a page, drawn in memory; a wrong password gets none.
            let pdfForm = split.merging(["format": "pdf", "paper": "letter"]) { $1 }
            let noPDF = try await browser.sendBytes(.post, "/backups/shamir", form: pdfForm.merging(["password": "wrong horse"]) { $1 })
            #expect(noPDF.status == 401 && Browser.header("Content-Type", noPDF.headers) != "application/pdf")
            let pdf = try await browser.sendBytes(.post, "/backups/shamir", form: pdfForm)
            #expect(pdf.status == 200 && Browser.header("Content-Disposition", pdf.headers) == #"attachment; filename="hawala-shares.pdf""#)
            let pages = try pdfText(pdf.body).split(separator: "\u{0C}").filter { $0.contains("SLIP-39 share") }
            #expect(pages.count == 3 && pages[2].contains("SLIP-39 share 3 of 3") && pages[0].contains("2 of these 3 shares recover the wallet"))

            // The same wallet is already here: that reading can't be chosen (the seed reading,
            // another wallet, still can), before any confirmation.
            let entry = try await browser.send(.get, "/restore/shares")
            #expect(entry.status == 200 && entry.body.contains(#"name="shares""#))
            let here = try await browser.send(.post, "/restore/shares", form: ["csrf": csrf, "shares": shares[0] + "\n" + shares[2], "network": "mainnet"])
            #expect(here.status == 200 && here.body.contains(#"value="0" required disabled"#) && here.body.contains("already here as"), "\(here.body)")
            let again = try await browser.send(.post, "/restore/shares/save", form: ["csrf": csrf, "reading": "0", "name": "x"])
            #expect(again.status == 400 && again.body.contains("already"))
            return shares
        }

        try await withApp(wallet: false) { app, browser, _ in
            var browser = browser
            browser.cookie = Browser.sessionID(try await browser.send(.get, app.startPath).headers)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/restore/shares").body))
            func paste(_ text: String) async throws -> (status: Int, headers: [(String, String)], body: String) {
                try await browser.send(.post, "/restore/shares", form: ["csrf": csrf, "shares": text, "network": "mainnet"])
            }
            // One share of two needed: it is taken and kept; a typo in the second share (its 7th
            // word) is pointed out by line and word, and no share comes back in the page.
            let one = try await paste(shares[1])
            #expect(one.status == 400 && one.body.contains("1 share(s) taken so far"))
            var words = shares[2].split(separator: " ").map(String.init)
            words[6] = "qqqq"
            let typo = try await paste("# my shares\n" + shares[1] + "\n" + words.joined(separator: " "))
            #expect(typo.status == 400 && typo.body.contains("Line 3: word 7 is not a SLIP-39 word"), "\(typo.body)")
            #expect(!typo.body.contains("qqqq") && !typo.body.contains(shares[1]) && !typo.body.contains(words[0] + " " + words[1]), "no secret comes back in the page")
            // Only the corrected share now; four letters a word are enough.
            let short = shares[2].split(separator: " ").map { String($0.prefix(4)) }.joined(separator: " ")
            let readings = try await paste(short)
            #expect(readings.status == 200 && readings.body.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
            #expect(readings.body.contains(#"name="reading" value="0""#) && readings.body.contains(#"name="reading" value="1""#), "entropy and seed readings")
            #expect(try !app.home.existing() || WalletStore(home: app.home, create: false).list().isEmpty, "nothing saved yet")
            let save = ["csrf": csrf, "reading": "0", "name": "From shares", "password": "new machine pw", "repeat": "new machine pw"]
            #expect(try await browser.send(.post, "/restore/shares/save", form: save.merging(["reading": "7"]) { $1 }).status == 400)
            #expect(try await browser.send(.post, "/restore/shares/save", form: save.merging(["repeat": "other"]) { $1 }).status == 400)
            let saved = try await browser.send(.post, "/restore/shares/save", form: save)
            #expect(saved.status == 303 && Browser.sessionID(saved.headers) != nil)
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try store.wallet(named: "From shares")
            #expect(wallet.kind == .bip39 && wallet.backup.isBackedUp)
            let keyring = try store.unlock(password: password("new machine pw"))
            #expect(try store.secrets(of: wallet, keyring: keyring).mnemonic.words.joined(separator: " ") == abandonAbout)
        }
    }

    /// `withApp`, handing back what the body returns.
    func withAppResult<T: Sendable>(_ body: @Sendable @escaping (WebApp, Browser) async throws -> T) async throws -> T {
        let box = ResultBox<T>()
        try await withApp { app, browser, _ in box.value = try await body(app, browser) }
        return try #require(box.value)
    }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
