import Foundation
import GRDB
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import Testing
@testable import HawalaLightning
@testable import HawalaWallet
import HawalaTestSupport

/// A devnet backend whose network can be cut: `sync` then hangs (an SDK future that never
/// answers) or fails as unreachable.
final class CuttableBackend: PaymentBackend, @unchecked Sendable {
    enum Mode { case online, hanging, unreachable, broken }
    let inner: DevnetBackend
    private let lock = NSLock()
    private var _mode = Mode.online
    var mode: Mode {
        get { lock.withLock { _mode } }
        set { lock.withLock { _mode = newValue } }
    }
    init(_ inner: DevnetBackend) { self.inner = inner }
    var name: String { inner.name }
    var network: LightningNetwork { inner.network }
    func connect(_ request: ConnectRequest) async throws { try await inner.connect(request) }
    func disconnect() async { await inner.disconnect() }
    func sync() async throws {
        switch mode {
        case .online: try await inner.sync()
        case .hanging: try await Task.sleep(for: .seconds(3600))
        case .unreachable: throw LightningError.unreachable(network: "Spark network", reason: "dns error")
        case .broken: throw LightningError.devnetLedger(path: "/x", reason: "not a ledger")
        }
    }
    func getInfo() async throws -> NodeInfo { try await inner.getInfo() }
    func parse(_ input: String) async throws -> PaymentInput { try await inner.parse(input) }
    func prepareSendPayment(_ request: PrepareSendRequest) async throws -> PrepareSendResponse { try await inner.prepareSendPayment(request) }
    func sendPayment(_ prepared: PrepareSendResponse, idempotencyKey: String) async throws -> Payment { try await inner.sendPayment(prepared, idempotencyKey: idempotencyKey) }
    func prepareLnurlPay(_ request: PrepareLnurlPayRequest) async throws -> PrepareLnurlPayResponse { try await inner.prepareLnurlPay(request) }
    func lnurlPay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String) async throws -> Payment { try await inner.lnurlPay(prepared, idempotencyKey: idempotencyKey) }
    func receivePayment(_ request: ReceiveRequest) async throws -> ReceiveResponse { try await inner.receivePayment(request) }
    func listPayments(_ filter: PaymentFilter) async throws -> [Payment] { try await inner.listPayments(filter) }
    func getPayment(id: String) async throws -> Payment? { try await inner.getPayment(id: id) }
    func listFiatRates() async throws -> [FiatRate] { try await inner.listFiatRates() }
    func recommendedFees() async throws -> RecommendedFees { try await inner.recommendedFees() }
    func addEventListener(_ listener: @escaping @Sendable (PaymentEvent) -> Void) -> String { inner.addEventListener(listener) }
    func removeEventListener(_ id: String) { inner.removeEventListener(id) }
}

@Suite("History per network, and balances offline")
struct NetworkHistoryTests {
    /// Payments keep the network they were made on: after switching ledgers, the history, the
    /// export and the balance are the new network's; the old one's stay, under their own name.
    @Test func switchingBackendsNeverMixesHistories() async throws {
        let (store, wallet) = try storeWithWallet()
        let password = try UnlockCounter(store)
        let (ledgerA, ledgerB) = (temporaryLedger(), temporaryLedger())
        func use(_ ledger: String) async throws {
            _ = try await LightningSettings.apply(LightningSettingsChange(backend: .devnet(path: ledger)), store: store, wallet: wallet,
                                                  backends: .devnet) { password.unlock() }
        }
        func session() async throws -> LightningSession {
            try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: .devnet) { password.unlock() }
        }
        try await use(ledgerA)
        _ = try await session().closing { try await $0.fund(sats: 1_000) }
        #expect(try await session().closing { try await $0.balance() }.info.balanceSats == 1_000)
        try await use(ledgerB)
        // What was known of ledger A is not ledger B's.
        #expect(LightningWallet.lastKnownBalance(store: store, walletID: wallet.id, network: nil) == nil)
        #expect(LightningWallet.lastSyncedAt(store: store, walletID: wallet.id, network: nil) == nil)
        _ = try await session().closing { try await $0.fund(sats: 2_000) }
        #expect(try await session().closing { try await $0.balance() }.info.balanceSats == 2_000)
        // Each network's last balance is its own: ledger B's is never read as ledger A's.
        #expect(LightningWallet.lastKnownBalance(store: store, walletID: wallet.id, network: "devnet:" + ledgerB)?.msat == 2_000_000)
        #expect(LightningWallet.lastKnownBalance(store: store, walletID: wallet.id, network: "devnet:" + ledgerA) == nil)

        let home = store.home.directory
        func listed(_ text: String?) throws -> [UInt64] {
            let scope = try HistoryNetwork(parsing: text, home: home)
            return try store.payments(walletID: wallet.id, filter: PaymentFilter(network: scope.filterValue(store: store, walletID: wallet.id))).map(\.amountSats.value)
        }
        #expect(try listed(nil) == [2_000])
        #expect(try listed("current") == [2_000])
        #expect(try listed("devnet:" + ledgerA) == [1_000])
        #expect(try listed("all").sorted() == [1_000, 2_000])
        #expect(throws: BackendSpecError.unknownNetwork("litecoin")) { try HistoryNetwork(parsing: "litecoin", home: home) }
        #expect(HistoryNetwork.choices(store: store, walletID: wallet.id).map(\.network) == ["devnet:" + ledgerB, "devnet:" + ledgerA])

        var json = Data()
        let scope = HistoryNetwork.current.filterValue(store: store, walletID: wallet.id)
        #expect(try PaymentExport.write(.json, store: store, walletID: wallet.id, filter: PaymentFilter(network: scope)) { json.append($0) } == 1)
        let rows = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        #expect(rows.first?["network"] as? String == "devnet:" + ledgerB)
    }

    /// Rows from before v9 get their network: a Spark invoice's prefix says which Spark network,
    /// else the wallet's saved backend of the same kind, else the bare backend name. A payment
    /// saved without one gets it by the same rule.
    @Test func olderRowsGetTheirNetwork() throws {
        let (store, wallet) = try storeWithWallet()
        try store.setSetting(LightningWallet.SettingKey.backend, to: "devnet:/x/ledger.sqlite", walletID: wallet.id)
        func row(_ id: String, backend: String, invoice: String?) -> Payment {
            Payment(id: id, type: .receive, status: .completed, amountMsat: 1_000, feeMsat: 0, timestamp: Date(timeIntervalSince1970: 1_700_000_000),
                    backend: backend, details: Payment.Details(invoice: invoice))
        }
        let rows = [row("a", backend: "spark", invoice: "lnbcrt10n1xyz"), row("b", backend: "spark", invoice: "LNBC10N1XYZ"),
                    row("c", backend: "spark", invoice: nil), row("d", backend: "devnet", invoice: "lnbcrt10n1xyz")]
        let expected = ["a": "spark:regtest", "b": "spark:mainnet", "c": "spark", "d": "devnet:/x/ledger.sqlite"]
        // Saved without a network: the store infers it.
        try store.savePayments(rows, walletID: wallet.id)
        #expect(Dictionary(uniqueKeysWithValues: try store.payments(walletID: wallet.id).map { ($0.id, $0.network ?? "-") }) == expected)

        // The same rows in a store from before v9: the migration gives them the same networks.
        let path = store.home.databaseURL.path
        let home = store.home
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                DROP INDEX payment_by_network;
                ALTER TABLE payment DROP COLUMN network;
                ALTER TABLE payment DROP COLUMN comment;
                ALTER TABLE payment DROP COLUMN successAction;
                DELETE FROM grdb_migrations WHERE identifier = 'v9';
                """)
        }
        try queue.close()
        let reopened = try WalletStore(home: home, create: false)
        #expect(try reopened.appliedMigrations() == WalletStore.migrator.migrations)
        #expect(Dictionary(uniqueKeysWithValues: try reopened.payments(walletID: wallet.id).map { ($0.id, $0.network ?? "-") }) == expected)
    }

    /// Offline, the balance is the last synced one, marked with when it synced, within the
    /// bound even when the network hangs; a wallet never synced gets no balance at all (never
    /// a bare 0); a failure that is not the network's is not hidden as "offline".
    @Test func offlineBalanceIsTheLastSyncedOneNeverAZero() async throws {
        let (store, wallet) = try storeWithWallet()
        let backend = CuttableBackend(try await node(abandonAbout, ledger: temporaryLedger()))
        let spec = BackendSpec.spark(.regtest)
        let session = LightningSession(store: store, wallet: wallet, spec: spec, backend: backend,
                                       lightning: LightningWallet(store: store, wallet: wallet, backend: backend, network: spec.description),
                                       lnurl: nil, fetcher: nil)
        backend.mode = .hanging
        // (A network hanging for an hour: the test ending at all shows the bound cut it. Wall
        // times are not asserted: the parallel suite starves the clock's task for minutes.)
        await #expect(throws: LightningError.notSyncedYet(network: "Spark network", reason: "no answer within 0 s")) {
            _ = try await session.balance(syncTimeout: .milliseconds(300))
        }
        backend.mode = .unreachable
        await #expect(throws: LightningError.notSyncedYet(network: "Spark network", reason: "dns error")) { _ = try await session.balance() }

        backend.mode = .online
        _ = try await backend.inner.fund(sats: 1_500)
        let current = try await session.balance()
        #expect(current.info.balanceSats == 1_500 && current.offline == nil)

        for mode in [CuttableBackend.Mode.hanging, .unreachable] {
            backend.mode = mode
            let known = try await session.balance(syncTimeout: .milliseconds(300))
            #expect(known.info.balanceSats == 1_500)
            let offline = try #require(known.offline)
            #expect(offline.lastSyncedAt != nil && offline.network == "Spark network")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(known.json.compact.utf8)) as? [String: Any])
            #expect(json["synced"] as? Bool == false && json["lastSyncedAt"] is String && json["balanceSats"] as? Int == 1_500)
        }
        backend.mode = .broken
        await #expect(throws: LightningError.devnetLedger(path: "/x", reason: "not a ledger")) { _ = try await session.balance() }
    }
}
