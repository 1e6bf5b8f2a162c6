import Foundation
import HawalaKeys
import Testing
import HawalaTestSupport

@Suite("At a terminal")
struct TerminalTests {
    /// The mnemonic typed at the prompt is not echoed, and the result is the same as from stdin.
    @Test func mnemonicPromptHidesInput() throws {
        let session = try PTYSession(["derive", "--chain", "bitcoin"])
        try session.expect("Mnemonic (input hidden): ")
        session.send(abandonAbout)
        let status = try session.wait()
        #expect(status == 0, "screen: \(session.screen)")
        #expect(session.screen.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(!session.screen.contains("abandon"), "the mnemonic was echoed: \(session.screen)")
    }

    @Test func wrongMnemonicAtThePromptIsOneLine() throws {
        let session = try PTYSession(["derive", "--chain", "bitcoin"])
        try session.expect("Mnemonic (input hidden): ")
        session.send("abandon abandon abandn")
        #expect(try session.wait() == 1)
        #expect(!session.screen.contains("abandn\r\n"), "echoed: \(session.screen)")
    }
}

@Suite("Wallet flows at a terminal")
struct WalletTerminalTests {
    /// create → read the words → answer the quiz → status says backed up.
    @Test func createBackupQuizStatus() throws {
        let f = try WalletFixture()
        let session = try PTYSession(["wallet", "create", "--name", "Main", "--password-file", f.path("password")], home: f.data.path)
        try session.expect("Press Enter to show the words")
        session.send("")
        let afterWords = try session.expect("Press Enter when you have written them down")
        var words: [Int: String] = [:]
        for line in afterWords.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0].hasSuffix("."), let n = Int(parts[0].dropLast()) { words[n] = String(parts[1]) }
        }
        #expect(words.count == 12)
        session.send("")
        // The first answer is wrong, to exercise retry; then every question is answered.
        let first = try session.expect("Word #", occurrence: 1)
        #expect(Int(first.prefix { $0.isNumber }) != nil)
        session.send("zzzz")
        try session.expect("[r]etry")
        session.send("r")
        var asked: [Int] = []
        var prompt = 2
        while true {
            let rest = try session.expect("Word #", occurrence: prompt)
            guard let position = Int(rest.prefix { $0.isNumber }) else { Issue.record("no position in \(rest)"); return }
            asked.append(position)
            session.send(words[position]!)
            try session.waitUntil { session.occurrences(of: "Word #") > prompt || session.screen.contains("All correct.") }
            if session.screen.contains("All correct.") { break }
            prompt += 1
        }
        #expect((3...5).contains(asked.count) && Set(asked).count == asked.count)
        try session.expect("Type \"yes\"")
        session.send("yes")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("Backup verified."))
        let status = try f.run(["wallet", "status", "--json"])
        #expect(status.stdout.contains("\"state\": \"backed-up\""), "\(status.stdout)")
        #expect(status.stderr.isEmpty, "no reminder once backed up: \(status.stderr)")
    }

    /// Recover a known mnemonic word by word → the shown addresses are the expected ones.
    @Test func restoreWordByWord() throws {
        let f = try WalletFixture()
        let session = try PTYSession(["wallet", "restore", "--name", "Restored"], home: f.data.path)
        try session.expect("[m]ainnet or [t]estnet?")
        session.send("m")
        try session.expect("How many words")
        session.send("12")
        for position in 1...12 {
            try session.expect("Word \(position) of 12")
            if position == 3 {
                session.send("abandn")  // a typo: suggestions, then the same word again
                try session.expect("did you mean: abandon")
                try session.expect("Word 3 of 12", occurrence: 2)
            }
            session.send(position == 12 ? "abou" : "aban")
        }
        try session.expect("BIP39 passphrase")
        session.send("")
        try session.expect("Do they match?")
        #expect(session.screen.contains("bitcoin: bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(session.screen.contains("ethereum: 0x9858EfFD232B4033E47d90003D41EC34EcaEda94"))
        #expect(session.screen.contains("solana: HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"))
        session.send("y")
        try session.expect("New password: ")
        session.send(f.password)
        try session.expect("Repeat it: ")
        session.send(f.password)
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("restored wallet \"Restored\" (mainnet, fingerprint 73c5da0a)"))
        #expect(!session.screen.contains(f.password), "the password was echoed")
        let seed = try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")])
        #expect(seed.stdout == abandonAbout + "\n")
    }

    @Test func createWithoutTerminalNeedsSkipBackup() throws {
        // No controlling terminal: the child is started in a new session without one.
        let f = try WalletFixture()
        let r = try CLI.run(["wallet", "create", "--password-file", f.path("password")], environment: f.environment, newSession: true)
        #expect(r.status == 2 && r.stderr.contains("--skip-backup"), "\(r.stderr)")
        #expect(try f.run(["wallet", "list", "--json"]).stdout == "[]\n", "nothing was created")
    }
}

@Suite("Clipboard and onboarding at a terminal")
struct ClipboardTests {
    /// A stand-in xclip that records what it is given, so the test sees the copy and the clear.
    @Test func copyThenClear() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let bin = f.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let clip = f.home.appendingPathComponent("clipboard").path
        let fake = bin.appendingPathComponent("xclip").path
        try "#!/bin/sh\ncat > \"\(clip)\"\n".write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let env = ["PATH": bin.path + ":/usr/bin:/bin", "DISPLAY": ":99"]
        let session = try PTYSession(["wallet", "show-seed", "--copy", "--clear-after", "1", "--password-file", f.path("password")], environment: env, home: f.data.path)
        try session.expect("clipboard managers may keep a history")
        try session.expect("[y/N]")
        session.send("y")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("cleared in 1 seconds"))
        #expect(!session.screen.contains("abandon"))
        #expect(try String(contentsOfFile: clip, encoding: .utf8) == abandonAbout)
        // After the delay, the clipboard holds nothing.
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: clip, encoding: .utf8)) != "" && Date() < deadline { usleep(100_000) }
        #expect(try String(contentsOfFile: clip, encoding: .utf8) == "")
    }

    @Test func noClipboardIsOneClearLine() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let r = try CLI.run(["wallet", "show-seed", "--copy", "--password-file", f.path("password")],
                            environment: f.environment.merging(["PATH": "/nonexistent", "DISPLAY": ":99"]) { $1 })
        expectCleanFailure(r, contains: "no clipboard here")
    }

    @Test func onboardingOffersCreateOrRestore() throws {
        let session = try PTYSession([])
        try session.expect("[c]reate a new wallet, [r]estore one from its words, restore from a [v]ault backup, or [q]uit?")
        session.send("q")
        #expect(try session.wait() == 0)
    }
}

@Suite("More wallet commands at a terminal")
struct MoreTerminalTests {
    @Test func verifyBackupRecordsTheDate() throws {
        let f = try WalletFixture()
        #expect(try f.run(["wallet", "create", "--skip-backup", "--password-file", f.path("password")]).status == 0)
        let words = try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")]).stdout
            .trimmingCharacters(in: .newlines).split(separator: " ").map(String.init)
        let session = try PTYSession(["wallet", "verify-backup", "--password-file", f.path("password")], home: f.data.path)
        var prompt = 1
        while true {
            let rest = try session.expect("Word #", occurrence: prompt)
            let position = Int(rest.prefix { $0.isNumber })!
            session.send(words[position - 1])
            try session.waitUntil { session.occurrences(of: "Word #") > prompt || session.screen.contains("All correct.") }
            if session.screen.contains("All correct.") { break }
            prompt += 1
        }
        session.send("yes")
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(session.screen.contains("verified"))
        #expect(!session.screen.contains(words.joined(separator: " ")))
        let list = try f.run(["wallet", "list", "--json"])
        #expect(list.stdout.contains("\"state\": \"backed-up\"") && list.stderr.isEmpty)
    }

    @Test func showSeedMasksAndRevealsOneWord() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let session = try PTYSession(["wallet", "show-seed", "--password-file", f.path("password")], home: f.data.path)
        try session.expect("Show the words? [y/N]")
        session.send("y")
        try session.expect("Number of the word to reveal")
        #expect(session.screen.contains("12. ••••••") && !session.screen.contains("about"))
        session.send("12")
        try session.expect("12. about")
        #expect(!session.screen.contains("1. abandon"), "only the asked word is shown")
        session.send("")
        #expect(try session.wait() == 0)
    }

    @Test func deleteAsksForTheNameTyped() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let wrong = try PTYSession(["wallet", "delete", "Abandon", "--password-file", f.path("password")], home: f.data.path)
        try wrong.expect("Type the wallet's name to delete it: ")
        wrong.send("abandon")
        #expect(try wrong.wait() == 1)
        #expect(try f.run(["wallet", "list"]).stdout.contains("Abandon"))
        let right = try PTYSession(["wallet", "delete", "Abandon", "--password-file", f.path("password")], home: f.data.path)
        try right.expect("Type the wallet's name to delete it: ")
        right.send("Abandon")
        #expect(try right.wait() == 0)
        #expect(try f.run(["wallet", "list", "--json"]).stdout == "[]\n")
    }
}

@Suite("Concurrent processes")
struct ConcurrentProcessTests {
    @Test func fourCreatesAtOnce() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let results = ResultsBox()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let r = try? f.run(["wallet", "create", "--name", "P\(i)", "--skip-backup", "--password-file", f.path("password")])
            results.add(r?.status ?? -1)
        }
        #expect(results.all == [0, 0, 0, 0])
        let names = try f.run(["wallet", "list", "--json"]).stdout
        for i in 0..<4 { #expect(names.contains("\"P\(i)\"")) }
    }

    /// Four first wallets at once on an empty home: the schema is made once; a process that
    /// loses the race for the first password says so in one line (never SQL text).
    @Test func fourFirstCreatesOnAnEmptyHome() throws {
        let f = try WalletFixture()
        let results = ResultsBox()
        let errors = ErrorsBox()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let r = try? f.run(["wallet", "create", "--name", "P\(i)", "--skip-backup", "--password-file", f.path("password")])
            results.add(r?.status ?? -1)
            errors.add(r?.errorLines.filter { !$0.hasPrefix("warning:") } ?? ["no result"])
        }
        #expect(results.all.allSatisfy { $0 == 0 || $0 == 1 } && results.all.contains(0), "\(results.all) \(errors.all)")
        for line in errors.all { #expect(line.contains("another Hawala process set the wallet password"), "\(line)") }
        let list = try f.run(["wallet", "list", "--json"])
        #expect(list.status == 0 && list.stdout.components(separatedBy: "\"name\"").count - 1 == results.all.filter { $0 == 0 }.count)
    }

    /// A mistyped $HAWALA_HOME that names a file, or a database truncated to zero bytes, is an
    /// error, never "no wallets", and nothing is written.
    @Test func aHomeThatIsAFileOrAnEmptyDatabaseIsRefused() throws {
        let f = try WalletFixture()
        let file = f.home.appendingPathComponent("not-a-folder").path
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in [["wallet", "list"], ["wallet", "status"], ["wallet", "create", "--skip-backup", "--password-file", f.path("password")]] {
            let r = try CLI.run(arguments, environment: ["HAWALA_HOME": file])
            #expect(r.status == 1 && r.errorLines == ["\(file) is a file, not a folder: the wallet home must be a folder (check HAWALA_HOME)"], "\(arguments) \(r.stderr)")
        }
        try FileManager.default.createDirectory(at: f.data, withIntermediateDirectories: true)
        let database = f.data.appendingPathComponent("wallets.sqlite").path
        FileManager.default.createFile(atPath: database, contents: Data())
        for arguments in [["wallet", "list"], ["wallet", "create", "--skip-backup", "--password-file", f.path("password")]] {
            let r = try f.run(arguments)
            #expect(r.status == 1 && r.stderr.contains("is empty: it was damaged"), "\(arguments) \(r.stderr)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int == 0, "left untouched")
    }
}

final class ErrorsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ more: [String]) { lock.lock(); lines += more; lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int32] = []
    func add(_ v: Int32) { lock.lock(); values.append(v); lock.unlock() }
    var all: [Int32] { lock.lock(); defer { lock.unlock() }; return values }
}

/// Reads the 24 words from the 4×6 grid, answers the quiz and confirms; returns the words by
/// position (1…24).
func writeDownAndPassQuiz(_ session: PTYSession) throws -> [Int: String] {
    let grid = try session.expect("Press Enter when you have written them down")
    let words = PromptTests.shownWords(Substring(grid))
    #expect(words.count == 24, "\(session.screen)")
    #expect(grid.split(whereSeparator: \.isNewline).filter { $0.contains("1. ") || $0.contains("5. ") }.count >= 2)
    session.send("")
    try PromptTests.passQuiz(session, words: words)
    session.send("yes")
    return words
}

@Suite("Credential backup at a terminal")
struct CredentialTerminalTests {
    @Test func createShowsAGridChecksThenRecovers() throws {
        let f = try WalletFixture()
        let blob = try f.write("credential.json", "{\"secret\": \"vault token 123\"}")
        let envelope = f.home.appendingPathComponent("credential.hwcb").path
        let session = try PTYSession(["backup", "credential", "create", "--in", blob, "--out", envelope], home: f.data.path)
        let words = try writeDownAndPassQuiz(session)
        #expect(try session.wait() == 0, "\(session.screen)")
        #expect(FileManager.default.fileExists(atPath: envelope))

        let phrase = try f.write("phrase", (1...24).map { words[$0]! }.joined(separator: " ") + "\n")
        let out = f.home.appendingPathComponent("recovered.json").path
        let r = try f.run(["backup", "credential", "recover", "--in", envelope, "--out", out, "--phrase-file", phrase])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "{\"secret\": \"vault token 123\"}")
        // A different valid phrase: one clear line.
        let other = try f.write("other", (try Mnemonic.generate(wordCount: 24)).phrase)
        expectCleanFailure(try f.run(["backup", "credential", "recover", "--in", envelope, "--out", out + "2", "--phrase-file", other]),
                           contains: "wrong recovery phrase or damaged file")
        expectCleanFailure(try f.run(["backup", "credential", "recover", "--in", envelope, "--out", out, "--phrase-file", phrase]), contains: "already exists")
        expectCleanFailure(try f.run(["backup", "credential", "recover", "--in", blob, "--out", out + "3", "--phrase-file", phrase]), contains: "not a Hawala credential backup")
        let twelve = try f.write("twelve", abandonAbout)
        expectCleanFailure(try f.run(["backup", "credential", "recover", "--in", envelope, "--out", out + "4", "--phrase-file", twelve]), contains: "24 words")
    }

    @Test func cancelWritesNothing() throws {
        let f = try WalletFixture()
        let blob = try f.write("credential.json", "x")
        let envelope = f.home.appendingPathComponent("never.hwcb").path
        let session = try PTYSession(["backup", "credential", "create", "--in", blob, "--out", envelope], home: f.data.path)
        try session.expect("\"cancel\" to stop")
        session.send("cancel")
        #expect(try session.wait() == 1)
        #expect(!FileManager.default.fileExists(atPath: envelope))
    }
}
