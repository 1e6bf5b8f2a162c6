import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaWallet
import Testing

/// The wallets page: each wallet's dates, accounts and backup methods; a switch confirmed when
/// payments are pending (the library's `switchWarning`, as `wallet use` asks); a private key
/// imported into the current wallet, its mistakes shown by their fields and the key never echoed.
extension AppSecurityTests {
    @Test func theWalletsPageSwitchesWithCareAndImportsKeys() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let store = try WalletStore(home: app.home, create: false)
            let keyring = try store.unlock(password: SecretBytes(utf8: "correct horse"))
            let first = try #require(try store.current())
            _ = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Spare", network: .testnet, keyring: keyring)
            try store.recordBackup(.vault, walletIDs: [first.id])
            var page = try await browser.send(.get, "/wallets")
            #expect(page.body.contains("12 accounts") && page.body.contains("created "), "\(page.body)")
            #expect(page.body.contains("words not checked; vault 20"))
            let csrf = try #require(Browser.csrf(page.body))

            // Nothing pending: a switch is a switch.
            var switched = try await browser.send(.post, "/wallets/use", form: ["csrf": csrf, "name": "Spare"])
            #expect(try switched.status == 303 && store.current()?.name == "Spare")
            switched = try await browser.send(.post, "/wallets/use", form: ["csrf": csrf, "name": first.name])
            try store.savePayment(Payment(id: "p1", type: .send, status: .pending, amountMsat: 5_000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                          details: Payment.Details(description: "tea")), walletID: first.id)
            let asked = try await browser.send(.post, "/wallets/use", form: ["csrf": csrf, "name": "Spare"])
            #expect(asked.status == 200 && asked.body.contains("has 1 payment still pending") && asked.body.contains("Switch anyway"), "\(asked.body)")
            #expect(try store.current()?.id == first.id, "not switched before the answer")
            switched = try await browser.send(.post, "/wallets/use", form: ["csrf": csrf, "name": "Spare", "confirm": "yes"])
            #expect(try switched.status == 303 && store.current()?.name == "Spare")

            // A key: refused by its field (kept: the chain and label, never the key), then imported.
            let key = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
            let spare = try store.wallet(named: "Spare").id
            let elsewhere = try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": first.id, "chain": "ethereum", "key": key])
            #expect(elsewhere.status == 409 && elsewhere.body.contains("changed since this page was shown"), "another tab switched wallets")
            let malformed = try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": spare, "chain": "ethereum", "key": "0x1234abcd", "label": "hot"])
            #expect(malformed.status == 400 && malformed.body.contains(#"id="key-problem""#) && malformed.body.contains("64 hex digits"))
            #expect(malformed.body.contains(#"<option value="ethereum" selected>"#) && malformed.body.contains(#"value="hot""#) && !malformed.body.contains("0x1234abcd"))
            let longLabel = String(repeating: "é", count: 65)
            let long = try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": spare, "chain": "ethereum", "key": key, "label": longLabel])
            #expect(long.status == 400 && long.body.contains(#"id="label-problem""#) && !long.body.contains(key))
            #expect(try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": spare, "chain": "cardano", "key": key]).status == 400)
            let imported = try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": spare, "chain": "ethereum", "key": key, "label": "hot"])
            #expect(imported.status == 200 && imported.body.contains("Imported 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 (ethereum) into “Spare”"), "\(imported.body)")
            #expect(!imported.body.contains(key))
            #expect(try store.wallet(named: "Spare").importedAccounts.map(\.label) == ["hot"])
            let again = try await browser.send(.post, "/wallets/import-key", form: ["csrf": csrf, "wallet": spare, "chain": "ethereum", "key": key])
            #expect(again.status == 400 && again.body.contains("already"))
            page = try await browser.send(.get, "/wallets")
            #expect(page.body.contains("1 account, 1 imported key"), "a testnet wallet: one account, and the key")
        }
    }
}
