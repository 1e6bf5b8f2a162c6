import Foundation
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird

/// Bitcoin on-chain around Lightning: a withdrawal to an address (each speed priced, then the
/// password), the deposits on the Lightning page (a stranded one claimed under the network's
/// rate), and the way out without the operators (`/lightning/exit`). The library decides;
/// these pages show its figures and words.
struct OnChainController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletForms.post("/lightning/pay-onchain") { _, context in try await confirmOnChain(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/deposits/claim") { _, context in try await claimDeposit(context.session, context.form, context.open) }
        router.walletPages.get("/lightning/exit") { _, context in try await exitView(context.session, context.open) }
        router.walletForms.post("/lightning/exit/review") { _, context in try await reviewExit(context.session, context.form, context.open) }
        router.walletForms.post("/lightning/exit") { _, context in try await runExit(context.session, context.form, context.open) }
    }
}

/// The onchain area's handlers: each reads the request, asks the library and renders.
extension OnChainController {
    // MARK: - A withdrawal

    /// The speed chosen and the password: the withdrawal, sent once.
    func confirmOnChain(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        guard let pending = session.onChain else { return AppResponse.redirect("/send") }
        let speed = form.text("speed").flatMap(OnChainSpeed.init(rawValue:))
        guard let speed, pending.quote.option(speed)?.affordable == true else {
            return try await onChainPreview(session, pending.quote, status: .badRequest, problem: "Choose a speed the balance covers.")
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await onChainPreview(session, pending.quote, chosen: speed, status: status, problem: problem)
        }
        guard await app.sessions.update(session.id, { s -> Bool in
            let taken = s.onChain != nil
            s.onChain = nil
            return taken
        }) == true else { return AppResponse.redirect("/send") }
        let (store, wallet) = (open.store, open.wallet)
        guard wallet.id == pending.walletID else {
            return try render(.conflict, "message", Page(title: "Not sent", session: session, overview: try await app.store.overview(),
                                                          message: "The current wallet changed since the preview: nothing was sent."))
        }
        do {
            let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
            let sent = try await lightning.lightning.sendOnChain(pending.quote, speed: speed, idempotencyKey: pending.key)
            let headline = switch sent.status {
            case .failed: "Not sent"
            case .pending where sent.details.txid == nil: "No answer yet: it may have gone out, and the history will say once it syncs"
            default: "Sent: waiting for confirmation"
            }
            return try await paymentResult(session, sent, headline: headline)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try render(.badRequest, "message", Page(title: "Not sent", session: session, overview: try await app.store.overview(), message: words))
        }
    }

    // MARK: - Deposits

    /// Claims a deposit left unclaimed, under the network's rate (+1 sat/vB) this once.
    func claimDeposit(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let keyring = open.keyring
        do {
            let (txid, vout) = try Deposit.outpoint(form.text("outpoint") ?? "")
            let opened = try await lightningSession(session, open.store, open.wallet, keyring: keyring)
            let deposit = try await opened.backend.claimDeposit(txid: txid, vout: vout, policy: .default)
            if case .claimed = deposit.state {
                return try await lightning(session, open, message: "The deposit of \(AmountText.sats(deposit.amountSat)) is \(deposit.stateText).")
            }
            return try await lightning(session, open, status: .conflict, problem: "The deposit is still \(deposit.stateText).")
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await lightning(session, open, status: .badRequest, problem: words)
        }
    }

    // MARK: - Leaving without the operators

    /// The way out: what the kept state allows now, the plan under review, or the transactions built.
    func exitView(_ session: AppSessions.Session, _ open: OpenWallet, destination: String = "", feeRate: String = "",
                  status: HTTPResponse.Status = .ok, problem: String? = nil, review: ExitPlan? = nil,
                  transactions: [ExitTransaction]? = nil) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        guard try LightningSettings.load(store: store, walletID: wallet.id).backend != nil else { return AppResponse.redirect("/lightning") }
        var page = Page(title: "Leave without the operators", session: session, overview: try await app.store.overview(), problem: problem)
        let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
        // An address typed wrong is the field's problem: the answer stays the wallet's own.
        let typed = destination.trimmed
        let usable = !typed.isEmpty && (try? lightning.backend.network.checkBitcoinAddress(typed)) != nil
        let check = await lightning.exitCheck(destination: usable ? typed : nil)
        page.exit = ExitView(check: check, network: lightning.spec.networkName, destination: destination, feeRate: feeRate,
                             review: review, transactions: transactions, timeZone: session.timeZone)
        return try render(status, "exit", page)
    }

    /// Step 1: the exit planned at the rate and to the address typed (nothing is done); the
    /// password then leaves with exactly this plan.
    func reviewExit(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let (keyring, store, wallet) = (open.keyring, open.store, open.wallet)
        let destination = (form.text("to") ?? "").trimmed, feeText = (form.text("feeRate") ?? "").trimmed
        func refuse(_ status: HTTPResponse.Status, _ problem: String) async throws -> Response {
            try await exitView(session, open, destination: destination, feeRate: feeText, status: status, problem: problem)
        }
        var feeRate: UInt64?
        if !feeText.isEmpty {
            guard let rate = UInt64(feeText) else { return try await refuse(.badRequest, PaymentLimit.feeRate.description.sentence) }
            feeRate = rate
        }
        do {
            let lightning = try await lightningSession(session, store, wallet, keyring: keyring)
            let plan = try await lightning.prepareExit(satPerVbyte: feeRate, destination: destination.isEmpty ? nil : destination)
            if let refusal = plan.refusal { return try await refuse(.conflict, refusal.description.sentence) }
            await app.sessions.update(session.id) { $0.exitPlan = AppSessions.PendingExit(walletID: wallet.id, plan: plan) }
            return try await exitView(session, open, destination: plan.destination, feeRate: feeText, review: plan)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await refuse(.badRequest, words.sentence)
        }
    }

    /// Step 2: the password, then the exit reviewed: its transactions, in broadcast order.
    func runExit(_ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        guard let pending = session.exitPlan else { return AppResponse.redirect("/lightning/exit") }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem):
            return try await exitView(session, open, destination: pending.plan.destination, status: status, problem: problem, review: pending.plan)
        }
        // Taken once: a second submission finds nothing to run.
        guard await app.sessions.update(session.id, { s -> Bool in
            let taken = s.exitPlan != nil
            s.exitPlan = nil
            return taken
        }) == true else { return AppResponse.redirect("/lightning/exit") }
        guard open.wallet.id == pending.walletID else { return AppResponse.redirect("/lightning/exit") }
        do {
            let lightning = try await lightningSession(session, open.store, open.wallet, keyring: keyring)
            let transactions = try await lightning.runExit(pending.plan)
            return try await exitView(session, open, destination: pending.plan.destination, transactions: transactions)
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            return try await exitView(session, open, destination: pending.plan.destination, status: .badRequest, problem: words.sentence)
        }
    }
}

/// The withdrawal's preview: where to, and each speed's figures to choose from.
struct OnChainSendView {
    struct Speed { let value: String, title: String, detail: String, checked: Bool, disabled: Bool }
    let address: String
    let speeds: [Speed]
    let everything: Bool
    /// Some speed is covered by the balance (otherwise no password is asked).
    let anyAffordable: Bool
    /// Why none is, in the library's words.
    let refusal: String?

    init(_ quote: OnChainQuote, chosen: OnChainSpeed?) {
        address = quote.address
        everything = quote.amount == .all
        anyAffordable = quote.options.contains { $0.affordable }
        // The slow speed is the cheapest: when even it is refused, its reason is the page's.
        do {
            _ = try quote.affordable(.slow)
            refusal = nil
        } catch {
            refusal = error.description.sentence
        }
        let rows = Dictionary(uniqueKeysWithValues: quote.previewRows().map { ($0.label, $0.value) })
        let preferred = chosen ?? (anyAffordable ? quote.defaultSpeed : nil)
        speeds = quote.options.map { o in
            Speed(value: o.speed.rawValue, title: o.speed.rawValue.capitalized, detail: rows[o.speed.rawValue] ?? "",
                  checked: o.speed == preferred, disabled: !o.affordable)
        }
    }
}

/// One deposit on the Lightning page.
struct DepositRow {
    let amount: String
    let state: String
    let outpoint: String
    /// Stranded by the cap: it may be claimed at the network's rate.
    let claimable: Bool

    init(_ deposit: Deposit) {
        amount = AmountText.sats(deposit.amountSat)
        state = deposit.stateText
        outpoint = deposit.outpoint
        if case .notClaimed(.feeAboveCap) = deposit.state { claimable = true } else { claimable = false }
    }
}

/// "Leave Spark without the operators": the check's answer, the steps, the form.
struct ExitView {
    let headline: String
    let canExit: Bool
    /// The form stays while there is something to take out (a problem with what was typed too).
    var canLeave = false
    let stale: Bool
    let rows: [LabelledRow]
    let network: String
    let destination: String
    let feeRate: String
    let transactions: [Transaction]
    /// The exit was built: the transactions are shown instead of the form.
    let done: Bool
    /// Devnet's exit is already on its chain (its transactions have no hex to broadcast).
    let sent: Bool
    let anyRows: Bool
    struct Transaction { let number: Int, kind: String, txid: String, wait: String, hex: String? }

    /// The exit about to be run, shown before the password.
    let reviewing: Bool
    let reviewRows: [LabelledRow]

    init(check: ExitCheck, network: String, destination: String, feeRate: String, review: ExitPlan?, transactions: [ExitTransaction]?,
         timeZone: TimeZone = .current) {
        reviewing = review != nil && transactions == nil
        reviewRows = LabelledRow.rows(review?.summaryRows ?? [])
        headline = check.headline
        canExit = check.canExit && transactions == nil
        stale = check.isStale
        let rows = (check.kept.map { [("kept state", $0.summary(timeZone: timeZone))] } ?? []) + (check.plan?.summaryRows ?? [])
        self.rows = LabelledRow.rows(rows)
        anyRows = !rows.isEmpty
        done = transactions != nil
        sent = transactions.map { !$0.isEmpty && $0.allSatisfy { $0.hex == nil } } ?? false
        self.network = network
        self.destination = destination.isEmpty ? (check.plan?.destination ?? "") : destination
        canLeave = check.canExit && transactions == nil && review == nil
        self.feeRate = feeRate
        self.transactions = (transactions ?? []).enumerated().map { n, tx in
            Transaction(number: n + 1, kind: tx.kind, txid: tx.txid, wait: tx.waitBlocks.map { $0 > 0 ? "after \($0) blocks" : "" } ?? "", hex: tx.hex)
        }
    }
}
