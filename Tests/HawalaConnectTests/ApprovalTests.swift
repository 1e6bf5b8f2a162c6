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
    func connection(_ pair: DevnetPair, above: Sats?, wait: Int = 10, name: String = "careful") throws -> AppConnection {
        var request = NewConnection(name: name, permissions: [.pay], budget: 50_000, renewal: .daily, relays: ["ws://127.0.0.1:7777"])
        request.approveAbove = above
        request.approvalWait = wait
        return try pair.store.addConnection(request, wallet: pair.wallet, keyring: pair.keyring).0
    }

    /// The first payment waiting for approval that is not one of `known`.
    func waitingApproval(_ store: WalletStore, after known: Set<String> = []) async throws -> PaymentApproval {
        // Patient: the whole suite in parallel can starve this process's tasks for minutes.
        for _ in 0..<1_200 {
            if let found = try store.waitingApprovals().first(where: { !known.contains($0.id) }) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ApprovalError.noSuchApproval
    }

    /// A waiting payment is named by its ID or the start of it (as the list shows it), the same
    /// for every face.
    @Test func anApprovalIsFoundByTheStartOfItsID() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let careful = try connection(pair, above: 1, wait: 900)
        let asked = try pair.store.askApproval(ApprovalQuestion(payee: "node 02ab", amount: Msat(clamping: 5_000_000), fee: .zero, total: Msat(clamping: 5_000_000),
                                                                description: nil, paymentKey: "connect:x:1", paymentHash: nil), connection: careful)
        #expect(try pair.store.paymentApproval(named: asked.id).id == asked.id)
        #expect(try pair.store.paymentApproval(named: " " + asked.id.prefix(8).uppercased()).id == asked.id)
        #expect(throws: ApprovalError.noSuchApproval) { try pair.store.paymentApproval(named: String(asked.id.prefix(3))) }
        #expect(throws: ApprovalError.noSuchApproval) { try pair.store.paymentApproval(named: "ffffffff-nothing") }
        _ = try pair.store.decideApproval(id: asked.id, approve: false)
        #expect(throws: ApprovalError.noSuchApproval) { try pair.store.paymentApproval(named: String(asked.id.prefix(8))) }
        #expect(ApprovalError.ambiguous("1f3a").description == "\"1f3a\" names more than one payment that waits: give more of its ID")
    }

    @Test func approvedDeclinedAndTimedOut() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        // Waits long enough for the test to answer on a busy machine; `hasty` below times out.
        let careful = try connection(pair, above: 2_000, wait: 900)
        #expect(careful.approvalText == "asks your approval above 2,000 sat (waits 15 min)")
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
        let hasty = try connection(pair, above: 2_000, wait: 10, name: "hasty")
        #expect(hasty.approvalText == "asks your approval above 2,000 sat (waits 10 s)")
        let third = Mutex<String?>(nil)
        await #expect(throws: ConnectionPayer.Failure.notApproved("no answer within 10 seconds: nothing was paid")) {
            try await ConnectionPayer.pay(invoice: try await pair.invoice(3_000), amountMsat: nil, requestID: "late", connection: hasty, session: pair.session,
                                          ask: { approval in third.withLock { $0 = approval.id }; return nil })
        }
        #expect(ContinuousClock.now - started >= .seconds(9))
        // Its budget was held while it waited, then given back.
        #expect(throws: ApprovalError.alreadyDecided(.expired)) { try pair.store.decideApproval(id: third.withLock { $0 } ?? "", approve: true) }
        #expect(try pair.store.spending(of: hasty).spent == .zero)
        #expect(try pair.store.spending(of: careful).spent == spent)
        #expect(try pair.store.waitingApprovals().isEmpty)
    }

    /// The program's own client (MCP's form elicitation) may answer; the app's answer, when first, stands.
    @Test func aClientsAnswerDecides() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        // A long wait: the client's answer ends it, however busy the machine.
        let careful = try connection(pair, above: 100, wait: 900)
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

    /// A program's retry of the same invoice waits for no second answer; a connection holds at
    /// most three open at once; revoked while it waits, nothing is paid; a payer gone (its server
    /// stopped) leaves no budget held once its wait is over.
    @Test func retriesRevocationAndAPayerGone() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let careful = try connection(pair, above: 100, wait: 900)
        let invoice = try await pair.invoice(1_000)
        async let first = attempt(invoice, request: "first", careful, pair)
        let asked = try await waitingApproval(pair.store)
        let retry = await attempt(invoice, request: "retry", careful, pair)
        #expect(retry.failure == .notApproved(ApprovalError.alreadyWaiting.description), "\(retry)")
        var others: [Task<Result<Payment, ConnectionPayer.Failure>, Never>] = []
        for n in 0..<2 {
            let other = try await pair.invoice(n == 0 ? 500 : 501)
            others.append(Task { await attempt(other, request: "other-\(n)", careful, pair) })
        }
        for _ in 0..<1_200 where try pair.store.waitingApprovals().count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        let fourth = await attempt(try await pair.invoice(700), request: "fourth", careful, pair)
        #expect(fourth.failure == .notApproved(ApprovalError.tooManyWaiting(3).description), "\(fourth)")
        // Revoked while they wait: every one ends, nothing paid, nothing held.
        let before = try await pair.session.balance().info.balanceMsat
        try pair.store.revokeConnection(careful)
        #expect(await first.failure == .refused(.revoked), "the first wait ended")
        for other in others { #expect(await other.value.failure != nil) }
        #expect(try pair.store.paymentApproval(id: asked.id)?.state == .expired)
        #expect(try await pair.session.balance().info.balanceMsat == before)
        #expect(try pair.store.spending(of: careful).spent == .zero)

        // A payer gone while it waited: the budget it held is given back once the wait is over.
        let other = try connection(pair, above: 100, wait: 10, name: "gone")
        let key = "connect:\(other.id):lost"
        #expect(try pair.store.reserveSpending(other, paymentKey: key, amount: 1_000_000, total: 1_002_000) == .reserved)
        let lost = try pair.store.askApproval(ApprovalQuestion(payee: "node x", amount: 1_000_000, fee: 2_000, total: 1_002_000, description: nil,
                                                               paymentKey: key, paymentHash: nil), connection: other)
        #expect(try pair.store.spending(of: other).spent == Msat(clamping: 1_002_000))
        try pair.store.releaseAbandonedApprovals(now: lost.expiresAt.addingTimeInterval(1))
        #expect(try pair.store.spending(of: other).spent == .zero, "given back")
        // Approved, and no payment under its key long after: its payer is gone too.
        let key2 = "connect:\(other.id):lost-2"
        #expect(try pair.store.reserveSpending(other, paymentKey: key2, amount: 1_000_000, total: 1_002_000) == .reserved)
        let approved = try pair.store.askApproval(ApprovalQuestion(payee: "node x", amount: 1_000_000, fee: 2_000, total: 1_002_000, description: nil,
                                                                   paymentKey: key2, paymentHash: nil), connection: other)
        _ = try pair.store.decideApproval(id: approved.id, approve: true)
        try pair.store.releaseAbandonedApprovals(now: approved.expiresAt.addingTimeInterval(60))
        #expect(try pair.store.spending(of: other).spent == Msat(clamping: 1_002_000), "its payer may still be paying")
        try pair.store.releaseAbandonedApprovals(now: approved.expiresAt.addingTimeInterval(3_600))
        #expect(try pair.store.spending(of: other).spent == .zero)
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
