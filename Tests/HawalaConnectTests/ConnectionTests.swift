import Foundation
import HawalaConnect
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaNostr
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// One wallet on a devnet ledger, its Lightning open to sign; a second wallet to pay.
struct DevnetPair {
    let store: WalletStore
    let keyring: Keyring
    let wallet: WalletSummary
    let session: LightningSession
    let payee: LightningSession
    /// The payee's store and keyring: what a restarted provider opens again.
    var payeeStore: WalletStore { payee.store }
    var payeeWallet: WalletSummary { payee.wallet }
    let payeeKeyring: Keyring

    static func make(fund sats: Sats = 100_000) async throws -> DevnetPair {
        let ledger = temporaryFolder("devnet").appendingPathComponent("ledger.sqlite").path
        func open(_ words: String, name: String) async throws -> (WalletStore, Keyring, WalletSummary, LightningSession) {
            let (store, keyring) = try newStore()
            let wallet = try store.add(mnemonic: try Mnemonic(text: words), passphrase: SecretBytes([]), name: name, network: .testnet, keyring: keyring)
            try store.setSetting(LightningWallet.SettingKey.backend, to: "devnet:" + ledger, walletID: wallet.id)
            let session = try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: .devnet) { keyring }
            return (store, keyring, wallet, session)
        }
        let (store, keyring, wallet, session) = try await open(abandonAbout, name: "Buyer")
        let (_, payeeKeyring, _, payee) = try await open(legalWinner, name: "Provider")
        if sats > .zero, let devnet = session.backend as? DevnetBackend { _ = try await devnet.fund(sats: sats) }
        return DevnetPair(store: store, keyring: keyring, wallet: wallet, session: session, payee: payee, payeeKeyring: payeeKeyring)
    }

    func connection(_ name: String = "agent-1", permissions: Set<ConnectionPermission> = [.pay, .receive, .balance], budget: Sats? = 10_000,
                    renewal: BudgetRenewal = .daily, maxPayment: Sats? = nil, expiresAt: Date? = nil) throws -> (AppConnection, SecretBytes) {
        let (connection, secret) = try store.addConnection(NewConnection(name: name, permissions: permissions, budget: budget, renewal: renewal, maxPayment: maxPayment,
                                                                         expiresAt: expiresAt, relays: ["ws://127.0.0.1:7777"]), wallet: wallet, keyring: keyring)
        return (connection, secret!)
    }

    func invoice(_ sats: Sats, _ description: String = "job") async throws -> String {
        try await payee.receive(ReceiveRequest(amountSats: sats, description: description)).response.invoice
    }

    func close() async {
        await session.close()
        await payee.close()
    }
}

@Suite("App connections: limits, keys and the one rule of paying")
struct ConnectionTests {
    @Test func periodsInTheMachinesCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        calendar.firstWeekday = 2
        let wednesday = try #require(ISO8601DateFormatter().date(from: "2026-11-25T15:30:00+01:00"))
        let iso = ISO8601DateFormatter()
        iso.timeZone = calendar.timeZone
        #expect(iso.string(from: BudgetRenewal.daily.periodStart(containing: wednesday, calendar: calendar)) == "2026-11-25T00:00:00+01:00")
        #expect(iso.string(from: BudgetRenewal.weekly.periodStart(containing: wednesday, calendar: calendar)) == "2026-11-23T00:00:00+01:00", "weeks start on Monday")
        #expect(iso.string(from: BudgetRenewal.monthly.renewal(after: wednesday, calendar: calendar)!) == "2026-12-01T00:00:00+01:00")
        #expect(iso.string(from: BudgetRenewal.yearly.periodStart(containing: wednesday, calendar: calendar)) == "2026-01-01T00:00:00+01:00")
        #expect(BudgetRenewal.never.renewal(after: wednesday, calendar: calendar) == nil && BudgetRenewal.never.periodStart(containing: wednesday) == .distantPast)
    }

    @Test func whatPeopleType() throws {
        #expect(try ConnectionInput.budget("10,000/weekly") == (10_000, .weekly))
        #expect(try ConnectionInput.budget("5000") == (5_000, .daily))
        #expect(try ConnectionInput.budget("none") == (nil, .never))
        for bad in ["", "-5/daily", "10000/hourly", "0/daily", "lots"] { #expect(throws: ConnectionInput.Error.self, "\(bad)") { try ConnectionInput.budget(bad) } }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try ConnectionInput.expiry("30d", now: now) == now.addingTimeInterval(30 * 86_400))
        #expect(try ConnectionInput.expiry("never", now: now) == nil)
        for bad in ["30", "d", "-1d", "5y", "999999999d"] { #expect(throws: ConnectionInput.Error.self, "\(bad)") { try ConnectionInput.expiry(bad, now: now) } }
        #expect(try ConnectionInput.permissions("pay, history") == [.pay, .history])
        #expect(throws: ConnectionInput.Error.self) { try ConnectionInput.permissions("pay,spend") }
    }

    /// Keys: the client's secret returned once (its public half kept), the service key sealed
    /// under the password (and resealed when it changes); names unique per wallet.
    @Test func keysAndNames() async throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let request = NewConnection(name: " agent ", permissions: [.pay], budget: 1_000, renewal: .daily, relays: ["wss://relay.example.com"])
        let (connection, made) = try store.addConnection(request, wallet: wallet, keyring: keyring)
        let secret = try #require(made)
        let clientKey = NostrHex.encode(try Schnorr.xOnlyPublicKey(privateKey: secret))
        #expect(connection.name == "agent" && connection.clientPublicKey == clientKey)
        let service = try store.connectionServiceKey(connection, keyring: keyring)
        #expect(NostrHex.encode(try Schnorr.xOnlyPublicKey(privateKey: service)) == connection.servicePublicKey)
        let database = try Data(contentsOf: store.home.directory.appendingPathComponent("wallets.sqlite"))
        #expect(database.range(of: Data(secret.unsafeCopy())) == nil && database.range(of: Data(service.unsafeCopy())) == nil, "no key in the clear")
        #expect(throws: WalletError.connectionNameTaken("agent")) { try store.addConnection(request, wallet: wallet, keyring: keyring) }
        var unnamed = request
        unnamed.name = String(repeating: "x", count: 65)
        #expect(throws: WalletError.self) { try store.addConnection(unnamed, wallet: wallet, keyring: keyring) }
        let changed = try store.changePassword(from: keyring, to: SecretBytes(utf8: "another good password"), parameters: fastKDF())
        #expect(try store.connectionServiceKey(connection, keyring: changed) == service)
        #expect(try store.connection(clientPublicKey: connection.clientPublicKey.uppercased())?.id == connection.id)
    }

    /// Twenty requests at once against a budget that covers exactly five with their fees:
    /// exactly five are reserved, never six.
    @Test func concurrentReservationsNeverOverspend() async throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let (connection, _) = try store.addConnection(NewConnection(name: "agent", permissions: [.pay], budget: 5_020, renewal: .daily,
                                                                   relays: ["wss://relay.example.com"]), wallet: wallet, keyring: keyring)
        let each = Msat(clamping: 1_004_000)  // 1,000 sat and a 4 sat fee
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<20 {
                group.addTask {
                    (try? store.reserveSpending(connection, paymentKey: "k\(i)", amount: Msat(clamping: 1_000_000), total: each)) == .reserved
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 5)
        #expect(try store.spending(of: connection).spent == Msat(clamping: 5_020_000))
        // Released, the room comes back; settled, the real figure counts.
        try store.releaseSpending(connection, paymentKey: "k0")
        try store.releaseSpending(connection, paymentKey: "k1")
        try store.releaseSpending(connection, paymentKey: "k2")
        try store.releaseSpending(connection, paymentKey: "k3")
        try store.releaseSpending(connection, paymentKey: "k4")
        for i in 0..<20 { try store.releaseSpending(connection, paymentKey: "k\(i)") }
        #expect(try store.spending(of: connection).spent == .zero)
        #expect(try store.reserveSpending(connection, paymentKey: "n1", amount: Msat(clamping: 1_000_000), total: each) == .reserved)
        #expect(try store.reserveSpending(connection, paymentKey: "n1", amount: Msat(clamping: 1_000_000), total: each) == .alreadyReserved(state: "reserved"))
        try store.settleSpending(connection, paymentKey: "n1", total: Msat(clamping: 1_003_500))
        #expect(try store.spending(of: connection).spent == Msat(clamping: 1_003_500))
        // Another period: the budget is whole again.
        let tomorrow = Date().addingTimeInterval(86_400 * 2)
        #expect(try store.spending(of: connection, now: tomorrow).spent == .zero)
    }

    @Test func limitsRefuseInTheirOwnWords() throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let now = Date()
        func make(_ name: String, _ permissions: Set<ConnectionPermission> = [.pay], max: Sats? = nil, expires: Date? = nil) throws -> AppConnection {
            try store.addConnection(NewConnection(name: name, permissions: permissions, budget: 2_000, renewal: .daily, maxPayment: max, expiresAt: expires,
                                                  relays: ["wss://r.example.com"]), wallet: wallet, keyring: keyring, now: now).0
        }
        let a = Msat(clamping: 1_500_000)
        #expect(throws: ConnectionRefusal.notAllowed(.pay)) { try store.reserveSpending(try make("reader", [.balance]), paymentKey: "1", amount: a, total: a) }
        #expect(throws: ConnectionRefusal.aboveMaximum(maximum: 1_000)) { try store.reserveSpending(try make("small", max: 1_000), paymentKey: "1", amount: a, total: a) }
        #expect(throws: ConnectionRefusal.expired) { try store.reserveSpending(try make("old", expires: now.addingTimeInterval(-1)), paymentKey: "1", amount: a, total: a) }
        let revoked = try make("gone")
        try store.revokeConnection(revoked)
        #expect(throws: ConnectionRefusal.revoked) { try store.reserveSpending(revoked, paymentKey: "1", amount: a, total: a) }
        let ok = try make("ok")
        _ = try store.reserveSpending(ok, paymentKey: "1", amount: a, total: a)
        do {
            _ = try store.reserveSpending(ok, paymentKey: "2", amount: a, total: a)
            Issue.record("over the budget")
        } catch let refusal as ConnectionRefusal {
            guard case .overBudget(let left, let renews) = refusal else { Issue.record("\(refusal)"); return }
            #expect(left == Msat(clamping: 500_000) && renews != nil)
            #expect(refusal.description.hasPrefix("above this connection's budget: 500 sat left until "))
        }
    }
}
