import Foundation
import HawalaWallet
import Testing
import HawalaTestSupport

/// `hawala ln` on the Spark backend, on this offline machine: every command that needs Spark's
/// network ends on time with one line and exit 1; reads of the history work; nothing is marked
/// failed; the node identity follows the words; the SDK's log never holds the seed. Runs where
/// the setup built the Spark SDK in (Generated/spark/ready).
let sparkBuiltIn = FileManager.default.fileExists(atPath: URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../Generated/spark/ready").standardizedFileURL.path)

@Suite("hawala ln on Spark, offline", .enabled(if: sparkBuiltIn))
struct SparkCLITests {
    let alice: WalletFixture
    let timeout = ["--network-timeout", "2"]

    init() throws {
        alice = try WalletFixture()
        #expect(try alice.restoreAbandon(name: "alice").status == 0)
        #expect(try alice.run(["ln", "config", "--backend", "spark:regtest"]).status == 0)
    }

    func nodeID(_ f: WalletFixture) throws -> String? {
        let config = try f.run(["ln", "config", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(config.stdout.utf8)) as? [String: Any])?["nodeId"] as? String
    }

    /// One line naming the network, exit 1, within the timeout plus start-up.
    func expectUnreachable(_ r: CLIResult, _ what: String, started: Date) {
        #expect(r.status == 1, "\(what): \(r.stderr)")
        #expect(r.errorLines.last?.hasPrefix("cannot reach the Spark network: ") == true, "\(what): \(r.stderr)")
        #expect(!r.stderr.contains("SdkError") && !r.stderr.contains("Error(") && !r.stderr.contains("Fatal"), "\(what): \(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 12, "\(what) took \(Date().timeIntervalSince(started)) s")
    }

    @Test func networkCommandsEndOnTimeAndNothingIsMarkedFailed() throws {
        let pw = ["--password-file", alice.path("password")]
        // Never synced: no balance is known, and none is made up (never a bare "0 sat").
        var start = Date()
        let never = try alice.run(["ln", "balance"] + pw + timeout)
        #expect(never.status == 1 && never.errorLines.last?.hasPrefix("not synced yet: cannot reach the Spark network") == true, "\(never.stderr)")
        #expect(never.stdout.isEmpty && !never.stderr.contains("Query") && !never.stderr.contains("storage"), "\(never.stderr)")
        #expect(Date().timeIntervalSince(start) < 20, "balance took \(Date().timeIntervalSince(start)) s")
        // After a recorded sync: the last synced balance, said to be one, exit 0.
        let store = try WalletStore(home: WalletHome(directory: alice.data), create: false)
        let wallet = try store.wallet(named: "alice")
        try store.setSetting("ln.lastBalance", to: "1234000", walletID: wallet.id)
        try store.setSetting("ln.syncedAt", to: String(Date().timeIntervalSince1970 - 60), walletID: wallet.id)
        let known = try alice.run(["ln", "balance", "--sync-timeout", "2"] + pw + timeout)
        #expect(known.status == 0 && known.stdout.hasPrefix("1,234 sat (last synced today ") && known.stdout.contains("the Spark network is not reachable now"),
                "\(known.stdout) \(known.stderr)")
        let knownJSON = try #require(try JSONSerialization.jsonObject(with: Data(try alice.run(["ln", "balance", "--json", "--sync-timeout", "2"] + pw + timeout).stdout.utf8)) as? [String: Any])
        #expect(knownJSON["synced"] as? Bool == false && knownJSON["balanceSats"] as? Int == 1_234 && knownJSON["lastSyncedAt"] is String)
        start = Date()
        expectUnreachable(try alice.run(["ln", "invoice", "--amount", "10"] + pw + timeout), "invoice", started: start)
        start = Date()
        expectUnreachable(try alice.run(["ln", "invoice", "--method", "spark"] + pw + timeout), "invoice --method spark", started: start)
        start = Date()
        expectUnreachable(try alice.run(["ln", "watch", "--timeout", "1"] + pw + timeout), "watch", started: start)

        // A payment to a regtest invoice (made on devnet, offline): refused before anything is
        // recorded, never "failed".
        let bob = try WalletFixture()
        try bob.write("mnemonic", legalWinner + "\n")
        #expect(try bob.restoreAbandon(name: "bob").status == 0)
        let ledger = bob.home.appendingPathComponent("ledger.sqlite").path
        let invoice = try bob.run(["ln", "invoice", "--amount", "21", "--backend", "devnet:\(ledger)", "--password-file", bob.path("password")])
        #expect(invoice.status == 0, "\(invoice.stderr)")
        start = Date()
        expectUnreachable(try alice.run(["ln", "pay", invoice.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--yes"] + pw + timeout),
                          "pay", started: start)

        start = Date()
        expectUnreachable(try alice.run(["ln", "pay", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "--amount", "1000", "--yes"] + pw + timeout),
                          "pay to an address", started: start)
        // The way out: the state the SDK keeps is kept sealed too (for what it covers, a sync is
        // needed); planning an exit needs the chain, and offline says so within the bound.
        start = Date()
        let exitCheck = try alice.run(["ln", "exit", "check", "--fee-rate", "2", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"] + pw + timeout)
        #expect(exitCheck.status == 1 && exitCheck.stdout.hasPrefix("Unknown: the kept state could not be planned now (cannot reach the Spark network"),
                "\(exitCheck.stdout) \(exitCheck.stderr)")
        #expect(!exitCheck.stdout.contains("covering"), "never synced: what it covers is not known")
        let prepare = try alice.run(["ln", "exit", "prepare", "--fee-rate", "2", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"] + pw + timeout)
        expectUnreachable(prepare, "exit prepare", started: Date().addingTimeInterval(-1))
        start = Date()
        expectUnreachable(try alice.run(["ln", "exit", "run", "--yes", "--fee-rate", "2", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"] + pw + timeout),
                          "exit run", started: start)
        #expect(Date().timeIntervalSince(start) < 24, "exit check and prepare took \(Date().timeIntervalSince(start)) s")

        // Offline reads: the history kept here, its export.
        let history = try alice.run(["ln", "history", "--json"])
        #expect(history.status == 0 && history.stderr.contains("as last synced with Spark"), "\(history.stderr)")
        #expect(!history.stdout.contains("\"failed\""))
        let out = alice.home.appendingPathComponent("history.csv").path
        #expect(try alice.run(["ln", "export", "--format", "csv", "--out", out]).status == 0)
        #expect(try alice.run(["ln", "history", "--status", "failed", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        // Devnet-only commands say so.
        let fund = try alice.run(["ln", "devnet", "fund", "100"] + pw + timeout)
        #expect(fund.status == 1 && fund.stderr.contains("devnet only"), "\(fund.stderr)")
    }

    /// The node identity comes from the words: the same after a restore into another home,
    /// different for other words.
    @Test func theNodeIdentityFollowsTheWords() throws {
        let pw = ["--password-file", alice.path("password")]
        _ = try alice.run(["ln", "balance"] + pw + timeout)  // connects (identity saved), then can't sync
        let other = try WalletFixture()
        #expect(try other.restoreAbandon(name: "same words").status == 0)
        _ = try other.run(["ln", "balance", "--backend", "spark:regtest", "--password-file", other.path("password")] + timeout)
        let third = try WalletFixture()
        try third.write("mnemonic", legalWinner + "\n")
        #expect(try third.restoreAbandon(name: "other words").status == 0)
        _ = try third.run(["ln", "balance", "--backend", "spark:regtest", "--password-file", third.path("password")] + timeout)
        let (a, b, c) = (try nodeID(alice), try nodeID(other), try nodeID(third))
        #expect(a != nil && a?.count == 66)
        #expect(a == b)
        #expect(a != c && c != nil)
    }

    /// At the most verbose level, the SDK's log (under the wallet's spark folder) holds neither
    /// the words, nor the seed, nor the password; and it is not empty, so this checks something.
    @Test func theSDKLogNeverHoldsTheSeed() throws {
        _ = try alice.run(["ln", "balance", "--password-file", alice.path("password"), "--log-level", "trace"] + timeout)
        let spark = alice.data.appendingPathComponent("spark")
        var log = ""
        for case let url as URL in FileManager.default.enumerator(at: spark, includingPropertiesForKeys: nil)! where url.path.contains("/logs/") {
            log += (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        #expect(log.count > 1000, "the SDK logged \(log.count) characters")
        let seed = "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"
        for secret in ["abandon abandon", "abandon about", seed, seed.prefix(32).description, alice.password] {
            #expect(!log.lowercased().contains(secret.lowercased()), "the SDK log contains \(secret.prefix(12))…")
        }
        // The folders are the owner's alone.
        let attributes = try FileManager.default.attributesOfItem(atPath: spark.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    /// Mainnet needs a Breez API key: asked for before connecting; saved sealed, never in the
    /// clear in the wallet store, and reported only as saved.
    @Test func mainnetNeedsASealedAPIKey() throws {
        let pw = ["--password-file", alice.path("password")]
        let refused = try alice.run(["ln", "balance", "--backend", "spark:mainnet"] + pw + timeout)
        #expect(refused.status == 1 && refused.stderr.contains("--api-key-file"), "\(refused.stderr)")
        // Checked when saved, offline: not a key, or a key past its end date, refused in words.
        try alice.write("apikey", "brz-test-key-0123456789abcdef\n")
        let notAKey = try alice.run(["ln", "config", "--backend", "spark:mainnet", "--api-key-file", alice.path("apikey")] + pw)
        #expect(notAKey.status == 1 && notAKey.stderr.contains("this is not a Breez API key") && !notAKey.stderr.contains("brz-test-key"), "\(notAKey.stderr)")
        try alice.write("apikey", expiredBreezAPIKey + "\n")
        let expired = try alice.run(["ln", "config", "--backend", "spark:mainnet", "--api-key-file", alice.path("apikey")] + pw)
        #expect(expired.status == 1 && expired.stderr.contains("this Breez API key expired on 2021-01-01"), "\(expired.stderr)")
        #expect(try alice.run(["ln", "config", "--json"]).stdout.contains("spark:regtest"), "nothing was saved")
        let key = testBreezAPIKey
        try alice.write("apikey", key + "\n")
        let saved = try alice.run(["ln", "config", "--backend", "spark:mainnet", "--api-key-file", alice.path("apikey")] + pw)
        #expect(saved.status == 0 && !saved.stdout.contains(key) && !saved.stderr.contains(key), "\(saved.stderr)")
        let config = try alice.run(["ln", "config", "--json"])
        #expect(config.stdout.contains("\"apiKey\" : true") || config.stdout.contains("\"apiKey\": true"), "\(config.stdout)")
        for file in try FileManager.default.contentsOfDirectory(atPath: alice.data.path) {
            let bytes = (try? Data(contentsOf: alice.data.appendingPathComponent(file))) ?? Data()
            #expect(bytes.range(of: Data(key.utf8)) == nil, "\(file) holds the API key in the clear")
        }
        let devnetKey = try alice.run(["ln", "config", "--backend", "devnet:/tmp/x.sqlite", "--api-key-file", alice.path("apikey")] + pw)
        #expect(devnetKey.status == 2, "\(devnetKey.stderr)")
    }
}
