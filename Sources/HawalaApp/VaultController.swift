import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaVault
import HawalaVaultAgent
import HawalaVaultClient
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// The vault: log in (on a new machine the login also sets the wallet password, so a backup can
/// be restored), back up now, the backups with restore and delete, the automatic-backup schedule
/// and this machine's agent. `VaultClient`, `SavedVaultLogin`, `VaultAgent` and the import plan of
/// the backups page do the work.
struct VaultController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/vault") { request, context in try await vaultPage(request, context.session) }
        router.forms.post("/vault/login") { _, context in try await logInToVault(context.session, context.form) }
        router.unlockedForms.post("/vault/login-words") { _, context in try await logInWithWords(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/bind-words") { _, context in try await bindWords(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/revoke-others") { _, context in try await revokeOtherLogins(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/backup") { _, context in try await backUpToVault(context.session, context.form) }
        router.unlockedForms.post("/vault/restore") { _, context in try await restoreFromVault(context.session, context.form, context.keyring) }
        router.unlockedPages.get("/vault/delete") { request, context in try await deletionPage(request, context.session, context.keyring) }
        router.unlockedForms.post("/vault/delete") { _, context in try await deleteFromVault(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/schedule") { _, context in try await saveSchedule(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/agent") { _, context in try await switchAgent(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/credential") { _, context in try await startCredentialBackup(context.session, context.form, context.keyring) }
        router.unlockedForms.post("/vault/credential/recover") { _, context in try await recoverCredential(context.session, context.form, context.keyring) }
    }
}

/// The vault area's handlers: each reads the request, asks the library and renders.
extension VaultController {
    func vaultPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        return try await vault(session)
    }

    /// The URL and the token are checked against the vault before anything is saved. On a new
    /// machine the password typed twice becomes the wallet password, and the login logs in here.
    func logInToVault(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let url: URL
        let client: VaultClient
        do {
            url = try VaultClient.loginURL(form.text("url")?.trimmed ?? "", allowPlainHTTP: form.text("insecure") == "on")
            guard let token = form.secret("token")?.trimmingWhitespace(), !token.isEmpty else {
                return try await vault(session, status: .badRequest, problem: "Paste the token the vault's operator gave you.")
            }
            client = try await SavedVaultLogin.check(url: url, token: token)
            let store = try await app.store.get(create: true)
            let first = try !store.hasPassword()
            let keyring: Keyring
            switch try await keyringForChange(session, form, store: store) {
            case .keyring(let chosen): keyring = chosen
            case .problem(let problem): return try await vault(session, status: .badRequest, problem: problem)
            case .locked: return AppResponse.toUnlock()
            }
            try SavedVaultLogin.save(client: client, token: token, store: store, keyring: keyring)
            let words = Self.bindingWords(await VaultWordsLogin.bind(client: client, store: store, keyring: keyring))
            guard first else { return try await vault(session, message: "Logged in to \(url.absoluteString)." + words) }
            guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
            return AppResponse.redirect("/vault", cookie: unlocked.id)
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        }
    }

    /// "Back up now": the wallet password again and a backup password typed twice; every wallet
    /// is sealed into one `.hawala` file and uploaded (the vault checks its SHA-256).
    func backUpToVault(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let store = try await app.store.get()
        do {
            try VaultManualBackup.check(store: store)
        } catch VaultClientError.notLoggedIn {
            return AppResponse.redirect("/vault")
        } catch let error as WalletError {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await vault(session, status: status, problem: problem)
        }
        let backupPassword: SecretBytes
        switch checkNewBackupPassword(form) {
        case .accepted(let password): backupPassword = password
        case .refused(let problem): return try await vault(session, status: .badRequest, problem: problem)
        }
        do {
            let (backup, count) = try await VaultManualBackup.run(store: store, keyring: keyring, backupPassword: backupPassword, app: app.options.producer)
            return try await vault(session, message: "Uploaded backup \(backup.id.prefix(8)): \(count) wallet\(count == 1 ? "" : "s"), \(AppRoutes.sizeText(backup.sizeBytes)).")
        } catch let error as VaultClientError {
            return try await vault(session, status: .badGateway, problem: Self.vaultWords(error))
        } catch let error as WalletError {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        }
    }

    /// A backup downloaded (its SHA-256 checked), decrypted in memory and shown as the import
    /// preview of the backups page: nothing is written before "Import".
    func restoreFromVault(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        guard let password = form.secret("backupPassword"), !password.isEmpty else {
            return try await vault(session, status: .badRequest, problem: "Type the backup's password.")
        }
        let store = try await app.store.get()
        do {
            let id = try await client.backupID(form.text("id") ?? "")
            let data = try await client.download(id, limit: app.options.maximumBackupBytes)
            let plan = try await NIOThreadPool.singleton.runIfActive {
                let payload = try BackupPayload.decode(try BackupFile.read(data, password: password))
                return try BackupImportPlan(payload: payload, store: store)
            }
            let source = "vault backup \(id.prefix(8))"
            await app.sessions.update(session.id) { $0.importing = AppSessions.ImportTask(plan: plan, source: source) }
            return try await importPreview(session, plan: plan, source: source)
        } catch let error as VaultClientError {
            return try await vault(session, status: .badGateway, problem: Self.vaultWords(error))
        } catch let error as HawalaFileError {
            return try await vault(session, status: .badRequest, problem: AppRoutes.fileWords(error))
        }
    }

    /// Deleting asks first, naming the backup and saying when it is the last one.
    func deletionPage(_ request: Request, _ session: AppSessions.Session, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        do {
            let (backup, isLast) = try await client.deletionPreview(request.uri.queryParameters["id"].map(String.init) ?? "")
            return try await vault(session, deleting: VaultView.Deletion(VaultView.Row(backup, timeZone: session.timeZone), isLast: isLast))
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        }
    }

    func deleteFromVault(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        do {
            let id = try await client.backupID(form.text("id") ?? "")
            try await client.delete(id)
            return try await vault(session, message: "Deleted backup \(id.prefix(8)) from the vault.")
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        }
    }

    /// The automatic-backup schedule, kept by the vault (it checks the values too).
    func saveSchedule(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        do {
            var settings = try await client.settings()
            settings.autoBackupEnabled = form.text("autoBackupEnabled") == "on"
            settings.wifiOnly = form.text("wifiOnly") == "on"
            for key in ["backupFrequency", "backupTimeUtc", "retentionDays"] {
                try settings.set(key, to: form.text(key)?.trimmed ?? "")
            }
            _ = try await client.updateSettings(settings)
            return try await vault(session, message: "The schedule is saved.")
        } catch let error as BackupSettingChangeError {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        }
    }

    /// This machine's agent: on (a backup password typed twice; its key is kept sealed under
    /// the wallet password and every change leaves a fresh snapshot) or off.
    func switchAgent(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        let store = try await app.store.get()
        guard form.text("action") == "enable" else {
            try VaultAgent.disable(store: store, keyring: keyring)
            return try await vault(session, message: "Automatic backups from this machine are off; the agent's snapshot is removed.")
        }
        let backupPassword: SecretBytes
        switch checkNewBackupPassword(form) {
        case .accepted(let password): backupPassword = password
        case .refused(let problem): return try await vault(session, status: .badRequest, problem: problem)
        }
        let producer = app.options.producer
        do {
            try VaultAgent.checkCanEnable(store: store)
            let key = try await NIOThreadPool.singleton.runIfActive { try BackupKey.derive(password: backupPassword) }
            let autoBackupOn = try await VaultAgent.enable(store: store, keyring: keyring, key: key, app: producer)
            return try await vault(session, message: autoBackupOn == true
                ? "The agent is enabled. Keep it running (hawala vault agent, or its systemd unit) to upload on schedule."
                : "The agent is enabled. Turn automatic backups on below for it to upload.")
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        } catch let error as WalletError {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        }
    }

    // MARK: - Logins with the words

    /// A device holding only the words (restored from them, the old one lost): they sign the
    /// vault's challenge for a new login; optionally every other login of the account stops.
    func logInWithWords(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        let store = try await app.store.get()
        do {
            let url = try VaultClient.loginURL(form.text("url")?.trimmed ?? "", allowPlainHTTP: form.text("insecure") == "on")
            let wallet = try store.wallet(named: nil)
            let client = try await VaultWordsLogin.logIn(url: url, store: store, wallet: wallet, keyring: keyring)
            var message = "Logged in to \(url.absoluteString) with the words of \u{201C}\(wallet.name)\u{201D}."
            if form.text("revokeOthers") == "on" {
                let revoked = try await client.revokeOtherTokens()
                message += " \(Self.revokedWords(revoked))"
            }
            return try await vault(session, message: message)
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        } catch let error as WalletError {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        }
    }

    /// The current wallet's words log in to the saved vault from now on (replacing any bound).
    func bindWords(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let (client, store) = try await savedVault(keyring) else { return AppResponse.redirect("/vault") }
        let outcome = await VaultWordsLogin.bind(client: client, store: store, keyring: keyring, replace: true)
        switch outcome {
        case .notOffered(let why), .failed(let why): return try await vault(session, status: .badGateway, problem: why.sentence)
        default: break
        }
        return try await vault(session, message: Self.bindingWords(outcome).trimmed)
    }

    /// Every other login of the account (a lost device's, an agent's) stops working.
    func revokeOtherLogins(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        do {
            return try await vault(session, message: Self.revokedWords(try await client.revokeOtherTokens()))
        } catch let error as VaultClientError {
            return try await vault(session, status: .badGateway, problem: Self.vaultWords(error))
        }
    }

    /// What binding the words at a login did, as a sentence after the login's (or nothing).
    static func bindingWords(_ outcome: VaultWordsLogin.Binding) -> String {
        switch outcome {
        case .bound(let wallet): " The words of \u{201C}\(wallet)\u{201D} now log in to this vault too."
        case .alreadyBound, .noWallet: ""
        case .notOffered: " This vault does not take logins with your words: keep the token."
        case .failed(let why): " Your words could not be bound to it (\(why)): try “Let my words log in here” below."
        }
    }

    static func revokedWords(_ count: Int) -> String {
        count == 0 ? "No other device was logged in." : "\(count) other login\(count == 1 ? "" : "s") stopped working: only this device's login works now."
    }

    // MARK: - Credential backup

    /// The backup password (typed twice) becomes a credential sealed under a new 24-word recovery
    /// phrase; the phrase is shown, then checked with the quiz, and only then is anything uploaded.
    func startCredentialBackup(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard try await savedVault(keyring) != nil else { return AppResponse.redirect("/vault") }
        guard let credential = form.secret("credential"), !credential.isEmpty, credential == form.secret("credentialRepeat") ?? SecretBytes([]) else {
            return try await vault(session, status: .badRequest, problem: "Type the backup password twice, the same both times.")
        }
        let phrase = try CredentialEnvelope.newPhrase()
        let task = AppSessions.BackupTask(subject: .vaultCredential(credential, phrase: phrase),
                                          flow: SeedBackupFlow(mnemonic: phrase, start: .intro), wordsHideAt: await wordsDeadline())
        await app.sessions.update(session.id) { $0.backup = task }
        return AppResponse.redirect("/backup")
    }

    /// The 24 words (checked as a pasted phrase is: the word list, then the checksum) open the
    /// credential backup downloaded from the vault; the backup password is shown once.
    func recoverCredential(_ session: AppSessions.Session, _ form: FormBody, _ keyring: Keyring) async throws -> Response {
        guard let client = try await savedVault(keyring)?.client else { return AppResponse.redirect("/vault") }
        var entry = RecoveryFlow(purpose: CredentialEnvelope.phraseEntry)
        if case .refused(let problem) = entry.send(.word(form.secret("phrase") ?? SecretBytes([]))) {
            return try await vault(session, status: .badRequest, problem: problem.description.sentence)
        }
        guard entry.state == .done, let phrase = entry.mnemonic else {
            return try await vault(session, status: .badRequest, problem: "These words are not the phrase: one of them is wrong (their checksum fails).")
        }
        let credential: SecretBytes
        do {
            let envelope = try await client.recoverCredentialBackup()
            credential = try await NIOThreadPool.singleton.runIfActive { try CredentialEnvelope.open(Array(envelope), phrase: phrase) }
        } catch let error as VaultClientError {
            return try await vault(session, status: .badRequest, problem: Self.vaultWords(error))
        } catch let error as CredentialEnvelope.Error {
            return try await vault(session, status: .badRequest, problem: error.description.sentence)
        }
        guard let text = credential.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }), !text.contains(where: \.isNewline) else {
            return Response(status: .ok, headers: [.contentType: "application/octet-stream",
                                                   .contentDisposition: "attachment; filename=\"hawala-credential.bin\""],
                            body: .init(byteBuffer: ByteBuffer(bytes: credential.unsafeCopy())))
        }
        return try await vault(session, message: "The recovery phrase opened the credential backup.", recovered: text)
    }

    // MARK: - Words

    /// The vault client's failures in the page's words.
    static func vaultWords(_ error: VaultClientError) -> String {
        switch error {
        case .refused(let refusal) where refusal.status == 401: "The vault does not accept this token (revoked, or never issued). Log in again: with your words, or a new token from its operator."
        case .plainHTTP: error.description.sentence + " (or allow plain http for this address)."
        case .hashMismatch: "The downloaded backup does not match its SHA-256. Nothing was imported."
        case .cutShort: "The download was cut short. Nothing was imported; try again."
        default: error.description.sentence
        }
    }

}

/// The vault page.
struct VaultView {
    struct Row {
        let id: String
        let shortID: String
        let created: String
        let size: String
        let type: String
        let status: String

        init(_ backup: Backup, timeZone: TimeZone) {
            id = backup.id
            shortID = String(backup.id.prefix(8))
            created = dateText(backup.createdAt, timeZone)
            size = AppRoutes.sizeText(backup.sizeBytes)
            type = backup.type == .auto ? "automatic" : "manual"
            status = backup.status.rawValue
        }
    }

    /// A deletion waiting for its confirmation.
    struct Deletion {
        let backup: Row
        let isLast: Bool
        init(_ backup: Row, isLast: Bool) {
            self.backup = backup
            self.isLast = isLast
        }
    }

    struct Choice { let value: String, label: String, selected: Bool }

    struct Schedule {
        let autoBackupEnabled: Bool
        let frequencies: [Choice]
        let time: String
        let retentionDays: Int
        let retentionMinimum = BackupSettings.retentionRange.lowerBound
        let retentionMaximum = BackupSettings.retentionRange.upperBound
        let wifiOnly: Bool
    }

    struct Agent {
        let enabled: Bool
        let since: String?
        let lastUpload: String?
        let nextRun: String?
        let retrying: String?
        /// The snapshot could not be refreshed after a change: since when, and why.
        let stale: String?
    }

    /// A new machine: the login sets the wallet password.
    let firstPassword: Bool
    let canBackUp: Bool
    let minimumLength = PasswordStrength.minimumLength
    let minimumPasswordLength = WalletStore.minimumPasswordLength
    /// The saved login's URL; nil: not logged in.
    var url: String?
    var loggedIn = false
    var rows: [Row] = []
    var anyRows = false
    var schedule: Schedule?
    var agent: Agent?
    var deleting: Deletion?
    var credential: Credential?
    /// A credential just opened with its recovery phrase (shown once).
    var recovered: String?
    /// Whether the account logs in with the words too (nil: the vault did not say).
    var wordsBound: Bool?
    var wordsUnbound: Bool { wordsBound == false }

    /// The credential backup the vault holds.
    struct Credential {
        let exists: Bool
        let created: String?
        let lastOpened: String?
        init(_ status: CredentialBackupStatus, timeZone: TimeZone) {
            exists = status.exists
            created = status.createdAt.map { dateText($0, timeZone) }
            lastOpened = status.lastVerifiedAt.map { dateText($0, timeZone) }
        }
    }

    init(firstPassword: Bool, canBackUp: Bool) {
        self.firstPassword = firstPassword
        self.canBackUp = canBackUp
    }

    mutating func show(backups: [Backup], settings: BackupSettings, agent status: VaultAgentStatus, now: Date, timeZone: TimeZone) {
        loggedIn = true
        rows = backups.map { Row($0, timeZone: timeZone) }
        let dateText = { (date: Date) in HawalaApp.dateText(date, timeZone, now: now) }
        anyRows = !rows.isEmpty
        schedule = Schedule(
            autoBackupEnabled: settings.autoBackupEnabled,
            frequencies: BackupSettings.Frequency.allCases.map {
                Choice(value: $0.rawValue, label: $0.rawValue.capitalizedFirst, selected: $0 == settings.backupFrequency)
            },
            time: settings.backupTimeUtc, retentionDays: settings.retentionDays, wifiOnly: settings.wifiOnly)
        let next: String? = status.nextRun.map { $0 <= now ? "due now: at the agent's next check" : dateText($0) }
        agent = Agent(
            enabled: status.enabledAt != nil, since: status.enabledAt.map(dateText),
            lastUpload: status.lastUpload.map { dateText($0) + (status.lastBackupID.map { " (backup \($0.prefix(8)))" } ?? "") },
            nextRun: next,
            retrying: status.retryAt.flatMap { $0 > now ? "\(status.failures) failed attempt\(status.failures == 1 ? "" : "s"); trying again at \(dateText($0))" : nil },
            stale: status.snapshotStaleSince.map { "Not refreshed since \(dateText($0)) (\(status.snapshotProblem ?? "unknown reason")): the agent uploads the last one written." })
    }
}

/// Shared by every area's handlers.
extension AppRoutes {
    static func sizeText(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}
