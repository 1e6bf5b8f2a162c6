import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// Issue 39, items 5, 6 and 8: the download writes what the page lists (and says how many);
/// "Older" shows only when there is an older page, keeping the filters; the home's latest
/// payments are payments — invoices not paid yet are counted apart.
extension AppSecurityTests {
    @Test func historyPagesDownloadsAndOpenInvoices() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            // 52 test fundings (received, completed) on top of nothing else, then one sent and
            // one invoice not paid.
            for _ in 0..<52 { #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "1,000"]).status == 200) }
            let other = try await OtherNode(ledger: ledger).session()
            let invoice = try await other.receive(ReceiveRequest(amountSats: 700, description: "for the other")).response.invoice
            await other.close()
            let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": invoice])
            #expect(preview.status == 200)
            let paid = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "correct horse"])
            #expect(paid.status == 200 && paid.body.contains("Paid"), "\(paid.body.suffix(1500))")
            #expect(try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "99,999,999,999,999", "description": "big ask"]).status == 303)

            // Home: the payments, not the open invoice (no "+99,999,999,999,999 sat"), and the
            // invoice said apart.
            let home = try await browser.send(.get, "/")
            #expect(!home.body.contains("99,999,999,999,999") && !home.body.contains("big ask"), "\(home.body.suffix(2500))")
            #expect(home.body.contains("Waiting for payment: 1 invoice"))
            #expect(home.body.contains("−702 sat") && home.body.contains("incl. 2 sat fee"), "the send is among the latest, its fee said: \(home.body.suffix(2500))")

            // The history lists it apart from money received: it asks, it brought nothing.
            let pending = try await browser.send(.get, "/history?type=receive&status=pending")
            #expect(pending.body.contains("asks 99,999,999,999,999 sat") && !pending.body.contains("+99,999,999,999,999"))

            // 54 rows: a first page of 50 with "Older", a second of 4 without.
            let first = try await browser.send(.get, "/history")
            #expect(first.body.contains(#"rel="next">Older</a>"#) && first.body.contains("Download these 54 payments"), "\(first.body.suffix(800))")
            let second = try await browser.send(.get, "/history?offset=50")
            #expect(!second.body.contains("Older") && second.body.contains(#"rel="prev">Newer</a>"#), "\(second.body.suffix(3000))")
            // Filtered: 52 received, "Older" keeps the filter, and there is nothing older past it.
            let received = try await browser.send(.get, "/history?type=receive&status=completed")
            #expect(received.body.contains("Download these 52 payments"))
            let older = try #require(received.body.components(separatedBy: #"<a href="/history?"#).dropFirst()
                .first { $0.contains(#"rel="next""#) }?.prefix { $0 != "\"" })
            let olderPage = String(older).replacingOccurrences(of: "&amp;", with: "&")
            #expect(olderPage.contains("type=receive") && olderPage.contains("status=completed") && olderPage.contains("offset=50"), "\(olderPage)")
            let next = try await browser.send(.get, "/history?" + olderPage)
            #expect(!next.body.contains(#"rel="next""#) && next.body.contains("+1,000 sat") && !next.body.contains("−70"), "\(next.body.suffix(1500))")
            let sentOnly = try await browser.send(.get, "/history?type=send")
            #expect(sentOnly.body.contains("Download this payment:"), "\(sentOnly.body.suffix(800))")
            #expect(!sentOnly.body.contains("Older"))

            // The downloads hold what the page lists: the type, the status, the search.
            let sentCSV = try await browser.send(.get, "/history/export?format=csv&type=send")
            #expect(sentCSV.body.split(separator: "\r\n").count == 2 && sentCSV.body.contains(",sent,completed,700,"), "\(sentCSV.body)")
            let searched = try await browser.send(.get, "/history/export?format=json&q=big")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(searched.body.utf8)) as? [[String: Any]])
            #expect(rows.count == 1 && rows.first?["description"] as? String == "big ask")
            let pendingCSV = try await browser.send(.get, "/history/export?format=csv&status=pending")
            #expect(pendingCSV.body.split(separator: "\r\n").count == 2)
            let everything = try await browser.send(.get, "/history/export?format=csv")
            #expect(everything.body.split(separator: "\r\n").count == 55)
            #expect(received.body.contains(#"href="/history/export?format=csv&amp;type=receive&amp;status=completed""#), "\(received.body.suffix(600))")
        }
    }
}

extension AppSecurityTests {
    /// A failed payment's page offers "Try again": the send form filled with what failed, which
    /// pays (a failure paid nothing, so its key does not block the new attempt).
    /// The list rows say which program paid or asked, on the home and in the history.
    @Test func listsSayWhichProgramPaid() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            _ = try await onDevnet(app, &browser, ledger: temporaryFolder("devnet").appendingPathComponent("ledger").path)
            let store = try await app.store.get()
            let wallet = try #require(try store.current())
            func sent(_ id: String, _ connection: String) -> Payment {
                Payment(id: id, type: .send, status: .completed, amountMsat: 1_000_000, feeMsat: 1_000, timestamp: Date(), backend: "devnet",
                        details: Payment.Details(description: "job \(id)"), connection: connection)
            }
            try store.savePayments([sent("6", "compute-agent"), sent("7", "L402: 127.0.0.1")], walletID: wallet.id)
            for path in ["/", "/history"] {
                let body = try await browser.send(.get, path).body
                #expect(body.contains("Paid by compute-agent") && body.contains("L402: 127.0.0.1"), "\(path): \(body.suffix(2000))")
            }
        }
    }

    /// A payment held by the wallet's hold invoice reads "Held — settle or cancel" with both
    /// buttons; Settle takes it; another, cancelled, goes back to its payer. A hold invoice
    /// whose preimage a program holds: Cancel only.
    @Test func aHeldPaymentIsSettledOrCancelledFromItsPage() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try #require(try store.current())
            let keyring = try store.unlock(password: password("correct horse"))
            let mine = try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: .devnet) { keyring }
            let kept = try await mine.receiveHeld(ReceiveRequest(amountSats: 1_200, description: "render job"))
            let theirs = try await mine.receiveHeld(ReceiveRequest(amountSats: 800, description: "their job"), paymentHash: String(repeating: "ab", count: 32))
            let buyer = try await OtherNode(ledger: ledger).session()
            if let devnet = buyer.backend as? DevnetBackend { _ = try await devnet.fund(sats: 10_000) }
            for invoice in [kept, theirs] {
                let prepared = try await buyer.prepare(try PaymentInput.parse(invoice.response.invoice), text: invoice.response.invoice, amountSats: nil, comment: nil, maxFeeSats: nil)
                #expect(try await buyer.lightning.pay(prepared, idempotencyKey: invoice.response.paymentHash).status == .pending)
            }
            _ = try await mine.lightning.sync()
            await mine.close()
            let held = try #require(try store.payments(walletID: wallet.id, filter: PaymentFilter(paymentHash: kept.response.paymentHash)).first)
            let page = try await browser.send(.get, "/history/payment?id=" + held.id)
            #expect(page.body.contains("Held — settle or cancel") && page.body.contains(">Settle</button>") && page.body.contains(">Cancel and give back</button>"),
                    "\(page.body.suffix(2500))")
            let settled = try await browser.send(.post, "/history/payment/settle", form: ["csrf": csrf, "id": held.id])
            #expect(settled.status == 303, "\(settled.body.suffix(800))")
            let after = try await browser.send(.get, "/history/payment?id=" + held.id)
            #expect(!after.body.contains("Held — settle") && after.body.contains("1,200 sat"), "\(after.body.suffix(2000))")
            #expect(try store.payment(walletID: wallet.id, id: held.id)?.status == .completed)
            // The program's invoice: no Settle (its preimage is not here); Cancel gives it back.
            let other = try #require(try store.payments(walletID: wallet.id, filter: PaymentFilter(paymentHash: theirs.response.paymentHash)).first)
            let otherPage = try await browser.send(.get, "/history/payment?id=" + other.id)
            #expect(!otherPage.body.contains(">Settle</button>") && otherPage.body.contains("holds its secret"), "\(otherPage.body.suffix(2000))")
            let before = try await buyer.backend.getInfo().balanceMsat
            #expect(try await browser.send(.post, "/history/payment/cancel", form: ["csrf": csrf, "id": other.id]).status == 303)
            #expect(try await buyer.backend.getInfo().balanceMsat > before, "given back to the payer")
            let late = try await browser.send(.post, "/history/payment/cancel", form: ["csrf": csrf, "id": held.id])
            #expect(late.status == 400 && late.body.contains("settled already"), "\(late.body.suffix(1500))")
            await buyer.close()
        }
    }

    @Test func aFailedPaymentIsTriedAgainFromItsPage() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let other = try await OtherNode(ledger: ledger).session()
            let invoice = try await other.receive(ReceiveRequest(amountSats: 700, description: "for the other")).response.invoice
            await other.close()
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try #require(try store.current())
            let parsed = try Bolt11Invoice(invoice)
            try store.savePayment(Payment(id: "failed-1", type: .send, status: .failed, amountMsat: 700_000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                          details: Payment.Details(invoice: invoice, description: "for the other", paymentHash: hexString(parsed.paymentHash)),
                                          idempotencyKey: "invoice:" + hexString(parsed.paymentHash), failureReason: "insufficient balance"), walletID: wallet.id)
            let page = try await browser.send(.get, "/history/payment?id=failed-1")
            let link = try #require(page.body.components(separatedBy: #"<a class="button" href=""#).dropFirst().first?.prefix { $0 != "\"" })
            #expect(page.body.contains(">Try again</a>") && link.hasPrefix("/send?to=ln"), "\(page.body)")
            let form = try await browser.send(.get, String(link).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(form.body.contains("value=\"\(invoice)\"") || form.body.contains(">\(invoice)</textarea>"), "the form holds the invoice")
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "5,000"]).status == 200)
            #expect(try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": invoice]).status == 200)
            let paid = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "correct horse"])
            #expect(paid.status == 200 && paid.body.contains("Paid") && !paid.body.contains(">Try again</a>"), "\(paid.body.suffix(1500))")
        }
    }
}

extension AppSecurityTests {
    /// Amounts in BTC, chosen in Settings: every page shows them so (the balance, the payments,
    /// the forms' labels), what is typed reads in BTC unless it says sat, and back to sat.
    @Test func amountsInBitcoin() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            #expect(try await browser.send(.post, "/settings/unit", form: ["csrf": csrf, "unit": "bitcoin"]).status == 400)
            let chosen = try await browser.send(.post, "/settings/unit", form: ["csrf": csrf, "unit": "btc"])
            #expect(chosen.status == 200 && chosen.body.contains("Amounts now show in BTC: 0.000025 BTC reads like that.")
                    && chosen.body.contains(#"<option value="btc" selected>"#), "\(chosen.body.suffix(2000))")
            let lightning = try await browser.send(.get, "/lightning")
            #expect(lightning.body.contains("Amount in BTC") && lightning.body.contains(#"inputmode="decimal""#) && lightning.body.contains(#"value="0.001""#))
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "0.0012"]).status == 200)
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "3,000 sat"]).status == 200)
            let refused = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "0,001"])
            #expect(refused.status == 400 && refused.body.contains("write the decimals after a point"), "\(refused.body.suffix(1500))")
            let home = try await browser.send(.get, "/")
            #expect(home.body.contains(#"id="balance">0.00123 BTC</p>"#) && home.body.contains("+0.0012 BTC") && home.body.contains("+0.00003 BTC"),
                    "\(home.body.suffix(2500))")
            #expect(try await browser.send(.get, "/send").body.contains("Amount in BTC"))
            let store = try WalletStore(home: app.home, create: false)
            #expect(try store.displayUnit() == .btc, "one setting for the app and the CLI")
            #expect(try await browser.send(.post, "/settings/unit", form: ["csrf": csrf, "unit": "sat"]).status == 200)
            #expect(try await browser.send(.get, "/").body.contains(#"id="balance">123,000 sat</p>"#))
        }
    }
}
