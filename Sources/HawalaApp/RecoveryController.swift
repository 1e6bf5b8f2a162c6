import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet
import Hummingbird
import NIOPosix

/// Restoring a wallet from its words (`RecoveryFlow`): network → number of words → each word
/// checked as it is typed (or the whole phrase pasted) → passphrase → the first addresses to
/// compare → a name (and, for a first wallet, the wallet password) → saved.
struct RecoveryController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/restore") { request, context in try await recoveryPage(request, context.session) }
        router.forms.post("/restore") { _, context in try await recoveryStep(context.session, context.form) }
    }
}

/// The recovery area's handlers: each reads the request, asks the library and renders.
extension RecoveryController {
    func recoveryPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        let overview = try await app.store.overview()
        let flow = await app.sessions.update(session.id) { session -> RecoveryFlow in
            if session.recovery == nil { session.recovery = RecoveryFlow() }
            return session.recovery!
        } ?? RecoveryFlow()
        return try renderRecovery(.ok, flow, session: session, overview: overview)
    }

    func renderRecovery(_ status: HTTPResponse.Status, _ flow: RecoveryFlow, session: AppSessions.Session,
                        overview: WalletOverview, problem: String? = nil, name: String = "") throws -> Response {
        var page = Page(title: "Restore a wallet", session: session, overview: overview, problem: problem ?? flow.problem?.description)
        var view = RecoveryView(flow: flow, needsPassword: !overview.hasPassword)
        view.name = name
        page.recovery = view
        return try render(status, "restore", page)
    }

    func recoveryStep(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let overview = try await app.store.overview()
        let step = form.text("event") ?? ""
        if step == "save" { return try await saveRecovery(session, form, overview: overview) }
        let event: RecoveryFlow.Event? = switch step {
        case "network": form.text("network").flatMap(Network.init(rawValue:)).map { .network($0) }
        case "count": form.text("words").flatMap(Int.init).map { .wordCount($0) }
        // A pasted phrase is one "word" with spaces: the flow takes it whole.
        case "word", "phrase": .word(form.secret(step) ?? SecretBytes([]))
        case "back": .back
        case "edit": form.text("position").flatMap(Int.init).map { .edit(position: $0) }
        case "passphrase": .passphrase(form.secret("passphrase") ?? SecretBytes([]))
        case "confirm": .confirm
        case "correct": .correct
        case "editPassphrase": .editPassphrase
        case "reject": .reject
        case "cancel": .cancel
        default: nil
        }
        guard let event else { return AppResponse.plain(.badRequest, "unknown step") }
        guard var flow = session.recovery else { return AppResponse.redirect("/restore") }
        // A step may derive the seed and the first addresses: off the sessions actor (which
        // every request goes through) and off the cooperative pool.
        flow = try await NIOThreadPool.singleton.runIfActive { [flow] in
            var stepped = flow
            stepped.send(event)
            return stepped
        }
        let stepped = flow
        await app.sessions.update(session.id) { $0.recovery = stepped.state == .cancelled ? nil : stepped }
        if flow.state == .cancelled { return AppResponse.redirect("/") }
        if case .confirmingAddresses = flow.state {
            // The overwrite guard, before the person confirms anything.
            do { try WalletStore.refuseExisting(flow, in: app.home) } catch let error as WalletError {
                await app.sessions.update(session.id) { $0.recovery = nil }
                return try render(.conflict, "message", Page(title: "Already here", session: session, overview: overview, message: error.description))
            }
        }
        if flow.problem != nil { return try renderRecovery(.badRequest, flow, session: session, overview: overview) }
        return AppResponse.redirect("/restore")
    }

    /// The end: the wallet is saved (backed up: its words were just typed). A first wallet sets
    /// the wallet password, and that is the login.
    func saveRecovery(_ session: AppSessions.Session, _ form: FormBody, overview: WalletOverview) async throws -> Response {
        guard let flow = session.recovery, flow.state == .done else { return AppResponse.redirect("/restore") }
        let name = form.text("name")?.trimmingCharacters(in: .whitespaces) ?? ""
        let store = try await app.store.get(create: true)
        let first = try !store.hasPassword()
        func again(_ problem: String) throws -> Response {
            try renderRecovery(.badRequest, flow, session: session, overview: overview, problem: problem, name: name)
        }
        let keyring: Keyring
        switch try await keyringForChange(session, form, store: store) {
        case .keyring(let chosen): keyring = chosen
        case .problem(let problem): return try again(problem)
        case .locked: return AppResponse.toUnlock()
        }
        do {
            _ = try await NIOThreadPool.singleton.runIfActive { try store.restore(flow, name: name.isEmpty ? nil : name, keyring: { keyring }) }
        } catch let error as WalletError {
            return try again(error.description)
        }
        if first {
            guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
            return AppResponse.redirect("/", cookie: unlocked.id)
        }
        await app.sessions.update(session.id) { $0.recovery = nil }
        return AppResponse.redirect("/")
    }
}
