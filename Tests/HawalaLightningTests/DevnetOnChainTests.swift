import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaText
import HawalaWallet
import Synchronization
import Testing
@testable import HawalaLightning
import HawalaTestSupport

@Suite("Withdrawals, deposit events and the way out, on devnet")
struct DevnetOnChainTests {
    static let elsewhere = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

    func wallet(ledger: String, store: (WalletStore, Keyring)? = nil, words: String = abandonAbout) async throws -> LightningSession {
        let (store, keyring) = try store ?? newStore()
        let wallet = try store.wallet(named: nil, orAdd: words, keyring: keyring)
        return try await LightningSession.open(store: store, wallet: wallet, backend: "devnet:" + ledger, signing: true, backends: .devnet) { keyring }
    }

    /// Each speed is priced from the fee table; one is sent; everything is sent with the fee
    /// taken from it and exactly nothing stays; history shows each with its transaction, pending
    /// with no confirmation until a block, then final with its confirmations.
    @Test func withdrawAtEachSpeedAndEverything() async throws {
        let ledger = temporaryLedger()
        let session = try await wallet(ledger: ledger)
        _ = try await session.fund(sats: 100_000)
        let quote = try await session.lightning.prepareOnChain(address: Self.elsewhere, amount: .sats(20_000))
        let fees: [Sats] = quote.options.map(\.feeSat)
        #expect(fees == [1_410, 705, 282])  // devnet's table: 10, 5, 2 sat/vB × 141 vB
        #expect(quote.option(.fast) == OnChainQuote.Option(speed: .fast, amountSat: 20_000, feeSat: 1_410, remainingSat: 78_590, affordable: true))
        #expect(quote.previewRows()[1] == ("medium", "20,000 sat arrives · fee 705 sat · 20,705 sat in total · 79,295 sat stays"))
        let sent = try await session.lightning.sendOnChain(quote, speed: .fast, idempotencyKey: "withdraw-1")
        #expect(sent.status == .pending && sent.isOnChain && sent.details.address == Self.elsewhere && sent.details.txid?.count == 64)
        #expect(sent.details.confirmations == 0 && sent.plainState() == "Waiting for confirmation")
        #expect(try await session.lightning.sendOnChain(quote, speed: .fast, idempotencyKey: "withdraw-1").id == sent.id, "one key, one withdrawal")
        #expect(try await session.backend.getInfo().balanceSats == 78_590)

        let all = try await session.lightning.prepareOnChain(address: Self.elsewhere, amount: .all)
        let slow = try #require(all.option(.slow))
        #expect(slow.amountSat.value == 78_590 - 282 && slow.remainingSat == 0 && slow.totalSat == 78_590)
        _ = try await session.lightning.sendOnChain(all, speed: .slow, idempotencyKey: "withdraw-all")
        #expect(try await session.backend.getInfo().balanceMsat == 0, "what stays is exactly zero")

        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 2)
        try await session.lightning.sync()
        let history = try session.lightning.history(PaymentFilter(type: .send))
        #expect(history.count == 2 && history.allSatisfy { $0.status == .completed && $0.details.confirmations == 2 && $0.details.txid != nil })
        #expect(history.contains { $0.amountSats == 78_308 && $0.feeSats == 282 })
        #expect(try #require(history.first).historyLine().contains("on-chain"))
        await session.close()
    }

    /// An amount the balance does not cover, dust, another network's address and a comment-less
    /// amountless request are refused before anything is sent.
    @Test func withdrawalsThatCannotBeSent() async throws {
        let session = try await wallet(ledger: temporaryLedger())
        _ = try await session.fund(sats: 10_000)
        let tooMuch = try await session.lightning.prepareOnChain(address: Self.elsewhere, amount: .sats(9_600))
        #expect(tooMuch.option(.slow)?.affordable == true && tooMuch.option(.fast)?.affordable == false)
        await #expect(throws: LightningError.withdrawal(.insufficientOnChainBalance(neededSat: 11_010, balanceSat: 10_000, speed: "fast"))) {
            _ = try await session.lightning.sendOnChain(tooMuch, speed: .fast, idempotencyKey: "too-much")
        }
        let dust = try await session.lightning.prepareOnChain(address: Self.elsewhere, amount: .sats(100))
        #expect(dust.options.allSatisfy { !$0.affordable } && dust.previewRows()[0].value.contains("below 546 sat"))
        await #expect(throws: LightningError.wrongAddress("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", network: .regtest, backendName: "devnet")) {
            _ = try await session.lightning.prepareOnChain(address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", amount: .sats(1_000))
        }
        #expect(try await session.backend.getInfo().balanceSats == 10_000)
        #expect(try PaymentInput.parse(Self.elsewhere).onChainTarget?.address == Self.elsewhere)
        #expect(try PaymentInput.parse("bitcoin:\(Self.elsewhere)?amount=0.0002").onChainTarget?.amountSats == 20_000)
        await session.close()
    }

    /// A deposit is announced when seen, when claimed, and when not claimed (with why).
    @Test func depositEvents() async throws {
        let ledger = temporaryLedger()
        let session = try await wallet(ledger: ledger)
        let events = Mutex<[PaymentEvent]>([])
        let id = session.backend.addEventListener { event in events.withLock { $0.append(event) } }
        defer { session.backend.removeEventListener(id) }
        func names() -> [String] { events.withLock { $0.map(\.name) } }
        func waitFor(_ name: String) async throws {
            for _ in 0..<50 where !names().contains(name) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(names().contains(name), "\(names())")
        }
        let address = try await session.backend.receiveAddress(.bitcoin)
        _ = try DevnetChain.deposit(ledgerPath: ledger, address: address, sats: 40_000)
        try await waitFor("newDeposits")
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 3)
        try await session.lightning.sync()
        try await waitFor("claimedDeposits")
        let claimed = try #require(events.withLock { $0.first { $0.name == "claimedDeposits" } })
        #expect(claimed.depositHeadline?.hasPrefix("deposit claimed: 40,000 sat") == true && claimed.json.compact.contains("\"claimFeeSat\":750"))

        session.backend.setClaimFeePolicy(.fixed(sats: 10))
        _ = try DevnetChain.deposit(ledgerPath: ledger, address: try await session.backend.newDepositAddress(), sats: 30_000)
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 3)
        try await session.lightning.sync()
        try await waitFor("unclaimedDeposits")
        let unclaimed = try #require(events.withLock { $0.first { $0.name == "unclaimedDeposits" } })
        #expect(unclaimed.depositHeadline?.contains("above your cap of 10 sat") == true)
        // The claimed deposit is a payment in the history, with its transaction.
        let received = try #require(try session.lightning.history(PaymentFilter(type: .receive)).first)
        #expect(received.isOnChain && received.details.txid != nil && received.details.address == address && (received.details.confirmations ?? 0) >= 3)
        await session.close()
    }

    /// The kept exit state changes with a payment; a state kept before a payment names a leaf
    /// spent since and recovers nothing of it; the fresh one plans and runs: the transactions in
    /// order, the balance out of Lightning, an on-chain payment that a block confirms.
    @Test func theWayOut() async throws {
        let ledger = temporaryLedger()
        let (store, keyring) = try newStore()
        let session = try await wallet(ledger: ledger, store: (store, keyring))
        #expect(await session.exitCheck().headline == "Nothing to take out: the kept state holds no funds.", "an empty wallet's state, kept at once")
        _ = try await session.fund(sats: 80_000)
        let first = try #require(try await session.keepExitState())
        #expect(first.valueSat == 80_000 && first.leafCount == 1 && first.network == "devnet:" + ledger)
        let old = try #require(try store.exitState(walletID: session.wallet.id, network: first.network, keyring: keyring))
        let version = try store.exportVersion()
        _ = try await session.keepExitState()
        #expect(try store.exportVersion() == version, "the same state again moves no backup")

        _ = try await session.lightning.sendOnChain(try await session.lightning.prepareOnChain(address: Self.elsewhere, amount: .sats(10_000)),
                                                    speed: .slow, idempotencyKey: "before-exit")
        let second = try #require(try await session.keepExitState())
        let new = try #require(try store.exitState(walletID: session.wallet.id, network: second.network, keyring: keyring))
        let moved = try store.exportVersion()
        #expect(new.state != old.state)
        #expect(second.valueSat?.value == 80_000 - 10_000 - 282 && moved > version)

        // The stale state: its leaf was spent since.
        try await session.backend.importExitState(old.state)
        let stale = try await session.backend.prepareExit(satPerVbyte: 4, destination: Self.elsewhere)
        #expect(stale.recoverableSat == 0 && stale.skipped.map(\.reason) == ["spent since this state was kept"])

        // By default the funds go to the wallet's own first Bitcoin address, on the network's
        // prefix — never to a deposit address, which would hand them back to the operators.
        let own = try session.ownBitcoinAddress()
        let segwit = try Bech32.decodeSegwitAddress("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", hrp: "bc")
        #expect(own == Bech32.segwitAddress(hrp: "bcrt", version: segwit.version, program: segwit.program))
        #expect(await session.exitCheck().plan?.destination == own)
        let check = await session.exitCheck(satPerVbyte: 4, destination: Self.elsewhere)
        #expect(check.canExit && !check.isStale && check.plan?.recoverableSat == 69_718 && check.plan?.feeSat == 1_200)
        #expect(check.headline == "Yes: 68,518 sat would reach your address, after 1,200 sat of fees at 4 sat/vB.")
        let plan = try await session.prepareExit(satPerVbyte: 4, destination: Self.elsewhere)
        let transactions = try await session.runExit(plan)
        #expect(transactions.map(\.kind) == ["node", "refund"] && transactions[1].waitBlocks == 2)
        #expect(try await session.backend.getInfo().balanceSats == 0)
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 1)
        try await session.lightning.sync()
        let exit = try #require(try session.lightning.history(PaymentFilter(type: .send)).first)
        #expect(exit.status == .completed && exit.amountSats == 68_518 && exit.details.txid == transactions[1].txid)
        // Another wallet's state is refused.
        let other = try await wallet(ledger: ledger, words: legalWinner)
        await #expect(throws: ExitError.invalidExitState("it is another wallet's")) { try await other.backend.importExitState(new.state) }
        await #expect(throws: ExitError.invalidExitState("not a devnet exit state")) { try await session.backend.importExitState(SecretBytes(Array("{}".utf8))) }
        await other.close()
        await session.close()
    }
}

@Suite("On-chain payments in the store")
struct OnChainStoreTests {
    /// A backend's later report of a withdrawal (Spark's carries no address) keeps what was
    /// known when it was sent; confirmations rise with the report.
    @Test func aLaterReportKeepsTheAddress() throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "W", network: .mainnet, keyring: keyring)
        let sent = Payment(id: "w1", type: .send, status: .pending, amountMsat: 20_000_000, feeMsat: 282_000, timestamp: Date(), method: Payment.onChainMethod,
                           backend: "spark", details: Payment.Details(description: "on-chain withdrawal", txid: "ab", address: "bc1qexample", confirmations: 0),
                           idempotencyKey: "onchain:1")
        try store.savePayment(sent, walletID: wallet.id)
        var later = sent
        later.status = .completed
        later.details = Payment.Details(description: "on-chain withdrawal", txid: "ab", confirmations: 2)
        try store.savePayment(later, walletID: wallet.id)
        let kept = try #require(try store.payment(walletID: wallet.id, id: "w1"))
        #expect(kept.status == .completed && kept.details.address == "bc1qexample" && kept.details.confirmations == 2 && kept.isOnChain)
    }
}

extension WalletStore {
    /// The wallet restored from `words` (added the first time).
    func wallet(named: String?, orAdd words: String, keyring: Keyring) throws -> WalletSummary {
        if let existing = try list().first { return existing }
        return try add(mnemonic: try Mnemonic(text: words), passphrase: SecretBytes([]), name: "W\(UUID().uuidString.prefix(4))", network: .mainnet, keyring: keyring)
    }
}
