import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet
import Hummingbird
import NIOPosix

/// Creating a wallet and backing up its words: the create form, the seed backup flow
/// (`SeedBackupFlow`: why → the words → the quiz → confirmed, or later), and the words shown or
/// quizzed again after the password.
struct BackupController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/create") { request, context in try await createPage(request, context.session) }
        router.forms.post("/create") { _, context in try await create(context.session, context.form) }
        router.pages.get("/backup") { request, context in try await backupPage(request, context.session) }
        router.forms.post("/backup") { _, context in try await backupStep(context.session, context.form) }
        router.unlockedPages.get("/words") { request, context in try await wordsPasswordPage(request, context.session) }
        router.unlockedForms.post("/words") { _, context in try await openWords(context.session, context.form) }
    }
}

/// The backup area's handlers: each reads the request, asks the library and renders.
extension BackupController {


    func createPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "New wallet", session: session, overview: overview)
        if let refill = await app.sessions.takeInterrupted(session.id, page: "/create") {
            page.create = CreateView(needsPassword: !overview.hasPassword, wordCount: Int(refill.value("words")) ?? WalletStore.newWordCounts[0],
                                     network: Network(rawValue: refill.value("network")) ?? .mainnet, name: refill.value("name"))
            page.message = "The app locked itself: here is what you had chosen (passwords are never kept). Check it, then go on."
        } else {
            page.create = CreateView(needsPassword: !overview.hasPassword)
        }
        return try render(.ok, "create", page)
    }

    /// New words, saved at once as *not backed up*; the backup flow starts. A first wallet sets
    /// the wallet password, and that is the login.
    func create(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let store = try await app.store.get(create: true)
        let first = try !store.hasPassword()
        let asked = form.text("words")
        let network = form.text("network").flatMap(Network.init(rawValue:)) ?? .mainnet
        let name = form.text("name")?.trimmingCharacters(in: .whitespaces) ?? ""
        /// The form again, what was typed kept (never a password), the problem next to `field`.
        func again(_ problem: String, at field: CreateView.Field? = nil) async throws -> Response {
            var page = Page(title: "New wallet", session: session, overview: try await app.store.overview(), problem: field == nil ? problem : nil)
            var view = CreateView(needsPassword: first, wordCount: asked.flatMap(Int.init) ?? WalletStore.newWordCounts[0], network: network, name: name)
            switch field {
            case .name?: view.nameProblem = problem
            case .words?: view.wordsProblem = problem
            case .passphrase?: view.passphraseProblem = problem
            case .password?: view.passwordProblem = problem
            case nil: break
            }
            page.create = view
            return try render(.badRequest, "create", page)
        }
        let wordCount: Int
        do {
            // A field that says no number is a wrong number, not the default.
            wordCount = try WalletStore.checkNewWordCount(asked.map { Int($0) ?? -1 })
        } catch {
            return try await again(error.description.sentence, at: .words)
        }
        // A mistyped passphrase makes another wallet, and the quiz checks only the words.
        let passphrase = form.secret("passphrase") ?? SecretBytes([])
        guard passphrase == form.secret("passphraseRepeat") ?? SecretBytes([]) else {
            return try await again("The two passphrases differ. Type the same passphrase twice, or leave both empty.", at: .passphrase)
        }
        let keyring: Keyring
        switch try await keyringForChange(session, form, store: store) {
        case .keyring(let chosen): keyring = chosen
        case .problem(let problem): return try await again(problem, at: .password)
        case .locked: return AppResponse.toUnlock()
        }
        let created: (wallet: WalletSummary, backup: SeedBackupFlow)
        do {
            // New words, their seed and every chain's first addresses: off the cooperative pool.
            created = try await NIOThreadPool.singleton.runIfActive {
                try store.create(wordCount: wordCount, passphrase: passphrase, name: name.isEmpty ? nil : name, network: network, keyring: keyring)
            }
        } catch let error as WalletError {
            return try await again(error.description.sentence, at: .name)
        }
        var current = session
        if first {
            guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
            current = unlocked
        }
        let task = AppSessions.BackupTask(subject: .wallet(created.wallet), flow: created.backup, wordsHideAt: await wordsDeadline())
        await app.sessions.update(current.id) { $0.backup = task }
        return AppResponse.redirect("/backup", cookie: first ? current.id : nil)
    }

    func backupPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        guard let task = session.backup else { return AppResponse.redirect("/") }
        let now = await app.sessions.time()
        if case .showingWords = task.flow.state, now >= task.wordsHideAt {
            await app.sessions.update(session.id) { $0.backup = nil }
            guard case .wallet(let wallet) = task.subject else {
                // A new recovery phrase is kept nowhere: hidden before its quiz, it is gone.
                return try await vault(session, problem: "The recovery phrase was hidden after \(Int(AppRoutes.wordsShownFor / 60)) minutes, before it was checked. Nothing was uploaded; start again.")
            }
            var page = Page(title: "Words hidden", session: session, overview: try await app.store.overview(),
                            message: "The words were hidden after \(Int(AppRoutes.wordsShownFor / 60)) minutes. Your password shows them again.")
            page.secretWords = SecretWordsView(wallet: wallet.name, purpose: wallet.backup.isBackedUp ? "show" : "backup")
            return try render(.ok, "words-password", page)
        }
        let view = BackupView(task: task, now: now)
        var page = Page(title: view.heading, session: session, overview: try await app.store.overview())
        page.backup = view
        page.refreshSeconds = page.backup?.refreshSeconds
        return try render(.ok, "backup", page)
    }

    /// One step of the backup flow; at the end the backup is recorded (or left for later).
    func backupStep(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let event: SeedBackupFlow.Event? = switch form.text("event") {
        case "proceed": .proceed
        case "skip": .skip
        case "answer": .answer(form.text("answer") ?? "")
        case "retry": .retry
        case "words": .showWordsAgain
        case "confirm": .confirm
        default: nil
        }
        guard let event else { return AppResponse.plain(.badRequest, "unknown step") }
        let deadline = await wordsDeadline()
        let task = await app.sessions.update(session.id) { session -> AppSessions.BackupTask? in
            guard var task = session.backup else { return nil }
            let before = task.flow.state
            task.flow.send(event)
            // The words are shown anew: their time on screen starts now.
            if task.flow.state == .showingWords && before != .showingWords { task.wordsHideAt = deadline }
            session.backup = task
            return task
        }
        guard let task = task ?? nil else { return AppResponse.redirect("/") }
        switch (task.flow.state, task.subject) {
        case (.backedUp, .wallet(let wallet)):
            try await app.store.get().finishBackup(task.flow, of: wallet)
            await app.sessions.update(session.id) { $0.backup = nil }
            return AppResponse.redirect("/")
        case (.backedUp, .vaultCredential(let credential, let phrase)):
            await app.sessions.update(session.id) { $0.backup = nil }
            return try await uploadCredential(session, credential, phrase: phrase)
        case (.skipped, .wallet):
            await app.sessions.update(session.id) { $0.backup = nil }
            return AppResponse.redirect("/")
        case (.skipped, .vaultCredential):
            await app.sessions.update(session.id) { $0.backup = nil }
            return try await vault(session, message: "Cancelled: nothing was uploaded, and the recovery phrase is forgotten.")
        default:
            return AppResponse.redirect("/backup")
        }
    }

    /// The password form before the words are shown or quizzed again.
    func wordsPasswordPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        let name = request.uri.queryParameters["wallet"].map(String.init) ?? ""
        let view = SecretWordsView(wallet: name, purpose: request.uri.queryParameters["purpose"].map(String.init) ?? "")
        var page = Page(title: view.title, session: session, overview: try await app.store.overview())
        page.secretWords = view
        return try render(.ok, "words-password", page)
    }

    /// The password again, then the words (shown) or the quiz (verify).
    func openWords(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let name = form.text("wallet") ?? ""
        let purpose = SecretWordsView(wallet: name, purpose: form.text("purpose") ?? "").purpose
        func again(_ status: HTTPResponse.Status, _ problem: String) async throws -> Response {
            var page = Page(title: "The password again", session: session, overview: try await app.store.overview(), problem: problem)
            page.secretWords = SecretWordsView(wallet: name, purpose: purpose)
            return try render(status, "words-password", page)
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await again(status, problem)
        }
        let store = try await app.store.get()
        let wallet: WalletSummary
        let mnemonic: Mnemonic
        do {
            wallet = try store.walletWithWords(named: name)
            mnemonic = try store.secrets(of: wallet, keyring: keyring).mnemonic
        } catch let error as WalletError {
            return try await again(.badRequest, error.description)
        }
        let flow = SeedBackupFlow(mnemonic: mnemonic, start: purpose == "show" ? .words : purpose == "backup" ? .intro : .quiz)
        let task = AppSessions.BackupTask(subject: .wallet(wallet), flow: flow, wordsHideAt: await wordsDeadline())
        await app.sessions.update(session.id) { $0.backup = task }
        return AppResponse.redirect("/backup")
    }




}

/// Shared by every area's handlers.
extension AppRoutes {
    /// How long the words stay on screen before they hide (the password shows them again).
    static let wordsShownFor: TimeInterval = 300
    /// The wallet password from `form`, checked (rate-limited like the login, Argon2id off the
    /// event loops).
    /// The wallet password typed in `form`, checked under the one limit every form shares
    /// (`PasswordTries`: a wrong one at Pay counts as at the unlock): how many tries are left
    /// after a wrong one, and until when to wait after too many.
    func checkPassword(_ form: FormBody, _ session: AppSessions.Session) async throws -> PasswordCheck {
        guard let password = form.secret("password"), !password.isEmpty else { return .refused(.badRequest, "Type the wallet password.") }
        let (start, words) = await app.sessions.startPasswordTry()
        switch start {
        case .wait(let until):
            return .refused(.tooManyRequests, PasswordTries.waitWords(until: until, now: await app.sessions.time(), timeZone: session.timeZone))
        case .check(let passwordTry, let left):
            let store = try await app.store.get()
            do {
                let keyring = try await NIOThreadPool.singleton.runIfActive { try store.unlock(password: password) }
                await app.sessions.passwordWasRight(passwordTry)
                return .opened(keyring)
            } catch WalletError.wrongPassword {
                return .refused(.unauthorized, words.wrongWords(left: left))
            }
        }
    }

    /// What typing the password again gave.
    enum PasswordCheck {
        case opened(Keyring)
        case refused(HTTPResponse.Status, String)
    }

    func wordsDeadline() async -> Date {
        await app.sessions.time().addingTimeInterval(AppRoutes.wordsShownFor)
    }
}
