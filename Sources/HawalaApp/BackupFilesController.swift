import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// `.hawala` backup files: export (the wallet password again, a backup password typed twice and
/// checked for strength, then a download) and import (an upload and its password → the preview
/// with each wallet's first addresses and conflicts, a choice per conflict → nothing is written
/// before "Import"). `BackupExporter`, `BackupImportPlan` and `ConflictResolution` do the work.
struct BackupFilesController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.home.get("/backups") { request, context in try await backupsPage(request, context.session) }
        router.unlockedForms.post("/backups/export") { _, context in try await exportBackup(context.session, context.form) }
        router.unlockedPages.get("/backups/exported") { request, context in try await exportedPage(request, context.session) }
        router.unlockedPages.get("/backups/download") { request, context in try await downloadExport(request, context.session) }
        router.pages.post("/backups/import") { request, context in try await uploadBackup(request, context.session) }
        router.home.get("/backups/import") { request, context in try await importPage(request, context.session) }
        router.forms.post("/backups/import/confirm") { _, context in try await confirmImport(context.session, context.form) }
        router.forms.post("/backups/import/cancel") { _, context in try await cancelImport(context.session, context.form) }
        router.unlockedForms.post("/backups/paper") { _, context in try await paperSheet(context.session, context.form) }
    }
}

/// The backupfiles area's handlers: each reads the request, asks the library and renders.
extension BackupFilesController {
    func backupsPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        return try await backups(session)
    }

    // MARK: - Export

    func exportBackup(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let choice = form.text("wallet") ?? ""
        // Each problem by its field, the wallets chosen kept.
        let backupPassword: SecretBytes
        switch checkNewBackupPassword(form) {
        case .accepted(let password): backupPassword = password
        case .refused(let problem):
            return try await backups(session, status: .badRequest) { $0.exportWallet = choice; $0.backupPasswordProblem = problem }
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem):
            return try await backups(session, status: status) { $0.exportWallet = choice; $0.walletPasswordProblem = problem }
        }
        let store = try await app.store.get()
        let producer = app.options.producer
        let sealed: Data
        do {
            sealed = try await NIOThreadPool.singleton.runIfActive {
                let (payload, _) = try BackupExporter.payload(store: store, keyring: keyring, names: choice.isEmpty ? nil : [choice],
                                                              app: producer)
                return try BackupExporter.sealedBytes(payload, password: backupPassword)
            }
        } catch let error as WalletError {
            return try await backups(session, status: .badRequest) { $0.exportWallet = choice; $0.exportProblem = error.description.sentence }
        }
        // Made: its confirmation page (the form and its passwords gone), which downloads it.
        let ready = AppSessions.ReadyFile(name: BackupExporter.suggestedName(await app.sessions.time()), bytes: sealed,
                                          wallets: choice.isEmpty ? nil : [choice])
        await app.sessions.update(session.id) { $0.download = ready }
        return AppResponse.redirect("/backups/exported")
    }

    /// "Your backup is ready": its name and size; the download starts by itself.
    func exportedPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        guard let ready = session.download else { return AppResponse.redirect("/backups") }
        var page = Page(title: "Backup ready", session: session, overview: try await app.store.overview())
        page.exported = ExportedView(name: ready.name, size: AppRoutes.sizeText(Int64(ready.bytes.count)))
        page.refreshTo = "/backups/download"
        return try render(.ok, "exported", page)
    }

    /// The sealed file, as long as the session is unlocked.
    func downloadExport(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        guard let ready = session.download else { return AppResponse.redirect("/backups") }
        // Handed to the browser: the wallets are kept in a file now (as the CLI records it once written).
        try await app.store.get().noteBackup(.file, wallets: ready.wallets)
        // The suggested name holds only a date: safe in a header.
        return Response(status: .ok, headers: [
            .contentType: "application/octet-stream",
            .contentDisposition: "attachment; filename=\"\(ready.name)\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: ready.bytes)))
    }



    // MARK: - Paper

    /// A recovery sheet as a PDF download, drawn in memory: numbered lines to write the words on,
    /// or — with the wallet password again — the words and their SeedQRs.
    func paperSheet(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let store = try await app.store.get()
        let wallet: WalletSummary
        do {
            wallet = try store.walletWithWords(named: form.text("wallet"))
        } catch let error as WalletError {
            return try await backups(session, status: .badRequest, problem: error.description.sentence)
        }
        let paper = form.text("paper").flatMap(PaperBackup.Paper.init(rawValue:)) ?? .a4
        var mnemonic: Mnemonic?
        if form.text("content") == "words" {
            switch try await checkPassword(form, session) {
            case .opened(let keyring): mnemonic = try store.secrets(of: wallet, keyring: keyring).mnemonic
            case .refused(let status, let problem): return try await backups(session, status: status, problem: problem)
            }
        }
        let words = mnemonic
        let pdf = try await NIOThreadPool.singleton.runIfActive {
            try PaperBackup(walletName: wallet.name, fingerprint: wallet.fingerprint, paper: paper,
                            content: words.map { .words($0) } ?? .blank(wordCount: wallet.wordCount), hasPassphrase: wallet.hasPassphrase).pdf()
        }
        if words != nil { store.noteBackup(.paper, wallets: [wallet.name]) }
        return Response(status: .ok, headers: [
            .contentType: "application/pdf",
            .contentDisposition: "attachment; filename=\"\(words == nil ? "hawala-paper-lines" : "hawala-paper-words").pdf\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: pdf.unsafeCopy())))
    }

    // MARK: - Import

    /// An uploaded backup, read from its form; or the answer refusing the form.
    enum UploadRead {
        case refused(Response)
        /// The form, holding the file (on disk, removed when the form is released) and its password.
        case file(MultipartUpload, URL, password: SecretBytes, filename: String?)
    }

    /// An upload refused on its head — the session, the form token (in the form's address: the
    /// body comes after it), the Origin, the lock, the declared size — before a byte of its body
    /// is read; nil when it may be read.
    func refusedOnItsHead(_ request: Request, session: AppSessions.Session) async throws -> Response? {
        let sentToken = request.uri.queryParameters["csrf"].map(String.init)
        guard request.headers[.contentType] != nil,
              CrossSiteCheck.passes(request, sentToken: sentToken, csrf: session.csrf, bound: app.bound, extraHost: app.options.extraAllowedHost) else {
            return try crossSite()
        }
        if try await mustUnlock(session) { return AppResponse.toUnlock() }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > app.options.maximumBackupBytes + (64 << 10) { return try await uploadTooLarge(session) }
        return nil
    }

    func uploadTooLarge(_ session: AppSessions.Session) async throws -> Response {
        try await backups(session, status: .contentTooLarge, problem: "That file is larger than a backup can be here (\(app.options.maximumBackupBytes >> 20) MiB).")
    }

    /// The form's file and password, its body streamed to a private temporary file, never held
    /// whole.
    func readUpload(_ request: Request, session: AppSessions.Session) async throws -> UploadRead {
        let contentType = request.headers[.contentType] ?? ""
        let limit = app.options.maximumBackupBytes
        let form: MultipartUpload
        do {
            form = try await MultipartUpload.read(request.body, contentType: contentType, fileField: "file", fileLimit: limit)
        } catch MultipartUpload.Refusal.tooLarge {
            return await .refused(try uploadTooLarge(session))
        } catch is MultipartUpload.Refusal {
            return await .refused(try backups(session, status: .badRequest, problem: "Choose a .hawala file to import."))
        }
        guard let file = form.file, file.size > 0 else {
            return await .refused(try backups(session, status: .badRequest, problem: "Choose a .hawala file to import."))
        }
        guard let password = form.secret("backupPassword"), !password.isEmpty else {
            return await .refused(try backups(session, status: .badRequest, problem: "Type the backup file's password."))
        }
        return .file(form, file.url, password: password, filename: file.filename)
    }

    /// The upload (a multipart form: the file, its password; the form token in its address):
    /// decrypted and previewed, nothing written. One at a time.
    func uploadBackup(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        if let refused = try await refusedOnItsHead(request, session: session) { return refused }
        guard app.imports.begin() else {
            return try await backups(session, status: .tooManyRequests, problem: "Another backup is being read. Try again when it is done.")
        }
        defer { app.imports.end() }
        let form: MultipartUpload, url: URL, password: SecretBytes, filename: String?
        switch try await readUpload(request, session: session) {
        case .refused(let response): return response
        case let .file(upload, file, secret, name): (form, url, password, filename) = (upload, file, secret, name)
        }
        let store = try await app.store.existing()
        let plan: BackupImportPlan
        do {
            plan = try await NIOThreadPool.singleton.runIfActive {
                let payload = try BackupPayload.decode(try BackupFile.read(url, password: password))
                return try BackupImportPlan(payload: payload, store: store)
            }
        } catch let error as HawalaFileError {
            return try await backups(session, status: .badRequest, problem: AppRoutes.fileWords(error))
        }
        withExtendedLifetime(form) {}  // the temporary file goes with it, once read
        let source = DisplayText.safe(String((filename ?? "backup.hawala").prefix(120)))
        await app.sessions.update(session.id) { $0.importing = AppSessions.ImportTask(plan: plan, source: source) }
        // The preview is a page of its own: its address carries no form token, and reloading
        // it sends nothing again.
        return AppResponse.redirect("/backups/import")
    }

    /// The preview of the backup being imported (none: the backups page).
    func importPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        guard let task = session.importing else { return AppResponse.redirect("/backups") }
        return try await importPreview(session, plan: task.plan, source: task.source)
    }

    /// "Import": a policy for each conflict (every one chosen), then the plan applied. A new home
    /// sets its wallet password here, which is the login.
    func confirmImport(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard let task = session.importing else { return AppResponse.redirect("/backups") }
        let store = try await app.store.get(create: true)
        let first = try !store.hasPassword()
        var chosen: [Int: ConflictPolicy] = [:]
        for index in task.plan.rows.indices { chosen[index] = form.text("policy-\(index)").flatMap(ConflictPolicy.init(rawValue:)) }
        let policies: [String: ConflictPolicy]
        do {
            policies = try task.plan.policies(.perRow(chosen))
        } catch {
            return try await importPreview(session, plan: task.plan, source: task.source, status: .badRequest, problem: error.description.sentence)
        }
        let keyring: Keyring
        switch try await keyringForChange(session, form, store: store) {
        case .keyring(let chosen): keyring = chosen
        case .problem(let problem): return try await importPreview(session, plan: task.plan, source: task.source, status: .badRequest, problem: problem)
        case .locked: return AppResponse.toUnlock()
        }
        let outcomes = try await NIOThreadPool.singleton.runIfActive { try task.plan.apply(policies: policies, store: store, keyring: keyring) }
        var current = session
        if first, let unlocked = await app.sessions.unlock(session.id, keyring: keyring) { current = unlocked }
        await app.sessions.update(current.id) { $0.importing = nil }
        var page = Page(title: "Imported", session: current, overview: try await app.store.overview())
        page.imported = outcomes.map(\.description.sentence)
        let response = try render(.ok, "imported", page)
        guard first else { return response }
        var headers = response.headers
        headers[.setCookie] = AppResponse.cookie(current.id)
        return Response(status: .ok, headers: headers, body: response.body)
    }

    func cancelImport(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        await app.sessions.update(session.id) { $0.importing = nil }
        return AppResponse.redirect("/backups")
    }
}

/// Shared by every area's handlers.
extension AppRoutes {
    /// A backup file that does not open, in the page's words.
    static func fileWords(_ error: HawalaFileError) -> String {
        switch error {
        case .wrongPasswordOrDamaged: "Wrong password, or the file was changed."
        case .notHawalaFile, .truncatedHeader: "That is not a .hawala backup file."
        default: "This backup can't be read: \(error)."
        }
    }
}
