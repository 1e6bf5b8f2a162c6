import Foundation
import Testing

@Suite("hawala vault, two devices")
struct VaultCLITests {
    /// A server on a free port; one device backs up, another restores the same wallets.
    @Test func backupOnOneDeviceRestoreOnAnother() throws {
        let server = try WalletFixture(), phone = try WalletFixture(), laptop = try WalletFixture()
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["vault", "serve", "--port", "0", "--db", db], environment: server.environment)
        defer { serve.process.terminate() }
        let listening = try #require(serve.nextLine())
        #expect(listening.hasPrefix("vault listening on http://127.0.0.1:"))
        let url = String(listening.dropFirst("vault listening on ".count))

        let add = try server.run(["vault", "user", "add", "phone", "--db", db])
        #expect(add.status == 0 && add.stdout.hasPrefix("hwv_") && add.stdout.split(separator: "\n").count == 1)
        let token = try phone.write("token", add.stdout)
        try laptop.write("token", add.stdout)
        #expect(try server.run(["vault", "user", "add", "phone", "--db", db]).status == 1)  // taken

        #expect(try phone.restoreAbandon(name: "Main").status == 0)
        #expect(try phone.run(["vault", "list", "--password-file", phone.path("password")]).stderr.contains("vault login"))
        let login = try phone.run(["vault", "login", "--url", url, "--token-file", token, "--password-file", phone.path("password")])
        #expect(login.status == 0, "\(login.stderr)")
        try phone.write("backup-password", "a long backup password 42\n")
        let backup = try phone.run(["vault", "backup", "--password-file", phone.path("password"), "--backup-password-file", phone.path("backup-password")])
        #expect(backup.status == 0 && backup.stdout.hasPrefix("uploaded backup "), "\(backup.stderr)")
        let list = try phone.run(["vault", "list", "--json", "--password-file", phone.path("password")])
        let backups = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(backups.count == 1 && backups[0]["encryptionMethod"] as? String == "hawala-v1" && list.stdout.hasPrefix("[\n  {\n    \"id\""))
        let id = try #require(backups[0]["id"] as? String)

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

        // Wrong backup password: nothing imported; unknown id: one line; delete.
        try laptop.write("wrong", "not the backup password\n")
        #expect(try laptop.run(["vault", "restore", id, "--password-file", laptop.path("password"), "--backup-password-file", laptop.path("wrong"), "--on-conflict", "keep-both"]).errorLines.last == "wrong password or damaged file")
        #expect(try laptop.run(["vault", "restore", String(repeating: "0", count: 32), "--password-file", laptop.path("password")]).status == 1)
        #expect(try laptop.run(["vault", "delete", id, "--password-file", laptop.path("password")]).status == 0)
        #expect(try phone.run(["vault", "list", "--json", "--password-file", phone.path("password")]).stdout == "[]\n")
        // A revoked token is refused.
        #expect(try server.run(["vault", "user", "revoke", "phone", "--db", db]).status == 0)
        #expect(try phone.run(["vault", "list", "--password-file", phone.path("password")]).stderr.contains("HTTP 401"))
    }
}
