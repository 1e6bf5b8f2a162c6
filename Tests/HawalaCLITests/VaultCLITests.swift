import Foundation
import HawalaCrypto
import HawalaBackup
import HawalaKeys
import Testing
import HawalaTestSupport

@Suite("hawala vault, two devices")
struct VaultCLITests {
    /// A server on a free port; one device backs up, another restores the same wallets.
    @Test func backupOnOneDeviceRestoreOnAnother() throws {
        let server = try WalletFixture(), phone = try WalletFixture(), laptop = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
        defer { serve.process.terminate() }
        let listening = try #require(serve.nextLine())
        #expect(listening.hasPrefix("vault listening on http://127.0.0.1:"))
        let url = String(listening.dropFirst("vault listening on ".count))

        let add = try server.vault(["user", "add", "phone", "--db", db])
        #expect(add.status == 0 && add.stdout.hasPrefix("hwv_") && add.stdout.split(separator: "\n").count == 1)
        let token = try phone.write("token", add.stdout)
        try laptop.write("token", add.stdout)
        #expect(try server.vault(["user", "add", "phone", "--db", db]).status == 1)  // taken
        expectCleanFailure(try server.vault(["user", "revoke", "nobody", "--db", db]), contains: "no such user \"nobody\"")
        let users = try #require(try JSONSerialization.jsonObject(with: Data(server.vault(["user", "list", "--json", "--db", db]).stdout.utf8)) as? [[String: Any]])
        #expect(users.map { $0["name"] as? String } == ["phone"] && users[0]["revoked"] as? Bool == false)

        #expect(try phone.restoreAbandon(name: "Main").status == 0)
        #expect(try phone.run(["vault", "list", "--password-file", phone.path("password")]).stderr.contains("vault login"))
        let login = try phone.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", phone.path("password")])
        #expect(login.status == 0, "\(login.stderr)")
        try phone.write("backup-password", "a long backup password 42\n")
        let backup = try phone.run(["vault", "backup", "--password-file", phone.path("password"), "--backup-password-file", phone.path("backup-password")])
        #expect(backup.status == 0 && backup.stdout.hasPrefix("uploaded backup "), "\(backup.stderr)")
        let second = try phone.run(["vault", "backup", "--json", "--password-file", phone.path("password"), "--backup-password-file", phone.path("backup-password")])
        let uploaded = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any], "\(second.stderr)")
        #expect(uploaded["type"] as? String == "manual" && (uploaded["sha256"] as? String)?.count == 64)
        // At a terminal, delete asks first, naming the backup; "n" keeps it.
        let secondID = try #require(uploaded["id"] as? String)
        let ask = try PTYSession(["vault", "delete", secondID, "--password-file", phone.path("password")], home: phone.data.path)
        try ask.expect("Backup \(secondID): ")
        try ask.expect("bytes, manual.")
        try ask.expect("Delete it? [y/N]")
        #expect(!ask.screen.contains("only backup"), "two backups: not the last one")
        ask.send("n")
        #expect(try ask.wait() == 1 && ask.screen.contains("not deleted"))
        expectCleanFailure(try CLI.run(["vault", "delete", secondID, "--password-file", phone.path("password")], environment: phone.environment, newSession: true),
                           status: 2, contains: "--yes")
        #expect(try phone.run(["vault", "delete", secondID, "--yes", "--password-file", phone.path("password")]).status == 0)
        let list = try phone.run(["vault", "list", "--json", "--password-file", phone.path("password")])
        let backups = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(backups.count == 1 && backups[0]["encryptionMethod"] as? String == "hawala-v1" && list.stdout.hasPrefix("[\n  {\n    \"id\""))
        let id = try #require(backups[0]["id"] as? String)

        // A new device with no wallet at all (the only device was lost): log in, list, restore.
        let fresh = try WalletFixture()
        try fresh.write("backup-password", "a long backup password 42\n")
        // It holds an append-only token (as the agent would): it lists and restores, never deletes.
        let appendOnly = try server.vault(["user", "token", "phone", "--db", db])
        #expect(appendOnly.status == 0 && appendOnly.stdout.hasPrefix("hwv_"), "\(appendOnly.stderr)")
        let firstLogin = try fresh.run(["vault", "login", "--url", url, "--token-file", try fresh.write("token", appendOnly.stdout),
                                        "--password-file", fresh.path("password")])
        #expect(firstLogin.status == 0, "\(firstLogin.stderr)")
        #expect(try fresh.run(["vault", "list", "--password-file", fresh.path("password")]).stdout.contains(id))
        expectCleanFailure(try fresh.run(["vault", "delete", id, "--yes", "--password-file", fresh.path("password")]), contains: "HTTP 403): this token is append-only")
        #expect(try server.vault(["user", "list", "--db", db]).stdout.contains("1 full token, 1 append-only token"))
        let back = try fresh.run(["vault", "restore", String(id.prefix(8)), "--password-file", fresh.path("password"),
                                  "--backup-password-file", fresh.path("backup-password"), "--yes"])
        #expect(back.status == 0 && back.stdout.contains("imported \"Main\""), "\(back.stderr)")
        #expect(try fresh.run(["wallet", "addresses", "--wallet", "Main", "--count", "3", "--json"]).stdout
                == (try phone.run(["wallet", "addresses", "--wallet", "Main", "--count", "3", "--json"]).stdout))
        #expect(try fresh.run(["wallet", "status", "--json"]).stdout.contains("\"name\": \"Main\""), "the backup's current wallet is current")

        // The second device: its own wallet store, the same token, the backup restored.
        try laptop.write("mnemonic", legalWinner + "\n")
        #expect(try laptop.restoreAbandon(name: "Laptop").status == 0)
        #expect(try laptop.run(["vault", "login", "--url", url, "--token-file", laptop.path("token"), "--password-file", laptop.path("password")]).status == 0)
        try laptop.write("backup-password", "a long backup password 42\n")
        let restore = try laptop.run(["vault", "restore", id, "--password-file", laptop.path("password"), "--backup-password-file", laptop.path("backup-password")])
        #expect(restore.status == 0 && restore.stdout.contains("imported \"Main\""), "\(restore.stderr)")
        let here = try laptop.run(["wallet", "addresses", "--wallet", "Main", "--count", "3", "--json"])
        let there = try phone.run(["wallet", "addresses", "--wallet", "Main", "--count", "3", "--json"])
        #expect(here.status == 0 && here.stdout == there.stdout)
        // Again, with --json: what the import actually brought — nothing new, said so.
        let again = try laptop.run(["vault", "restore", id, "--json", "--on-conflict", "skip", "--password-file", laptop.path("password"),
                                    "--backup-password-file", laptop.path("backup-password")])
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(again.stdout) \(again.stderr)")
        let outcomes = try #require(outcome["outcomes"] as? [[String: Any]])
        #expect(outcome["wallets"] as? Int == 1 && outcome["restored"] as? Int == 0 && outcomes.first?["outcome"] as? String != "added", "\(outcome)")
        #expect(again.stderr.contains("wallet in"), "the preview goes to stderr with --json")

        // Wrong backup password: nothing imported; unknown id: one line; delete.
        try laptop.write("wrong", "not the backup password\n")
        #expect(try laptop.run(["vault", "restore", id, "--password-file", laptop.path("password"), "--backup-password-file", laptop.path("wrong"), "--on-conflict", "keep-both"]).errorLines.last == "wrong password or damaged file")
        #expect(try laptop.run(["vault", "restore", String(repeating: "0", count: 32), "--password-file", laptop.path("password")]).status == 1)
        // A blob changed behind the server's back: the client checks the SHA-256 the server
        // sends with the bytes and imports nothing; the operator's check names the backup.
        let dbPath = String(db.dropFirst("sqlite:".count))
        func tamper(_ sql: String) throws {
            let tamper = Process()
            tamper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            tamper.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[3], (sys.argv[2],)); c.commit()", dbPath, id, sql]
            try tamper.run()
            tamper.waitUntilExit()
        }
        try tamper("UPDATE chunk SET data = zeroblob(length(data)) WHERE backupId = ? AND idx = 0")
        let changed = try laptop.run(["vault", "restore", id, "--password-file", laptop.path("password"), "--backup-password-file", laptop.path("backup-password"), "--on-conflict", "skip"])
        expectCleanFailure(changed, contains: "does not match its SHA-256; nothing was imported")
        let check = try server.vault(["check", "--db", db])
        #expect(check.status == 1 && check.stdout.contains(id), "\(check.stdout)")
        // A blob cut short: the download stops short of its length (the client says so), the
        // server logs it, and /healthz says so for a minute instead of "ok" (in its own words;
        // the reason is in the server's log).
        try tamper("UPDATE chunk SET data = x'00' WHERE backupId = ?")
        let cut = try laptop.run(["vault", "restore", id, "--password-file", laptop.path("password"), "--backup-password-file", laptop.path("backup-password"), "--on-conflict", "skip"])
        expectCleanFailure(cut, contains: "the download was cut short; nothing was imported")
        let health = String(decoding: try tool("curl", ["-s", "-w", " %{http_code}", url + "/healthz"]), as: UTF8.self)
        #expect(health == "storage failing (see the server's log)\n 503", "\(health)")

        // Short ids, as `ln show` takes them: 8 characters or more, unambiguous.
        expectCleanFailure(try laptop.run(["vault", "delete", String(id.prefix(4)), "--yes", "--password-file", laptop.path("password")]), contains: "at least 8 characters")
        let last = try PTYSession(["vault", "delete", String(id.prefix(8)), "--password-file", laptop.path("password")], home: laptop.data.path)
        try last.expect("It is the only backup in the vault")
        last.send("")
        #expect(try last.wait() == 1)
        let deleted = try laptop.run(["vault", "delete", String(id.prefix(8)), "--yes", "--password-file", laptop.path("password")])
        #expect(deleted.status == 0 && deleted.stdout == "deleted \(id)\n", "\(deleted.stderr)")
        #expect(try phone.run(["vault", "list", "--json", "--password-file", phone.path("password")]).stdout == "[]\n")
        // A revoked token is refused.
        #expect(try server.vault(["user", "revoke", "phone", "--db", db]).status == 0)
        #expect(try phone.run(["vault", "list", "--password-file", phone.path("password")]).stderr.contains("HTTP 401"))
        // The revoked name can be given a new token; a rotation replaces it in one step.
        let renewed = try server.vault(["user", "add", "phone", "--db", db])
        #expect(renewed.status == 0 && renewed.stdout.hasPrefix("hwv_"), "\(renewed.stderr)")
        let rotated = try server.vault(["user", "rotate", "phone", "--db", db])
        #expect(rotated.status == 0 && rotated.stdout.hasPrefix("hwv_") && rotated.stdout != renewed.stdout)
        #expect(try server.vault(["user", "list", "--db", db]).stdout.contains("phone  since "))
    }
}

@Suite("hawala vault login --with-words")
struct VaultWordsLoginCLITests {
    /// The phone is lost with its token; a new device has only the words. They log in, revoke
    /// the lost phone's token, and bring the backup back — no operator involved.
    @Test func theWordsAloneBringTheVaultBack() throws {
        let server = try WalletFixture(), phone = try WalletFixture(), newPhone = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
        defer { serve.process.terminate() }
        let url = String(try #require(serve.nextLine()).dropFirst("vault listening on ".count))
        let token = try phone.write("token", try server.vault(["user", "add", "phone", "--db", db]).stdout)

        // Words on a new device before any binding: refused in words that say what to do.
        try newPhone.write("mnemonic", legalWinner + "\n")
        #expect(try newPhone.restoreAbandon(name: "Main").status == 0)
        let early = try newPhone.run(["vault", "login", "--url", url, "--with-words", "--password-file", newPhone.path("password")])
        expectCleanFailure(early, contains: "no account")

        try phone.write("mnemonic", legalWinner + "\n")
        #expect(try phone.restoreAbandon(name: "Main").status == 0)
        let login = try phone.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", phone.path("password")])
        #expect(login.status == 0 && login.stdout.contains("the words of \"Main\" now log in to this vault too"), "\(login.stdout)\(login.stderr)")
        try phone.write("backup-password", "a long backup password 42\n")
        let backup = try phone.run(["vault", "backup", "--json", "--password-file", phone.path("password"), "--backup-password-file", phone.path("backup-password")])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any])?["id"] as? String, "\(backup.stderr)")

        // Other words never log in; the right ones do, and the lost phone's token stops working.
        let stranger = try WalletFixture()
        #expect(try stranger.restoreAbandon(name: "Other").status == 0)
        expectCleanFailure(try stranger.run(["vault", "login", "--url", url, "--with-words", "--password-file", stranger.path("password")]), contains: "no account")
        let back = try newPhone.run(["vault", "login", "--url", url, "--with-words", "--revoke-others", "--password-file", newPhone.path("password")])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("logged in to \(url) with the words of \"Main\"") && back.stdout.contains("revoked 1 other token"), "\(back.stdout)")
        #expect(try newPhone.run(["vault", "list", "--password-file", newPhone.path("password")]).stdout.contains(id))
        try newPhone.write("backup-password", "a long backup password 42\n")
        let restored = try newPhone.run(["vault", "restore", id, "--password-file", newPhone.path("password"),
                                         "--backup-password-file", newPhone.path("backup-password"), "--on-conflict", "keep-both"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let lost = try phone.run(["vault", "list", "--password-file", phone.path("password")])
        expectCleanFailure(lost, contains: "HTTP 401")
        #expect(lost.stderr.contains("--with-words"))
        // The operator can turn it off; the server says so and the client says what to do.
        serve.process.terminate()
        serve.process.waitUntilExit()
        let off = try RunningCLI(["serve", "--port", "0", "--db", db, "--no-words-login"], environment: server.environment, binary: CLI.vaultBinary)
        defer { off.process.terminate() }
        let offURL = String(try #require(off.nextLine()).dropFirst("vault listening on ".count))
        expectCleanFailure(try newPhone.run(["vault", "login", "--url", offURL, "--with-words", "--password-file", newPhone.path("password")]),
                           contains: "does not take logins with the words")
    }
}

@Suite("hawala vault login: transport")
struct VaultLoginTransportTests {
    /// Plain http is refused for any host but this machine, before anything is sent; a vault
    /// that redirects elsewhere is not followed and the login fails.
    @Test func plainHTTPAndRedirects() throws {
        let f = try WalletFixture()
        let token = try f.write("token", "hwv_test\n")
        let plain = try f.run(["vault", "login", "--url", "http://192.0.2.1:8080", "--token-file", token, "--password-file", f.path("password")])
        #expect(plain.status == 1 && plain.stderr.contains("plain http") && plain.stderr.contains("--insecure"), "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.data.path), "nothing written")
        // A server on loopback that answers every request with a redirect to another origin.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", """
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(302); self.send_header("Location", "http://127.0.0.2:9" + self.path); self.send_header("Content-Length", "0"); self.end_headers()
                def log_message(self, *a): pass
            s = http.server.HTTPServer(("127.0.0.1", 0), H)
            print(s.server_address[1], flush=True)
            s.timeout = 20
            s.handle_request(); s.handle_request()
            """]
        let out = Pipe()
        server.standardOutput = out
        try server.run()
        defer { server.terminate() }
        let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let redirected = try f.run(["vault", "login", "--url", "http://127.0.0.1:\(port)", "--token-file", token, "--password-file", f.path("password")])
        #expect(redirected.status == 1 && redirected.stderr.contains("HTTP 302"), "\(redirected.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.data.path), "a redirected login saves nothing")
    }

    /// `hawala-vault serve --tls-cert --tls-key` serves HTTPS (TLS 1.2 at least) and nothing in
    /// the clear; a client that doesn't trust the certificate says so in one line.
    @Test func servesTLS() throws {
        let f = try WalletFixture()
        let cert = f.path("cert.pem"), key = f.path("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                             "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let db = "sqlite:" + f.home.appendingPathComponent("vault.sqlite").path
        expectCleanFailure(try f.vault(["serve", "--port", "0", "--db", db, "--tls-cert", f.path("missing.pem"), "--tls-key", key]),
                           contains: "cannot read a PEM certificate chain from")
        expectCleanFailure(try f.vault(["serve", "--port", "0", "--db", db, "--tls-cert", cert, "--tls-key", cert]), contains: "private key")
        #expect(try f.vault(["serve", "--tls-cert", cert]).stderr.contains("--tls-cert and --tls-key go together"))
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db, "--tls-cert", cert, "--tls-key", key], environment: f.environment, binary: CLI.vaultBinary)
        defer { serve.process.terminate() }
        let line = try #require(serve.nextLine())
        #expect(line.hasPrefix("vault listening on https://127.0.0.1:"))
        let url = String(line.dropFirst("vault listening on ".count))
        #expect(try curl(["--cacert", cert, url + "/healthz"]).stdout == Data("ok\n".utf8))
        #expect(try curl(["--cacert", cert, "--tls-max", "1.1", url + "/healthz"]).status != 0, "TLS 1.1 is refused")
        #expect(try curl([url.replacingOccurrences(of: "https:", with: "http:") + "/healthz"]).stdout.isEmpty, "nothing in the clear")
        let token = try f.write("token", "hwv_test\n")
        let untrusted = try f.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", f.path("password")])
        expectCleanFailure(untrusted, contains: "TLS certificate this machine does not trust")
    }
}

@Suite("hawala vault credentials")
struct VaultCredentialsCLITests {
    /// The backup password sealed under 24 words shown at a terminal, uploaded; status; a
    /// rehearsal; recovery into a file that restores a backup; wrong phrases refused.
    @Test func backupStatusRecover() throws {
        let server = try WalletFixture(), device = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
        defer { serve.process.terminate() }
        let url = String(try #require(serve.nextLine()).dropFirst("vault listening on ".count))
        let token = try device.write("token", try server.vault(["user", "add", "me", "--db", db]).stdout)
        #expect(try device.restoreAbandon(name: "Main").status == 0)
        let password = device.path("password")
        #expect(try device.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", password]).status == 0)
        let none = try device.run(["vault", "credentials", "status", "--json", "--password-file", password])
        #expect(none.stdout == "{\n  \"exists\": false,\n  \"createdAt\": null,\n  \"lastVerifiedAt\": null\n}\n", "\(none.stderr)")
        expectCleanFailure(try device.run(["vault", "credentials", "recover", "--password-file", password, "--phrase-file", device.path("password")]),
                           contains: "no credential backup in the vault")

        let backupPassword = try device.write("backup-password", "a long backup password 42\n")
        #expect(try device.run(["vault", "backup", "--password-file", password, "--backup-password-file", backupPassword]).status == 0)
        let session = try PTYSession(["vault", "credentials", "backup", "--password-file", password, "--backup-password-file", backupPassword],
                                     home: device.data.path)
        let words = try writeDownAndPassQuiz(session)
        #expect(try session.wait(timeout: 60) == 0, "\(session.screen)")
        #expect(session.screen.contains("the credential backup is in the vault"))

        let made = try device.run(["vault", "credentials", "status", "--json", "--password-file", password])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        #expect(status["exists"] as? Bool == true && status["createdAt"] is String && status["lastVerifiedAt"] is NSNull)

        let phrase = try device.write("phrase", (1...24).map { words[$0]! }.joined(separator: " ") + "\n")
        let rehearsal = try device.run(["vault", "credentials", "recover", "--password-file", password, "--phrase-file", phrase])
        #expect(rehearsal.status == 0 && rehearsal.stdout.contains("opens the credential backup"), "\(rehearsal.stderr)")
        let verified = try device.run(["vault", "credentials", "status", "--json", "--password-file", password])
        #expect(verified.stdout.contains("\"lastVerifiedAt\": \"20"))

        // The recovered password opens the vault's backup.
        let out = device.home.appendingPathComponent("recovered-password").path
        #expect(try device.run(["vault", "credentials", "recover", "--password-file", password, "--phrase-file", phrase, "--out", out]).status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "a long backup password 42")
        let list = try device.run(["vault", "list", "--json", "--password-file", password])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        let restore = try device.run(["vault", "restore", id, "--password-file", password, "--backup-password-file", out, "--on-conflict", "skip"])
        #expect(restore.status == 0, "\(restore.stderr)")

        // Another valid phrase, a file in the way: one line each, nothing written.
        let other = try device.write("other", (try Mnemonic.generate(wordCount: 24)).phrase)
        expectCleanFailure(try device.run(["vault", "credentials", "recover", "--password-file", password, "--phrase-file", other, "--out", out + "2"]),
                           contains: "wrong recovery phrase or damaged file")
        #expect(!FileManager.default.fileExists(atPath: out + "2"))
        expectCleanFailure(try device.run(["vault", "credentials", "recover", "--password-file", password, "--phrase-file", phrase, "--out", out]),
                           contains: "already exists")
    }
}

@Suite("hawala vault agent")
struct VaultAgentCLITests {
    /// Enabled once with the passwords; afterwards the agent uploads on the vault's schedule
    /// with only its token: skips on a metered connection (wifiOnly), uploads once due, does not
    /// re-upload an unchanged snapshot, picks up a change made by a later command, retries
    /// with backoff when the vault is gone. The upload restores with the backup password.
    @Test func scheduledBackupsWithoutAPassword() throws {
        let server = try WalletFixture(), device = try WalletFixture(), other = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
        var serverRunning = true
        defer { if serverRunning { serve.process.terminate() } }
        let url = String(try #require(serve.nextLine()).dropFirst("vault listening on ".count))
        let token = try device.write("token", try server.vault(["user", "add", "me", "--db", db]).stdout)
        let password = device.path("password")
        #expect(try device.restoreAbandon(name: "Main").status == 0)
        #expect(try device.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", password]).status == 0)
        // The schedule, metered connections and backoff are VaultAgentTests' (an injected clock);
        // here the agent runs at the real time.
        func agent() throws -> CLIResult {
            try CLI.run(["vault", "agent", "--once", "--token-file", token], stdin: Data(), environment: device.environment)
        }
        func backups() throws -> [[String: Any]] {
            let list = try device.run(["vault", "list", "--json", "--password-file", password])
            return try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        }
        expectCleanFailure(try agent(), contains: "the vault agent is not enabled")

        let backupPassword = try device.write("backup-password", "a long backup password 42\n")
        let enable = try device.run(["vault", "agent", "enable", "--password-file", password, "--backup-password-file", backupPassword])
        #expect(enable.status == 0 && enable.stdout.contains("vault agent enabled") && enable.stdout.contains("turn automatic backups on"), "\(enable.stderr)")
        let off = try agent()
        #expect(off.status == 0 && off.stderr.contains("automatic backups are off"), "\(off.stderr)")
        #expect(try device.run(["vault", "settings", "set", "autoBackupEnabled", "true", "--password-file", password]).status == 0)
        // An invalid value is exit 1 (2 is for usage errors only).
        let hourly = try device.run(["vault", "settings", "set", "backupFrequency", "hourly", "--password-file", password])
        #expect(hourly.status == 1 && hourly.errorLines == ["backupFrequency takes daily, weekly or monthly"], "\(hourly.stderr)")
        // Enabling again does not ask to turn on what is on.
        let again = try device.run(["vault", "agent", "enable", "--password-file", password, "--backup-password-file", backupPassword])
        #expect(again.stdout.contains("automatic backups are on") && !again.stdout.contains("turn automatic backups on"), "\(again.stdout)")
        // The vault holds no backup yet: due at once, not at the next slot.
        let first = try agent()
        #expect(first.status == 0 && first.stderr.contains("uploaded backup"), "\(first.stderr)")
        #expect(try backups().map { $0["type"] as? String } == ["auto"])
        #expect(try agent().stderr.contains("next backup due at"))

        // A later command that opens the wallet refreshes the snapshot; the next due run uploads it.
        try device.write("mnemonic2", legalWinner + "\n")
        #expect(try device.run(["wallet", "restore", "--name", "Second", "--mnemonic-file", device.path("mnemonic2"), "--password-file", password, "--yes"]).status == 0)
        #expect(try device.run(["wallet", "create", "--name", "Spare", "--skip-backup", "--password-file", password]).status == 0)
        // Emptied, the vault is due again at once (the time of the next slot is VaultAgentTests').
        let firstID = try #require(try backups().first?["id"] as? String)
        #expect(try device.run(["vault", "delete", firstID, "--yes", "--password-file", password]).status == 0)
        let changedRun = try agent()
        #expect(changedRun.stderr.contains("uploaded backup") && !changedRun.stderr.contains("reminder"), "the agent's log has no wallet reminders: \(changedRun.stderr)")
        let newest = try #require(try backups().first?["id"] as? String)

        // Another device restores the agent's upload with the backup password.
        try other.write("token", try String(contentsOfFile: token, encoding: .utf8))
        #expect(try other.restoreAbandon(name: "Phone").status == 0)
        #expect(try other.run(["vault", "login", "--url", url, "--token-file", other.path("token"), "--password-file", other.path("password")]).status == 0)
        try other.write("backup-password", "a long backup password 42\n")
        let restore = try other.run(["vault", "restore", newest, "--password-file", other.path("password"), "--backup-password-file", other.path("backup-password"), "--on-conflict", "skip"])
        #expect(restore.status == 0 && restore.stdout.contains("imported \"Second\""), "\(restore.stdout) \(restore.stderr)")

        // The vault gone: exit 1, a retry time, then waiting without trying.
        serve.process.terminate()
        serve.process.waitUntilExit()
        serverRunning = false
        let failed = try agent()
        #expect(failed.status == 1 && failed.stderr.contains("backup failed") && failed.stderr.contains("retrying at"), "\(failed.stderr)")
        #expect(try agent().stderr.contains("waiting to retry"))
        // A password change keeps the agent's key usable (it is re-sealed with the rest).
        let newPassword = try device.write("new-password", "another wallet password 7\n")
        let changed = try device.run(["wallet", "change-password", "--password-file", password, "--new-password-file", newPassword])
        #expect(changed.status == 0 && !changed.stderr.contains("warning"), "\(changed.stderr)")
        try device.write("mnemonic3", "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong\n")
        let third = try device.run(["wallet", "restore", "--name", "Third", "--mnemonic-file", device.path("mnemonic3"), "--password-file", newPassword, "--yes"])
        #expect(third.status == 0 && !third.stderr.contains("warning"), "\(third.stderr)")
        let snapshot = device.data.appendingPathComponent("outbox/snapshot.hawala")
        let names = try BackupPayload.decode(try BackupFile.read(snapshot, password: SecretBytes(utf8: "a long backup password 42"))).wallets.map(\.name)
        #expect(names.sorted() == ["Main", "Second", "Spare", "Third"])
        // No password, no key and no token in the clear anywhere in the store's folder.
        let tokenText = try String(contentsOfFile: token, encoding: .utf8).trimmingCharacters(in: .newlines)
        for file in FileManager.default.enumerator(atPath: device.data.path)!.compactMap({ $0 as? String }) {
            guard let bytes = FileManager.default.contents(atPath: device.data.appendingPathComponent(file).path) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("a long backup password") && !text.contains(tokenText), "\(file)")
        }
    }
}

/// Runs curl (Debian's, installed by `make`) and returns stdout.
func curl(_ arguments: [String]) throws -> (status: Int32, stdout: Data) {
    try toolRun("curl", ["-s", "--max-time", "20"] + arguments)
}

@Suite("hawala-vault serve under SIGKILL")
struct VaultCrashTests {
    /// 20 times: uploads in flight, the server killed with SIGKILL at a random moment, restarted
    /// on the same database. No partial backup is ever listed: every listed backup downloads
    /// whole, with the SHA-256 and size recorded.
    @Test func killedDuringUploads() throws {
        let server = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let token = try server.vault(["user", "add", "crash", "--db", db]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var generator = SystemRandomNumberGenerator()
        let blob = server.home.appendingPathComponent("blob")
        try Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: blob)
        var listedTotal = 0
        var verified: Set<String> = []  // each backup is downloaded and checked once
        for trial in 0..<20 {
            let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
            let line = try #require(serve.nextLine(), "trial \(trial): the server did not start (database unreadable?)")
            let url = String(line.dropFirst("vault listening on ".count))
            // Three 4 MiB uploads in flight, then SIGKILL after 5–300 ms: usually some done, some cut.
            let uploads = (0..<3).map { _ in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                p.arguments = ["-s", "-o", "/dev/null", "-H", "Expect:", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream",
                               "--data-binary", "@" + blob.path, url + "/vault/backup"]
                try? p.run()
                return p
            }
            if trial == 0 {
                // The first trial lets its uploads finish, so the later kills have whole backups
                // to keep even on a machine too busy to finish one within 300 ms.
                for p in uploads { p.waitUntilExit() }
            } else {
                usleep(UInt32.random(in: 5_000...300_000, using: &generator))
            }
            kill(serve.process.processIdentifier, SIGKILL)
            serve.process.waitUntilExit()
            for p in uploads { p.waitUntilExit() }

            // Restarted: everything listed is whole.
            let again = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
            defer { again.process.terminate(); again.process.waitUntilExit() }
            let url2 = String(try #require(again.nextLine()).dropFirst("vault listening on ".count))
            let list = try curl(["-H", "Authorization: Bearer \(token)", url2 + "/vault/backups"])
            let backups = try #require(try JSONSerialization.jsonObject(with: list.stdout) as? [[String: Any]], "trial \(trial)")
            listedTotal = backups.count  // retention keeps everything: all are younger than 30 days
            #expect(verified.isSubset(of: Set(backups.compactMap { $0["id"] as? String })), "trial \(trial): a backup vanished")
            for b in backups where !verified.contains(b["id"] as? String ?? "") {
                let id = try #require(b["id"] as? String)
                verified.insert(id)
                #expect(b["sizeBytes"] as? Int == 4 << 20 && b["status"] as? String == "complete", "trial \(trial)")
                let body = try curl(["-H", "Authorization: Bearer \(token)", url2 + "/vault/backups/" + id]).stdout
                #expect(body.count == 4 << 20 && hexDigest(body) == b["sha256"] as? String, "trial \(trial): backup \(id)")
            }
        }
        // Some uploads must have completed (trial 0's at least), or the listing checks prove
        // nothing. (Whether a later kill lands mid-upload is timing; the property holds either way.)
        #expect(listedTotal > 0, "\(listedTotal) backups after 60 uploads")

        // The operator's check reads them all back: intact after 20 kills.
        let clean = try server.vault(["check", "--json", "--db", db])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(clean.stdout.utf8)) as? [String: Any], "\(clean.stderr)")
        #expect(clean.status == 0 && report["checked"] as? Int == listedTotal && (report["damaged"] as? [Any])?.isEmpty == true, "\(clean.stdout)")
        // A byte changed on disk behind the server's back (every copy of three stretches of
        // the blob, in the database and its WAL): each backup is reported, nothing deleted.
        let original = try Data(contentsOf: blob)
        for file in ["vault.sqlite", "vault.sqlite-wal"] {
            let url = server.home.appendingPathComponent(file)
            guard var bytes = try? Data(contentsOf: url) else { continue }
            for offset in [2 << 20, (2 << 20) + 5000, 3 << 20] {
                let needle = original[offset..<offset + 16]
                var from = bytes.startIndex
                while let found = bytes.range(of: needle, in: from..<bytes.endIndex) {
                    bytes[found.lowerBound] ^= 0xFF
                    from = found.upperBound
                }
            }
            try bytes.write(to: url)
        }
        let damaged = try server.vault(["check", "--repair-report", "--db", db])
        #expect(damaged.status == 1, "\(damaged.stdout)\(damaged.stderr)")
        #expect(damaged.stdout.hasPrefix("\(listedTotal) backup\(listedTotal == 1 ? "" : "s") checked, \(listedTotal) damaged\n"), "\(damaged.stdout)")
        #expect(damaged.stdout.components(separatedBy: "damaged: user crash, backup ").count == listedTotal + 1)
        #expect(damaged.stdout.contains("user crash: \(listedTotal) damaged; no intact backup left"), "\(damaged.stdout)")
        #expect(try server.vault(["user", "list", "--json", "--db", db]).stdout.contains("\"backups\" : \(listedTotal)"))
    }
}

@Suite("hawala-vault: the server's own program")
struct VaultServerProgramTests {
    /// The old `hawala vault serve` / `user` say where the server went; `hawala-vault` refuses
    /// bad options in one line (exit 2) before opening anything.
    @Test func commandLine() throws {
        let f = try WalletFixture()
        for old in [["vault", "serve", "--port", "0"], ["vault", "user", "add", "x"]] {
            expectCleanFailure(try f.run(old), contains: "hawala-vault serve")
        }
        #expect(!(try f.run(["vault", "--help"]).stdout.contains("\n  serve ")))
        let help = try f.vault(["--help"])
        #expect(help.status == 0 && help.stdout.contains("serve") && help.stdout.contains("check") && help.stdout.contains("user"))
        #expect(try f.vault(["serve", "--help"]).stdout.contains("--trusted-proxy"))
        for (arguments, words) in [(["serve", "--trusted-proxy", "example.com"], "--trusted-proxy takes an address or CIDR block"),
                                   (["serve", "--trusted-proxy", "10.0.0.0/33"], "not \"10.0.0.0/33\""),
                                   (["serve", "--port", "70000"], "--port must be 0–65535"),
                                   (["serve", "--log-level", "loud"], "--log-level takes one of"),
                                   (["check", "--db", "mysql://x"], "--db takes sqlite:PATH or postgres://")] {
            let result = try f.vault(arguments)
            #expect(result.status == 2 && result.stderr.contains(words) && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: f.data.appendingPathComponent("vault.sqlite").path))
        let empty = try f.vault(["check"])
        #expect(empty.status == 0 && empty.stdout == "0 backups checked, 0 damaged\n", "\(empty.stderr)")
        // Not logged in: said before any password is asked (there is no terminal and no file).
        #expect(try f.restoreAbandon().status == 0)
        expectCleanFailure(try f.run(["vault", "list"]), contains: "not logged in to a vault: run `hawala vault login --url URL`")
    }
}

func hexDigest(_ data: Data) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try? process.run()
    try? input.fileHandleForWriting.write(contentsOf: data)
    try? input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(text.prefix(64))
}
