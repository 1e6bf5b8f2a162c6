import Foundation
import HawalaCrypto
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOPosix

/// Settings: the idle lock, the wallet password, and each wallet's name or deletion (the
/// password and the name typed again; a wallet not backed up says so first).
struct SettingsController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.unlockedPages.get("/settings") { request, context in try await settingsPage(request, context.session) }
        router.unlockedForms.post("/settings/lock") { _, context in try await saveIdleLock(context.session, context.form) }
        router.unlockedForms.post("/settings/unit") { _, context in try await saveUnit(context.session, context.form) }
        router.unlockedForms.post("/settings/password") { _, context in try await changePassword(context.session, context.form) }
        router.unlockedForms.post("/wallets/rename") { _, context in try await renameWallet(context.session, context.form) }
        router.unlockedForms.post("/wallets/delete") { _, context in try await deleteWallet(context.session, context.form) }
    }
}

/// The settings area's handlers: each reads the request, asks the library and renders.
extension SettingsController {
    func settingsPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        return try await settings(session)
    }

    func settings(_ session: AppSessions.Session, status: HTTPResponse.Status = .ok, problem: String? = nil, message: String? = nil) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Settings", session: session, overview: overview, problem: problem, message: message)
        page.settings = SettingsView(idleLockMinutes: Int(await app.sessions.idleLockSeconds / 60), overview: overview)
        return try render(status, "settings", page)
    }

    func saveIdleLock(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard let minutes = form.text("minutes").flatMap({ Int($0.trimmed) }), let lock = try? IdleLock(minutes: minutes) else {
            return try await settings(session, status: .badRequest, problem: IdleLock.OutOfRange().description.sentence)
        }
        try await app.store.get().setIdleLock(lock)
        await app.sessions.setIdleLock(lock.seconds)
        return try await settings(session, message: "The app now locks after \(minutes) minute\(minutes == 1 ? "" : "s") without use.")
    }

    /// Amounts in sat or in BTC, on every page (and in the CLI's output) from the next answer on.
    func saveUnit(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard let unit = form.text("unit").flatMap(AmountUnit.init(rawValue:)) else {
            return try await settings(session, status: .badRequest, problem: "Choose sat or BTC.")
        }
        try await app.store.get().setDisplayUnit(unit)
        return try await AmountText.$unit.withValue(unit) {
            try await settings(session, message: "Amounts now show in \(unit.label): \(AmountText.sats(2_500)) reads like that.")
        }
    }

    /// The current password, then the new one typed twice: every secret is sealed again.
    func changePassword(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await settings(session, status: status, problem: problem)
        }
        guard let new = form.secret("newPassword"), new == form.secret("newRepeat") ?? SecretBytes([]) else {
            return try await settings(session, status: .badRequest, problem: "The two new passwords differ. Type the same one twice.")
        }
        let store = try await app.store.get()
        let changed: Keyring
        do {
            changed = try await NIOThreadPool.singleton.runIfActive { try store.changePassword(from: keyring, to: new) }
        } catch let error as WalletError {
            return try await settings(session, status: .badRequest, problem: error.description)
        }
        await app.sessions.update(session.id) { $0.keyring = changed }
        return try await settings(session, message: "The wallet password is changed.")
    }

    func renameWallet(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let (old, new) = (form.text("name") ?? "", form.text("newName")?.trimmed ?? "")
        do {
            try await app.store.get().rename(old, to: new)
        } catch let error as WalletError {
            return try await settings(session, status: .badRequest, problem: error.description)
        }
        return try await settings(session, message: "Renamed “\(old)” to “\(new)”.")
    }

    func deleteWallet(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let name = form.text("name") ?? ""
        guard form.text("confirm") == name else {
            return try await settings(session, status: .badRequest, problem: "Type the wallet's name exactly to delete it. Nothing was deleted.")
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await settings(session, status: status, problem: problem + " Nothing was deleted.")
        }
        do {
            await app.lightningSessions.close(session.id)  // it may be the deleted wallet's backend
            try await app.store.get().delete(name, keyring: keyring)
        } catch let error as WalletError {
            return try await settings(session, status: .badRequest, problem: error.description)
        }
        return try await settings(session, message: "Deleted wallet “\(name)” from this machine.")
    }
}

/// The settings page: the idle lock and each wallet (for rename and delete).
struct SettingsView {
    struct Wallet { let index: Int, name: String, network: String, backedUp: Bool }
    let idleLockMinutes: Int
    let wallets: [Wallet]
    struct UnitChoice { let value: String, label: String, selected: Bool }
    let units = AmountUnit.allCases.map {
        UnitChoice(value: $0.rawValue, label: $0 == .btc ? "BTC (0.000025 BTC)" : "sat (2,500 sat)", selected: $0 == AmountText.unit)
    }
    let minimumPasswordLength = WalletStore.minimumPasswordLength

    init(idleLockMinutes: Int, overview: WalletOverview) {
        self.idleLockMinutes = idleLockMinutes
        wallets = overview.wallets.enumerated().map { Wallet(index: $0, name: $1.name, network: CreateView.networkLabel($1.network), backedUp: $1.backup.isBackedUp) }
    }
}
