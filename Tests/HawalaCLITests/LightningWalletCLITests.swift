import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaTestSupport
import Testing


/// A `hawala` process left running (ln watch, ln invoice --wait), read line by line.
final class RunningCLI: @unchecked Sendable {
    let process = Process()
    private let output = Pipe(), error = Pipe()
    private var buffer = Data()

    init(_ arguments: [String], environment: [String: String], binary: URL = CLI.binary) throws {
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
    }

    private var errorBuffer = Data()

    /// How long a line is waited for before the process is taken for hung.
    static let lineDeadline: Duration = .seconds(60)

    /// The next line of stdout (nil at the end, or when none came within `lineDeadline`: the
    /// process is then killed, so a hang fails the test instead of holding the run).
    func nextLine() -> String? { line(from: output, &buffer) }

    /// The next line of stderr (as `nextLine`).
    func nextErrorLine() -> String? { line(from: error, &errorBuffer) }

    private func line(from pipe: Pipe, _ buffer: inout Data) -> String? {
        let deadline = ContinuousClock.now + Self.lineDeadline
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let polled = left <= .zero ? 0 : poll(&ready, 1, milliseconds)
            if polled < 0, errno == EINTR { continue }
            if polled <= 0 {
                Issue.record("no line from hawala \(process.arguments ?? []) within \(Self.lineDeadline): killed")
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// How long an exit is waited for (after a signal, say) before the process is taken for hung.
    static let exitDeadline: Duration = .seconds(30)

    /// Waits for the exit; the rest of stdout, stderr and the status. A process still running
    /// after `exitDeadline` is killed and the test fails, instead of holding the run. Both
    /// pipes are drained meanwhile (a process writing more than a pipe holds is not hung).
    func finish() -> CLIResult {
        let rest = Drained(output), err = Drained(error)
        let deadline = ContinuousClock.now + Self.exitDeadline
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            Issue.record("hawala \(process.arguments ?? []) still ran \(Self.exitDeadline) later: killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: buffer + rest.data(), as: UTF8.self),
                         stderr: String(decoding: errorBuffer + err.data(), as: UTF8.self))
    }
}

/// A pipe read to its end on a thread of its own.
private final class Drained: @unchecked Sendable {
    private var read = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        Thread { [self] in
            read = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Everything, once the writer has closed its end.
    func data() -> Data {
        done.wait()
        return read
    }
}

@Suite("hawala ln on devnet, two wallets")
struct LightningWalletCLITests {
    let alice: WalletFixture
    let bob: WalletFixture
    let ledger: String

    init() throws {
        alice = try WalletFixture()
        bob = try WalletFixture()
        try bob.write("mnemonic", legalWinner + "\n")
        ledger = alice.data.appendingPathComponent("devnet/ledger.sqlite").path
        #expect(try alice.restoreAbandon(name: "alice").status == 0)
        #expect(try bob.restoreAbandon(name: "bob").status == 0)
    }

    func json(_ result: CLIResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// After switching ledgers, history and export show the new network's payments (saying
    /// others exist); `--network all` or a named network shows the others; the balance is the
    /// new network's.
    @Test func historyIsPerNetwork() throws {
        #expect(try alice.run(["ln", "config", "--backend", "devnet"]).status == 0)
        #expect(try alice.run(["ln", "devnet", "fund", "1000", "--password-file", alice.path("password")]).status == 0)
        let elsewhere = alice.home.appendingPathComponent("other-ledger.sqlite").path
        #expect(try alice.run(["ln", "config", "--backend", "devnet:" + elsewhere]).status == 0)
        let now = try alice.run(["ln", "history"])
        #expect(now.status == 0 && now.stdout.isEmpty && now.stderr.contains("other networks: --network all") && now.stderr.contains("no payments"), "\(now.stderr)")
        let all = try #require(try json(try alice.run(["ln", "history", "--network", "all", "--json"])) as? [[String: Any]])
        #expect(all.count == 1 && all[0]["network"] as? String == "devnet:\(ledger)")
        let named = try alice.run(["ln", "history", "--network", "devnet:\(ledger)"])
        #expect(named.status == 0 && named.stdout.contains("+1,000 sat"))
        let wrong = try alice.run(["ln", "history", "--network", "dogecoin"])
        #expect(wrong.status != 0 && wrong.errorLines.count == 1 && wrong.stderr.contains("unknown network \"dogecoin\""), "\(wrong.stderr)")
        let out = alice.home.appendingPathComponent("current.json").path
        #expect(try alice.run(["ln", "export", "--format", "json", "--out", out]).stderr.contains("exported 0 payments"))
        let balance = try #require(try json(try alice.run(["ln", "balance", "--json", "--password-file", alice.path("password")])) as? [String: Any])
        #expect(balance["balanceSats"] as? Int == 0 && balance["synced"] as? Bool == true)
    }

    /// A free port on 127.0.0.1 (bound, read, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Devnet end to end through the CLI: the LNURL server runs; alice registers her address,
    /// bob pays it by name with a comment and alice's history shows it; a voucher is withdrawn
    /// once; Ctrl-C stops the server.
    @Test func addressesAndVouchersOnDevnet() throws {
        for f in [alice, bob] { #expect(try f.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0) }
        let early = try alice.run(["ln", "address", "register", "alice", "--password-file", alice.path("password")])
        #expect(early.status == 1 && early.stderr.contains("no devnet LNURL server is running"), "\(early.stderr)")
        let port = try Self.freePort()
        let server = try RunningCLI(["ln", "devnet", "serve", "--port", String(port)], environment: alice.environment)
        #expect(server.nextLine() == "devnet LNURL server on http://127.0.0.1:\(port)")
        defer { kill(server.process.processIdentifier, SIGKILL) }

        let registered = try alice.run(["ln", "address", "register", "alice", "--description", "Alice's tips", "--password-file", alice.path("password")])
        #expect(registered.status == 0 && registered.stdout == "alice@127.0.0.1:\(port)\n", "\(registered.stderr)")
        let taken = try bob.run(["ln", "address", "register", "alice", "--password-file", bob.path("password")])
        #expect(taken.status == 1 && taken.errorLines == ["the name \"alice\" is taken: choose another"], "\(taken.stderr)")
        let shown = try #require(try json(try alice.run(["ln", "address", "--json"])) as? [String: String])
        #expect(shown["address"] == "alice@127.0.0.1:\(port)" && shown["lnurl"]?.hasPrefix("lnurl1") == true)

        #expect(try bob.run(["ln", "devnet", "fund", "10000", "--password-file", bob.path("password")]).status == 0)
        let pay = try bob.run(["ln", "pay", "alice@127.0.0.1:\(port)", "--amount", "1000", "--comment", "thanks!", "--yes", "--password-file", bob.path("password")])
        #expect(pay.status == 0 && pay.stdout.hasPrefix("paid 1,000 sat"), "\(pay.stderr)")
        let history = try #require(try json(try alice.run(["ln", "history", "--json"])) as? [[String: Any]])
        #expect(history.count == 1 && history[0]["comment"] as? String == "thanks!" && history[0]["amountMsat"] as? Int == 1_000_000, "\(history)")

        let voucher = try alice.run(["ln", "devnet", "voucher", "--amount", "5000"])
        let lnurl = voucher.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(voucher.status == 0 && lnurl.hasPrefix("lnurl1"), "\(voucher.stderr)")
        let withdrawn = try alice.run(["ln", "withdraw", lnurl, "--amount", "2,500", "--yes", "--password-file", alice.path("password")])
        #expect(withdrawn.status == 0 && withdrawn.stdout.hasPrefix("received 2,500 sat") && withdrawn.stderr.contains("Receive 1 sat to 5,000 sat"),
                "\(withdrawn.stdout) \(withdrawn.stderr)")
        let again = try bob.run(["ln", "withdraw", lnurl, "--yes", "--password-file", bob.path("password")])
        #expect(again.status == 1 && again.errorLines.last?.contains("unknown or has been used") == true, "\(again.stderr)")
        let balance = try #require(try json(try alice.run(["ln", "balance", "--json"])) as? [String: Any])
        #expect(balance["balanceSats"] as? Int == 3_500)

        // LNURL-auth against devnet's test service: signed in once, with alice's key for 127.0.0.1.
        let login = try alice.run(["ln", "devnet", "login"])
        let k1 = try #require(login.stderr.components(separatedBy: "challenge ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let signed = try alice.run(["ln", "auth", login.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--yes", "--json",
                                    "--password-file", alice.path("password")])
        let auth = try #require(try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as? [String: String], "\(signed.stderr)")
        #expect(auth["domain"] == "127.0.0.1" && auth["action"] == "login")
        #expect(auth["linkingKey"] == "037f7f2670cc29842964e1b833808947b76be3c5001e84b3699c3312f73e9084c6")
        let check = try alice.run(["ln", "devnet", "login", "--check", k1])
        #expect(check.status == 0 && check.stdout == (auth["linkingKey"] ?? "") + "\n", "\(check.stderr)")

        kill(server.process.processIdentifier, SIGINT)
        let stopped = server.finish()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }

    /// Deposits through the CLI on devnet: an address, a deposit that waits, is mined and
    /// claimed; a cap too low strands one (exit 1, the fee it needs), a higher cap claims it;
    /// another is sent elsewhere, to an address of the network only.
    @Test func depositsOnDevnet() throws {
        #expect(try alice.run(["ln", "config", "--backend", "devnet", "--max-claim-fee", "2/vB"]).stdout.contains("claim fee cap: at most 2 sat/vB"))
        let pw = ["--password-file", alice.path("password")]
        let address = try alice.run(["ln", "invoice", "--method", "bitcoin"] + pw).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(address.hasPrefix("bcrt1q"))
        let txid = try alice.run(["ln", "devnet", "deposit", address, "40,000"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let waiting = try alice.run(["ln", "deposits"] + pw)
        #expect(waiting.stdout == "\(txid):0  40,000 sat  waiting for confirmations (0 of 3)\n", "\(waiting.stdout) \(waiting.stderr)")
        #expect(try alice.run(["ln", "devnet", "fees", "--fast", "40", "--medium", "20", "--slow", "5"]).status == 0)
        #expect(try alice.run(["ln", "devnet", "mine", "3"]).stdout == "height 103\n")
        let stranded = try #require(try json(try alice.run(["ln", "deposits", "--json"] + pw)) as? [[String: Any]])
        #expect(stranded.first?["state"] as? String == "notClaimed" && stranded.first?["requiredFeeSat"] as? Int == 3_000 && stranded.first?["capSat"] as? Int == 300)
        let low = try alice.run(["ln", "deposits", "claim", "\(txid):0"] + pw)
        #expect(low.status == 1 && low.stdout.contains("not claimed: claiming costs 3,000 sat, above your cap of 300 sat"), "\(low.stdout)")
        let claimed = try alice.run(["ln", "deposits", "claim", "\(txid):0", "--max-fee", "network"] + pw)
        #expect(claimed.status == 0 && claimed.stdout.contains("claimed (fee 3,000 sat)"), "\(claimed.stdout) \(claimed.stderr)")
        let balance = try #require(try json(try alice.run(["ln", "balance", "--json"])) as? [String: Any])
        #expect(balance["balanceSats"] as? Int == 37_000)

        let next = try alice.run(["ln", "invoice", "--method", "bitcoin", "--new"] + pw).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(next.hasPrefix("bcrt1q") && next != address)
        let other = try alice.run(["ln", "devnet", "deposit", next, "20000"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Unconfirmed, it can't be sent elsewhere yet; without a terminal, only with --yes.
        let early = try alice.run(["ln", "deposits", "refund", "\(other):0", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "--yes"] + pw)
        #expect(early.status == 1 && early.stderr.contains("waiting for confirmations"), "\(early.stderr)")
        #expect(try alice.run(["ln", "deposits", "refund", "\(other):0", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"] + pw).status == 2)
        #expect(try alice.run(["ln", "devnet", "fees", "--fast", "500", "--medium", "400", "--slow", "5"]).status == 0)  // too dear to claim
        #expect(try alice.run(["ln", "devnet", "mine", "3"]).status == 0)
        let wrong = try alice.run(["ln", "deposits", "refund", "\(other):0", "--to", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "--yes"] + pw)
        #expect(wrong.status == 1 && wrong.errorLines == ["\"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\" is not an address of devnet (test money on this machine), whose addresses start with bcrt1: it is for Bitcoin (real money)"], "\(wrong.stderr)")
        // The wallet's own testnet address (what Receive shows for Bitcoin) is not devnet's: said
        // with the names the person chose, never "regtest".
        let testnet = try alice.run(["ln", "deposits", "refund", "\(other):0", "--to", "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl", "--yes"] + pw)
        #expect(testnet.errorLines == ["\"tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl\" is not an address of devnet (test money on this machine), whose addresses start with bcrt1: it is for Bitcoin's testnet"],
                "\(testnet.stderr)")
        let refunded = try alice.run(["ln", "deposits", "refund", "\(other):0", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "--speed", "slow", "--yes"] + pw)
        #expect(refunded.status == 0 && refunded.stdout.contains("sent elsewhere") && refunded.stderr.contains("about 19,250 sat"), "\(refunded.stderr)")
        let bad = try alice.run(["ln", "deposits", "claim", "nonsense"] + pw)
        #expect(bad.status == 1 && bad.errorLines.count == 1 && bad.stderr.contains("is not a deposit: TXID:VOUT"))
    }

    /// A message signed with the devnet node key verifies with `verify-message` (no wallet
    /// needed) and not once changed; a reserved prefix is refused.
    @Test func signAndVerifyAMessage() throws {
        #expect(try alice.run(["ln", "config", "--backend", "devnet"]).status == 0)
        let signed = try CLI.run(["ln", "sign-message", "--json", "--password-file", alice.path("password")], stdin: Data("I control this node\n".utf8),
                                 environment: alice.environment)
        #expect(signed.status == 0, "\(signed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as? [String: String])
        let (pubkey, signature) = (try #require(json["pubkey"]), try #require(json["signature"]))
        #expect(json["message"] == "I control this node")
        let config = try #require(try JSONSerialization.jsonObject(with: Data(try alice.run(["ln", "config", "--json"]).stdout.utf8)) as? [String: Any])
        #expect(config["nodeId"] as? String == pubkey)
        let valid = try CLI.run(["ln", "verify-message", "--pubkey", pubkey, "--signature", signature], input: "I control this node\n")
        #expect(valid.status == 0 && valid.stdout == "valid: signed by \(pubkey)\n", "\(valid.stderr)")
        let changed = try CLI.run(["ln", "verify-message", "--pubkey", pubkey, "--signature", signature], input: "I control this node!\n")
        #expect(changed.status == 1 && changed.errorLines.count == 1 && changed.stderr.hasPrefix("invalid: "))
        let reserved = try CLI.run(["ln", "sign-message", "--password-file", alice.path("password")], stdin: Data("breez-lnurl:x".utf8), environment: alice.environment)
        #expect(reserved.status == 1 && reserved.stderr.contains("reserved"), "\(reserved.stderr)")
    }

    /// Pay on delivery from the terminal: bob's hold invoice, alice's payment held (pending,
    /// exit 3), `ln invoice --wait` returns once it is held, `ln settle` by hash takes it;
    /// another cancelled goes back; wrong input one line each.
    @Test func holdInvoicesFromTheTerminal() throws {
        for f in [alice, bob] { #expect(try f.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0) }
        #expect(try alice.run(["ln", "devnet", "fund", "10000", "--password-file", alice.path("password")]).status == 0)
        let made = try bob.run(["ln", "invoice", "--hold", "--amount", "1500", "--description", "render job", "--json", "--password-file", bob.path("password")])
        #expect(made.status == 0 && made.stderr.contains("held until settled or cancelled"), "\(made.stderr)")
        let invoice = try #require(try json(made) as? [String: Any])
        let (text, hash) = (try #require(invoice["invoice"] as? String), try #require(invoice["paymentHash"] as? String))
        let paid = try alice.run(["ln", "pay", text, "--yes", "--password-file", alice.path("password")])
        #expect(paid.status == 3, "pending while held: \(paid.stderr)")
        let shown = try bob.run(["ln", "history"])
        #expect(shown.stdout.contains("held") && shown.stdout.contains("settle or cancel before"), "\(shown.stdout)")
        let settled = try bob.run(["ln", "settle", hash, "--json", "--password-file", bob.path("password")])
        #expect(settled.status == 0, "\(settled.stderr)")
        #expect((try json(settled) as? [String: Any])?["status"] as? String == "completed")
        let cancelLate = try bob.run(["ln", "cancel", hash, "--password-file", bob.path("password")])
        #expect(cancelLate.status == 1 && cancelLate.errorLines == ["this payment is settled already: it is yours, and can't be given back"], "\(cancelLate.stderr)")
        let proof = try alice.run(["ln", "history", "--json"])
        let sent = try #require((try json(proof) as? [[String: Any]])?.first { $0["paymentHash"] as? String == hash })
        #expect(sent["status"] as? String == "completed" && sent["preimage"] is String)

        // A second, not delivered, on a hash bob's program holds: settling by hash alone is
        // refused (no preimage kept); cancelled, alice is whole.
        let balance = { (f: WalletFixture) throws -> Int in
            try #require((try self.json(try f.run(["ln", "balance", "--json"])) as? [String: Any])?["balanceSats"] as? Int)
        }
        let before = try balance(alice)
        let theirs = try bob.run(["ln", "invoice", "--hold", "--amount", "700", "--payment-hash", "4d3e5ddb0b4d7bb6f8ae7b7b1cbb4cd8c4bd7f59b30dde8a2ff1ef6fbe7d8a9f",
                                  "--json", "--password-file", bob.path("password")])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let second = try #require((try json(theirs) as? [String: Any])?["invoice"] as? String)
        #expect(try alice.run(["ln", "pay", second, "--yes", "--password-file", alice.path("password")]).status == 3)
        let byHash = try bob.run(["ln", "settle", "4d3e5ddb0b4d7bb6f8ae7b7b1cbb4cd8c4bd7f59b30dde8a2ff1ef6fbe7d8a9f", "--password-file", bob.path("password")])
        #expect(byHash.status == 1 && byHash.errorLines.first?.contains("settle with the preimage itself") == true, "\(byHash.stderr)")
        let cancelled = try bob.run(["ln", "cancel", "4d3e5ddb0b4d7bb6f8ae7b7b1cbb4cd8c4bd7f59b30dde8a2ff1ef6fbe7d8a9f", "--password-file", bob.path("password")])
        #expect(cancelled.status == 0 && cancelled.stdout.contains("goes back to the payer"), "\(cancelled.stderr)")
        #expect(try balance(alice) == before)
        for (args, words) in [(["ln", "settle", "xyz"], "a payment hash is 64 hex digits"), (["ln", "cancel", String(repeating: "0", count: 64)], "no payment is held under"),
                              (["ln", "invoice", "--amount", "5", "--payment-hash", String(repeating: "0", count: 64)], "--payment-hash is for --hold")] {
            let r = try bob.run(args + ["--password-file", bob.path("password")])
            #expect(r.status != 0 && r.stderr.contains(words), "\(args): \(r.stderr)")
        }
    }

    @Test func invoicePayHistoryBalancesIdempotencyExpiryAndWatch() throws {
        // No backend yet: says how to set one.
        let none = try alice.run(["ln", "balance"])
        #expect(none.status == 1 && none.stderr.contains("--backend devnet (test money") && none.stderr.contains("not the Lightning network"))
        // `devnet` alone: the ledger under the wallets' home (alice's), as the app's choice saves it.
        for (f, spec) in [(alice, "devnet"), (bob, "devnet:\(ledger)")] {
            let config = try f.run(["ln", "config", "--backend", spec])
            #expect(config.status == 0 && config.stdout.contains("backend: devnet:\(ledger)"), "\(config.stderr)")
        }
        // Amounts are typed as the app reads them: grouped digits too, and a clear line otherwise.
        let misgrouped = try alice.run(["ln", "devnet", "fund", "100,00", "--password-file", alice.path("password")])
        #expect(misgrouped.status == 2 && misgrouped.stderr.contains("grouped by three"), "\(misgrouped.stderr)")
        let fund = try alice.run(["ln", "devnet", "fund", "100,000", "--password-file", alice.path("password")])
        #expect(fund.status == 0 && fund.stdout == "devnet: funded 100,000 sat; balance 100,000 sat\n", "\(fund.stderr)")

        // bob's first invoice unlocks his wallet and saves his node id; watching needs no password.
        let invoice = try bob.run(["ln", "invoice", "--amount", "2500", "--description", "coffee", "--password-file", bob.path("password")])
        #expect(invoice.status == 0, "\(invoice.stderr)")
        let text = invoice.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.hasPrefix("lnbcrt25u1") && invoice.stderr.contains("devnet"))
        let watch = try RunningCLI(["ln", "watch", "--json"], environment: bob.environment)
        #expect(watch.nextErrorLine()?.hasPrefix("watching ") == true, "it says so once listening")

        // alice pays: preview on stderr, result on stdout.
        let pay = try alice.run(["ln", "pay", text, "--yes", "--password-file", alice.path("password")])
        #expect(pay.status == 0, "\(pay.stderr)")
        #expect(pay.stdout.hasPrefix("paid 2,500 sat (fee 4 sat); payment "))
        #expect(pay.stderr.contains("amount:      2,500 sat") && pay.stderr.contains("fee:         4 sat") && pay.stderr.contains("total:       2,504 sat"))
        #expect(pay.stderr.contains("description: coffee") && pay.stderr.contains("expires:"))
        // The same command again: the idempotency key (the payment hash) has paid; nothing moves.
        let again = try alice.run(["ln", "pay", text, "--yes", "--password-file", alice.path("password")])
        #expect(again.status == 0 && again.stderr.contains("already paid: nothing was sent again") && again.stdout == pay.stdout)
        // Under another key the invoice is refused: it has been paid.
        let other = try alice.run(["ln", "pay", text, "--yes", "--idempotency-key", "other", "--password-file", alice.path("password")])
        #expect(other.status == 1 && other.stderr.contains("already been paid"))

        // Balances and histories on both sides.
        let a = try #require(try json(try alice.run(["ln", "balance", "--json"])) as? [String: Any])
        #expect(a["balanceSats"] as? Int == 97_496 && a["balanceMsat"] as? Int == 97_496_500 && a["backend"] as? String == "devnet")
        let b = try #require(try json(try bob.run(["ln", "balance", "--json"])) as? [String: Any])
        #expect(b["balanceSats"] as? Int == 2_500)
        let aHistory = try #require(try json(try alice.run(["ln", "history", "--json"])) as? [[String: Any]])
        #expect(aHistory.map { $0["type"] as? String } == ["sent", "received"])
        #expect(aHistory[0]["amountMsat"] as? Int == 2_500_000 && aHistory[0]["feeMsat"] as? Int == 3_500 && aHistory[0]["status"] as? String == "completed")
        #expect(aHistory[1]["description"] as? String == "devnet test funds")
        let bHistory = try #require(try json(try bob.run(["ln", "history", "--json"])) as? [[String: Any]])
        #expect(bHistory.count == 1 && bHistory[0]["type"] as? String == "received" && bHistory[0]["amountMsat"] as? Int == 2_500_000)
        #expect(bHistory[0]["id"] as? String == aHistory[0]["id"] as? String && bHistory[0]["preimage"] as? String == aHistory[0]["preimage"] as? String)
        let sent = try alice.run(["ln", "history", "--type", "sent"])
        #expect(sent.status == 0 && sent.stdout.split(separator: "\n").count == 1 && sent.stdout.contains("−2,504 sat (incl. 4 sat fee)  completed"), "\(sent.stdout)")
        let id = try #require(aHistory[0]["id"] as? String)
        let show = try alice.run(["ln", "show", String(id.prefix(8))])
        #expect(show.status == 0 && show.stdout.contains("payment \(id)") && show.stdout.contains("preimage:"))

        // bob's watcher saw the payment arrive: one compact object per line.
        var lines: [String] = []
        while let line = watch.nextLine() {
            lines.append(line)
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
            if line.contains("{\"event\":\"paymentSucceeded\",\"payment\":{") && line.contains(id) { break }
        }
        #expect(lines.last?.contains(id) == true, "\(lines)")
        kill(watch.process.processIdentifier, SIGINT)
        let watched = watch.finish()
        #expect(watched.status == 0 || watched.status == 130 || watch.process.terminationReason == .uncaughtSignal, "\(watched.stderr)")

        // An expired invoice (made a minute ago, for 10 s) is refused before anything is paid.
        let old = UInt64(Date().timeIntervalSince1970) - 60
        let short = try Bolt11Invoice.encode(network: .regtest, amountMsat: 10_000, timestamp: old,
                                             fields: Bolt11Invoice.fields(paymentHash: Array(repeating: 7, count: 32), paymentSecret: Array(repeating: 8, count: 32),
                                                                          description: "expired", expiry: 10, features: [8, 14]),
                                             privateKey: SecretBytes(Array(repeating: 1, count: 32)))
        let expired = try alice.run(["ln", "pay", short, "--yes", "--password-file", alice.path("password")])
        #expect(expired.status == 1 && expired.errorLines.count == 1 && expired.stderr.hasPrefix("the invoice expired ") && expired.stderr.contains("ask the payee for a new invoice") && expired.stderr.range(of: #"\d{4}-\d\d-\d\dT"#, options: .regularExpression) == nil, "\(expired.stderr)")
        #expect(try alice.run(["ln", "history", "--json"]).stdout.components(separatedBy: "\"id\"").count == 3)  // still two payments

        // Exports: atomic, not overwritten without --force.
        let out = alice.home.appendingPathComponent("history.csv").path
        let export = try alice.run(["ln", "export", "--format", "csv", "--out", out])
        #expect(export.status == 0 && export.stderr.contains("exported 2 payments"))
        let csv = try String(contentsOfFile: out, encoding: .utf8)
        #expect(csv.hasPrefix("date,type,status,amount_sats,fee_sats,fiat_value,fiat_currency,description,payment_hash,invoice,id,txid,address,connection\r\n"))
        // Whole sats as the app shows them: 2,500 + 4 = 2,504 (the fee 3.5 sat rounded as the total is).
        #expect(csv.contains(",sent,completed,2500,4,,,coffee,"), "\(csv)")
        let exists = try alice.run(["ln", "export", "--format", "json", "--out", out])
        #expect(exists.status == 1 && exists.stderr.contains("already exists; pass --force to replace it"), "\(exists.stderr)")
        #expect(try alice.run(["ln", "export", "--format", "json", "--out", out, "--force"]).status == 0)
    }

    /// `ln invoice --wait` prints the invoice at once, then the confirmation when paid.
    @Test func invoiceWaitsForThePayment() throws {
        for f in [alice, bob] { #expect(try f.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0) }
        #expect(try alice.run(["ln", "devnet", "fund", "50", "--password-file", alice.path("password")]).status == 0)
        let waiting = try RunningCLI(["ln", "invoice", "--amountless", "--wait", "--timeout", "30", "--password-file", bob.path("password")], environment: bob.environment)
        let invoice = try #require(waiting.nextLine())
        #expect(invoice.hasPrefix("lnbcrt1"))
        let pay = try alice.run(["ln", "pay", invoice, "--amount", "21", "--yes", "--password-file", alice.path("password")])
        #expect(pay.status == 0, "\(pay.stderr)")
        let done = waiting.finish()
        #expect(done.status == 0 && done.stdout.contains("received 21 sat (payment "), "\(done.stderr)")
        // The payer's fee is shown; the amountless invoice needed --amount.
        let noAmount = try alice.run(["ln", "pay", invoice, "--yes", "--password-file", alice.path("password"), "--idempotency-key", "x"])
        #expect(noAmount.status == 1)
    }

    /// `--qr` draws a code that zbarimg (an independent decoder) reads back as the invoice.
    @Test func invoiceQRDecodes() throws {
        let r = try bob.run(["ln", "invoice", "--amount", "1234", "--description", "qr", "--qr", "--backend", "devnet:\(ledger)", "--password-file", bob.path("password")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let invoice = lines[0]
        let decoded = try decodeTerminalQR(Array(lines.dropFirst()), scratch: bob.home)
        #expect(decoded.lowercased() == invoice && invoice.hasPrefix("lnbcrt12340n1"), "zbarimg read: \(decoded)")
    }

    /// Fiat from an offline rates table: the balance's value, and each payment's value at the
    /// time it was made in the history and the export.
    @Test func fiatValues() throws {
        let rates = try alice.write("rates", "# test\nUSD 65000.00\nEUR 60000\n")
        let config = try alice.run(["ln", "config", "--backend", "devnet:\(ledger)", "--fiat", "usd", "--rates-file", rates])
        #expect(config.status == 0 && config.stdout.contains("fiat: USD") && config.stdout.contains("rates: file:"), "\(config.stderr)")
        #expect(try alice.run(["ln", "devnet", "fund", "150000", "--password-file", alice.path("password")]).status == 0)
        let balance = try #require(try json(try alice.run(["ln", "balance", "--fiat", "EUR", "--json"])) as? [String: Any])
        let fiat = try #require(balance["fiat"] as? [String: Any])
        #expect(fiat["currency"] as? String == "EUR" && fiat["value"] as? String == "90" && fiat["btcPrice"] as? String == "60000")
        let history = try #require(try json(try alice.run(["ln", "history", "--json"])) as? [[String: Any]])
        #expect((history[0]["fiat"] as? [String: Any])?["value"] as? String == "97.5")
        #expect(try alice.run(["ln", "balance", "--fiat", "XYZ"]).status == 1)  // not in the table
        // The configured currency is shown without asking, as text and JSON.
        let plain = try alice.run(["ln", "balance"])
        #expect(plain.stdout == "150,000 sat ≈ 97.50 USD\n", "\(plain.stdout)\(plain.stderr)")
        let configured = try #require(try json(try alice.run(["ln", "balance", "--json"])) as? [String: Any])
        #expect((configured["fiat"] as? [String: Any])?["currency"] as? String == "USD")
        // A currency the source doesn't have is refused, and nothing changes.
        let xyz = try alice.run(["ln", "config", "--fiat", "XYZ"])
        #expect(xyz.status == 1 && xyz.errorLines == ["the rates source has no XYZ rate; nothing was changed"], "\(xyz.stderr)")
        let other = try alice.write("other-rates", "GBP 50000\n")
        #expect(try alice.run(["ln", "config", "--rates-file", other]).status == 1, "USD is not in the new table")
        #expect(try alice.run(["ln", "config"]).stdout.contains("fiat: USD"))
        #expect(try alice.run(["ln", "config"]).stdout.contains("rates: file:\(URL(fileURLWithPath: rates).standardizedFileURL.path)"))
        // The pay preview shows the total in the configured currency.
        #expect(try bob.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0)
        let invoice = try bob.run(["ln", "invoice", "--amount", "2000", "--password-file", bob.path("password")])
        let pay = try alice.run(["ln", "pay", invoice.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--yes", "--password-file", alice.path("password")])
        #expect(pay.status == 0 && pay.stderr.contains("≈            1.30 USD") && pay.stderr.contains("USD in total"), "\(pay.status) \(pay.stdout) \(pay.stderr)")
        // Back to sat only.
        #expect(try alice.run(["ln", "config", "--no-fiat", "--fiat", "EUR"]).status == 2)
        let cleared = try alice.run(["ln", "config", "--no-fiat"])
        #expect(cleared.status == 0 && !cleared.stdout.contains("fiat: USD"), "\(cleared.stdout)\(cleared.stderr)")
        #expect(try alice.run(["ln", "balance"]).stdout.hasSuffix(" sat\n"))
    }

    /// The invoice, the settings and the decoded invoice as JSON, with ISO 8601 dates.
    @Test func jsonShapes() throws {
        #expect(try alice.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0)
        let config = try #require(try json(try alice.run(["ln", "config", "--json"])) as? [String: Any])
        #expect(config["backend"] as? String == "devnet:\(ledger)" && config["fiat"] is NSNull)
        let invoice = try #require(try json(try alice.run(["ln", "invoice", "--amount", "21", "--description", "d", "--json", "--password-file", alice.path("password")])) as? [String: Any])
        let text = try #require(invoice["invoice"] as? String)
        #expect(invoice["amountMsat"] as? Int == 21_000 && (invoice["expiresAt"] as? String)?.hasSuffix("Z") == true)
        let decoded = try #require(try json(try alice.run(["ln", "decode", text, "--json"])) as? [String: Any])
        #expect(decoded["expiresAt"] as? String == invoice["expiresAt"] as? String && (decoded["createdAt"] as? String)?.hasSuffix("Z") == true)
    }

    /// The receiver's history brings in what arrived since the last look (it syncs first), lists
    /// unpaid invoices with their expiry, and says when it is offline.
    @Test func receiverHistorySyncsAndListsUnpaidInvoices() throws {
        for f in [alice, bob] { #expect(try f.run(["ln", "config", "--backend", "devnet:\(ledger)"]).status == 0) }
        #expect(try alice.run(["ln", "devnet", "fund", "5000", "--password-file", alice.path("password")]).status == 0)
        let invoice = try bob.run(["ln", "invoice", "--amount", "1000", "--description", "tea", "--password-file", bob.path("password")])
        #expect(invoice.status == 0, "\(invoice.stderr)")
        let unpaid = try bob.run(["ln", "history", "--status", "pending"])
        #expect(unpaid.stdout.contains("asks 1,000 sat") && unpaid.stdout.contains("tea") && unpaid.stdout.contains("(unpaid invoice, expires "), "\(unpaid.stdout)")
        let pay = try alice.run(["ln", "pay", invoice.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--yes", "--password-file", alice.path("password")])
        #expect(pay.status == 0, "\(pay.stderr)")
        // No `ln balance` or `ln watch` in between: `ln history` itself brings the payment in.
        let after = try #require(try json(try bob.run(["ln", "history", "--json"])) as? [[String: Any]])
        #expect(after.count == 1 && after[0]["status"] as? String == "completed" && after[0]["type"] as? String == "received", "\(after)")
        #expect(try bob.run(["ln", "history", "--status", "pending"]).stderr.contains("no payments"))
        // Offline (the ledger unreadable): the history kept here, and when it was last synced.
        let saved = try Data(contentsOf: URL(fileURLWithPath: ledger))
        try Data("not a ledger".utf8).write(to: URL(fileURLWithPath: ledger))
        defer { try? saved.write(to: URL(fileURLWithPath: ledger)) }
        let offline = try bob.run(["ln", "history"])
        #expect(offline.status == 0 && offline.stdout.contains("+1,000 sat") && offline.stderr.contains("offline") && offline.stderr.contains("last synced"),
                "\(offline.stdout)\(offline.stderr)")
    }

    /// Usage and refusals: one line, meaningful exit codes, no secrets asked of a pipe.
    @Test func refusals() throws {
        #expect(try alice.run(["ln", "config", "--backend", "lightning:mainnet"]).status == 1)
        #expect(try alice.run(["ln", "config", "--backend", "devnet:\(ledger)", "--fiat", "dollars"]).status == 2)
        #expect(try alice.run(["ln", "invoice", "--password-file", alice.path("password")]).status == 2)  // no amount choice
        #expect(try alice.run(["ln", "invoice", "--amount", "5", "--amountless"]).status == 2)
        #expect(try alice.run(["ln", "history", "--limit", "0"]).status == 2)
        try alice.write("wrong", "not the password\n")
        let wrong = try alice.run(["ln", "invoice", "--amount", "5", "--password-file", alice.path("wrong"), "--backend", "devnet:\(ledger)"])
        #expect(wrong.status == 1 && wrong.errorLines == ["wrong password"])
        let fund = try alice.run(["ln", "devnet", "fund", "0", "--password-file", alice.path("password")])
        #expect(fund.status == 2)
        // Paying without a terminal needs --yes.
        let invoice = try bob.run(["ln", "invoice", "--amount", "5", "--password-file", bob.path("password"), "--backend", "devnet:\(ledger)"])
        let noTTY = try CLI.run(["ln", "pay", invoice.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--password-file", alice.path("password")],
                                environment: alice.environment, newSession: true)
        #expect(noTTY.status == 2 && noTTY.stderr.contains("--yes"))
        #expect(try alice.run(["ln", "show", "nope"]).status == 1)
    }
}
