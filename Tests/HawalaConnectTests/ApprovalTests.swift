import Foundation
@testable import HawalaConnect
import HawalaDevnet
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Synchronization
import Testing

@Suite("Approval in the app: a payment above the threshold waits for the person's yes")
struct ApprovalTests {
    func connection(_ pair: DevnetPair, above: Sats?, wait: Int = 10) throws -> AppConnection {
        var request = NewConnection(name: "careful", permissions: [.pay], budget: 50_000, renewal: .daily, relays: ["ws://127.0.0.1:7777"])
        request.approveAbove = above
        request.approvalWait = wait
        return try pair.store.addConnection(request, wallet: pair.wallet, keyring: pair.keyring).0
    }

    /// The first payment waiting for approval that is not one of `known`.
    func waitingApproval(_ store: WalletStore, after known: Set<String> = []) async throws -> PaymentApproval {
        for _ in 0..<100 {
            if let found = try store.waitingApprovals().first(where: { !known.contains($0.id) }) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ApprovalError.noSuchApproval
    }

    @Test func approvedDeclinedAndTimedOut() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let careful = try connection(pair, above: 2_000)
        #expect(careful.approvalText == "asks your approval above 2,000 sat (waits 10 s)")
        // Over its budget: refused before anyone is asked.
        #expect(await attempt(try await pair.invoice(60_000), request: "over", careful, pair).failure.map { "\($0)" }?.contains("budget") == true)
        #expect(try pair.store.waitingApprovals().isEmpty)
        // Below the threshold: paid at once, nothing asked.
        #expect(try await attempt(try await pair.invoice(1_500), request: "small", careful, pair).get().status == .completed)
        #expect(try pair.store.waitingApprovals().isEmpty)

        // Above: it waits; the figures the person sees are the prepared payment's.
        let before = try await pair.session.balance().info.balanceMsat
        let invoice = try await pair.invoice(5_000)
        async let approved = attempt(invoice, request: "big", careful, pair)
        let asked = try await waitingApproval(pair.store)
        #expect(asked.program == "careful" && asked.amount == Msat(clamping: 5_000_000) && asked.total >= asked.amount && asked.payee.hasPrefix("node "))
        #expect(ConnectionPayer.question(asked).hasPrefix("Pay 5,000 sat to node "))
        #expect(try await pair.session.balance().info.balanceMsat == before, "nothing sent while it waits")
        #expect(try pair.store.spending(of: careful).spent >= Msat(clamping: 1_500_000 + 5_000_000), "its budget held while it waits")
        _ = try pair.store.decideApproval(id: asked.id, approve: true)
        #expect(try await approved.get().status == .completed)
        // Decided once: the app and a program's client can't both answer.
        #expect(throws: ApprovalError.alreadyDecided(.approved)) { try pair.store.decideApproval(id: asked.id, approve: false) }

        // Declined: nothing paid, the budget untouched.
        let spent = try pair.store.spending(of: careful).spent
        let refused = try await pair.invoice(3_000)
        async let declined = attempt(refused, request: "declined", careful, pair)
        let second = try await waitingApproval(pair.store, after: [asked.id])
        _ = try pair.store.decideApproval(id: second.id, approve: false)
        #expect(await declined.failure == .notApproved("the person declined: nothing was paid"))
        #expect(try pair.store.spending(of: careful).spent == spent)

        // No answer within its wait: nothing paid, and a late yes is refused.
        let started = ContinuousClock.now
        let third = Mutex<String?>(nil)
        await #expect(throws: ConnectionPayer.Failure.notApproved("no answer within 10 seconds: nothing was paid")) {
            try await ConnectionPayer.pay(invoice: try await pair.invoice(3_000), amountMsat: nil, requestID: "late", connection: careful, session: pair.session,
                                          ask: { approval in third.withLock { $0 = approval.id }; return nil })
        }
        #expect(ContinuousClock.now - started >= .seconds(9))
        // Its budget was held while it waited, then given back.
        #expect(throws: ApprovalError.alreadyDecided(.expired)) { try pair.store.decideApproval(id: third.withLock { $0 } ?? "", approve: true) }
        #expect(try pair.store.spending(of: careful).spent == spent)
        #expect(try pair.store.waitingApprovals().isEmpty)
    }

    /// The program's own client (MCP's form elicitation) may answer; the app's answer, when first, stands.
    @Test func aClientsAnswerDecides() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let careful = try connection(pair, above: 100)
        let asked = Mutex<[PaymentApproval]>([])
        let payment = try await ConnectionPayer.pay(invoice: try await pair.invoice(1_000), amountMsat: nil, requestID: "yes", connection: careful,
                                                    session: pair.session, ask: { approval in asked.withLock { $0.append(approval) }; return true })
        #expect(payment.status == .completed && asked.withLock { $0.count } == 1)
        await #expect(throws: ConnectionPayer.Failure.notApproved("the person declined: nothing was paid")) {
            try await ConnectionPayer.pay(invoice: try await pair.invoice(1_000), amountMsat: nil, requestID: "no", connection: careful, session: pair.session,
                                          ask: { _ in false })
        }
        #expect(try pair.store.paymentApproval(id: asked.withLock { $0[0].id })?.state == .approved)
    }

    @Test func whatPeopleTypeForTheWait() throws {
        #expect(try ConnectionInput.approvalWait("90s") == 90)
        #expect(try ConnectionInput.approvalWait("2m") == 120)
        #expect(try ConnectionInput.approvalWait(" 300 ") == 300)
        for bad in ["5s", "16m", "2h", "", "m", "-1m", "99999999999999999999m"] {
            #expect(throws: ConnectionInput.Error.self, "\(bad)") { try ConnectionInput.approvalWait(bad) }
        }
    }
}
