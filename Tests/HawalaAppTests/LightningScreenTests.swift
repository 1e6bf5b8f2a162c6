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

/// Lightning through HTTP: an invoice whose "paid" arrives on the event stream, the stream's
/// own checks, paying with the password asked again and at most once, the history's filters
/// and download. Both sides are real devnet nodes on one ledger.
extension AppSecurityTests {
    /// Another wallet ("legal winner …") on the same devnet ledger, opened through the library.
    struct OtherNode {
        let store: WalletStore
        let wallet: WalletSummary
        let keyring: Keyring
        let ledger: String

        init(ledger: String) throws {
            let (store, keyring) = try newStore()
            self.store = store
            self.keyring = keyring
            self.ledger = ledger
            wallet = try store.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Other", network: .mainnet, keyring: keyring)
        }

        func session() async throws -> LightningSession {
            let keyring = self.keyring
            return try await LightningSession.open(store: store, wallet: wallet, backend: "devnet:" + ledger, signing: true, backends: .devnet) { keyring }
        }
    }

    /// Logs in and sets the app's wallet on the devnet ledger `ledger` (through the first-run
    /// choice), then sets a fiat currency and forgets it.
    func onDevnet(_ app: WebApp, _ browser: inout Browser, ledger: String) async throws -> String {
        try await logIn(app, &browser)
        let page = try await browser.send(.get, "/lightning")
        #expect(page.status == 200 && page.body.contains(" use Lightning?</legend>") && page.body.contains(#"value="devnet" checked"#))
        let csrf = try #require(Browser.csrf(page.body))
        let saved = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet", "ledger": ledger])
        #expect(saved.status == 303 && Browser.header("Location", saved.headers) == "/", "the first choice leads home")
        let home = try await browser.send(.get, "/")
        #expect(home.body.contains(#"id="balance">"#) && home.body.contains(" sat</p>") && home.body.contains("test money on this machine (devnet)"),
                "\(home.body.suffix(900))")
        let bad = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "fiat": "dollars"])
        #expect(bad.status == 400 && bad.body.contains("three letters"))
        // An API key is for Spark only; refused here, and never echoed.
        let key = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "apiKey": "breez-key-123"])
        #expect(key.status == 400 && key.body.contains("API key is for the spark backend") && !key.body.contains("breez-key-123"))
        // Devnet's own test rates are offered without a rates source.
        let offered = try await browser.send(.get, "/lightning")
        #expect(offered.body.contains(#"<option value="EUR">EUR</option>"#) && offered.body.contains(#"<option value="">Sat only</option>"#))
        // A fiat currency from a rates file of one's own, then forgotten.
        let rates = temporaryFolder("rates", suffix: ".txt")
        try Data("USD 65000.00\n".utf8).write(to: rates)
        let usd = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "fiat": "usd", "rates": rates.path])
        #expect(usd.status == 200 && usd.body.contains(#"<option value="USD" selected>USD</option>"#) && usd.body.contains("Amounts also show in USD."),
                "\(usd.body.suffix(1500))")
        let sats = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "fiat": ""])
        #expect(sats.status == 200 && sats.body.contains("Amounts show in sat only.") && !sats.body.contains(#"value="USD" selected"#))
        return csrf
    }

    @Test func anInvoiceIsPaidAndTheEventStreamSaysSo() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let hostile = #"tea "><script>alert(1)</script>{{x}}"#
            let made = try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "1000", "description": hostile])
            #expect(made.status == 303)
            let location = try #require(Browser.header("Location", made.headers))
            #expect(location.hasPrefix("/lightning/invoice?hash="))
            let hash = String(location.dropFirst("/lightning/invoice?hash=".count))
            let page = try await browser.send(.get, location)
            #expect(page.status == 200 && page.body.contains("Waiting for the payment"))
            #expect(!page.body.contains("<script>alert") && page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.body.contains(#"<noscript><meta http-equiv="refresh" content="5"></noscript>"#), "polling without scripts")
            #expect(try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "-5"]).status == 400)
            // The library's bounds, in the page's words.
            let zero = try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "0"])
            #expect(zero.status == 400 && zero.body.contains("The amount must be at least 1 sat"), "\(zero.body.suffix(1500))")
            // Too long is said, never cut: what was typed stays.
            let typed = String(repeating: "d", count: 700)
            let long = try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "1", "description": typed])
            #expect(long.status == 400 && long.body.contains("holds 639 bytes, about as many plain letters") && long.body.contains("value=\"\(typed)\""),
                    "\(long.body.suffix(1500))")
            #expect(!long.body.contains("maxlength"), "the browser never cuts it silently")

            // The stream: no session, a foreign Origin, a cross-site fetch, an unknown invoice.
            let events = "/lightning/invoice/events?hash=\(hash)"
            #expect(try await browser.send(.get, events, cookie: .some(nil)).status == 401)
            #expect(try await browser.send(.get, events, origin: "http://evil.example").status == 403)
            #expect(try await browser.send(.get, events, fetchSite: "cross-site").status == 403)
            #expect(try await browser.send(.get, "/lightning/invoice/events?hash=" + String(repeating: "ab", count: 32)).status == 404)
            #expect(try await browser.send(.get, "/lightning/invoice/events?hash=../../x").status == 404)

            // Waiting, then paid by the other node: the open stream says "paid".
            // (The stream listens, then looks: the payment is seen whether it comes first or not.)
            let waiting = Task { [browser] in try await browser.send(.get, events, fetchSite: "same-origin") }
            let other = try OtherNode(ledger: ledger)
            let invoice = try #require(try await browser.send(.get, location).body
                .components(separatedBy: #"<code id="invoice-text" class="address">"#).dropFirst().first?.prefix { $0 != "<" })
            let paid = try await other.session().closing { session in
                _ = try await session.fund(sats: 5_000)
                let prepared = try await session.prepare(try PaymentInput.parse(String(invoice)), text: String(invoice), amountSats: nil, comment: nil, maxFeeSats: nil)
                return try await session.lightning.pay(prepared, idempotencyKey: nil)
            }
            #expect(paid.status == .completed)
            let streamed = try await waiting.value
            #expect(streamed.status == 200 && Browser.header("Content-Type", streamed.headers)?.hasPrefix("text/event-stream") == true)
            #expect(streamed.body.contains("event: paid\ndata: {\"amount\":\"1,000 sat\",\"status\":\"paid\"}") ||
                    streamed.body.contains("event: paid\ndata: {\"status\":\"paid\",\"amount\":\"1,000 sat\"}"), "\(streamed.body)")
            let status = try await browser.send(.get, "/lightning/invoice/status?hash=\(hash)")
            #expect(status.body.contains(#""status":"paid""#))
            #expect(try await browser.send(.get, location).body.contains("Paid: 1,000 sat received."))

            // The history: the search, a filter, the detail, the download.
            let found = try await browser.send(.get, "/history?q=TEA")
            #expect(found.body.contains("+1,000 sat") && !found.body.contains("<script>alert"))
            #expect(try await browser.send(.get, "/history?type=send").body.contains("No payments match."))
            let detail = try await browser.send(.get, "/history/payment?id=\(hash.prefix(12))")
            #expect(detail.status == 200 && detail.body.contains(hash))
            #expect(try await browser.send(.get, "/history/payment?id=nothing").status == 404)
            let csv = try await browser.send(.get, "/history/export?format=csv")
            #expect(Browser.header("Content-Disposition", csv.headers) == #"attachment; filename="hawala-payments.csv""#)
            #expect(csv.body.hasPrefix(PaymentExport.csvHeader) && csv.body.contains("received,completed,1000,"))
            #expect(try await browser.send(.get, "/history/export?format=xml").status == 400)

            // Another ledger: its history is empty, the first one's payments stay under their own
            // network (a filter away), home lists none of them.
            let elsewhere = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let moved = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "devnet", "ledger": elsewhere])
            #expect(moved.status == 200 || moved.status == 303)
            let now = try await browser.send(.get, "/history")
            #expect(now.body.contains("No payments match.") && now.body.contains(#"<option value="all">All networks</option>"#), "\(now.body.suffix(2500))")
            #expect(now.body.contains("devnet (ledger \(ledger))"))
            let all = try await browser.send(.get, "/history?network=all")
            #expect(all.body.contains("+1,000 sat") && all.body.contains(#"<option value="all" selected>All networks</option>"#))
            #expect(try await browser.send(.get, "/history?network=devnet:" + ledger).body.contains("+1,000 sat"))
            #expect(!(try await browser.send(.get, "/").body.contains("+1,000 sat")))
            let oldCSV = try await browser.send(.get, "/history/export?format=csv&network=all")
            #expect(oldCSV.body.contains("received,completed,1000,"))
            #expect(!(try await browser.send(.get, "/history/export?format=csv").body.contains("received,completed,1000,")))
        }
    }

    /// One backend per unlocked session: pages, invoices and streams share it; a settings
    /// change opens it again with them; the lock, idleness and the app's end close it.
    @Test func aSessionOpensItsLightningBackendOnce() async throws {
        try await withApp { app, browser, clock in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let cache = app.lightningSessions
            let opened = await cache.opened
            #expect(await cache.count == 1)
            for _ in 0..<3 { #expect(try await browser.send(.get, "/lightning").status == 200) }
            let made = try await browser.send(.post, "/lightning/invoice", form: ["csrf": csrf, "amount": "10"])
            let hash = try #require(Browser.header("Location", made.headers)?.components(separatedBy: "hash=").last)
            #expect(try await browser.send(.get, "/lightning/invoice/status?hash=\(hash)").body.contains("waiting"))
            #expect(await cache.opened == opened)
            #expect(await cache.count == 1)
            // A new currency: the session is opened again, with its rates.
            let rates = temporaryFolder("rates", suffix: ".txt")
            try Data("EUR 60000.00\n".utf8).write(to: rates)
            let eur = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "fiat": "EUR", "rates": rates.path])
            #expect(eur.status == 200 && eur.body.contains("EUR"))
            #expect(await cache.opened == opened + 1)
            #expect(await cache.count == 1)
            // Locked by hand: closed.
            let lock = try await browser.send(.post, "/lock", form: ["csrf": csrf])
            #expect(lock.status == 303)
            #expect(await cache.count == 0)
            // Unlocked again, then idle past the lock: the sweep closes it.
            browser.cookie = Browser.sessionID(lock.headers)
            try await logIn2(&browser)
            #expect(try await browser.send(.get, "/lightning").status == 200)
            #expect(await cache.count == 1)
            await cache.keep(only: await app.sessions.unlockedIDs())
            #expect(await cache.count == 1, "still in use")
            clock.advance(301)
            await cache.keep(only: await app.sessions.unlockedIDs())
            #expect(await cache.count == 0)
        }
    }

    @Test func sendingAsksThePasswordAgainAndPaysOnce() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let funded = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "20,000"])
            #expect(funded.status == 200 && funded.body.contains("Added 20,000 sat of test money."))
            let other = try OtherNode(ledger: ledger)
            let invoice = try await other.session().closing {
                try await $0.receive(ReceiveRequest(amountSats: 700, description: #"<b>bill</b>"#, expirySeconds: 600)).response.invoice
            }
            // Nothing pasted, garbage, then the invoice: a preview, nothing paid yet.
            #expect(try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": ""]).status == 400)
            // Garbage: the problem next to the field, in plain words (the library's behind
            // "Details"), and what was typed kept.
            let garbage = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "lnbc1notaninvoice", "amount": "2,500"])
            #expect(garbage.status == 400 && garbage.body.contains(#"id="send-input-problem""#) && garbage.body.contains("Check it was copied whole"))
            #expect(garbage.body.contains(">lnbc1notaninvoice</textarea>") && garbage.body.contains(#"value="2,500""#) && garbage.body.contains("<summary>Details</summary>"))
            let badAmount = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "lnbc1notaninvoice", "amount": "25,00"])
            #expect(badAmount.status == 400 && badAmount.body.contains(#"id="send-amount-problem""#) && badAmount.body.contains("grouped by three"))
            let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": invoice])
            #expect(preview.status == 200 && preview.body.contains("<dd>700 sat</dd>") && preview.body.contains("&lt;b&gt;bill&lt;/b&gt;"), "\(preview.body.suffix(1500))")
            #expect(preview.body.contains("<summary>Details</summary>"), "the payee's key behind Details")
            #expect(try app.paymentsSent().isEmpty)
            // The password again: missing, wrong (the preview stays), then right: paid once.
            let none = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf])
            #expect(none.status == 400 && none.body.contains("Confirm the payment"))
            let wrong = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "wrong horse"])
            #expect(wrong.status == 401 && wrong.body.contains("Wrong password."))
            #expect(try app.paymentsSent().isEmpty)
            #expect(try await browser.send(.post, "/lightning/pay", form: ["csrf": "0", "password": "correct horse"]).status == 403)
            let paid = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "correct horse"])
            #expect(paid.status == 200 && paid.body.contains(#"<h1 id="payment-headline" class="paid">Paid</h1>"#))
            let again = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "correct horse"])
            #expect(again.status == 303 && Browser.header("Location", again.headers) == "/send")
            let repeated = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": invoice])
            #expect(repeated.body.contains("Already paid: nothing was sent again"))
            #expect(try app.paymentsSent().count == 1)
            let page = try await browser.send(.get, "/")
            let fee = try #require(try app.paymentsSent().first).feeMsat
            #expect(page.body.contains(#"id="balance">\#(satsText(try Msat(20_000_000 - 700_000 - fee.value), .down))<"#), "the balance after paying 700 sat and its fee")
        }
    }
}

extension WebApp {
    /// The current wallet's sent payments, as the store has them.
    func paymentsSent() throws -> [Payment] {
        let store = try WalletStore(home: home, create: false)
        let wallet = try #require(try store.current())
        return try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send))
    }
}

/// Devnet's LNURL server in this process, on a free port of 127.0.0.1, until `stop`.
final class InProcessLNURLServer: Sendable {
    let server: DevnetLNURLServer
    private let task: Task<Void, Error>

    init(ledger: String) async throws {
        // A free port: bound by the kernel, read, released.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 } }
        close(probe)
        server = try DevnetLNURLServer(ledgerPath: ledger, port: Int(UInt16(bigEndian: address.sin_port)))
        let (running, signal) = AsyncStream<Void>.makeStream()
        let application = server.application { signal.yield() }
        task = Task { try await application.runService(gracefulShutdownSignals: []) }
        for await _ in running { break }
    }

    var port: Int { server.service.port }
    func stop() { task.cancel() }
    /// Says again that it runs (the ledger forgets a server silent for 30 s; a loaded test machine can be that slow).
    func announce() throws { try server.service.announce() }
}

extension AppSecurityTests {
    /// The app on devnet with its LNURL server: a Lightning address registered on the Lightning
    /// page and shown on the receive page with its QR code; another wallet pays it with a comment,
    /// which the payment's page shows; a voucher pasted in the send box is confirmed and
    /// received; a login link signs in to devnet's test service.
    @Test func addressVoucherAndLoginInTheApp() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let served = try await InProcessLNURLServer(ledger: ledger)
            defer { served.stop() }
            let name = "alice@127.0.0.1:\(served.port)"

            let bad = try await browser.send(.post, "/lightning/address", form: ["csrf": csrf, "name": "Al ice"])
            #expect(bad.status == 400 && bad.body.contains("can&#39;t be a Lightning address name") || bad.body.contains("can't be a Lightning address name"),
                    "\(bad.body.suffix(1500))")
            #expect(bad.body.contains(#"value="Al ice""#), "what was typed is kept")
            try served.announce()
            let made = try await browser.send(.post, "/lightning/address", form: ["csrf": csrf, "name": "alice"])
            #expect(made.status == 200 && made.body.contains("Your Lightning address is \(name)."), "\(made.body.suffix(1500))")
            let receive = try await browser.send(.get, "/receive")
            #expect(receive.body.contains(name) && receive.body.contains("QR code of your Lightning address"))

            let other = try OtherNode(ledger: ledger)
            let keyring = other.keyring
            let payer = try await LightningSession.open(store: other.store, wallet: other.wallet, backend: "devnet:" + ledger, signing: true,
                                                        backends: .devnet, reachesLNURL: true) { keyring }
            _ = try await payer.fund(sats: 5_000)
            let input = try PaymentInput.parse(name, allowLoopbackHTTP: true)
            let paid = try await payer.lightning.pay(try await payer.prepare(input, text: name, amountSats: 1_000, comment: "for lunch", maxFeeSats: nil),
                                                     idempotencyKey: nil)
            await payer.close()
            #expect(paid.status == .completed)
            // Home syncs with the network: the payment is then in the history kept here.
            #expect(try await browser.send(.get, "/").body.contains("1,000 sat"))
            let history = try await browser.send(.get, "/history")
            #expect(history.body.contains("+1,000 sat"), "\(history.body.suffix(2000))")
            let hash = try #require(paid.details.paymentHash)
            #expect(try await browser.send(.get, "/history/payment?id=\(hash.prefix(16))").body.contains("for lunch"))

            // A voucher in the send box: what it offers, one button, then received.
            try served.announce()
            let voucher = try DevnetVouchers.issue(ledgerPath: ledger, sats: 3_000, description: "lunch voucher")
            let offer = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": voucher])
            #expect(offer.status == 200 && offer.body.contains("Receive 1 sat to 3,000 sat from 127.0.0.1: lunch voucher")
                    && offer.body.contains(#"action="/lightning/withdraw""#), "\(offer.body.suffix(2000))")
            let received = try await browser.send(.post, "/lightning/withdraw", form: ["csrf": csrf, "lnurl": voucher, "amount": "2,000"])
            #expect(received.status == 200 && received.body.contains("Received 2,000 sat."), "\(received.body.suffix(2000))")
            let again = try await browser.send(.post, "/lightning/withdraw", form: ["csrf": csrf, "lnurl": voucher, "amount": "500"])
            #expect(again.status == 400 && again.body.contains("unknown or has been used"))

            // A login link: the domain and what it asks, then signed in once.
            try served.announce()
            let (login, k1) = try DevnetLogins.issue(ledgerPath: ledger)
            let ask = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": login])
            #expect(ask.status == 200 && ask.body.contains("Log in to 127.0.0.1?") && ask.body.contains(#"action="/lightning/auth""#))
            let signed = try await browser.send(.post, "/lightning/auth", form: ["csrf": csrf, "lnurl": login])
            #expect(signed.status == 200 && signed.body.contains("Signed in to 127.0.0.1."), "\(signed.body.suffix(1500))")
            // The key LUD-05 derives for 127.0.0.1 from "abandon … about" (PyPI bip-utils, lnurl-auth.json).
            #expect(try DevnetLogins.signedIn(ledgerPath: ledger, k1: k1) == "037f7f2670cc29842964e1b833808947b76be3c5001e84b3699c3312f73e9084c6")
            #expect(try await browser.send(.post, "/lightning/auth", form: ["csrf": csrf, "lnurl": login]).body.contains("this challenge has been used"))
        }
    }
}

extension AppSecurityTests {
    /// Bitcoin on-chain in the app: an address in the send box is priced at each speed and sent
    /// at the one chosen after the password (everything: nothing stays); a deposit stranded by a
    /// low cap is listed with its reason and claimed at the network's rate; the way-out page
    /// answers, then leaves with the kept state, listing the transactions in broadcast order.
    @Test func onChainAndTheWayOutInTheApp() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "50,000"]).status < 400)
            let elsewhere = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

            let noAmount = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere])
            #expect(noAmount.status == 400 && noAmount.body.contains("or tick “Send everything”"), "\(noAmount.body.suffix(1500))")
            let wrong = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "amount": "1000"])
            #expect(wrong.status == 400 && wrong.body.contains("is not an address of devnet (test money on this machine)") && wrong.body.contains("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"))
            let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "amount": "10,000"])
            #expect(preview.status == 200 && preview.body.contains("Send bitcoin on-chain") && preview.body.contains(#"value="medium" checked"#)
                    && preview.body.contains("10,000 sat arrives · fee 1,410 sat · 11,410 sat in total · 38,590 sat stays"), "\(preview.body.suffix(2500))")
            let badPassword = try await browser.send(.post, "/lightning/pay-onchain", form: ["csrf": csrf, "speed": "fast", "password": "wrong horse"])
            #expect(badPassword.status >= 400 && badPassword.body.contains(#"value="fast" checked"#), "the speed chosen is kept")
            let sent = try await browser.send(.post, "/lightning/pay-onchain", form: ["csrf": csrf, "speed": "fast", "password": "correct horse"])
            #expect(sent.status == 200 && sent.body.contains("Sent: waiting for confirmation") && sent.body.contains(elsewhere), "\(sent.body.suffix(2500))")
            #expect(try await browser.send(.post, "/lightning/pay-onchain", form: ["csrf": csrf, "speed": "fast", "password": "correct horse"]).status == 303,
                    "sent once")

            // A deposit stranded by a cap below the network's fee, claimed from the Lightning page.
            let capped = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "maxClaimFee": "1/vB"])
            #expect(capped.body.contains("A deposit&#39;s claim may cost at most 1 sat/vB") || capped.body.contains("A deposit's claim may cost at most 1 sat/vB"),
                    "\(capped.body.suffix(2000))")
            #expect(try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "maxClaimFee": "cheap"]).body.contains("is not a claim fee cap"))
            let receive = try await browser.send(.get, "/receive")
            let depositAddress = String(try #require(receive.body.firstMatch(of: /id="deposit-address" class="address">(bcrt1[0-9a-z]+)</)?.1))
            #expect(receive.body.contains("Bitcoin into Lightning") && receive.body.contains("An address of devnet (test money on this machine)"))
            _ = try DevnetChain.deposit(ledgerPath: ledger, address: depositAddress, sats: 20_000)
            _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 3)
            _ = try await browser.send(.get, "/")  // the home syncs: the claim is tried under the 1 sat/vB cap
            let page = try await browser.send(.get, "/lightning")
            #expect(page.body.contains("20,000 sat") && page.body.contains("above your cap of 150 sat") && page.body.contains("Claim at the network"),
                    "\(page.body.suffix(3000))")
            let outpoint = try #require(page.body.firstMatch(of: /name="outpoint" value="([0-9a-f]{64}:0)"/)?.1)
            let claimed = try await browser.send(.post, "/lightning/deposits/claim", form: ["csrf": csrf, "outpoint": String(outpoint)])
            #expect(claimed.status == 200 && claimed.body.contains("claimed (fee 750 sat)"), "\(claimed.body.suffix(2000))")

            // The way out: the answer, then the figures typed reviewed, then the password.
            let exit = try await browser.send(.get, "/lightning/exit")
            #expect(exit.status == 200 && exit.body.contains("Yes: ") && exit.body.contains("Review the exit") && !exit.body.contains("Leave now"),
                    "\(exit.body.suffix(2500))")
            let refused = try await browser.send(.post, "/lightning/exit/review", form: ["csrf": csrf, "to": elsewhere, "feeRate": "fast"])
            #expect(refused.status == 400 && refused.body.contains("A fee rate is a whole number"))
            let tooHigh = try await browser.send(.post, "/lightning/exit/review", form: ["csrf": csrf, "to": elsewhere, "feeRate": "20000"])
            #expect(tooHigh.status == 400 && tooHigh.body.contains("from 1 to 10,000"), "the library's bound")
            let typo = try await browser.send(.post, "/lightning/exit/review", form: ["csrf": csrf, "to": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"])
            #expect(typo.status == 400 && typo.body.contains("is not an address of devnet") && typo.body.contains("Yes: ") && typo.body.contains("Review the exit")
                    && typo.body.contains(#"value="bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4""#), "a typo keeps the answer, the form and what was typed")
            #expect(try await browser.send(.post, "/lightning/exit", form: ["csrf": csrf, "password": "correct horse"]).status == 303, "nothing reviewed: nothing run")
            let review = try await browser.send(.post, "/lightning/exit/review", form: ["csrf": csrf, "to": elsewhere, "feeRate": "2"])
            #expect(review.status == 200 && review.body.contains("Leave with these figures?") && review.body.contains("600 sat at 2 sat/vB")
                    && review.body.contains("Leave now"), "\(review.body.suffix(2500))")
            let left = try await browser.send(.post, "/lightning/exit", form: ["csrf": csrf, "password": "correct horse"])
            #expect(left.status == 200 && left.body.contains("Done: these transactions are on the test chain, in this order") && left.body.contains("after 2 blocks"),
                    "\(left.body.suffix(2500))")
            let everything = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "all": "on"])
            #expect(everything.body.contains("Nothing to send: the balance (0 sat)") && !everything.body.contains("onchain-password"),
                    "nothing left to send, and no password asked: \(everything.body.suffix(1500))")
        }
    }
}

extension AppSecurityTests {
    /// Spark with real bitcoin and no Breez API key: the home says the key is what is missing
    /// and where to give it — not "Lightning is not available now", as for a network down.
    @Test func theHomeNamesAMissingAPIKey() async throws {
        let spark = SparkOpener(makeBackend: { network, key, _, _ in
            guard key != nil || network != .mainnet else { throw LightningError.apiKeyRequired(backend: "spark") }
            throw LightningError.unreachable(network: "Spark network", reason: "offline in tests")
        }, storageDirectory: { home, _, _ in home })
        try await withApp(spark: spark) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let store = try await app.store.get()
            try store.setSetting(LightningWallet.SettingKey.backend, to: "spark:mainnet", walletID: try #require(try store.current()).id)
            let home = try await browser.send(.get, "/").body
            #expect(home.contains("Lightning needs its Breez API key: add it on the Lightning page.") && !home.contains("Lightning is not available now"),
                    "\(home.suffix(1500))")
        }
    }
}
