import Foundation
@testable import HawalaApp
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaVault
import HawalaVaultStorage
import HawalaVaultAgent
import HawalaVaultClient
import HawalaVaultServer
import HawalaWallet
import Hummingbird
import Testing

/// The vault screens through HTTP against a real vault on loopback: login (a refused token saves
/// nothing), back up now with the passwords again, the schedule (the vault's own refusals shown),
/// the agent (its snapshot follows a change made in the app), restore through the import
/// preview, delete after a confirmation, and a new machine restoring from the vault.
extension AppSecurityTests {
    /// A vault server on a loopback port, SQLite in a temporary directory.
    struct LoopbackVault {
        let storage: SQLiteVaultStorage
        let port: Int
        let task: Task<Void, Error>
        var url: String { "http://127.0.0.1:\(port)" }

        static func start() async throws -> LoopbackVault {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let storage = try SQLiteVaultStorage(path: directory.appendingPathComponent("vault.sqlite").path)
            let (ports, continuation) = AsyncStream<Int>.makeStream()
            let app = try VaultServer.application(storage: storage, port: 0, onRunning: { continuation.yield($0) })
            let task = Task { try await app.runService(gracefulShutdownSignals: []) }
            var port = 0
            for await p in ports { port = p; break }
            return LoopbackVault(storage: storage, port: port, task: task)
        }

        /// Stops the server and closes its storage (twice is harmless).
        func stop() async {
            guard !task.isCancelled else { return }
            task.cancel()
            _ = await task.result
            await storage.close()
        }
    }

    /// Runs `body` with a vault on loopback and a user's token; the vault stops after it.
    func withVault(_ body: (LoopbackVault, String) async throws -> Void) async throws {
        let vault = try await LoopbackVault.start()
        do {
            try await body(vault, try await vault.storage.addUser("alice", now: Date()))
        } catch {
            await vault.stop()
            throw error
        }
        await vault.stop()
    }

    @Test func theVaultLogsInBacksUpSchedulesRestoresAndDeletes() async throws {
        try await withVault { vault, token in
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let page = try await browser.send(.get, "/vault")
                #expect(page.status == 200 && page.body.contains(#"action="/vault/login""#) && !page.body.contains(#"name="repeat""#))
                let csrf = try #require(Browser.csrf(page.body))
                let store = try WalletStore(home: app.home, create: false)

                // A refused token, plain http to another machine: nothing saved.
                let refused = try await browser.send(.post, "/vault/login", form: ["csrf": csrf, "url": vault.url, "token": "hwv_wrong"])
                #expect(refused.status == 400 && refused.body.contains("does not accept this token"))
                let plain = try await browser.send(.post, "/vault/login", form: ["csrf": csrf, "url": "http://203.0.113.7", "token": token])
                #expect(plain.status == 400 && plain.body.contains("plain http"))
                #expect(try SavedVaultLogin.url(in: store) == nil)
                #expect(try await browser.send(.post, "/vault/login", form: ["url": vault.url, "token": token]).status == 403)
                // A pasted token keeps its line end: trimmed.
                let loggedIn = try await browser.send(.post, "/vault/login", form: ["csrf": csrf, "url": vault.url, "token": token + "\n"])
                #expect(loggedIn.status == 200 && loggedIn.body.contains("Logged in to") && loggedIn.body.contains("holds no backup yet"))
                #expect(!loggedIn.body.contains(token), "the token is never echoed")

                // Back up now: the wallet password again, a strong backup password twice.
                let backup = ["csrf": csrf, "password": "correct horse", "backupPassword": Self.backupPassword, "backupRepeat": Self.backupPassword]
                #expect(try await browser.send(.post, "/vault/backup", form: backup.merging(["password": "wrong horse"]) { $1 }).status == 401)
                #expect(try await browser.send(.post, "/vault/backup", form: backup.merging(["backupRepeat": "orbit"]) { $1 }).status == 400)
                #expect(try await browser.send(.post, "/vault/backup", form: backup.merging(["backupPassword": "password123", "backupRepeat": "password123"]) { $1 }).status == 400)
                let uploaded = try await browser.send(.post, "/vault/backup", form: backup)
                #expect(uploaded.status == 200 && uploaded.body.contains("Uploaded backup") && uploaded.body.contains("1 wallet"))
                let stored = try await VaultClient(url: URL(string: vault.url)!, token: SecretBytes(utf8: token)).backups()
                #expect(stored.count == 1 && stored[0].type == .manual)
                let id = stored[0].id
                #expect(uploaded.body.contains(String(id.prefix(8))))

                // The schedule: the vault refuses a retention of 3 days in its own words.
                let schedule = ["csrf": csrf, "autoBackupEnabled": "on", "backupFrequency": "weekly", "backupTimeUtc": "04:30", "retentionDays": "60"]
                let short = try await browser.send(.post, "/vault/schedule", form: schedule.merging(["retentionDays": "3"]) { $1 })
                #expect(short.status == 400 && short.body.contains("retentionDays"))
                #expect(try await browser.send(.post, "/vault/schedule", form: schedule.merging(["backupFrequency": "hourly"]) { $1 }).status == 400)
                let saved = try await browser.send(.post, "/vault/schedule", form: schedule)
                #expect(saved.status == 200 && saved.body.contains("schedule is saved"))
                #expect(saved.body.contains(#"<option value="weekly" selected>"#) && saved.body.contains(#"value="04:30""#) && saved.body.contains(#"name="autoBackupEnabled" checked"#))
                #expect(saved.body.contains("Turn the agent on"))

                // The agent: its snapshot is written, then follows a rename made in the app.
                let agent = ["csrf": csrf, "action": "enable", "backupPassword": Self.backupPassword, "backupRepeat": "something else"]
                #expect(try await browser.send(.post, "/vault/agent", form: agent).status == 400)
                let enabled = try await browser.send(.post, "/vault/agent", form: agent.merging(["backupRepeat": Self.backupPassword]) { $1 })
                #expect(enabled.status == 200 && enabled.body.contains("agent is enabled") && enabled.body.contains("Next run"))
                #expect(enabled.body.contains("Turn the agent off"))
                let snapshot = AgentOutbox.snapshotURL(home: app.home)
                let first = try Data(contentsOf: snapshot)
                #expect(try await browser.send(.post, "/wallets/rename", form: ["csrf": csrf, "name": Self.hostileName, "newName": "Renamed"]).status == 200)
                let second = try Data(contentsOf: snapshot)
                #expect(first != second, "the rename left a fresh snapshot")
                let renamed = try BackupPayload.decode(try BackupFile.read(second, password: password(Self.backupPassword)))
                #expect(renamed.wallets.map(\.name) == ["Renamed"])

                // Restore: a wrong backup password, then the preview with the conflict; skip writes nothing.
                let wrong = try await browser.send(.post, "/vault/restore", form: ["csrf": csrf, "id": id, "backupPassword": "nope"])
                #expect(wrong.status == 400 && wrong.body.contains("Wrong password"))
                let preview = try await browser.send(.post, "/vault/restore", form: ["csrf": csrf, "id": String(id.prefix(8)), "backupPassword": Self.backupPassword])
                #expect(preview.status == 200 && preview.body.contains("vault backup \(id.prefix(8))") && preview.body.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
                #expect(preview.body.contains(#"name="policy-0""#), "the same wallet is a conflict")
                let skipped = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf, "policy-0": "skip"])
                #expect(skipped.status == 200)
                #expect(try store.list().map(\.name) == ["Renamed"])

                // Delete: asked first (the only backup), then gone.
                let ask = try await browser.send(.get, "/vault/delete?id=\(id.prefix(8))")
                #expect(ask.status == 200 && ask.body.contains("only backup in the vault") && ask.body.contains(#"name="id" value="\#(id)""#))
                #expect(try await browser.send(.get, "/vault/delete?id=abc").status == 400)
                let deleted = try await browser.send(.post, "/vault/delete", form: ["csrf": csrf, "id": id])
                #expect(deleted.status == 200 && deleted.body.contains("Deleted backup") && deleted.body.contains("holds no backup yet"))

                // The agent off: its snapshot goes.
                let off = try await browser.send(.post, "/vault/agent", form: ["csrf": csrf, "action": "disable"])
                #expect(off.status == 200 && !FileManager.default.fileExists(atPath: snapshot.path))
            }
        }
    }

    /// A new machine: the vault login sets the wallet password, a backup comes back through the
    /// preview, and after a lock the password opens the app again.
    /// A token login binds the words; on another machine restored from the same words, they
    /// log in alone and log the lost one out (the same library rule as `vault login --with-words`).
    @Test func theWordsLogInWhereTheTokenIsLost() async throws {
        try await withVault { vault, token in
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let csrf = try #require(Browser.csrf(try await browser.send(.get, "/vault").body))
                let loggedIn = try await browser.send(.post, "/vault/login", form: ["csrf": csrf, "url": vault.url, "token": token])
                #expect(loggedIn.status == 200 && loggedIn.body.contains("now log in to this vault too"), "\(loggedIn.body)")
                let page = try await browser.send(.get, "/vault")
                #expect(page.body.contains("Your words log in to this vault too") && !page.body.contains("Let my words log in here"))
            }
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let page = try await browser.send(.get, "/vault")
                #expect(page.body.contains(#"action="/vault/login-words""#))
                let csrf = try #require(Browser.csrf(page.body))
                let other = try await LoopbackVault.start()
                let elsewhere = try await browser.send(.post, "/vault/login-words", form: ["csrf": csrf, "url": other.url, "revokeOthers": "on"])
                await other.stop()
                #expect(elsewhere.status == 400 && elsewhere.body.contains("logs in with these words"), "\(elsewhere.body)")
                #expect(try await browser.send(.post, "/vault/login-words", form: ["url": vault.url]).status == 403, "no CSRF token, no login")
                let back = try await browser.send(.post, "/vault/login-words", form: ["csrf": csrf, "url": vault.url, "revokeOthers": "on"])
                #expect(back.status == 200 && back.body.contains("with the words of") && back.body.contains("1 other login stopped working"), "\(back.body)")
                #expect(!back.body.contains(Self.hostileName), "the wallet's name is escaped")
                #expect(back.body.contains("holds no backup yet"))
                await #expect(throws: VaultError.unauthorized, "the lost device's token") { _ = try await vault.storage.user(token: token) }
            }
        }
    }

    @Test func aNewMachineRestoresFromTheVault() async throws {
        try await withVault { vault, token in
            // A backup made elsewhere: one wallet, sealed with the backup password.
            let elsewhere = temporaryHome()
            let other = try WalletStore(home: elsewhere, create: true)
            let otherKeys = try other.newKeyring(password: password("other machine"), parameters: fastKDF())
            try other.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Savings", network: .mainnet, keyring: otherKeys)
            let (payload, _) = try BackupExporter.payload(store: other, keyring: otherKeys, names: nil, app: "test")
            let sealed = try BackupExporter.sealedBytes(payload, password: password(Self.backupPassword))
            let client = VaultClient(url: URL(string: vault.url)!, token: SecretBytes(utf8: token))
            let backup = try await client.upload(sealed, kind: .manual)

            try await withApp(wallet: false) { app, browser, _ in
                var browser = browser
                let start = try await browser.send(.get, app.startPath)
                browser.cookie = Browser.sessionID(start.headers)
                let page = try await browser.send(.get, "/vault")
                #expect(page.status == 200 && page.body.contains(#"name="repeat""#), "a new machine chooses its password here")
                let csrf = try #require(Browser.csrf(page.body))
                let login = ["csrf": csrf, "url": vault.url, "token": token, "password": "new machine pw", "repeat": "new machine pw"]
                #expect(try await browser.send(.post, "/vault/login", form: login.merging(["repeat": "other"]) { $1 }).status == 400)
                #expect(try !app.home.existing() || !WalletStore(home: app.home, create: false).hasPassword())
                let loggedIn = try await browser.send(.post, "/vault/login", form: login)
                #expect(loggedIn.status == 303 && Browser.header("Location", loggedIn.headers) == "/vault")
                let unlocked = try #require(Browser.sessionID(loggedIn.headers))
                #expect(unlocked != browser.cookie, "a new session id at login")
                browser.cookie = unlocked
                let list = try await browser.send(.get, "/vault")
                #expect(list.body.contains(String(backup.id.prefix(8))) && list.body.contains("Open the backup"))
                let csrf2 = try #require(Browser.csrf(list.body))
                let preview = try await browser.send(.post, "/vault/restore", form: ["csrf": csrf2, "id": backup.id, "backupPassword": Self.backupPassword])
                #expect(preview.status == 200 && preview.body.contains("Savings") && !preview.body.contains(#"name="repeat""#))
                let imported = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf2])
                #expect(imported.status == 200)
                let store = try WalletStore(home: app.home, create: false)
                #expect(try store.list().map(\.name) == ["Savings"])
                _ = try store.unlock(password: password("new machine pw"))

                // Locked with no wallet left, the password still opens the app (no redirect loop).
                #expect(try await browser.send(.post, "/wallets/delete", form: ["csrf": csrf2, "name": "Savings", "confirm": "Savings", "password": "new machine pw"]).status == 200)
                let locked = try await browser.send(.post, "/lock", form: ["csrf": csrf2])
                browser.cookie = Browser.sessionID(locked.headers)
                #expect(Browser.header("Location", try await browser.send(.get, "/").headers) == "/unlock")
                let unlock = try await browser.send(.get, "/unlock")
                #expect(unlock.status == 200)
                // A locked session reaches no vault.
                let probe = try await browser.send(.post, "/vault/login", form: ["csrf": try #require(Browser.csrf(unlock.body)), "url": vault.url, "token": token])
                #expect(probe.status == 303 && Browser.header("Location", probe.headers) == "/unlock?next=%2Fvault")
                let again = try await browser.send(.post, "/unlock", form: ["csrf": try #require(Browser.csrf(unlock.body)), "password": "new machine pw"])
                #expect(again.status == 303 && Browser.header("Location", again.headers) == "/")
            }
        }
    }

    /// The credential backup: the backup password sealed under a new 24-word phrase, uploaded only
    /// after its quiz; cancelling uploads nothing; the phrase (and only it) opens it again.
    @Test func theBackupPasswordIsKeptUnderARecoveryPhrase() async throws {
        try await withVault { vault, token in
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let csrf = try #require(Browser.csrf(try await browser.send(.get, "/vault").body))
                #expect(try await browser.send(.post, "/vault/credential", form: ["csrf": csrf, "credential": "x", "credentialRepeat": "x"]).status == 303,
                        "not logged in: back to the vault page")
                let loggedIn = try await browser.send(.post, "/vault/login", form: ["csrf": csrf, "url": vault.url, "token": token])
                #expect(loggedIn.body.contains("Credential backup") && loggedIn.body.contains("Not set."))
                let client = VaultClient(url: URL(string: vault.url)!, token: SecretBytes(utf8: token))
                let start = ["csrf": csrf, "credential": Self.backupPassword, "credentialRepeat": Self.backupPassword]
                #expect(try await browser.send(.post, "/vault/credential", form: start.merging(["credentialRepeat": "other"]) { $1 }).status == 400)
                func step(_ fields: [String: String]) async throws -> (status: Int, headers: [(String, String)], body: String) {
                    try await browser.send(.post, "/backup", form: fields.merging(["csrf": csrf]) { a, _ in a })
                }

                // Cancelled: nothing uploaded.
                #expect(Browser.header("Location", try await browser.send(.post, "/vault/credential", form: start).headers) == "/backup")
                let cancelled = try await step(["event": "skip"])
                #expect(cancelled.status == 200 && cancelled.body.contains("nothing was uploaded"))
                #expect(try await client.credentialBackupStatus().exists == false)

                // The phrase shown, the quiz, then the upload.
                _ = try await browser.send(.post, "/vault/credential", form: start)
                var page = try await browser.send(.get, "/backup")
                #expect(page.body.contains("Your recovery phrase") && !page.body.contains("Back up later"))
                _ = try await step(["event": "proceed"])
                page = try await browser.send(.get, "/backup")
                let words = Self.words(page.body)
                #expect(words.count == 24)
                _ = try await step(["event": "proceed"])
                #expect(try await client.credentialBackupStatus().exists == false, "nothing before the quiz passes")
                while true {
                    page = try await browser.send(.get, "/backup")
                    guard let position = Self.quizPosition(page.body) else { break }
                    _ = try await step(["event": "answer", "answer": words[position - 1]])
                }
                #expect(page.body.contains("Every word was right") && page.body.contains("Encrypt and upload"))
                let uploaded = try await step(["event": "confirm"])
                #expect(uploaded.status == 200 && uploaded.body.contains("credential backup is in the vault"))
                #expect(try await client.credentialBackupStatus().exists)
                #expect(uploaded.body.contains("Kept since") && !uploaded.body.contains(Self.backupPassword))

                // Recovery: a word not in the list, another valid phrase, then the phrase.
                var typo = words
                typo[3] = "qqqqq"
                let notAWord = try await browser.send(.post, "/vault/credential/recover", form: ["csrf": csrf, "phrase": typo.joined(separator: " ")])
                #expect(notAWord.status == 400 && !notAWord.body.contains(Self.backupPassword))
                let other = try CredentialEnvelope.newPhrase().words.joined(separator: " ")
                let wrong = try await browser.send(.post, "/vault/credential/recover", form: ["csrf": csrf, "phrase": other])
                #expect(wrong.status == 400 && !wrong.body.contains(Self.backupPassword))
                let opened = try await browser.send(.post, "/vault/credential/recover", form: ["csrf": csrf, "phrase": words.joined(separator: "  ")])
                #expect(opened.status == 200 && opened.body.contains(#"<code id="recovered-credential">\#(Self.backupPassword)</code>"#))
                #expect(opened.body.contains("last opened"))

                // The vault gone: the page says so and keeps the saved login and the login form.
                await vault.stop()
                let gone = try await browser.send(.get, "/vault")
                #expect(gone.status == 200 && gone.body.contains("Cannot reach the vault at \(vault.url)") && gone.body.contains("Saved login: <code>\(vault.url)"))
                #expect(gone.body.contains(#"action="/vault/login""#) && !gone.body.contains("<summary>Back up now…</summary>"))
            }
        }
    }
}
