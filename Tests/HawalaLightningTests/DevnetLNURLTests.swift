import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaWallet
import Synchronization
import Testing
@testable import HawalaLightning
import HawalaTestSupport

/// Devnet's LNURL server answering on loopback, reached by the same client real services are.
final class ServedLNURL: Sendable {
    let server: LoopbackServer
    let service: DevnetLNURLService

    init(ledger: String) throws {
        let box = Mutex<DevnetLNURLService?>(nil)
        server = try LoopbackServer { path in
            guard let service = box.withLock({ $0 }) else { return LoopbackServer.Reply(status: 503, body: []) }
            let (status, body) = service.respond(to: path)
            return LoopbackServer.Reply(status: status, body: body)
        }
        service = try DevnetLNURLService(ledgerPath: ledger, port: Int(server.port))
        box.withLock { $0 = service }
        try service.announce()
    }

    deinit { server.stop() }

    /// Says again that the server runs (`ln devnet serve` does it every 5 s; a loaded test
    /// machine can take longer than the ledger's 30 s between two steps).
    func announce() throws { try service.announce() }
}

@Suite("Devnet Lightning addresses and withdraw vouchers")
struct DevnetLNURLTests {
    /// A wallet on the ledger, opened as the faces open it (LNURL access, devnet's loopback http).
    func wallet(_ words: String, ledger: String) async throws -> LightningSession {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: words), passphrase: SecretBytes([]), name: "W", network: .mainnet, keyring: keyring)
        return try await LightningSession.open(store: store, wallet: wallet, backend: "devnet:" + ledger, signing: true, backends: .devnet,
                                               reachesLNURL: true) { keyring }
    }

    /// alice and bob on `ledger`, closed whatever `body` does (an open HTTP client must be shut
    /// down before it goes).
    func withWallets(_ ledger: String, _ body: (LightningSession, LightningSession) async throws -> Void) async throws {
        let alice = try await wallet(abandonAbout, ledger: ledger)
        let bob: LightningSession
        do { bob = try await wallet(legalWinner, ledger: ledger) } catch { await alice.close(); throw error }
        do {
            try await body(alice, bob)
        } catch {
            await alice.close()
            await bob.close()
            throw error
        }
        await alice.close()
        await bob.close()
    }

    /// alice registers her address (checked, and taken for others), bob pays it by name with a
    /// comment, alice's history has the payment with the comment; paying one's own address is
    /// refused; an address needs the server.
    @Test func payByAddressWithAComment() async throws {
        let ledger = temporaryLedger()
        try await withWallets(ledger) { alice, bob in
            await #expect(throws: LightningError.noLNURLServer(ledger: ledger)) { _ = try await alice.registerAddress(name: "alice") }
            let served = try ServedLNURL(ledger: ledger)
            for bad in ["Al ice", "..", ".", "a..b", ".alice", String(repeating: "a", count: 65)] {
                await #expect(throws: LightningError.address(.invalidName(bad))) { _ = try await alice.registerAddress(name: bad) }
            }
            try served.announce()
            let info = try await alice.registerAddress(name: "Alice", description: "Alice's tips")
            #expect(info.address == "alice@127.0.0.1:\(served.server.port)" && info.lnurl.hasPrefix("lnurl1"))
            #expect(try PaymentInput.decodeLNURL(info.lnurl, allowLoopbackHTTP: true) == info.url)
            #expect(try await alice.backend.lightningAddress() == info)
            await #expect(throws: LightningError.address(.taken("alice"))) { _ = try await bob.registerAddress(name: "alice") }

            _ = try await bob.fund(sats: 10_000)
            let input = try PaymentInput.parse(info.address, allowLoopbackHTTP: true)
            #expect(throws: PaymentInputError.self) { try PaymentInput.parse(info.address) }  // not on a real network
            let prepared = try await bob.prepare(input, text: info.address, amountSats: 1_500, comment: "for the coffee", maxFeeSats: nil)
            let paid = try await bob.lightning.pay(prepared, idempotencyKey: nil)
            #expect(paid.status == .completed && paid.amountMsat == 1_500_000)
            // The payer's history keeps what it sent and what the payee's service said.
            let sent = try #require(try bob.lightning.history(PaymentFilter(type: .send)).first)
            #expect(sent.details.comment == "for the coffee" && sent.details.successAction == "Paid to alice on devnet")
            try await alice.lightning.sync()
            let received = try #require(try alice.lightning.history(PaymentFilter(type: .receive)).first)
            #expect(received.amountMsat == 1_500_000 && received.details.comment == "for the coffee" && received.details.description == "Alice's tips")
            #expect(received.network == "devnet:" + ledger)
            #expect(try await alice.balance().info.balanceSats == 1_500)

            // One's own address: refused before anything is paid.
            _ = try await alice.fund(sats: 5_000)
            await #expect(throws: LightningError.ownInvoice) {
                _ = try await alice.prepare(input, text: info.address, amountSats: 100, comment: nil, maxFeeSats: nil)
            }
            // Given up: the name is free again, and paying it fails at the service.
            try await alice.backend.deleteLightningAddress()
            #expect(try await alice.backend.lightningAddress() == nil)
            #expect(try await bob.backend.isLightningAddressAvailable("alice"))
            await #expect(throws: LightningError.lnurl(.serviceError("no such Lightning address on this devnet"))) {
                _ = try await bob.prepare(input, text: info.address, amountSats: 100, comment: nil, maxFeeSats: nil)
            }
            _ = served
        }
    }

    /// A voucher is redeemed once, within its bounds; its payment arrives in the history; a
    /// payment link is not a withdrawal.
    @Test func withdrawAVoucherOnce() async throws {
        let ledger = temporaryLedger()
        try await withWallets(ledger) { alice, bob in
            #expect(throws: LightningError.noLNURLServer(ledger: ledger)) { _ = try DevnetVouchers.issue(ledgerPath: ledger, sats: 5_000) }
            let served = try ServedLNURL(ledger: ledger)
            try served.announce()
            let voucher = try DevnetVouchers.issue(ledgerPath: ledger, sats: 5_000, description: "coffee voucher")
            let offer = try await alice.withdrawOffer(try PaymentInput.parse(voucher, allowLoopbackHTTP: true))
            #expect(offer.minWithdrawableMsat == 1_000 && offer.maxWithdrawableMsat == 5_000_000)
            #expect(offer.summary == "Receive 1 sat to 5,000 sat from 127.0.0.1: coffee voucher")
            #expect(throws: LNURLError.amountOutOfRange(requested: 6_000_000, min: 1_000, max: 5_000_000)) { try offer.amountSats(6_000) }
            let payment = try await alice.withdraw(offer, amountSats: 3_000, timeout: .seconds(30))
            #expect(payment.status == .completed && payment.amountMsat == 3_000_000 && payment.type == .receive)
            let kept = try alice.lightning.history(PaymentFilter())
            #expect(kept.count == 1 && kept[0].status == .completed && kept[0].details.description == "coffee voucher")
            // Used: refused to anyone, in the service's words.
            await #expect(throws: LightningError.lnurl(.serviceError("this voucher is unknown or has been used"))) {
                _ = try await bob.withdrawOffer(try PaymentInput.parse(voucher, allowLoopbackHTTP: true))
            }
            await #expect(throws: LightningError.lnurl(.serviceError("this voucher has been used"))) { _ = try await bob.withdraw(offer, amountSats: 1_000, timeout: .seconds(5)) }
            // A payment link offers nothing to withdraw.
            try served.announce()
            let pay = try await alice.registerAddress(name: "alice")
            await #expect(throws: LightningError.lnurl(.notAWithdrawal("payRequest"))) { _ = try await bob.withdrawOffer(.lnurl(pay.url)) }
            _ = served
        }
    }
}
