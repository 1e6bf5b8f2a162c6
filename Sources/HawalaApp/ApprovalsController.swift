import Foundation
import HawalaConnect
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird

/// Approvals: the programs' payments that wait for the person's yes (`PaymentApprovals.swift`
/// holds the rule; `ConnectionPayer` waits on it). Behind the unlocked session: approving needs
/// the password or an unlocked app.
struct ApprovalsController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/approvals") { _, context in try await approvals(context.session, context.open) }
        router.walletPages.get("/approvals/:id") { _, context in
            try await approvals(context.session, context.open, only: context.parameters.get("id") ?? "")
        }
        router.walletForms.post("/approvals/decide") { _, context in try await decide(context.session, context.form, context.open) }
    }
}

extension ApprovalsController {
    /// The waiting payments (or the one a program's client linked to, and how it ended if it did).
    func approvals(_ session: AppSessions.Session, _ open: OpenWallet, only id: String? = nil, status: HTTPResponse.Status = .ok,
                   problem: String? = nil, message: String? = nil) async throws -> Response {
        let now = await app.sessions.time()
        var waiting = try open.store.waitingApprovals(now: now)
        var message = message
        if let id, !id.isEmpty {
            guard let linked = try open.store.paymentApproval(id: String(id.prefix(64))) else { throw HTTPError(.notFound) }
            waiting = waiting.filter { $0.id == linked.id }
            if !linked.isWaiting(at: now) { message = message ?? ApprovalsView.ended(linked) }
        }
        var page = Page(title: "Approvals", session: session, overview: try await app.store.overview(), problem: problem, message: message)
        page.approvals = ApprovalsView(waiting.map { ApprovalRow($0, now: now, timeZone: session.timeZone) }, showsAll: id == nil)
        return try render(status, "approvals", page)
    }

    /// Approve or Decline: decided once, in the store, where the paying program waits for it.
    func decide(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let id = String((form.text("id") ?? "").prefix(64))
        let approve = form.text("answer") == "approve"
        do {
            let decided = try open.store.decideApproval(id: id, approve: approve, now: await app.sessions.time())
            return try await approvals(session, open, message: ApprovalsView.ended(decided))
        } catch let error as ApprovalError {
            return try await approvals(session, open, status: .conflict, problem: error.description.capitalizedFirst + ".")
        }
    }
}

/// One payment waiting: which program asks, to whom, amount, fee and total, and until when.
struct ApprovalRow {
    let id: String
    let program: String
    let payee: String
    let amount: String
    let fee: String
    let total: String
    let description: String?
    let waitsUntil: String

    init(_ approval: PaymentApproval, now: Date, timeZone: TimeZone) {
        id = approval.id
        program = approval.program
        payee = approval.payee
        amount = AmountText.sats(approval.amount, rounding: .up)
        fee = AmountText.sats(approval.fee, rounding: .up)
        total = AmountText.sats(approval.total, rounding: .up)
        description = approval.description.flatMap { $0.isEmpty ? nil : DisplayText.safe(TextLimit.prefix($0, scalars: 200)) }
        waitsUntil = approval.expiresAt.relative(now: now, timeZone: timeZone)
    }
}

/// The Approvals screen.
struct ApprovalsView {
    let rows: [ApprovalRow]
    let anyRows: Bool
    /// The whole list (not one payment a program's client linked to).
    let showsAll: Bool

    init(_ rows: [ApprovalRow], showsAll: Bool) {
        self.rows = rows
        anyRows = !rows.isEmpty
        self.showsAll = showsAll
    }

    /// How an approval ended, in words.
    static func ended(_ approval: PaymentApproval) -> String {
        let what = "\(approval.program)’s payment of \(AmountText.sats(approval.total, rounding: .up)) to \(approval.payee)"
        return switch approval.state {
        case .approved: "Approved: \(what) is being sent."
        case .declined: "Declined: \(what) is not made."
        case .expired, .waiting: "No answer in time: \(what) was not made."
        }
    }
}
