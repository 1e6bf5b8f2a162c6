import Foundation
@testable import HawalaApp
import HawalaConnect
import HawalaDevnet
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// Issue 50, item 3: a program's payment above its connection's threshold is shown on every
/// page and on Approvals; Approve pays it, Decline pays nothing; an answer given twice is refused.
extension AppSecurityTests {
    @Test func aProgramsPaymentIsApprovedOrDeclinedFromTheApp() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "20,000"]).status == 200)
            let store = try WalletStore(home: app.home, create: false)
            let wallet = try #require(try store.current())
            let keyring = try store.unlock(password: password("correct horse"))
            var request = NewConnection(name: "render-agent", permissions: [.pay], budget: 10_000, renewal: .daily, relays: ["ws://127.0.0.1:7447"])
            request.approveAbove = 1_000
            request.approvalWait = 900  // answered by the test, however busy the machine
            let connection = try store.addConnection(request, wallet: wallet, keyring: keyring).0
            let mine = try await LightningSession.open(store: store, wallet: wallet, signing: true, backends: .devnet) { keyring }
            let other = try await OtherNode(ledger: ledger).session()
            func payment(_ sats: Sats, _ id: String) async throws -> Task<Result<Payment, ConnectionPayer.Failure>, Never> {
                let invoice = try await other.receive(ReceiveRequest(amountSats: sats, description: "job \(id)")).response.invoice
                return Task {
                    do { return .success(try await ConnectionPayer.pay(invoice: invoice, amountMsat: nil, requestID: id, connection: connection, session: mine)) }
                    catch { return .failure(error as? ConnectionPayer.Failure ?? .paymentFailed("\(error)")) }
                }
            }
            func waiting() async throws -> PaymentApproval {
                for _ in 0..<1_200 {  // patient: the whole suite can starve this process's tasks
                    if let first = try store.waitingApprovals().first { return first }
                    try await Task.sleep(for: .milliseconds(50))
                }
                throw ApprovalError.noSuchApproval
            }
            let approved = try await payment(2_500, "a")
            let asked = try await waiting()
            let home = try await browser.send(.get, "/").body
            #expect(home.contains("A program asks you to approve a payment.") && home.contains(#"<a href="/approvals">Review it</a>"#), "\(home.prefix(3000))")
            let page = try await browser.send(.get, "/approvals").body
            #expect(page.contains("render-agent asks to pay") && page.contains("2,500 sat") && page.contains("job a") && page.contains(">Approve</button>"), "\(page.suffix(3000))")
            #expect(!page.contains("approvals-banner"), "no notice on the page that answers it")
            let yes = try await browser.send(.post, "/approvals/decide", form: ["csrf": csrf, "id": asked.id, "answer": "approve"])
            #expect(yes.status == 303 && (yes.headers.first { $0.0.lowercased() == "location" }?.1 == "/approvals?answered=" + asked.id), "\(yes.status)")
            let told = try await browser.send(.get, "/approvals?answered=" + asked.id).body
            #expect(told.contains("Approved: render-agent’s payment of"), "\(told.suffix(2000))")
            #expect(try await approved.value.get().status == .completed)
            // The link a program's client opens (MCP's URL-mode elicitation) says how it ended.
            let linked = try await browser.send(.get, "/approvals/" + asked.id).body
            #expect(linked.contains("Approved: render-agent") && linked.contains("No payment waits for your approval."))
            // Answered once: a second answer is refused, in words.
            let twice = try await browser.send(.post, "/approvals/decide", form: ["csrf": csrf, "id": asked.id, "answer": "decline"])
            #expect(twice.status == 409 && twice.body.contains("This payment was approved already"), "\(twice.status)")

            let declined = try await payment(3_000, "b")
            let second = try await waiting()
            let before = try await mine.backend.getInfo().balanceMsat
            let no = try await browser.send(.post, "/approvals/decide", form: ["csrf": csrf, "id": second.id, "answer": "decline"])
            #expect(no.status == 303)
            #expect(try await browser.send(.get, "/approvals?answered=" + second.id).body.contains("Declined: render-agent’s payment of"))
            if case .failure(let failure) = await declined.value { #expect(failure == .notApproved("the person declined: nothing was paid")) } else { Issue.record("paid") }
            #expect(try await mine.backend.getInfo().balanceMsat == before, "nothing paid")
            #expect(try await browser.send(.get, "/approvals/not-an-id").status == 404)
            // Locked: no answer is taken without the password (the app asks for it first).
            let third = try await payment(1_500, "c")
            let pending = try await waiting()
            #expect(try await browser.send(.post, "/lock", form: ["csrf": csrf, "next": "/approvals"]).status == 303)
            let locked = try await browser.send(.post, "/approvals/decide", form: ["csrf": csrf, "id": pending.id, "answer": "approve"])
            #expect([303, 401].contains(locked.status) && !locked.body.contains("Approved:"), "\(locked.status)")
            #expect(try store.paymentApproval(id: pending.id)?.state == .waiting)
            _ = try store.decideApproval(id: pending.id, approve: false)
            _ = await third.value
            await mine.close()
            await other.close()
        }
    }
}
