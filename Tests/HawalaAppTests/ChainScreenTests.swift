import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaKeys
@testable import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The chain page with a node that doesn't answer: the page still comes (the sync goes on
/// behind it), a payment is reviewed from the coins of the last sync, and the password sends
/// only the plan its page showed — a review made since in another tab refuses the older one.
extension AppSecurityTests {
    @Test func theChainPageSendsOnlyThePlanItShowed() async throws {
        try await withApp(network: .testnet) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let store = try await app.store.get()
            let wallet = try #require(try store.current())
            // A node that isn't there, and a coin of 20,000,000 litoshi the last sync found.
            let onChain = OnChainStore(store: store, walletID: wallet.id, coin: .litecoin)
            try onChain.save(NodeSettings(kind: .core, location: "http://127.0.0.1:9", auth: .none, chain: "regtest", gapLimit: 20))
            let account = try OnChainWallet.open(wallet, coin: .litecoin, store: store).account
            let coin = Transaction(inputs: [TxInput(prevout: OutPoint(hash: [UInt8](repeating: 7, count: 32), vout: 0), sequence: 0xFFFF_FFFD)],
                                   outputs: [TxOutput(value: 20_000_000, script: try account.script(at: KeyPlace(.receive, 0)).bytes)])
            let block = String(repeating: "0", count: 64)
            try onChain.commit(from: 0, blocks: [(1, block)], transactions: [StoredTransaction(transaction: coin, height: 1, blockHash: block, seenAt: 0)], gone: [])

            let page = try await browser.send(.get, "/chain/litecoin")
            #expect(page.status == 200 && page.body.contains("20,000,000 litoshi"), "\(page.body.suffix(1500))")
            let csrf = try #require(Browser.csrf(page.body))
            let payee = "rltc1qqqqsyqcyq5rqwzqfpg9scrgwpugpzysnrwhxws"
            func review(_ amount: String) async throws -> String {
                let answer = try await browser.send(.post, "/chain/litecoin/review", form: ["csrf": csrf, "to": payee, "amount": amount, "speed": "custom", "rate": "2"])
                #expect(answer.status == 200 && answer.body.contains("Review the payment"), "\(answer.body.suffix(1500))")
                let marker = "name=\"plan\" value=\""
                let start = try #require(answer.body.range(of: marker)).upperBound
                return String(answer.body[start...].prefix { $0 != "\"" })
            }
            let first = try await review("1000000")
            let second = try await review("2000000")
            #expect(first != second)
            let stale = try await browser.send(.post, "/chain/litecoin/send", form: ["csrf": csrf, "plan": first, "password": "correct horse"])
            #expect(stale.status == 409 && stale.body.contains("That review was replaced by another: nothing was sent"), "\(stale.status)")
            // The newer review is still the one waiting (refused here only by the node that isn't there).
            let sent = try await browser.send(.post, "/chain/litecoin/send", form: ["csrf": csrf, "plan": second, "password": "correct horse"])
            #expect(sent.status == 400 && sent.body.contains("Nothing was sent") && sent.body.contains("127.0.0.1:9"), "\(sent.status) \(sent.body.suffix(800))")
        }
    }

    /// The node form takes an Electrum server too (what isn't http:// is one): refused with a
    /// cookie file beside it, and one that isn't there named — with what was typed kept.
    @Test func theNodeFormTakesAnElectrumServer() async throws {
        try await withApp(network: .testnet) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/chain/litecoin")
            #expect(page.body.contains("Electrum server"))
            let csrf = try #require(Browser.csrf(page.body))
            let withCookie = try await browser.send(.post, "/chain/litecoin/node", form: ["csrf": csrf, "url": "127.0.0.1:1:t", "cookie": "/tmp/.cookie"])
            #expect(withCookie.status == 400 && withCookie.body.contains("An Electrum server needs no cookie file"), "\(withCookie.body.suffix(800))")
            let nowhere = try await browser.send(.post, "/chain/litecoin/node", form: ["csrf": csrf, "url": "127.0.0.1:1:t", "cookie": ""])
            #expect(nowhere.status == 400 && nowhere.body.contains("127.0.0.1:1:t") && nowhere.body.contains("refused the connection"), "\(nowhere.body.suffix(800))")
            #expect(nowhere.body.contains("value=\"127.0.0.1:1:t\""))
            // Without :s or :t it is a node's address, http:// put before it.
            let node = try await browser.send(.post, "/chain/litecoin/node", form: ["csrf": csrf, "url": "127.0.0.1:1", "cookie": ""])
            #expect(node.status == 400 && node.body.contains("http://127.0.0.1:1"), "\(node.body.suffix(800))")
            let store = try await app.store.get()
            #expect(try OnChainWallet.savedNode(wallet: try #require(try store.current()), coin: .litecoin, store: store) == nil)
        }
    }
}
