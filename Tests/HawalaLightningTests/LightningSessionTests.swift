import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaWallet
import Testing
import HawalaTestSupport

/// Counts how often a session asked for the wallet password.
final class UnlockCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var asked = 0
    let keyring: Keyring
    init(_ store: WalletStore) throws { keyring = try store.unlock(password: SecretBytes(utf8: "correct horse")) }
    func unlock() -> Keyring { lock.withLock { asked += 1 }; return keyring }
    var count: Int { lock.withLock { asked } }
}

@Suite("Lightning sessions, settings and the watch stream")
struct LightningSessionTests {
    /// The saved backend opens; the first session asks for the password (to learn the node),
    /// later read-only ones don't; a wallet without a backend is a typed refusal; Spark without
    /// its opener is "not built"; test funds are devnet's only.
    @Test func openOnceWithThePasswordThenWithout() async throws {
        let (store, wallet) = try storeWithWallet()
        let password = try UnlockCounter(store)
        await #expect(throws: LightningSessionError.noBackend(wallet: "Main")) {
            _ = try await LightningSession.open(store: store, wallet: wallet, signing: false, backends: .devnet) { password.unlock() }
        }
        await #expect(throws: LightningSessionError.sparkNotBuilt) {
            _ = try await LightningSession.open(store: store, wallet: wallet, backend: "spark:regtest", signing: false, backends: .devnet) { password.unlock() }
        }
        #expect(password.count == 0)
        let ledger = temporaryLedger()
        _ = try await LightningSettings.apply(LightningSettingsChange(backend: .devnet(path: ledger)), store: store, wallet: wallet,
                                              backends: .devnet) { password.unlock() }
        let funded = try await LightningSession.open(store: store, wallet: wallet, signing: false, backends: .devnet) { password.unlock() }
            .closing { try await $0.fund(sats: 1_000) }
        #expect(funded.balanceMsat == 1_000_000 && password.count == 1)
        let balance = try await LightningSession.open(store: store, wallet: wallet, signing: false, backends: .devnet) { password.unlock() }
            .closing { try await $0.balance() }
        #expect(balance.info.balanceSats == 1_000 && balance.fiat == nil && password.count == 1)
        #expect(try LightningSettings.load(store: store, walletID: wallet.id).nodeID == balance.info.nodeID)
        // The history was recorded through the session.
        #expect(try store.payments(walletID: wallet.id).map(\.amountMsat) == [1_000_000])
    }

    /// Nothing is saved unless the whole change is valid; a new backend forgets the old node;
    /// an API key needs a Spark backend and one clean line.
    @Test func settingsAreCheckedWholeBeforeSaving() async throws {
        let (store, wallet) = try storeWithWallet()
        let password = try UnlockCounter(store)
        let rates = temporaryFolder("rates", suffix: ".txt")
        try Data("USD 65000.00\n".utf8).write(to: rates)
        let ledger = temporaryLedger()
        func apply(_ change: LightningSettingsChange, spark: Bool = false) async throws -> LightningSettingsOutcome {
            var backends = BackendOpeners.devnet
            // A Spark that is linked and never opened: settings are checked without the network.
            if spark { backends.spark = SparkOpener(makeBackend: { _, _, _, _ in throw LightningSessionError.sparkNotBuilt }, storageDirectory: { home, _, _ in home }) }
            return try await LightningSettings.apply(change, store: store, wallet: wallet, backends: backends) { password.unlock() }
        }
        await #expect(throws: LightningSettingsError.unknownCurrency("EUR")) {
            _ = try await apply(LightningSettingsChange(backend: .devnet(path: ledger), fiat: "eur", rates: .file(path: rates.path)))
        }
        #expect(try LightningSettings.load(store: store, walletID: wallet.id) == LightningSettings())
        await #expect(throws: LightningSettingsError.apiKeyWithoutSpark) {
            _ = try await apply(LightningSettingsChange(backend: .devnet(path: ledger), apiKey: SecretBytes(utf8: "key")))
        }
        await #expect(throws: LightningSessionError.sparkNotBuilt) { _ = try await apply(LightningSettingsChange(backend: .spark(.regtest))) }
        let saved = try await apply(LightningSettingsChange(backend: .devnet(path: ledger), fiat: "usd", rates: .file(path: rates.path)))
        #expect(saved.settings == LightningSettings(backend: "devnet:" + ledger, fiat: "USD", rates: "file:" + rates.path) && saved.ratesUnchecked == nil)
        try store.setSetting(LightningWallet.SettingKey.nodeID, to: "02ab", walletID: wallet.id)
        await #expect(throws: LightningSettingsError.malformedAPIKey) {
            _ = try await apply(LightningSettingsChange(backend: .spark(.regtest), apiKey: SecretBytes(utf8: "two words")), spark: true)
        }
        #expect(try LightningSettings.load(store: store, walletID: wallet.id).nodeID == "02ab" && password.count == 0)
        // A key is checked offline: Breez's shape (a certificate), and not past its end date.
        await #expect(throws: LightningSettingsError.notABreezAPIKey) {
            _ = try await apply(LightningSettingsChange(backend: .spark(.regtest), apiKey: SecretBytes(utf8: "key-123")), spark: true)
        }
        await #expect(throws: LightningSettingsError.apiKeyExpired(Date(timeIntervalSince1970: 1_609_459_200))) {
            _ = try await apply(LightningSettingsChange(backend: .spark(.regtest), apiKey: SecretBytes(utf8: expiredBreezAPIKey)), spark: true)
        }
        let spark = try await apply(LightningSettingsChange(backend: .spark(.regtest), apiKey: SecretBytes(utf8: " \(testBreezAPIKey)\n")), spark: true)
        #expect(spark.settings.backend == "spark:regtest" && spark.settings.nodeID == nil && spark.settings.hasAPIKey == true)
        #expect(spark.savedAPIKeyFor == .regtest && password.count == 1)
        #expect(try store.sealedSetting(LightningWallet.SettingKey.sparkAPIKey(.regtest), keyring: password.keyring) == SecretBytes(utf8: testBreezAPIKey))
        // A rates source that can't be read now is saved anyway, with the reason.
        let unreadable = try await apply(LightningSettingsChange(rates: .file(path: "/nonexistent/rates.txt")))
        #expect(unreadable.ratesUnchecked != nil && unreadable.settings.rates == "file:/nonexistent/rates.txt")
        #expect(unreadable.settings.json.compact.contains(#""apiKey":true"#))
        // Forgetting the currency and its source: not together with new ones.
        await #expect(throws: LightningSettingsError.clearFiatWithValues) {
            _ = try await apply(LightningSettingsChange(fiat: "usd", clearFiat: true))
        }
        let cleared = try await apply(LightningSettingsChange(clearFiat: true))
        #expect(cleared.settings.fiat == nil && cleared.settings.rates == nil && cleared.settings.backend == "spark:regtest")
        // A currency is three letters, a rates service https: refused by the library whatever the face.
        for code in ["US", "dollars", "U$D", "ÉUR", ""] {
            await #expect(throws: LightningSettingsError.invalidCurrencyCode(code)) { _ = try await apply(LightningSettingsChange(fiat: code)) }
        }
        await #expect(throws: LightningSettingsError.ratesNotHTTPS("http://rates.example/api")) {
            _ = try await apply(LightningSettingsChange(fiat: "USD", rates: .url(URL(string: "http://rates.example/api")!)))
        }
        #expect(try LightningSettings.load(store: store, walletID: wallet.id).fiat == nil)
    }

    /// Backend specs: a relative devnet path is made absolute; anything else is refused with
    /// the text given; a ledger that can't be made says where.
    @Test func backendSpecs() throws {
        #expect(try BackendSpec.parse("devnet:ledger.db", relativeTo: "/srv/ln") == .devnet(path: "/srv/ln/ledger.db"))
        #expect(try BackendSpec.parse("spark:regtest") == .spark(.regtest))
        for text in ["spark:testnet", "devnet:", "lnd:localhost", ""] {
            #expect(throws: BackendSpecError.unknownBackend(text)) { try BackendSpec.parse(text) }
        }
        #expect(BackendSpecError.unknownBackend("spark:testnet").description.contains("unknown Spark network \"testnet\""))
        #expect(throws: LightningError.self) { try DevnetBackend(ledgerPath: "/proc/no-such/ledger.db") }
        do { _ = try DevnetBackend(ledgerPath: "/proc/no-such/ledger.db") } catch let error as LightningError {
            guard case .devnetLedger(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "/proc/no-such/ledger.db")
        }
    }

    /// What a backend does not do is said with the backend's name, typed: a receive method, an
    /// on-chain address, a URI without an invoice, an LNURL through the invoice call.
    @Test func unsupportedRequestsAreTyped() async throws {
        let devnet = try await node(abandonAbout, ledger: temporaryLedger())
        await #expect(throws: LightningError.unsupported(backend: devnet.name, .receiveMethod(.spark))) { _ = try await devnet.receiveAddress(.spark) }
        let address = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
        for (input, what) in [(address, LightningError.Unsupported.onChainAddress), ("bitcoin:\(address)?amount=0.001", .uriWithoutInvoice),
                              ("alice@example.com", .otherCall("prepareLnurlPay"))] {
            #expect(throws: LightningError.unsupported(backend: devnet.name, what)) { _ = try PrepareSendRequest(input: input).invoice(backendName: devnet.name) }
        }
        #expect(LightningError.unsupported(backend: "devnet", .onChainAddress).description == "devnet pays Lightning invoices only, not on-chain addresses")
        #expect(LightningError.refused(by: "Spark", reason: "insufficient balance").description == "Spark: insufficient balance")
    }

    /// A rates source as a person types it: a full path, an https address; nothing else.
    @Test func typedRatesSources() throws {
        #expect(try RatesSource(typed: "/srv/rates/../rates.txt") == .file(path: "/srv/rates.txt"))
        #expect(try RatesSource(typed: "https://rates.example/v1") == .url(URL(string: "https://rates.example/v1")!))
        #expect(try RatesSource(typed: "HTTPS://rates.example/v1") == .url(URL(string: "HTTPS://rates.example/v1")!))
        #expect(throws: LightningSettingsError.ratesNotHTTPS("http://rates.example")) { try RatesSource(typed: "http://rates.example") }
        #expect(throws: LightningSettingsError.ratesNotHTTPS("https://")) { try RatesSource(typed: "https://") }
        #expect(throws: LightningSettingsError.unrecognizedRatesSource("rates.txt")) { try RatesSource(typed: "rates.txt") }
        #expect(RatesSource.localFile("/a/./b.txt") == .file(path: "/a/b.txt"))
        #expect(try LightningSettingsChange.currencyCode(" usd ") == "USD")
    }

    /// Devnet syncs without the password once its node is known, reports an unreachable ledger
    /// as offline with the last sync, and Spark's history is "as last synced".
    @Test func historySyncOutcomes() async throws {
        let (store, wallet) = try storeWithWallet()
        let password = try UnlockCounter(store)
        #expect(await HistorySync.run(store: store, wallet: wallet, backends: .devnet, timeout: .seconds(5)) == .notAttempted)
        let ledger = temporaryLedger()
        _ = try await LightningSettings.apply(LightningSettingsChange(backend: .devnet(path: ledger)), store: store, wallet: wallet,
                                              backends: .devnet) { password.unlock() }
        #expect(await HistorySync.run(store: store, wallet: wallet, backends: .devnet, timeout: .seconds(5)) == .notAttempted)  // node not known yet
        _ = try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: .devnet) { password.unlock() }.closing { try await $0.fund(sats: 5) }
        #expect(await HistorySync.run(store: store, wallet: wallet, backends: .devnet, timeout: .seconds(5)) == .synced)
        let synced = try #require(LightningWallet.lastSyncedAt(store: store, walletID: wallet.id, network: "devnet:" + ledger))
        try FileManager.default.removeItem(atPath: ledger)
        try Data("not a ledger".utf8).write(to: URL(fileURLWithPath: ledger))
        guard case .offline(_, let last) = await HistorySync.run(store: store, wallet: wallet, backends: .devnet, timeout: .seconds(5)) else {
            Issue.record("an unreadable ledger is offline")
            return
        }
        #expect(last == synced)
        try store.setSetting(LightningWallet.SettingKey.backend, to: "spark:mainnet", walletID: wallet.id)
        // Devnet's sync time is not Spark's: Spark's history was never synced.
        #expect(await HistorySync.run(store: store, wallet: wallet, backends: .devnet, timeout: .seconds(5)) == .needsPassword(lastSyncedAt: nil))
        #expect(password.count == 1)
    }

    /// The stream listens from the call on, yields each payment event once recorded, and ends
    /// when its time is up. Nothing waits a fixed time: the payment is made right after the
    /// call, and the loop ends at the payment's event (a stream that never yielded would hang
    /// the test, and the time limit turns that into a failure).
    @Test(.timeLimit(.minutes(10))) func watchRecordsThenYieldsAndEnds() async throws {
        let (store, wallet) = try storeWithWallet()
        let ledger = temporaryLedger()
        let alice = try await node(abandonAbout, ledger: ledger)
        let bob = try await node(legalWinner, ledger: ledger)
        _ = try await bob.fund(sats: 10_000)
        let lightning = LightningWallet(store: store, wallet: wallet, backend: alice)
        var seen: [String] = []
        let events = lightning.watch()
        let invoice = try await alice.receivePayment(ReceiveRequest(amountSats: 700))
        _ = try await bob.sendPayment(try await bob.prepareSendPayment(PrepareSendRequest(input: invoice.invoice)), idempotencyKey: "w1")
        for try await event in events {
            let payment = try #require(event.payment)
            #expect(try store.payment(walletID: wallet.id, id: payment.id) != nil)  // recorded before it is seen
            seen.append(event.name)
            if event.name == "paymentSucceeded" { break }
        }
        #expect(seen.last == "paymentSucceeded" && seen.allSatisfy { $0.hasPrefix("payment") })
        // A window with nothing in it ends by itself.
        for try await event in lightning.watch(for: .milliseconds(50)) { Issue.record("an event in an empty window: \(event.name)") }
    }
}
