import Foundation
@testable import HawalaConnect
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// A step's refusal as a value (`nil`: it went through).
func holdRefusal<T>(_ body: () async throws -> T) async -> HoldInvoiceError? {
    do {
        _ = try await body()
        return nil
    } catch LightningError.hold(let error) {
        return error
    } catch {
        Issue.record("not a hold refusal: \(error)")
        return nil
    }
}

@Suite("Hold invoices: pay on delivery, on devnet")
struct HoldInvoiceTests {
    func balance(_ session: LightningSession) async throws -> Msat { try await session.backend.getInfo().balanceMsat }

    /// The buyer's program pays; the money is held (gone from the buyer, not yet the
    /// provider's, counted in the connection's budget); the provider, restarted in between,
    /// settles by hash with the preimage it kept: the money is its, the buyer has the proof.
    @Test func heldThenSettledAfterARestart() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(budget: 5_000)
        let buyerBefore = try await balance(pair.session), providerBefore = try await balance(pair.payee)
        let invoice = try await pair.payee.receiveHeld(ReceiveRequest(amountSats: 2_000, description: "job 1"))
        let hash = invoice.response.paymentHash
        let paid = try await ConnectionPayer.pay(invoice: invoice.response.invoice, amountMsat: nil, requestID: "r1", connection: connection, session: pair.session)
        #expect(paid.status == .pending && paid.details.preimage == nil)
        let cost = try Sats(2_000).msat + paid.feeMsat
        #expect(try await balance(pair.session) == buyerBefore.minusOrZero(cost))
        #expect(try await balance(pair.payee) == providerBefore, "held: not the provider's yet")
        #expect(try pair.store.spending(of: connection).spent == cost, "a held payment counts against the budget")
        // The provider sees it held (a sync records it), and restarts.
        _ = try await pair.payee.lightning.sync()
        let held = try #require(try pair.payeeStore.payments(walletID: pair.payeeWallet.id, filter: PaymentFilter(paymentHash: hash)).first)
        #expect(held.isHeld && held.heldUntil == invoice.response.expiresAt && !held.isOpenInvoice)
        await pair.payee.close()
        let restarted = try await LightningSession.open(store: pair.payeeStore, wallet: pair.payeeWallet, signing: true, backends: .devnet) { pair.payeeKeyring }
        defer { Task { await restarted.close() } }
        let settled = try await restarted.settle(.paymentHash(hash))
        #expect(settled.status == .completed && settled.type == .receive)
        #expect(try await balance(restarted) == (try providerBefore + Sats(2_000).msat))
        // Settling again answers with the settled payment; cancelling now is refused.
        #expect(try await restarted.settle(.paymentHash(hash)).id == settled.id)
        #expect(await holdRefusal { try await restarted.cancel(paymentHash: hash) } == .settled)
        // The buyer's payment completes with the preimage that hashes to the invoice's hash.
        _ = try await pair.session.lightning.sync()
        let bought = try #require(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send, paymentHash: hash)).first)
        let preimage = try #require(bought.details.preimage.flatMap { bytes(fromHex: $0) })
        #expect(bought.status == .completed && hexString(Hash.sha256(preimage)) == hash)
        #expect(try pair.store.spending(of: connection).spent == cost)
    }

    /// Cancelled: the buyer gets amount and fee back, its budget is freed, and the payment can
    /// never be settled afterwards. A caller's own hash: settling by hash alone is refused.
    @Test func cancelledGoesBackAndFreesTheBudget() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(budget: 5_000)
        let buyerBefore = try await balance(pair.session)
        var secret = SystemRandom.bytes(32)
        defer { SecretBytes.wipe(&secret) }
        let preimage = SecretBytes(secret)
        let hash = hexString(Hash.sha256(secret))
        let invoice = try await pair.payee.receiveHeld(ReceiveRequest(amountSats: 3_000, description: "job 2"), paymentHash: hash)
        #expect(invoice.response.paymentHash == hash)
        _ = try await ConnectionPayer.pay(invoice: invoice.response.invoice, amountMsat: nil, requestID: "r1", connection: connection, session: pair.session)
        #expect(try pair.store.spending(of: connection).spent > .zero)
        #expect(await holdRefusal { try await pair.payee.settle(.paymentHash(hash)) } == .preimageNotKept(paymentHash: hash))
        let cancelled = try await pair.payee.cancel(paymentHash: hash)
        #expect(cancelled.status == .failed)
        #expect(try await pair.payee.cancel(paymentHash: hash).id == cancelled.id, "cancelling again answers the same")
        #expect(await holdRefusal { try await pair.payee.settle(.preimage(preimage)) } == .cancelled)
        #expect(try await balance(pair.session) == buyerBefore, "the buyer is whole, fee included")
        _ = try await pair.session.lightning.sync()
        #expect(try pair.store.spending(of: connection).spent == .zero, "the budget is freed")
        // A hash nothing was paid to; not a hash at all.
        #expect(await holdRefusal { try await pair.payee.cancel(paymentHash: String(repeating: "ab", count: 32)) }
                == .nothingHeld(paymentHash: String(repeating: "ab", count: 32)))
        #expect(await holdRefusal { try await pair.payee.cancel(paymentHash: "xyz") } == .notAHash)
        // A hash the wallet knows already: no second invoice under it (a program can't take over another's).
        #expect(await holdRefusal { try await pair.payee.receiveHeld(ReceiveRequest(amountSats: 5), paymentHash: hash) } == .hashInUse)
    }

    /// Not settled before the invoice expires: given back, and never settled late.
    @Test func expiredIsGivenBackNeverSettledLate() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let buyerBefore = try await balance(pair.session)
        let invoice = try await pair.payee.receiveHeld(ReceiveRequest(amountSats: 1_000, description: "job 3", expirySeconds: 2))
        let prepared = try await pair.session.prepare(try PaymentInput.parse(invoice.response.invoice), text: invoice.response.invoice, amountSats: nil,
                                                      comment: nil, maxFeeSats: nil)
        #expect(try await pair.session.lightning.pay(prepared, idempotencyKey: "k1").status == .pending)
        try await Task.sleep(for: .milliseconds(2_300))
        let refusal = await holdRefusal { try await pair.payee.settle(.paymentHash(invoice.response.paymentHash)) }
        if case .expired? = refusal {} else { Issue.record("settled late: \(String(describing: refusal))") }
        #expect(try await balance(pair.session) == buyerBefore)
    }

    /// The preimage or the hash, typed: told apart by the wallet's own records.
    @Test func aReferenceIsReadAgainstTheWallet() throws {
        let secret = [UInt8](repeating: 7, count: 32)
        let hash = hexString(Hash.sha256(secret))
        #expect(try HoldReference.read(hexString(secret), knownHash: { $0 == hash }).paymentHash == hash)
        #expect(try HoldReference.read(hash.uppercased() + "\n", knownHash: { $0 == hash }) == .paymentHash(hash))
        #expect(throws: HoldInvoiceError.notAHash) { try HoldReference.read("12", knownHash: { _ in true }) }
        #expect(throws: HoldInvoiceError.notAHash) { try HoldReference.read(String(repeating: "g", count: 64), knownHash: { _ in true }) }
    }
}

@Suite("NWC's get_info")
struct NWCInfoTests {
    /// A connection that may receive hears of hold invoices; the wallet's Lightning address is
    /// its `lud16` once it has one (devnet's LNURL server announced on the ledger).
    @Test func infoNamesHoldMethodsAndTheLightningAddress() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(permissions: [.receive])
        let handler = NWCHandler(session: pair.session)
        func info() async throws -> [String: Any] {
            let answer = await handler.answer(#"{"method":"get_info","params":{}}"#, connection: connection, requestID: UUID().uuidString)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.json.utf8)) as? [String: Any])
            return try #require(object["result"] as? [String: Any])
        }
        let before = try await info()
        #expect(before["lud16"] == nil)
        let methods = try #require(before["methods"] as? [String])
        #expect(Set(["make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice"]).isSubset(of: methods) && !methods.contains("pay_invoice"))
        #expect((before["notifications"] as? [String])?.contains("hold_invoice_accepted") == true)
        let ledger = try #require((pair.session.backend as? DevnetBackend)?.ledgerPath)
        try DevnetLNURLServer(ledgerPath: ledger, port: 39_999).service.announce()
        _ = try await pair.session.backend.registerLightningAddress(name: "buyer", description: "")
        #expect(try await info()["lud16"] as? String == "buyer@127.0.0.1:39999")
    }
}
