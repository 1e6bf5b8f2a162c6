import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaWallet
import Testing
import HawalaTestSupport

/// A private wallet home and secret files for one test.
struct WalletFixture {
    let home: URL
    let password = "correct horse battery"

    init() throws {
        home = temporaryFolder("hawala-wallet")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try write("password", password + "\n")
        try write("mnemonic", abandonAbout + "\n")
    }

    var data: URL { home.appendingPathComponent("data") }
    var environment: [String: String] { ["HAWALA_HOME": data.path] }

    /// Writes a secret file and returns its path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let url = home.appendingPathComponent("secrets/\(name)")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func path(_ name: String) -> String { home.appendingPathComponent("secrets/\(name)").path }

    /// Runs `hawala-vault arguments…` (the server's operator commands) in this home.
    func vault(_ arguments: [String]) throws -> CLIResult {
        try CLI.run(arguments, environment: environment, binary: CLI.vaultBinary)
    }

    func run(_ arguments: [String], stdin: String = "") throws -> CLIResult {
        try CLI.run(arguments, stdin: Data(stdin.utf8), environment: environment)
    }

    func restoreAbandon(name: String = "Abandon") throws -> CLIResult {
        try run(["wallet", "restore", "--name", name, "--mnemonic-file", path("mnemonic"), "--password-file", path("password"), "--yes"])
    }
}

@Suite("hawala wallet")
struct WalletCLITests {
    /// `wallet unit btc`: what people read shows in BTC (here and in the app), what scripts
    /// read (JSON, --amount) keeps its numbers.
    @Test func amountsInBitcoin() throws {
        let f = try WalletFixture()
        let invoice = "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh"
        #expect(try f.run(["wallet", "unit"]).stdout == "sat\n")
        #expect(try f.run(["ln", "decode", invoice]).stdout.contains("amount:          250,000 sat"))
        #expect(try f.run(["wallet", "unit", "btc"]).stdout == "amounts now show in BTC\n")
        #expect(try f.run(["wallet", "unit"]).stdout == "BTC\n")
        #expect(try f.run(["ln", "decode", invoice]).stdout.contains("amount:          0.0025 BTC"))
        #expect(try f.run(["ln", "decode", "--json", invoice]).stdout.contains(#""amountMsat": 250000000"#))
        expectCleanFailure(try f.run(["wallet", "unit", "bitcoin"]), status: 2, contains: "'sat' and 'btc'")
    }

    /// `wallet use` asks first when the current wallet has payments pending: at a terminal
    /// y/N, in a script --yes; and `wallet list` says when each wallet was made, its accounts and
    /// its backups — the same library rules as the app's wallets page.
    @Test func switchingAndTheList() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        try f.write("other", legalWinner + "\n")
        #expect(try f.run(["wallet", "restore", "--name", "Other", "--mnemonic-file", f.path("other"), "--password-file", f.path("password"), "--yes"]).status == 0)
        #expect(try f.run(["wallet", "use", "Main"]).status == 0, "nothing pending: no question")
        let store = try WalletStore(home: WalletHome(directory: f.data), create: false)
        let main = try store.wallet(named: "Main")
        try store.savePayment(Payment(id: "p1", type: .send, status: .pending, amountMsat: 5_000, feeMsat: 0, timestamp: Date(), backend: "devnet",
                                      details: Payment.Details(description: "tea")), walletID: main.id)
        let script = try f.run(["wallet", "use", "Other"])
        expectCleanFailure(script, status: 2, contains: "\u{201C}Main\u{201D} has 1 payment still pending.")
        #expect(script.stderr.contains("Pass --yes to switch anyway."))
        let ask = try PTYSession(["wallet", "use", "Other"], home: f.data.path)
        try ask.expect("Switch to \u{201C}Other\u{201D}? [y/N]")
        ask.send("n")
        #expect(try ask.wait() == 1 && ask.screen.contains("not switched"))
        #expect(try store.current()?.name == "Main")
        #expect(try f.run(["wallet", "use", "Other", "--yes"]).stdout == "current wallet: Other\n")

        let key = try f.write("key", "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318\n")
        #expect(try f.run(["wallet", "import-key", "--chain", "ethereum", "--key-file", key, "--password-file", f.path("password")]).status == 0)
        try f.write("backup-password", "a long backup passphrase\n")
        #expect(try f.run(["backup", "export", "--wallet", "Other", "--out", f.home.path, "--password-file", f.path("password"),
                           "--backup-password-file", f.path("backup-password")]).status == 0)
        let list = try f.run(["wallet", "list"]).stdout
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        #expect(list.contains("* Other  mainnet  ") && list.contains("created \(today)  12 accounts, 1 imported key  backed up \(today); also file \(today)"), "\(list)")
        #expect(list.contains("  Main  mainnet  ") && list.contains("created \(today)  12 accounts  backed up \(today)\n"), "\(list)")
    }

    @Test func createWithoutBackupIsRemindedEverywhere() throws {
        let f = try WalletFixture()
        let created = try f.run(["wallet", "create", "--name", "Main", "--words", "24", "--skip-backup", "--password-file", f.path("password")])
        #expect(created.status == 0, "\(created.stderr)")
        // A new wallet starts on testnet unless mainnet is chosen (young, unaudited software).
        #expect(created.stdout.hasPrefix("created wallet \"Main\" (testnet, fingerprint "), "\(created.stdout)")
        #expect(created.stderr.contains("not backed up"))
        let list = try f.run(["wallet", "list", "--json"])
        let wallets = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        #expect(wallets.count == 1)
        #expect(wallets[0]["name"] as? String == "Main" && wallets[0]["wordCount"] as? Int == 24 && wallets[0]["current"] as? Bool == true)
        #expect((wallets[0]["backup"] as! [String: Any])["state"] as? String == "not-backed-up")
        // Every later command reminds, on stderr only.
        let derive = try f.run(["derive", "--chain", "bitcoin"], stdin: abandonAbout + "\n")
        #expect(derive.status == 0 && derive.stdout.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(derive.stderr == "reminder: wallet \"Main\" is not backed up; run `hawala wallet verify-backup`\n")
        // The revealed words are a valid 24-word mnemonic.
        let seed = try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")])
        #expect(seed.status == 0)
        #expect(try Mnemonic(text: seed.stdout.trimmingCharacters(in: .newlines)).wordCount == 24)
    }

    @Test func restoreShowsAddressesAndNeverReplaces() throws {
        let f = try WalletFixture()
        let restored = try f.restoreAbandon()
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout == "restored wallet \"Abandon\" (mainnet, fingerprint 73c5da0a)\n")
        #expect(restored.stderr.contains("bitcoin: bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(restored.stderr.contains("ethereum: 0x9858EfFD232B4033E47d90003D41EC34EcaEda94"))
        #expect(restored.stderr.contains("solana: HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"))
        expectCleanFailure(try f.restoreAbandon(name: "Again"), contains: "this wallet already exists as \"Abandon\"; nothing was changed")
        // With a passphrase it is another wallet.
        let passphrase = try f.write("passphrase", "TREZOR")
        let other = try f.run(["wallet", "restore", "--mnemonic-file", f.path("mnemonic"), "--passphrase-file", passphrase, "--password-file", f.path("password"), "--yes", "--network", "testnet"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.contains("(testnet, "))
        let status = try f.run(["wallet", "status", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as! [String: Any]
        #expect(json["wallets"] as? Int == 2 && json["networks"] as? [String] == ["mainnet", "testnet"])
        #expect((json["current"] as! [String: Any])["name"] as? String == "Wallet 2")
    }

    @Test func addressesMatchDeriveWithoutPassword() throws {
        let f = try WalletFixture()
        _ = try f.restoreAbandon()
        for chain in ["bitcoin", "solana", "cardano", "ethereum"] {
            let fromWallet = try f.run(["wallet", "addresses", "--chain", chain, "--count", "5", "--json"])
            let fromDerive = try f.run(["derive", "--chain", chain, "--count", "5", "--json"], stdin: abandonAbout + "\n")
            #expect(fromWallet.status == 0 && fromWallet.stdout == fromDerive.stdout, "\(chain): \(fromWallet.stderr)")
        }
        // Past the cache, Bitcoin-family addresses come from the stored xpub.
        let many = try f.run(["wallet", "addresses", "--chain", "bitcoin", "--count", "30", "--json"])
        let derived = try f.run(["derive", "--chain", "bitcoin", "--count", "30", "--json"], stdin: abandonAbout + "\n")
        #expect(many.stdout == derived.stdout)
        expectCleanFailure(try f.run(["wallet", "addresses", "--chain", "solana", "--count", "30"]), status: 2, contains: "pass --password-file")
        let thirty = try f.run(["wallet", "addresses", "--chain", "solana", "--count", "30", "--json", "--password-file", f.path("password")])
        let solana = try f.run(["derive", "--chain", "solana", "--count", "30", "--json"], stdin: abandonAbout + "\n")
        #expect(thirty.status == 0 && thirty.stdout == solana.stdout, "\(thirty.stderr)")
        expectCleanFailure(try f.run(["wallet", "addresses", "--chain", "bitcoin-testnet"]), contains: "no bitcoin-testnet account")
        let all = try f.run(["wallet", "addresses"])
        #expect(all.stdout.split(separator: "\n").count == 12)
    }

    @Test func wrongPasswordChangesNothing() throws {
        let f = try WalletFixture()
        _ = try f.restoreAbandon()
        let wrong = try f.write("wrong", "not the password")
        let key = try f.write("key", "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
        expectCleanFailure(try f.run(["wallet", "show-seed", "--reveal", "--password-file", wrong]), contains: "wrong password")
        expectCleanFailure(try f.run(["wallet", "import-key", "--chain", "ethereum", "--key-file", key, "--password-file", wrong]), contains: "wrong password")
        expectCleanFailure(try f.run(["wallet", "delete", "Abandon", "--yes", "--password-file", wrong]), contains: "wrong password")
        expectCleanFailure(try f.run(["wallet", "change-password", "--password-file", wrong, "--new-password-file", wrong]), contains: "wrong password")
        let list = try f.run(["wallet", "list", "--json"])
        #expect(list.stdout.contains("\"importedAccounts\": []") && list.stdout.contains("\"Abandon\""))
        #expect(try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")]).stdout == abandonAbout + "\n")
    }

    @Test func importChangePasswordDelete() throws {
        let f = try WalletFixture()
        _ = try f.restoreAbandon()
        let key = try f.write("key", "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318\n")
        let imported = try f.run(["wallet", "import-key", "--chain", "ethereum", "--name", "hot", "--key-file", key, "--password-file", f.path("password")])
        #expect(imported.stdout == "imported 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 (ethereum) into wallet \"Abandon\"\n", "\(imported.stderr)")
        expectCleanFailure(try f.run(["wallet", "import-key", "--chain", "ethereum", "--key-file", key, "--password-file", f.path("password")]), contains: "already imported")
        let bad = try f.write("bad", "L1aW4aubDFB7yfras2S1mN3bqg9nwySY8nkoLmJebSLD5BWv3ENZ")
        expectCleanFailure(try f.run(["wallet", "import-key", "--chain", "ethereum", "--key-file", bad, "--password-file", f.path("password")]), contains: "64 hex digits")
        expectCleanFailure(try f.run(["wallet", "import-key", "--chain", "cosmos", "--key-file", key, "--password-file", f.path("password")]), contains: "does not take imported keys")

        let newPassword = try f.write("new", "a much better password")
        #expect(try f.run(["wallet", "change-password", "--password-file", f.path("password"), "--new-password-file", newPassword]).stdout == "password changed\n")
        expectCleanFailure(try f.run(["wallet", "show-seed", "--reveal", "--password-file", f.path("password")]), contains: "wrong password")
        #expect(try f.run(["wallet", "show-seed", "--reveal", "--password-file", newPassword]).stdout == abandonAbout + "\n")
        let short = try f.write("short", "short")
        expectCleanFailure(try f.run(["wallet", "change-password", "--password-file", newPassword, "--new-password-file", short]), contains: "at least 8 characters")

        #expect(try f.run(["wallet", "rename", "Abandon", "Old"]).status == 0)
        expectCleanFailure(try f.run(["wallet", "use", "Abandon"]), contains: "no wallet named \"Abandon\"")
        #expect(try f.run(["wallet", "delete", "Old", "--yes", "--password-file", newPassword]).stdout == "deleted wallet \"Old\"\n")
        #expect(try f.run(["wallet", "list", "--json"]).stdout == "[]\n")
    }

    /// Imported keys show up, marked, wherever the wallet's accounts do.
    @Test func importedKeysAreListedApart() throws {
        let f = try WalletFixture()
        _ = try f.restoreAbandon()
        let paper = try f.write("paper", "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ\n")
        expectCleanFailure(try f.run(["wallet", "import-key", "--chain", "bitcoin", "--key-file", paper, "--password-file", f.path("password")]),
                           contains: "import it on bitcoin-legacy")
        let r = try f.run(["wallet", "import-key", "--chain", "bitcoin-legacy", "--name", "paper", "--key-file", paper, "--password-file", f.path("password")])
        #expect(r.stdout == "imported 1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S (bitcoin-legacy) into wallet \"Abandon\"\n", "\(r.stderr)")
        let line = "imported: bitcoin-legacy 1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S \"paper\""
        #expect(try f.run(["wallet", "list"]).stdout.contains("    " + line))
        #expect(try f.run(["wallet", "status"]).stdout.contains(line))
        let addresses = try f.run(["wallet", "addresses", "--chain", "bitcoin-legacy"]).stdout
        #expect(addresses.hasSuffix("bitcoin-legacy imported 1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S\n"), "\(addresses)")
        #expect(!(try f.run(["wallet", "addresses", "--chain", "bitcoin"]).stdout.contains("imported")))
        let json = try f.run(["wallet", "status", "--json"]).stdout
        #expect(json.contains("\"address\": \"1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S\""), "\(json)")
    }

    /// A receive address swapped in the database (by whoever can write it) is caught once the
    /// password is given, and nothing is shown.
    @Test func swappedAddressesAreCaught() throws {
        let f = try WalletFixture()
        _ = try f.restoreAbandon()
        let ok = try f.run(["wallet", "addresses", "--verify", "--password-file", f.path("password")])
        #expect(ok.status == 0 && ok.stderr.contains("verified") && ok.stdout.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"), "\(ok.stderr)")
        let swap = Process()
        swap.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swap.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE address SET address='bc1qattacker' WHERE chain='bitcoin' AND addressIndex=0\"); c.commit()",
                          f.data.appendingPathComponent("wallets.sqlite").path]
        try swap.run()
        swap.waitUntilExit()
        expectCleanFailure(try f.run(["wallet", "addresses", "--verify", "--password-file", f.path("password")]), contains: "failed authentication")
        // More Solana addresses than are kept need the password: the check runs then too.
        expectCleanFailure(try f.run(["wallet", "addresses", "--chain", "solana", "--count", "25", "--password-file", f.path("password")]), contains: "failed authentication")
    }

    @Test func badInvocations() throws {
        let f = try WalletFixture()
        expectCleanFailure(try f.run(["wallet", "addresses"]), contains: "no wallet yet")
        expectCleanFailure(try f.run(["wallet", "use", "x"]), contains: "no wallet yet")
        #expect(try f.run(["wallet", "create", "--words", "15", "--skip-backup"]).status == 2)
        #expect(try f.run(["wallet", "show-seed", "--reveal"]).status == 2)
        #expect(try f.run(["wallet", "restore", "--mnemonic-file", "-", "--password-file", "-", "--yes"]).status == 2)
        let notWords = try f.write("notwords", "hello world")
        expectCleanFailure(try f.run(["wallet", "restore", "--mnemonic-file", notWords, "--password-file", f.path("password"), "--yes"]))
        let short = try f.write("short", "short\n")
        expectCleanFailure(try f.run(["wallet", "create", "--skip-backup", "--password-file", short]), contains: "at least 8 characters")
        #expect(try f.run(["wallet", "list"]).stdout.hasPrefix("no wallets"))
        #expect(try f.run(["--log-level", "loud", "wallet", "list"]).status == 2)
        for sub in ["create", "restore", "list", "use", "rename", "delete", "import-key", "change-password", "addresses", "show-seed", "verify-backup", "status"] {
            let help = try f.run(["wallet", sub, "--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE"), "\(sub)")
        }
    }
}
