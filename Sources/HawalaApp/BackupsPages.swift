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

/// The backups page and an import's preview, as the backup, Shamir and vault forms render them; a
/// new backup password checked the same way everywhere.
extension AppArea {

    /// The backups page; a store with wallets needs an unlocked session (a new home may only import).
    func backups(_ session: AppSessions.Session, status: HTTPResponse.Status = .ok, problem: String? = nil,
                 export: ((inout BackupsView) -> Void)? = nil) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Backups", session: session, overview: overview, problem: problem)
        var view = BackupsView(wallets: overview.wallets)
        export?(&view)
        view.choices = view.choices.map { var c = $0; c.selected = c.value == view.exportWallet; return c }
        page.backups = view
        return try render(status, "backups", page)
    }

    func importPreview(_ session: AppSessions.Session, plan: BackupImportPlan, source: String,
                       status: HTTPResponse.Status = .ok, problem: String? = nil) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Import a backup", session: session, overview: overview, problem: problem)
        page.importing = ImportView(plan: plan, source: source, needsPassword: !overview.hasPassword)
        return try render(status, "import", page)
    }

    func checkNewBackupPassword(_ form: FormBody) -> NewBackupPassword {
        guard let password = form.secret("backupPassword"), password == form.secret("backupRepeat") ?? SecretBytes([]) else {
            return .refused("The two backup passwords differ. Type the same one twice.")
        }
        do {
            _ = try PasswordStrength.check(password)
        } catch {
            return .refused(error.description.sentence)
        }
        return .accepted(password)
    }

    /// The keyring for a change, as the library decides it (`WalletStore.keyringForChange`,
    /// the CLI's rule too): the session's, or — for the first wallet — a new one from the
    /// password typed twice in `form` (saved with the wallet).
    func keyringForChange(_ session: AppSessions.Session, _ form: FormBody, store: WalletStore) async throws -> KeyringChoice {
        let password = form.secret("password") ?? SecretBytes([])
        let typedTwice = password == form.secret("repeat") ?? SecretBytes([])
        do {
            return .keyring(try await NIOThreadPool.singleton.runIfActive {
                try store.keyringForChange(unlock: { try session.keyring ?? { throw KeyringRefusal.locked }() },
                                           newPassword: { guard typedTwice else { throw KeyringRefusal.differ }; return password })
            })
        } catch KeyringRefusal.locked {
            return .locked
        } catch KeyringRefusal.differ {
            return .problem("The two passwords differ. Type the same password twice.")
        } catch let error as WalletError {
            return .problem(error.description.sentence)
        }
    }
}

/// The keyring a change uses.
enum KeyringChoice {
    case keyring(Keyring)
    /// The new password can't be used (the entries differ, too short): say so, ask again.
    case problem(String)
    /// Wallets exist and the session is locked.
    case locked
}

/// What a new backup password gave: typed twice, and strong enough.
enum NewBackupPassword {
    case accepted(SecretBytes)
    case refused(String)
}

private enum KeyringRefusal: Error { case locked, differ }
