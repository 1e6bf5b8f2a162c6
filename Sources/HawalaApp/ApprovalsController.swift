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
        router.walletPages.get("/approvals") { request, context in
            // After an answer (its form redirects here): the page says how it went.
            try await approvals(context.session, context.open, answered: request.uri.queryParameters["answered"].map(String.init))
        }
        router.walletPages.get("/approvals/:id") { _, context in
            try await approvals(context.session, context.open, only: context.parameters.get("id") ?? "")
        }
        router.walletForms.post("/approvals/decide") { _, context in try await decide(context.session, context.form, context.open) }
    }
}

extension ApprovalsController {
    /// The waiting payments (or the one a program's client linked to, and how it ended if it did).
    func approvals(_ session: AppSessions.Session, _ open: OpenWallet, only id: String? = nil, answered: String? = nil, status: HTTPResponse.Status = .ok,
                   problem: String? = nil) async throws -> Response {
        let now = await app.sessions.time()
        var waiting = try open.store.waitingApprovals(now: now)
        var message: String?
        if let answered, let decided = try open.store.paymentApproval(id: String(answered.prefix(64))), decided.state != .waiting {
            message = ApprovalsView.ended(decided)
        }
        if let id, !id.isEmpty {
            guard let linked = try open.store.paymentApproval(id: String(id.prefix(64))) else { throw HTTPError(.notFound) }
            waiting = waiting.filter { $0.id == linked.id }
            if !linked.isWaiting(at: now) { message = message ?? ApprovalsView.ended(linked) }
        }
        let overview = try await app.store.overview()
        // Which wallet pays, when there is more than one.
        let walletNames = overview.wallets.count > 1 ? Dictionary(overview.wallets.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first }) : [:]
        var page = Page(title: "Approvals", session: session, overview: overview, problem: problem, message: message)
        page.approvals = ApprovalsView(waiting.map { ApprovalRow($0, wallet: walletNames[$0.walletID], now: now, timeZone: session.timeZone) }, showsAll: id == nil)
        return try render(status, "approvals", page)
    }

    /// Approve or Decline: decided once, in the store, where the paying program waits for it.
    func decide(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let id = String((form.text("id") ?? "").prefix(64))
        let approve = form.text("answer") == "approve"
        do {
            let decided = try open.store.decideApproval(id: id, approve: approve, now: await app.sessions.time())
            return AppResponse.redirect("/approvals?answered=" + decided.id)
        } catch let error as ApprovalError {
            return try await approvals(session, open, status: .conflict, problem: error.description.capitalizedFirst + ".")
        }
    }
}

/// One payment waiting: which program asks, to whom, amount, fee and total, and until when.
struct ApprovalRow {
    let id: String
    let program: String
    /// The wallet that pays, shown when the app holds more than one (a stored Bool: Mustache
    /// looks an absent value up in the page around it).
    let walletName: String
    let showsWallet: Bool
    let payee: String
    let amount: String
    let fee: String
    let total: String
    let description: String?
    let waitsUntil: String

    init(_ approval: PaymentApproval, wallet: String?, now: Date, timeZone: TimeZone) {
        id = approval.id
        program = approval.program
        walletName = wallet ?? ""
        showsWallet = wallet != nil
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
        case .approved: "Approved: \(what) may be made; the history shows how it goes."
        case .declined: "Declined: \(what) is not made."
        case .expired, .waiting: "Not answered in time: \(what) was not made."
        }
    }
}
