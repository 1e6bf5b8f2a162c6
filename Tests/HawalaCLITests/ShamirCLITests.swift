import Foundation
import HawalaTestSupport
import Testing

@Suite("hawala backup shamir")
struct ShamirCLITests {
    // SLIP-39 official vector 4 (2 of 3, passphrase "TREZOR") and its root key.
    let vector4 = """
        shadow pistol academic always adequate wildlife fancy gross oasis cylinder mustang wrist rescue view short owner flip making coding armed
        shadow pistol academic acid actress prayer class unknown daughter sweater depict flip twice unkind craft early superior advocate guest smoking
        """
    let vector4Xprv = "xprv9s21ZrQH143K2nNuAbfWPHBtfiSCS14XQgb3otW4pX655q58EEZeC8zmjEUwucBu9dPnxdpbZLCn57yx45RBkwJHnwHFjZK4XPJ8SyeYjYg"

    /// The shares in `split` output, by group.
    func groups(_ output: String) -> [[String]] {
        var groups = [[String]]()
        for line in output.split(separator: "\n") {
            if line.hasPrefix("# group ") { groups.append([]) } else if !line.hasPrefix("#") { groups[groups.count - 1].append(String(line)) }
        }
        return groups
    }

    /// The shares as a PDF, one a page (0600, never replacing a file): read back by poppler's
    /// pdftotext, an independent reader, two pages of the three recover the same wallet.
    @Test func sharesOnPaperRecoverTheWallet() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        let pdf = f.home.appendingPathComponent("shares.pdf").path
        let split = try f.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "2/3", "--pdf", pdf, "--paper", "letter",
                               "--password-file", f.path("password")])
        #expect(split.status == 0 && split.stdout.contains("3 shares, one a page") && split.stderr.contains("shred -u"), "\(split.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: pdf)[.posixPermissions] as? Int == 0o600)
        let again = try f.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "2/3", "--pdf", pdf, "--password-file", f.path("password")])
        expectCleanFailure(again, contains: "already exists")
        let stray = try f.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "2/3", "--paper", "letter"])
        #expect(stray.status == 2 && stray.stderr.contains("--paper goes with --pdf"), "\(stray.stderr)")
        let pages = String(decoding: try tool("pdftotext", ["-layout", pdf, "-"]), as: UTF8.self).split(separator: "\u{0C}").filter { $0.contains("SLIP-39") }
        #expect(pages.count == 3)
        // Each page's words, by their numbers (two columns).
        let shares = pages.map { page -> String in
            let tokens = page.split(whereSeparator: \.isWhitespace)
            var words: [Int: Substring] = [:]
            for (i, token) in tokens.enumerated() where token.hasSuffix(".") && i + 1 < tokens.count {
                if let n = Int(token.dropLast()), (1...33).contains(n) { words[n] = tokens[i + 1] }
            }
            return words.sorted { $0.key < $1.key }.map { String($0.value) }.joined(separator: " ")
        }
        #expect(pages[1].contains("SLIP-39 share 2 of 3") && pages[1].contains("2 of these 3 shares recover the wallet"))
        #expect(shares.allSatisfy { $0.split(separator: " ").count == 20 }, "\(shares)")
        let fresh = try WalletFixture()
        let two = try fresh.write("shares", shares[2] + "\n" + shares[0] + "\n")
        let r = try fresh.run(["backup", "shamir", "recover", "--shares-file", two, "--as", "bip39", "--password-file", fresh.path("password"), "--yes"])
        #expect(r.status == 0 && r.stdout.contains("fingerprint 73c5da0a"), "\(r.stderr)")
    }

    /// A BIP39 wallet split into groups comes back, from a sufficient subset, as the same words
    /// and addresses in a fresh home; extra shares are accepted, too few are refused.
    @Test func splitAndRecoverBIP39Wallet() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        try f.write("slip-pass", "hunter2 hunter2\n")
        let split = try f.run(["backup", "shamir", "split", "--group-threshold", "2", "--group", "2/3", "--group", "3/5", "--group", "1/1",
                               "--passphrase-file", f.path("slip-pass"), "--password-file", f.path("password")])
        #expect(split.status == 0, "\(split.stderr)")
        let g = groups(split.stdout)
        #expect(g.map(\.count) == [3, 5, 1])
        #expect(g.joined().allSatisfy { $0.split(separator: " ").count == 20 })
        #expect(split.stdout.contains("fingerprint 73c5da0a") && split.stdout.contains("--as bip39"))

        let fresh = try WalletFixture()
        let subset = try fresh.write("shares", "# two groups\n\(g[0][2])\n\n\(g[2][0])\n\(g[0][0])\n")
        try fresh.write("slip-pass", "hunter2 hunter2\n")
        let r = try fresh.run(["backup", "shamir", "recover", "--shares-file", subset, "--passphrase-file", fresh.path("slip-pass"),
                               "--as", "bip39", "--name", "Back", "--password-file", fresh.path("password"), "--yes"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("recovered wallet \"Back\"") && r.stdout.contains("fingerprint 73c5da0a"))
        #expect(r.stderr.contains("bitcoin: bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"), "\(r.stderr)")  // BIP84 vector address
        let words = try fresh.run(["wallet", "show-seed", "--reveal", "--password-file", fresh.path("password")])
        #expect(words.stdout.contains("abandon abandon") && words.stdout.contains("about"))
        // The whole output works too (every extra share is checked against the others).
        let all = try fresh.write("all", split.stdout)
        let xprv = try fresh.run(["backup", "shamir", "recover", "--shares-file", all, "--passphrase-file", fresh.path("slip-pass"), "--print-xprv"])
        #expect(xprv.status == 0 && xprv.stdout.hasPrefix("xprv"), "\(xprv.stderr)")
        // The same wallet again is refused; one complete group is not enough.
        expectCleanFailure(try fresh.run(["backup", "shamir", "recover", "--shares-file", subset, "--passphrase-file", fresh.path("slip-pass"),
                                          "--as", "bip39", "--password-file", fresh.path("password"), "--yes"]), contains: "already exists")
        let one = try fresh.write("one", g[2][0] + "\n")
        expectCleanFailure(try fresh.run(["backup", "shamir", "recover", "--shares-file", one, "--print-xprv"]), contains: "not enough groups: 1 complete, 2 needed")
        let short = try fresh.write("short", g[1][0] + "\n" + g[2][0] + "\n")
        expectCleanFailure(try fresh.run(["backup", "shamir", "recover", "--shares-file", short, "--print-xprv"]), contains: "group 2 needs 3 shares, 1 given")
    }

    /// Shares made elsewhere: the published vector's root key, and a seed-only wallet that has no
    /// words but exports, imports and splits back into shares recovering the same key.
    @Test func trezorSharesBecomeSeedWallet() throws {
        let f = try WalletFixture()
        let shares = try f.write("vector4", vector4 + "\n")
        try f.write("trezor", "TREZOR\n")
        let xprv = try f.run(["backup", "shamir", "recover", "--shares-file", shares, "--passphrase-file", f.path("trezor"), "--print-xprv"])
        #expect(xprv.status == 0 && xprv.stdout == vector4Xprv + "\n", "\(xprv.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.data.path), "--print-xprv saves nothing")

        // Without --as and without a terminal: a usage error that says how to choose.
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", shares, "--passphrase-file", f.path("trezor"),
                                      "--password-file", f.path("password"), "--yes"]), status: 2, contains: "--as seed")
        let r = try f.run(["backup", "shamir", "recover", "--shares-file", shares, "--passphrase-file", f.path("trezor"), "--as", "seed",
                           "--name", "Trezor", "--password-file", f.path("password"), "--yes"])
        #expect(r.status == 0 && r.stdout.contains("seed only"), "\(r.stderr)")
        let list = try f.run(["wallet", "list", "--json"])
        #expect(list.stdout.contains("\"kind\": \"seed\"") && list.stdout.contains("\"wordCount\": 0"), "\(list.stdout)")
        expectCleanFailure(try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")]), contains: "has no BIP39 words")
        expectCleanFailure(try f.run(["wallet", "verify-backup", "--password-file", f.path("password")]), contains: "has no BIP39 words")
        expectCleanFailure(try f.run(["backup", "paper", "--blank", "--out", f.home.appendingPathComponent("p.pdf").path]), contains: "has no BIP39 words")
        expectCleanFailure(try f.run(["wallet", "addresses", "--chain", "cardano"]), contains: "it has no cardano account")
        // Past the cache, Solana addresses of a seed wallet come from its secret, with the password.
        #expect(try f.run(["wallet", "addresses", "--chain", "solana", "--count", "25"]).status == 2, "no terminal, no password file: usage")
        let cached = try f.run(["wallet", "addresses", "--chain", "solana", "--count", "20"])
        let more = try f.run(["wallet", "addresses", "--chain", "solana", "--count", "25", "--password-file", f.path("password")])
        #expect(more.status == 0 && more.stdout.split(separator: "\n").count == 25, "\(more.stderr)")
        #expect(more.stdout.hasPrefix(cached.stdout.trimmingCharacters(in: .newlines)))

        // Export and import keep it a seed wallet with the same keys.
        try f.write("backup-pass", "a long backup password for tests\n")
        let file = f.home.appendingPathComponent("seed.hawala").path
        #expect(try f.run(["backup", "export", "--out", file, "--password-file", f.path("password"), "--backup-password-file", f.path("backup-pass")]).status == 0)
        let g = try WalletFixture()
        try g.write("backup-pass", "a long backup password for tests\n")
        let imported = try g.run(["backup", "import", file, "--backup-password-file", g.path("backup-pass"), "--password-file", g.path("password")])
        #expect(imported.status == 0 && imported.stdout.contains("seed only"), "\(imported.stdout) \(imported.stderr)")

        // Splitting it shares the seed itself: the shares give back the vector's root key.
        let split = try g.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "2/2", "--no-extendable",
                               "--iteration-exponent", "0", "--password-file", g.path("password")])
        #expect(split.status == 0 && split.stdout.contains("--as seed"), "\(split.stderr)")
        let again = try g.write("again", split.stdout)
        let back = try g.run(["backup", "shamir", "recover", "--shares-file", again, "--print-xprv"])
        #expect(back.stdout == vector4Xprv + "\n", "\(back.stderr)")
    }

    /// Wrong input: one clear line and exit 1; impossible layouts are usage errors (exit 2).
    @Test func badInput() throws {
        let f = try WalletFixture()
        let lines = vector4.split(separator: "\n").map(String.init)
        let broken = try f.write("broken", lines[0].replacingOccurrences(of: "armed", with: "arena") + "\n")
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", broken, "--print-xprv"]), contains: "line 1: the share's checksum does not match")
        let typo = try f.write("typo", lines[0].replacingOccurrences(of: "wildlife", with: "wildlyfe") + "\n")
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", typo, "--print-xprv"]), contains: "line 1: word 6 is not a SLIP-39 word (did you mean wildlife?)")
        #expect(try !f.run(["backup", "shamir", "recover", "--shares-file", typo, "--print-xprv"]).stderr.contains("wildlyfe"), "the typo is a secret: not echoed")
        let empty = try f.write("empty", "# nothing\n\n")
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", empty, "--print-xprv"]), contains: "holds no shares")
        let binary = try f.write("binary", String(repeating: "\u{7}\u{0}ÿ", count: 100))
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", binary, "--print-xprv"]))
        expectCleanFailure(try f.run(["backup", "shamir", "recover", "--shares-file", f.path("missing"), "--print-xprv"]), contains: "cannot open")

        #expect(try f.restoreAbandon().status == 0)
        for layout in [["--group-threshold", "2", "--group", "2/3"], ["--group-threshold", "1", "--group", "1/3"],
                       ["--group-threshold", "1", "--group", "4/3"], ["--group-threshold", "1", "--group", "two/3"],
                       ["--group-threshold", "1", "--group", "2/17"], ["--group-threshold", "1"]] {
            let r = try f.run(["backup", "shamir", "split"] + layout + ["--password-file", f.path("password")])
            #expect(r.status == 2 && r.stdout.isEmpty && !r.stderr.contains("Fatal"), "\(layout): \(r.stderr)")
        }
        try f.write("accented", "pässword\n")
        expectCleanFailure(try f.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "1/1", "--passphrase-file", f.path("accented"),
                                      "--password-file", f.path("password")]), contains: "printable ASCII")
        try f.write("wrong", "not the password\n")
        expectCleanFailure(try f.run(["backup", "shamir", "split", "--group-threshold", "1", "--group", "1/1", "--password-file", f.path("wrong")]),
                           contains: "wrong password")
    }
}

@Suite("hawala backup shamir at a terminal")
struct ShamirTerminalTests {
    /// Shares typed one by one (four-letter prefixes, a typo retyped), then the choice between the
    /// two readings by their first addresses; the confirmed wallet is saved.
    @Test func typedSharesAndChoice() throws {
        let f = try WalletFixture()
        let shares = ShamirCLITests().vector4.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        try f.write("trezor", "TREZOR\n")
        let session = try PTYSession(["backup", "shamir", "recover", "--passphrase-file", f.path("trezor"), "--name", "Typed",
                                      "--password-file", f.path("password")], home: f.data.path)
        try session.expect("Share 1: ")
        session.send(shares[0].split(separator: " ").map { String($0.prefix(4)) }.joined(separator: " "))
        try session.expect("ok: group 1 of 1, 1 of 2 shares")
        session.send(shares[1].replacingOccurrences(of: "prayer", with: "preyer"))
        try session.expect("is not a SLIP-39 word")
        session.send(shares[1])
        try session.expect("2 of 2 shares")
        session.send("")
        try session.expect("Which first address is yours? [1/2] ")
        session.send("3")
        try session.expect("type 1 or 2")
        session.send("2")
        try session.expect("Do these addresses match your records?")
        session.send("y")
        #expect(try session.wait() == 0, "screen: \(session.screen)")
        #expect(session.screen.contains("recovered wallet \"Typed\"") && session.screen.contains("seed only"), "\(session.screen)")
    }
    /// One wrong word in a 20-word share: correct that word, not the whole share.
    @Test func oneWrongWordIsCorrectedInPlace() throws {
        let f = try WalletFixture()
        let shares = ShamirCLITests().vector4.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        try f.write("trezor", "TREZOR\n")
        let session = try PTYSession(["backup", "shamir", "recover", "--passphrase-file", f.path("trezor"), "--as", "seed", "--name", "Fixed",
                                      "--password-file", f.path("password"), "--yes"], home: f.data.path)
        try session.expect("Share 1: ")
        var words = shares[0].split(separator: " ").map(String.init)
        let original = words[6]
        words[6] = words[6] == "academic" ? "acid" : "academic"  // a real word, but the wrong one: the checksum fails
        session.send(words.joined(separator: " "))
        try session.expect("invalid checksum")
        try session.expect("Number of the word to correct")
        session.send("21")
        try session.expect("Type a number from 1 to 20")
        session.send("7")
        try session.expect("Word 7: ")
        session.send(original)
        try session.expect("ok: group 1 of 1, 1 of 2 shares")
        // An unknown word is pointed at, and Enter corrects that one.
        var second = shares[1].split(separator: " ").map(String.init)
        let wrong = second[3]
        second[3] = "zzzz"
        session.send(second.joined(separator: " "))
        try session.expect("4. zzzz   <- not a SLIP-39 word")
        try session.expect("[4]")
        session.send("")
        try session.expect("Word 4: ")
        session.send(wrong)
        try session.expect("2 of 2 shares")
        session.send("")
        #expect(try session.wait() == 0, "screen: \(session.screen)")
        #expect(session.screen.contains("recovered wallet \"Fixed\""), "\(session.screen)")
    }
}
