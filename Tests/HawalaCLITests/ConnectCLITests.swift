import Foundation
import HawalaTestSupport
import Testing

/// `hawala connect`: the contracts scripts depend on (`new --json`, `list --json`, `show`,
/// `revoke`), the limits refused in one line, and one service per home.
@Suite("hawala connect")
struct ConnectCLITests {
    let wallet: WalletFixture

    init() throws {
        wallet = try WalletFixture()
        #expect(try wallet.restoreAbandon().status == 0)
    }

    func json(_ result: CLIResult) throws -> Any { try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) }

    @Test func newListShowRevoke() throws {
        let pw = ["--password-file", wallet.path("password")]
        let made = try wallet.run(["connect", "new", "compute-agent", "--budget", "5000/weekly", "--max-payment", "2,000", "--expires-in", "30d",
                                   "--methods", "pay,history", "--relay", "ws://127.0.0.1:7447", "--json"] + pw)
        #expect(made.status == 0, "\(made.stderr)")
        let object = try #require(try json(made) as? [String: Any])
        let uri = try #require(object["uri"] as? String)
        #expect(object["name"] as? String == "compute-agent" && object["state"] as? String == "live")
        #expect(object["methods"] as? [String] == ["pay", "history"] && object["budgetSats"] as? Int == 5000 && object["renewal"] as? String == "weekly")
        #expect(object["maxPaymentSats"] as? Int == 2000 && object["spentMsat"] as? Int == 0 && object["expiresAt"] is String)
        #expect(object["relays"] as? [String] == ["ws://127.0.0.1:7447"])
        let service = try #require(object["servicePublicKey"] as? String)
        #expect(uri.hasPrefix("nostr+walletconnect://\(service)?relay=ws%3A%2F%2F127.0.0.1%3A7447&secret="))
        let secret = String(try #require(uri.split(separator: "secret=").last).prefix(64))
        #expect(secret.count == 64)
        // The secret is shown once: nowhere in the store, the list or show.
        for file in try FileManager.default.contentsOfDirectory(at: wallet.data, includingPropertiesForKeys: nil) where file.lastPathComponent.hasPrefix("wallets.sqlite") {
            #expect(try Data(contentsOf: file).range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent)")
        }
        let listed = try wallet.run(["connect", "list", "--json"])
        let rows = try #require(try json(listed) as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["name"] as? String == "compute-agent" && rows[0]["uri"] == nil && !listed.stdout.contains(secret))
        let shown = try wallet.run(["connect", "show", "compute-agent"])
        #expect(shown.status == 0 && shown.stdout.contains("spent 0 of 5,000 sat, renews") && shown.stdout.contains("at most:     2,000 sat a payment")
                && shown.stdout.contains("no payments yet") && !shown.stdout.contains(secret), "\(shown.stdout)")
        let again = try wallet.run(["connect", "new", "compute-agent", "--relay", "ws://127.0.0.1:7447"] + pw)
        #expect(again.status == 1 && again.stderr.contains("a connection named \"compute-agent\" already exists"), "\(again.stderr)")
        #expect(try wallet.run(["connect", "revoke", "compute-agent"]).stdout.contains("revoked \"compute-agent\""))
        let after = try #require(try json(try wallet.run(["connect", "show", "compute-agent", "--json"])) as? [String: Any])
        #expect(after["state"] as? String == "revoked" && after["revokedAt"] is String && after["payments"] as? [Any] != nil)
        let missing = try wallet.run(["connect", "revoke", "nobody"])
        #expect(missing.status != 0 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    /// Wrong limits and relays: one line, a non-zero exit, nothing made (and no password asked).
    @Test func badInputIsOneLine() throws {
        let cases: [([String], String)] = [
            (["--budget", "lots"], "a budget is sats or an amount of a currency and a renewal"),
            (["--budget", "5000/fortnightly"], "a budget is sats or an amount of a currency and a renewal"),
            (["--budget", "99999999999999999999"], "a budget is sats or an amount of a currency and a renewal"),
            (["--expires-in", "soon"], "an expiry is a number and a unit"),
            (["--expires-in", "-5d"], "an expiry is a number and a unit"),
            (["--methods", "pay,steal"], "what a connection may do"),
            (["--max-payment", "-5"], "negative"),
            (["--relay", "ws://relay.example.com"], "ws:// is for a relay on this machine only"),
            (["--relay", "http://127.0.0.1:7447"], "is not a relay address"),
        ]
        for (options, words) in cases {
            let result = try wallet.run(["connect", "new", "agent"] + options)
            #expect(result.status != 0 && result.stderr.contains(words) && result.stderr.split(separator: "\n").count == 1, "\(options): \(result.stderr)")
        }
        #expect(try wallet.run(["connect", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    /// The default relays are a setting: set, used by `new`, reset.
    @Test func relaysSetting() throws {
        #expect(try wallet.run(["connect", "relays"]).stdout == "wss://relay.getalby.com/v1\n")
        #expect(try wallet.run(["connect", "relays", "--set", "wss://relay.example.com", "--set", "ws://localhost:7000"]).status == 0)
        let made = try wallet.run(["connect", "new", "a", "--json", "--password-file", wallet.path("password")])
        #expect((try json(made) as? [String: Any])?["relays"] as? [String] == ["wss://relay.example.com", "ws://localhost:7000"])
        #expect(try wallet.run(["connect", "relays", "--set", "ws://example.com"]).status != 0)
        #expect(try wallet.run(["connect", "relays", "--reset"]).stdout == "wss://relay.getalby.com/v1\n")
    }

    /// A connection for MCP needs no relay and has no URI; `hawala mcp` takes only one that
    /// is for MCP (and live), and `connect serve` serves only those for NWC.
    @Test func reachedByNWCOrMCP() throws {
        let pw = ["--password-file", wallet.path("password")]
        let made = try json(try wallet.run(["connect", "new", "agent", "--for", "mcp", "--json"] + pw)) as? [String: Any]
        #expect(made?["for"] as? [String] == ["mcp"] && made?["uri"] == nil && made?["relays"] as? [String] == [], "\(String(describing: made))")
        let both = try wallet.run(["connect", "new", "both", "--for", "nwc,mcp", "--relay", "ws://127.0.0.1:1"] + pw)
        #expect(both.stdout.contains("nostr+walletconnect://") && both.stdout.contains(#"{"mcpServers":{"hawala-both":{"command":"/"#), "\(both.stdout)")
        // What an MCP client starts: this very program by its absolute path, with this home
        // (clients pass few variables on), so it finds the wallet.
        let line = try #require(both.stdout.split(separator: "\n").first { $0.contains("mcpServers") })
        let configuration = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let server = try #require((configuration["mcpServers"] as? [String: Any])?["hawala-both"] as? [String: Any])
        let command = try #require(server["command"] as? String)
        #expect(command.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: command) && command.hasSuffix("/hawala"), "\(command)")
        #expect((server["env"] as? [String: String])?["HAWALA_HOME"] == wallet.data.path, "\(server)")
        #expect(server["args"] as? [String] == ["mcp", "--connection", "both", "--password-file", "/path/to/password-file"])
        #expect(try wallet.run(["connect", "new", "x", "--for", "smoke-signals"] + pw).stderr.contains("--for is nwc, mcp or nwc,mcp"))
        #expect(try wallet.run(["connect", "new", "plain", "--relay", "ws://127.0.0.1:1"] + pw).status == 0)
        let refused = try wallet.run(["mcp", "--connection", "plain"] + pw)
        #expect(refused.status == 1 && refused.stderr.contains("connection \"plain\" is not for MCP"), "\(refused.stderr)")
        #expect(try wallet.run(["connect", "revoke", "agent"]).status == 0)
        let revoked = try wallet.run(["mcp", "--connection", "agent"] + pw)
        #expect(revoked.status == 1 && revoked.stderr.contains("connection \"agent\" is revoked"), "\(revoked.stderr)")
        let serve = try RunningCLI(["connect", "serve"] + pw, environment: wallet.environment)
        defer { if serve.process.isRunning { serve.process.interrupt() }; _ = serve.finish() }
        var said: [String] = []
        while let line = serve.nextErrorLine(), said.count < 20 {
            said.append(line)
            if line.hasPrefix("serving ") { break }
        }
        #expect(said.last == "serving 2 connections; Ctrl-C stops", "both and plain, not the MCP one: \(said)")
    }

    /// One service per home: a second `serve` says the first runs and stops.
    @Test func oneServiceAtATime() throws {
        let first = try RunningCLI(["connect", "serve", "--password-file", wallet.path("password")], environment: wallet.environment)
        defer { if first.process.isRunning { first.process.interrupt() }; _ = first.finish() }
        var said: [String] = []
        while let line = first.nextErrorLine(), said.count < 20 {
            said.append(line)
            if line.hasPrefix("serving ") { break }
        }
        #expect(said.last == "serving 0 connections; Ctrl-C stops", "\(said)")
        let second = try wallet.run(["connect", "serve", "--password-file", wallet.path("password")])
        #expect(second.status != 0 && second.stderr.contains("the connections service already runs for these wallets"), "\(second.stderr)")
        first.process.interrupt()
        let done = first.finish()
        #expect(done.status == 0 && done.stderr.contains("stopped"), "\(done.stderr)")
    }

    /// A supervisor may stop the service the instant it says it serves: SIGINT or SIGTERM sent
    /// right after that line stops it, every time. (The signals were once registered only
    /// after the line, and one in eight such stops was lost: the service ran on.)
    @Test func aSignalTheMomentItServesStopsIt() throws {
        #expect(try wallet.run(["connect", "new", "agent", "--relay", "ws://127.0.0.1:1", "--password-file", wallet.path("password")]).status == 0)
        for round in 0..<12 {
            let serve = try RunningCLI(["connect", "serve", "--password-file", wallet.path("password")], environment: wallet.environment)
            var line: String?
            repeat { line = serve.nextErrorLine() } while line.map { !$0.hasPrefix("serving ") } ?? false
            kill(serve.process.processIdentifier, round.isMultiple(of: 2) ? SIGINT : SIGTERM)
            let done = serve.finish()
            #expect(line == "serving 1 connection; Ctrl-C stops" && done.status == 0 && done.stderr.contains("stopped"), "round \(round): \(done.stderr)")
        }
    }
}
