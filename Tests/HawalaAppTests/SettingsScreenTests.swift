import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaWallet
import Testing

/// Settings through HTTP: the idle lock kept for the next start, the password changed (the old
/// one stops working), rename, and delete only with the name typed again and the password.
extension AppSecurityTests {
    @Test func settingsChangeTheLockThePasswordAndTheWallets() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/settings")
            #expect(page.status == 200 && page.body.contains(#"value="5""#))
            let csrf = try #require(Browser.csrf(page.body))
            #expect(try await browser.send(.post, "/settings/lock", form: ["csrf": csrf, "minutes": "0"]).status == 400)
            #expect(try await browser.send(.post, "/settings/lock", form: ["csrf": csrf, "minutes": "15"]).body.contains("15 minutes"))
            #expect(await app.sessions.idleLockSeconds == 900)
            let restarted = try await WebApp(home: app.home)
            #expect(await restarted.sessions.idleLockSeconds == 900, "kept for the next start")

            // Rename: a taken or empty name is refused; the new name is escaped.
            let store = try WalletStore(home: app.home, create: false)
            let keyring = try store.unlock(password: password("correct horse"))
            try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Second", network: .mainnet, keyring: keyring)
            #expect(try await browser.send(.post, "/wallets/rename", form: ["csrf": csrf, "name": "Second", "newName": Self.hostileName]).status == 400)
            let renamed = try await browser.send(.post, "/wallets/rename", form: ["csrf": csrf, "name": "Second", "newName": #"<b>"x"</b>"#])
            #expect(renamed.status == 200 && renamed.body.contains("&lt;b&gt;&quot;x&quot;&lt;/b&gt;") && !renamed.body.contains("<b>\"x\""))

            // Delete: the name typed again and the password, or nothing is deleted.
            let name = #"<b>"x"</b>"#
            #expect(try await browser.send(.post, "/wallets/delete", form: ["csrf": csrf, "name": name, "confirm": "x", "password": "correct horse"]).status == 400)
            #expect(try await browser.send(.post, "/wallets/delete", form: ["csrf": csrf, "name": name, "confirm": name, "password": "wrong horse"]).status == 401)
            #expect(try store.list().count == 2)
            let deleted = try await browser.send(.post, "/wallets/delete", form: ["csrf": csrf, "name": name, "confirm": name, "password": "correct horse"])
            #expect(deleted.status == 200 && deleted.body.contains("Deleted wallet"))
            #expect(try store.list().map(\.name) == [Self.hostileName])

            // The password: the current one, then the new one twice.
            #expect(try await browser.send(.post, "/settings/password", form: ["csrf": csrf, "password": "correct horse", "newPassword": "battery staple 1", "newRepeat": "battery staple 2"]).status == 400)
            let changed = try await browser.send(.post, "/settings/password", form: ["csrf": csrf, "password": "correct horse", "newPassword": "battery staple 1", "newRepeat": "battery staple 1"])
            #expect(changed.status == 200 && changed.body.contains("password is changed"))
            #expect(throws: WalletError.wrongPassword) { try store.unlock(password: password("correct horse")) }
            _ = try store.unlock(password: password("battery staple 1"))
            // The session's keyring is the new one: showing the words still works with it.
            let words = try await browser.send(.post, "/words", form: ["csrf": csrf, "wallet": Self.hostileName, "purpose": "show", "password": "battery staple 1"])
            #expect(words.status == 303)
        }
    }
}
