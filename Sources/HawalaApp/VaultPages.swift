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

/// The vault page, as the vault's forms and the credential backup's steps render it.
extension AppArea {

    /// The vault page: the login form, or — logged in — the backups, the schedule and the agent
    /// as the vault answers now. A vault that does not answer still leaves the login form.
    func vault(_ session: AppSessions.Session, status: HTTPResponse.Status = .ok, problem: String? = nil, message: String? = nil,
               deleting: VaultView.Deletion? = nil, recovered: String? = nil) async throws -> Response {
        let overview = try await app.store.overview()
        var view = VaultView(firstPassword: !overview.hasPassword, canBackUp: !overview.wallets.isEmpty)
        var problem = problem
        if let (client, store) = try await savedVault(session.keyring) {
            view.url = client.url.absoluteString
            do {
                async let backups = client.backups()
                async let settings = client.settings()
                async let credential = client.credentialBackupStatus()
                async let words = try? client.loginKeyStatus()
                let (list, schedule, kept) = try await (backups, settings, credential)
                view.wordsBound = await words.flatMap { $0.offered ? $0.bound : nil }
                view.show(backups: list, settings: schedule, agent: try VaultAgentStatus(store: store, settings: schedule), now: await app.sessions.time(),
                          timeZone: session.timeZone)
                view.credential = VaultView.Credential(kept, timeZone: session.timeZone)
            } catch let error as VaultClientError {
                problem = problem ?? VaultController.vaultWords(error)
            }
        }
        view.deleting = deleting
        view.recovered = recovered
        var page = Page(title: "Vault", session: session, overview: overview, problem: problem, message: message)
        page.vault = view
        return try render(status, "vault", page)
    }

    /// After the quiz: sealed (Argon2id, 64 MiB) and uploaded, replacing the vault's earlier one.
    func uploadCredential(_ session: AppSessions.Session, _ credential: SecretBytes, phrase: Mnemonic) async throws -> Response {
        guard let client = try await savedVault(session.keyring)?.client else { return AppResponse.redirect("/vault") }
        do {
            let envelope = try await NIOThreadPool.singleton.runIfActive { Data(try CredentialEnvelope.seal(credential, phrase: phrase)) }
            try await client.uploadCredentialBackup(envelope)
        } catch let error as VaultClientError {
            return try await vault(session, status: .badGateway, problem: VaultController.vaultWords(error) + " The recovery phrase is forgotten: start again.")
        }
        return try await vault(session, message: "The credential backup is in the vault. Keep the 24 words: they are the only way to open it.")
    }

    /// The client of the saved login (opened with `keyring`) and its store; nil: not logged in,
    /// or locked (no keyring).
    func savedVault(_ keyring: Keyring?) async throws -> (client: VaultClient, store: WalletStore)? {
        guard let keyring, try app.home.existing() else { return nil }
        let store = try await app.store.get()
        return try SavedVaultLogin.client(store: store, keyring: keyring).map { ($0, store) }
    }
}
