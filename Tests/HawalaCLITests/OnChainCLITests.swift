import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaTestSupport
import HawalaWallet
import Testing

@Suite("hawala ln: withdrawals and the way out, on devnet")
struct OnChainCLITests {
    static let elsewhere = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

    func json(_ result: CLIResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    /// A withdrawal previews each speed and sends at the one chosen; --all leaves nothing;
    /// history shows the transaction and its confirmations once mined; wrong input is one line.
    @Test func withdrawToAnAddress() throws {
        let alice = try WalletFixture()
        #expect(try alice.restoreAbandon(name: "alice").status == 0)
        let pw = ["--password-file", alice.path("password")]
        #expect(try alice.run(["ln", "config", "--backend", "devnet"]).status == 0)
        #expect(try alice.run(["ln", "devnet", "fund", "100000"] + pw).status == 0)
        let sent = try alice.run(["ln", "pay", Self.elsewhere, "--amount", "20,000", "--speed", "fast", "--yes"] + pw)
        #expect(sent.status == 0 && sent.stdout.hasPrefix("sent 20,000 sat (fee 1,410 sat) to \(Self.elsewhere)"), "\(sent.stdout) \(sent.stderr)")
        #expect(sent.stderr.contains("slow:   20,000 sat arrives · fee 282 sat · 20,282 sat in total · 79,718 sat stays"), "\(sent.stderr)")
        let noAmount = try alice.run(["ln", "pay", Self.elsewhere, "--yes"] + pw)
        #expect(noAmount.status == 2 && noAmount.errorLines == ["how much? give --amount SATS, or --all to send the whole balance"], "\(noAmount.stderr)")
        let tooMuch = try alice.run(["ln", "pay", Self.elsewhere, "--amount", "78,500", "--speed", "fast", "--yes"] + pw)
        #expect(tooMuch.status == 1 && tooMuch.stderr.contains("does not cover 79,910 sat (the amount and the fast fee)"), "\(tooMuch.stderr)")
        let wrongNetwork = try alice.run(["ln", "pay", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "--amount", "1000", "--yes"] + pw)
        #expect(wrongNetwork.status == 1 && wrongNetwork.stderr.contains("is not an address of devnet (test money on this machine)"), "\(wrongNetwork.stderr)")
        #expect(try alice.run(["ln", "pay", Self.elsewhere, "--all", "--amount", "5"] + pw).status == 2)
        let capped = try alice.run(["ln", "pay", Self.elsewhere, "--amount", "1000", "--speed", "fast", "--max-fee", "100", "--yes"] + pw)
        #expect(capped.status == 1 && capped.stderr.contains("is above the maximum"), "--max-fee holds on-chain too: \(capped.stderr)")
        let overridden = try alice.run(["ln", "pay", "bitcoin:\(Self.elsewhere)?amount=0.0001", "--amount", "5000", "--yes"] + pw)
        #expect(overridden.status == 1 && overridden.errorLines == ["the bitcoin: link asks for 10,000 sat, not 5,000 sat: the payee set it"], "\(overridden.stderr)")
        let all = try json(try alice.run(["ln", "pay", "bitcoin:\(Self.elsewhere)", "--all", "--speed", "slow", "--yes", "--json"] + pw))
        #expect(all["status"] as? String == "pending" && all["confirmations"] as? Int == 0 && all["amountMsat"] as? Int == 78_308_000)
        #expect(try json(try alice.run(["ln", "balance", "--json"]))["balanceMsat"] as? Int == 0)
        #expect(try alice.run(["ln", "devnet", "mine", "3"]).status == 0)
        let history = try alice.run(["ln", "history"])
        #expect(history.stdout.components(separatedBy: " tx ").count == 3 && history.stdout.contains("3 confirmations")
                && history.stdout.contains("to \(Self.elsewhere)"), "\(history.stdout)")

        // A deposit, once confirmed, is claimed by any sync — even one without the password,
        // as the SDK claims in the background — and is a received payment with its claim fee.
        let address = try alice.run(["ln", "invoice", "--method", "bitcoin"] + pw).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try alice.run(["ln", "devnet", "deposit", address, "40000"]).status == 0)
        #expect(try alice.run(["ln", "devnet", "mine", "3"]).status == 0)
        #expect(try json(try alice.run(["ln", "balance", "--json"]))["balanceMsat"] as? Int == 39_250_000)
        let deposit = try alice.run(["ln", "history", "--type", "received"]).stdout
        #expect(deposit.contains("+39,250 sat") && deposit.contains("(claim fee 750 sat)") && deposit.contains("at \(address)"), "\(deposit)")
    }

    /// The exit state is kept at each session and carried by the vault agent's uploads; a
    /// payment changes it and the next upload holds the new one; a new device, from the words
    /// and the vault's backup, answers `ln exit check` — and leaves.
    @Test func theWayOutSurvivesTheDevice() throws {
        let server = try WalletFixture(), device = try WalletFixture(), other = try WalletFixture()
        let ledger = server.home.appendingPathComponent("ledger.sqlite").path
        let db = "sqlite:" + server.home.appendingPathComponent("vault.sqlite").path
        let serve = try RunningCLI(["serve", "--port", "0", "--db", db], environment: server.environment, binary: CLI.vaultBinary)
        defer { serve.process.terminate() }
        let url = String(try #require(serve.nextLine()).dropFirst("vault listening on ".count))
        let token = try device.write("token", try server.vault(["user", "add", "me", "--db", db]).stdout)
        let pw = ["--password-file", device.path("password")]
        #expect(try device.restoreAbandon(name: "Main").status == 0)
        #expect(try device.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        let none = try device.run(["ln", "exit", "check"] + pw)
        #expect(none.status == 1 && none.stdout.hasPrefix("Nothing to take out: the kept state holds no funds."), "\(none.stdout)")
        #expect(try device.run(["ln", "devnet", "fund", "60000"] + pw).status == 0)
        let yes = try device.run(["ln", "exit", "check", "--fee-rate", "2"] + pw)
        #expect(yes.status == 0 && yes.stdout.hasPrefix("Yes: 59,400 sat would reach your address") && yes.stdout.contains("covering 60,000 sat"), "\(yes.stdout) \(yes.stderr)")

        #expect(try device.run(["vault", "login", "--url", url, "--token-file", token] + pw).status == 0)
        let backupPassword = try device.write("backup-password", "a long backup password 42\n")
        #expect(try device.run(["vault", "agent", "enable", "--backup-password-file", backupPassword] + pw).status == 0)
        #expect(try device.run(["vault", "settings", "set", "autoBackupEnabled", "true"] + pw).status == 0)
        func agent() throws -> CLIResult { try CLI.run(["vault", "agent", "--once", "--token-file", token], stdin: Data(), environment: device.environment) }
        func snapshotState() throws -> SecretBytes? {
            let snapshot = device.data.appendingPathComponent("outbox/snapshot.hawala")
            return try BackupPayload.decode(try BackupFile.read(snapshot, password: SecretBytes(utf8: "a long backup password 42"))).wallets.first?.exitStates.first?.state
        }
        #expect(try agent().stderr.contains("uploaded backup"))
        let first = try #require(try snapshotState())

        // A payment renews the leaf: the next snapshot holds the new state.
        #expect(try device.run(["ln", "pay", Self.elsewhere, "--amount", "10000", "--speed", "slow", "--yes"] + pw).status == 0)
        let second = try #require(try snapshotState())
        #expect(second != first)
        let list = try device.run(["vault", "list", "--json"] + pw)
        let firstID = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        #expect(try device.run(["vault", "delete", firstID, "--yes"] + pw).status == 0)
        #expect(try agent().stderr.contains("uploaded backup"))
        let newest = try #require((try JSONSerialization.jsonObject(with: Data(try device.run(["vault", "list", "--json"] + pw).stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)

        // A new device: the words, then the vault's backup; the way out answers at once.
        try other.write("token", try String(contentsOfFile: token, encoding: .utf8))
        try other.write("backup-password", "a long backup password 42\n")
        let otherPW = ["--password-file", other.path("password")]
        #expect(try other.restoreAbandon(name: "Phone").status == 0)
        #expect(try other.run(["vault", "login", "--url", url, "--token-file", other.path("token")] + otherPW).status == 0)
        let restore = try other.run(["vault", "restore", newest, "--backup-password-file", other.path("backup-password"), "--on-conflict", "skip"] + otherPW)
        #expect(restore.status == 0, "\(restore.stdout) \(restore.stderr)")
        // Before any Lightning command: the vault's backup alone brought the newest state here.
        let store = try WalletStore(home: WalletHome(directory: other.data), create: false)
        let kept = try store.keptExitState(walletID: try store.wallet(named: "Phone").id, network: "devnet:" + ledger)
        #expect(kept?.valueSat?.value == 60_000 - 10_000 - 282)
        #expect(try other.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        let check = try json(try other.run(["ln", "exit", "check", "--fee-rate", "2", "--json"] + otherPW))
        #expect(check["canExit"] as? Bool == true && (check["kept"] as? [String: Any])?["valueSat"] as? Int == 60_000 - 10_000 - 282, "\(check)")
        let run = try other.run(["ln", "exit", "run", "--to", Self.elsewhere, "--fee-rate", "2", "--yes"] + otherPW)
        #expect(run.status == 0 && run.stdout.hasPrefix("sent on the test chain, in this order (`hawala ln devnet mine` confirms them):\n1. node  ") && run.stdout.contains("(after 2 blocks)"), "\(run.stdout) \(run.stderr)")
        #expect(try json(try device.run(["ln", "balance", "--json"]))["balanceMsat"] as? Int == 0)
    }
}
