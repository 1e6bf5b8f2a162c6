import Foundation
import Testing
import HawalaTestSupport

/// Issue 17: a slip at a prompt is asked again, never an internal message or lost work.
@Suite("Prompts forgive")
struct PromptTests {
    /// Reads the words shown by the backup flow.
    static func shownWords(_ screen: Substring) -> [Int: String] {
        var words: [Int: String] = [:]
        // One per line, or rows of four (`1. word   2. word …`).
        for line in screen.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: " ")
            for (i, part) in parts.enumerated() where i + 1 < parts.count && part.hasSuffix(".") {
                if let n = Int(part.dropLast()) { words[n] = String(parts[i + 1]) }
            }
        }
        return words
    }

    /// Answers every quiz question right, until "All correct.".
    static func passQuiz(_ session: PTYSession, words: [Int: String]) throws {
        var prompt = 1
        while true {
            let rest = try session.expect("Word #", occurrence: prompt)
            guard let position = Int(rest.prefix { $0.isNumber }), let word = words[position] else { throw PTYError("no position in \(rest)") }
            session.send(word)
            try session.waitUntil { session.occurrences(of: "Word #") > prompt || session.screen.contains("All correct.") }
            if session.screen.contains("All correct.") { return }
            prompt += 1
        }
    }

    /// `y` confirms after a correct quiz; a typo is asked again; no flow text reaches the user.
    @Test func yConfirmsTheBackup() throws {
        let f = try WalletFixture()
        let session = try PTYSession(["wallet", "create", "--name", "Main", "--password-file", f.path("password")], home: f.data.path)
        try session.expect("Press Enter to show the words")
        session.send("")
        let words = Self.shownWords(Substring(try session.expect("Press Enter when you have written them down")))
        #expect(words.count == 12)
        session.send("")
        try Self.passQuiz(session, words: words)
        try session.expect("Type \"yes\"")
        session.send("yse")
        try session.expect("Type \"yes\" (or \"y\") once the words are on paper")
        try session.expect("Type \"yes\"", occurrence: 2)
        session.send("Y")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("Backup verified."))
        #expect(!session.screen.contains("does not apply"), "\(session.screen)")
        let status = try f.run(["wallet", "status", "--json"])
        #expect(status.stdout.contains("\"state\": \"backed-up\""), "\(status.stdout)")
    }

    /// The credential phrase's confirmation takes `y` too (it used to lose the whole backup).
    @Test func yConfirmsTheCredentialBackup() throws {
        let f = try WalletFixture()
        let blob = try f.write("credential.json", "{\"token\":\"x\"}")
        let envelope = f.home.appendingPathComponent("credential.hwcb").path
        let session = try PTYSession(["backup", "credential", "create", "--in", blob, "--out", envelope], home: f.data.path)
        let words = Self.shownWords(Substring(try session.expect("\"cancel\" to stop")))
        #expect(words.count == 24, "\(session.screen)")
        session.send("")
        try Self.passQuiz(session, words: words)
        try session.expect("Type \"yes\"")
        session.send("y")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(FileManager.default.fileExists(atPath: envelope))
    }

    /// Restore: an unknown network answer is asked again; "Do they match? n" leads to correcting,
    /// not retyping; a short, then a mismatched new password is asked again.
    @Test func restoreForgivesEverySlip() throws {
        let f = try WalletFixture()
        let session = try PTYSession(["wallet", "restore", "--name", "Fixed"], home: f.data.path)
        try session.expect("[m]ainnet or [t]estnet?")
        session.send("x")
        try session.expect("Type m for mainnet or t for testnet.")
        session.send("t")
        try session.expect("How many words")
        // A pasted phrase whose checksum fails keeps its words.
        session.send(Array(repeating: "abandon", count: 12).joined(separator: " "))
        try session.expect("checksum mismatch")
        try session.expect("Number of the word to correct")
        session.send("all")
        try session.expect("Type a number from 1 to 12")
        session.send("12")
        try session.expect("Word 12 of 12")
        session.send("about")
        try session.expect("BIP39 passphrase")
        session.send("")
        try session.expect("Do they match?")
        #expect(session.screen.contains("bitcoin-testnet: tb1q"))
        session.send("n")
        try session.expect("[n] switch to mainnet")
        session.send("n")
        try session.expect("Do they match?", occurrence: 2)
        #expect(session.screen.contains("bitcoin: bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        session.send("y")
        try session.expect("New password: ")
        session.send("short")
        try session.expect("at least 8 characters; choose another")
        try session.expect("New password: ", occurrence: 2)
        session.send(f.password)
        try session.expect("Repeat it: ")
        session.send(f.password + "x")
        try session.expect("The two entries differ")
        try session.expect("New password: ", occurrence: 3)
        session.send(f.password)
        try session.expect("Repeat it: ", occurrence: 2)
        session.send(f.password)
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("restored wallet \"Fixed\" (mainnet, fingerprint 73c5da0a)"), "\(session.screen)")
    }

    /// Ctrl-D at a prompt cancels: exit 1, "cancelled", nothing written.
    @Test func controlDCancelsCleanly() throws {
        let f = try WalletFixture()
        for (arguments, prompt) in [(["wallet", "restore"], "[m]ainnet or [t]estnet?"), ([], "or [q]uit?")] {
            let session = try PTYSession(arguments, home: f.data.path)
            try session.expect(prompt)
            session.sendControlD()
            #expect(try session.wait() == 1, "\(session.screen)")
            #expect(session.screen.contains("cancelled"), "\(session.screen)")
        }
        // Midway through the words, too.
        let session = try PTYSession(["wallet", "restore", "--network", "mainnet"], home: f.data.path)
        try session.expect("How many words")
        session.send("12")
        try session.expect("Word 1 of 12")
        session.send("abandon")
        try session.expect("Word 2 of 12")
        session.sendControlD()
        #expect(try session.wait() == 1)
        #expect(session.screen.contains("cancelled"))
        #expect(!FileManager.default.fileExists(atPath: f.data.appendingPathComponent("wallets.sqlite").path), "nothing written")
    }

    /// Importing a wallet that is already here offers skip or replace only (keep both would keep
    /// one wallet twice); "k" is asked again; the current wallet stays current.
    @Test func importConflictAtThePrompt() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        let backupPassword = try f.write("backup-password", "a long backup passphrase\n")
        let file = f.home.appendingPathComponent("b.hawala").path
        #expect(try f.run(["backup", "export", "--out", file, "--password-file", f.path("password"), "--backup-password-file", backupPassword]).status == 0)
        #expect(try f.run(["wallet", "create", "--name", "Other", "--skip-backup", "--password-file", f.path("password")]).status == 0)
        let session = try PTYSession(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", f.path("password")], home: f.data.path)
        try session.expect("is already here as \"Main\" (same words and network): [s]kip or [r]eplace? ")
        session.send("k")
        try session.expect("Type s to keep the wallet here, or r to replace it")
        session.send("s")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("skipped \"Main\""))
        #expect(try f.run(["wallet", "status", "--json"]).stdout.contains("\"name\": \"Other\""), "the current wallet is still Other")
    }

    /// Onboarding asks again on an unknown choice.
    @Test func onboardingAsksAgain() throws {
        let f = try WalletFixture()
        let session = try PTYSession([], home: f.data.path)
        try session.expect("or [q]uit?")
        session.send("x")
        try session.expect("Type c to create, r to restore from words, v to restore from a vault backup, or q to quit.")
        session.send("q")
        #expect(try session.wait() == 0, "\(session.screen)")
    }

    /// show-seed: a mistyped password is asked again (3 tries); `13` and `all` are asked again.
    @Test func showSeedForgives() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let session = try PTYSession(["wallet", "show-seed"], home: f.data.path)
        try session.expect("[y/N]")
        session.send("yes")
        try session.expect("Wallet password: ")
        session.send("wrong password")
        try session.expect("wrong password; try again (2 left)")
        try session.expect("Wallet password: ", occurrence: 2)
        session.send(f.password)
        try session.expect("Number of the word to reveal")
        session.send("13")
        try session.expect("Type a number from 1 to 12")
        session.send("all")
        try session.expect("Type a number from 1 to 12", occurrence: 2)
        session.send("12")
        try session.expect("12. about")
        session.send("")
        #expect(try session.wait() == 0, "\(session.screen)")

        let wrong = try PTYSession(["wallet", "show-seed"], home: f.data.path)
        try wrong.expect("[y/N]")
        wrong.send("y")
        for n in 1...3 {
            try wrong.expect("Wallet password: ", occurrence: n)
            wrong.send("not it \(n)")
        }
        #expect(try wrong.wait() == 1)
        #expect(wrong.screen.hasSuffix("wrong password\r\n") || wrong.screen.contains("\nwrong password"), "\(wrong.screen)")
        #expect(!wrong.screen.contains("abandon"))
    }
}

@Suite("Reminders tell the truth")
struct ReminderCLITests {
    @Test func everyWalletNotBackedUpIsNamed() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)  // backed up: the words were typed
        #expect(try f.run(["derive", "--chain", "bitcoin"], stdin: abandonAbout + "\n").stderr.isEmpty)
        for name in ["Spare", "Old one"] {
            let created = try f.run(["wallet", "create", "--name", name, "--skip-backup", "--password-file", f.path("password")])
            #expect(created.status == 0, "\(created.stderr)")
        }
        #expect(try f.run(["wallet", "use", "Abandon"]).status == 0)
        let derive = try f.run(["derive", "--chain", "bitcoin"], stdin: abandonAbout + "\n")
        #expect(derive.stderr == "reminder: 2 wallets are not backed up: \"Spare\", \"Old one\"; run `hawala wallet verify-backup --wallet NAME`\n", "\(derive.stderr)")
        let status = try f.run(["wallet", "status"])
        #expect(status.stdout.contains("not backed up: \"Spare\", \"Old one\""), "\(status.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try f.run(["wallet", "status", "--json"]).stdout.utf8)) as! [String: Any]
        #expect(json["notBackedUp"] as? [String] == ["Spare", "Old one"])
        #expect(try f.run(["wallet", "delete", "Spare", "--yes", "--password-file", f.path("password")]).status == 0)
        let one = try f.run(["wallet", "list"])
        #expect(one.stderr == "reminder: wallet \"Old one\" is not backed up; run `hawala wallet verify-backup --wallet 'Old one'`\n", "\(one.stderr)")
    }
}
