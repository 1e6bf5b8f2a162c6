import Foundation
import HawalaOnChain
import HawalaTestSupport
import Testing

/// `hawala onchain`'s contract, as scripts use it: the exact JSON shapes, exit codes, one-line
/// errors — against a real Litecoin Core on regtest.
@Suite struct OnChainCLITests {
    @Test func theContractEndToEnd() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let home = temporaryFolder("hawala-onchain-cli")
        let files = temporaryFolder("hawala-onchain-files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let passwordFile = files.appendingPathComponent("password").path
        try Data("correct horse battery\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        try Data((abandonAbout + "\n").utf8).write(to: files.appendingPathComponent("words"))
        func hawala(_ arguments: String...) throws -> CLIResult {
            try CLI.run(arguments, environment: ["HAWALA_HOME": home.path, "NO_COLOR": "1"], timeout: 60)
        }
        func json(_ result: CLIResult) throws -> Any {
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        }
        #expect(try hawala("wallet", "restore", "--name", "t", "--network", "testnet", "--mnemonic-file", files.appendingPathComponent("words").path,
                           "--password-file", passwordFile, "--yes").status == 0)

        // Before a node: one line, exit 1, naming what to do.
        let none = try hawala("onchain", "balance")
        #expect(none.status == 1 && none.errorLines.count == 1 && none.stderr.contains("hawala onchain node"))
        // A node that isn't there: named, nothing saved.
        let unreachable = try hawala("onchain", "node", "--chain", "litecoin", "--url", "http://127.0.0.1:1", "--cookie-file", node.cookie)
        #expect(unreachable.status == 1 && unreachable.errorLines.count == 1 && unreachable.stderr.contains("http://127.0.0.1:1"))
        #expect(try hawala("onchain", "balance").status == 1)
        // Usage errors exit 2.
        #expect(try hawala("onchain", "node", "--chain", "dogecoin", "--url", node.url).status == 2)
        #expect(try hawala("onchain", "node", "--chain", "litecoin", "--url", node.url, "--cookie-file", "a", "--auth-file", "b").status == 2)

        #expect(try hawala("onchain", "node", "--chain", "litecoin", "--url", node.url, "--cookie-file", node.cookie).status == 0)
        let receive = try json(try hawala("onchain", "receive", "--chain", "litecoin", "--json")) as! [String: Any]
        #expect(Array((receive as NSDictionary).allKeys as! [String]).sorted() == ["address", "index"])
        let address = try #require(receive["address"] as? String)
        #expect(address.hasPrefix("rltc1") && receive["index"] as? Int == 0)
        // Address types: Taproot and the others are Bitcoin accounts; a Litecoin wallet says so.
        let taproot = try hawala("onchain", "receive", "--chain", "litecoin", "--type", "taproot")
        #expect(taproot.status == 1 && taproot.errorLines.count == 1 && taproot.stderr.contains("no Taproot account on Litecoin"), "\(taproot.stderr)")
        #expect(try hawala("onchain", "receive", "--chain", "litecoin", "--type", "segwit").status == 2)
        #expect(try hawala("onchain", "receive", "--chain", "litecoin", "--type", "native-segwit").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == address)
        let funding = try await node.pay(address, 80_000_000)
        try await node.mine(1)
        let sync = try hawala("onchain", "sync")
        #expect(sync.status == 0 && sync.stdout.split(separator: "\n").count == 1 && sync.stdout.contains("80,000,000 litoshi"))

        let balance = try json(try hawala("onchain", "balance", "--chain", "litecoin", "--json")) as! [String: Any]
        #expect(balance["chain"] as? String == "litecoin" && balance["confirmedSats"] as? Int == 80_000_000)
        #expect(balance["unconfirmedSats"] as? Int == 0 && balance["utxos"] as? Int == 1)
        #expect((try json(try hawala("onchain", "balance", "--json")) as? [[String: Any]])?.count == 1)

        // Send: a preview on stderr, then {txid, feeSats, vsize}.
        let payee = try await node.newAddress()
        let send = try hawala("onchain", "send", "--chain", "litecoin", "--to", payee, "--amount", "30000000", "--fee-rate", "2",
                              "--yes", "--password-file", passwordFile, "--json")
        let sent = try json(send) as! [String: Any]
        #expect(send.stderr.contains("Fee:") && send.stderr.contains("Change:") && send.stderr.contains("30,000,000 litoshi"))
        let txid = try #require(sent["txid"] as? String)
        let fee = try #require(sent["feeSats"] as? Int)
        #expect(try #require(sent["vsize"] as? Int) * 2 <= fee)

        // Bump: the replacement's {txid, feeSats}; the original is gone from the node.
        let bumped = try json(try hawala("onchain", "bump", txid, "--fee-rate", "9", "--yes", "--password-file", passwordFile, "--json")) as! [String: Any]
        let replacement = try #require(bumped["txid"] as? String)
        #expect(try #require(bumped["feeSats"] as? Int) > fee)
        let pool = try await node.mempool()
        #expect(pool.contains(replacement) && !pool.contains(txid))
        try await node.mine(1)
        #expect(try hawala("onchain", "sync", "--chain", "litecoin").status == 0)
        let history = try json(try hawala("onchain", "history", "--chain", "litecoin", "--json")) as! [[String: Any]]
        #expect(history.map { $0["txid"] as? String } == [replacement, funding])
        #expect(history[0]["amountSats"] as? Int == -(30_000_000 + (bumped["feeSats"] as! Int)) && history[0]["confirmations"] as? Int == 1)
        #expect(history.allSatisfy { Set(($0 as NSDictionary).allKeys as! [String]) == ["txid", "amountSats", "feeSats", "confirmations", "label"] })

        // Labels: set, exported as BIP-329, shown in the history.
        #expect(try hawala("onchain", "label", "--chain", "litecoin", replacement, "rent").status == 0)
        #expect((try json(try hawala("onchain", "history", "--chain", "litecoin", "--json")) as! [[String: Any]])[0]["label"] as? String == "rent")
        let exported = try hawala("onchain", "labels", "export", "-")
        #expect(exported.stdout == "{\"type\":\"tx\",\"ref\":\"\(replacement)\",\"label\":\"rent\"}\n")

        // A PSBT round trip through files.
        let psbt = files.appendingPathComponent("pay.psbt").path
        #expect(try hawala("onchain", "psbt", "create", "--chain", "litecoin", "--to", payee, "--amount", "1000000", "--fee-rate", "3", "--out", psbt).status == 0)
        #expect(try hawala("onchain", "psbt", "create", "--chain", "litecoin", "--to", payee, "--amount", "1000000", "--fee-rate", "3", "--out", psbt).status == 1)
        #expect(try hawala("onchain", "psbt", "broadcast", psbt).status == 1)
        #expect(try hawala("onchain", "psbt", "sign", psbt, "--password-file", passwordFile).status == 0)
        let broadcast = try json(try hawala("onchain", "psbt", "broadcast", psbt, "--json")) as! [String: Any]
        #expect(try await node.mempool().contains(try #require(broadcast["txid"] as? String)))

        // A watch-only wallet from what export-watch-only prints: it syncs, sees the same coins and
        // creates the PSBT; the wallet with the words signs it; the node accepts it.
        try await node.mine(1)
        #expect(try hawala("onchain", "sync").status == 0)
        let exports = try json(try hawala("wallet", "export-watch-only", "--wallet", "t", "--chain", "bitcoin-testnet", "--json")) as! [[String: Any]]
        let descriptor = try #require(exports.first?["multipathDescriptor"] as? String)
        let bareKey = try #require(exports.first?["accountKey"] as? String)
        for (name, option, text) in [("watch", "--descriptor", descriptor), ("bare", "--key", bareKey)] {
            if name == "bare" {
                // The same key again is the same wallet: refused, then made again from the bare key.
                let again = try hawala("wallet", "import-watch-only", "--name", "again", "--chain", "litecoin", option, text, "--password-file", passwordFile)
                #expect(again.status == 1 && again.stderr.contains("already exists as \"watch\""), "\(again.stderr)")
                #expect(try hawala("wallet", "delete", "watch", "--yes", "--password-file", passwordFile).status == 0)
            }
            let imported = try json(try hawala("wallet", "import-watch-only", "--name", name, "--chain", "litecoin", option, text,
                                               "--password-file", passwordFile, "--json")) as! [String: Any]
            #expect(imported["network"] as? String == "testnet" && imported["path"] as? String == "m/84'/1'/0'")
            #expect(imported["fingerprint"] as? String == (name == "watch" ? "73c5da0a" : "00000000"))
            #expect(try hawala("onchain", "node", "--wallet", name, "--chain", "litecoin", "--url", node.url, "--cookie-file", node.cookie).status == 0)
            #expect(try hawala("onchain", "sync", "--wallet", name).status == 0)
            #expect(try hawala("onchain", "sync", "--wallet", "t").status == 0)
            let seen = try json(try hawala("onchain", "balance", "--wallet", name, "--chain", "litecoin", "--json")) as! [String: Any]
            let held = try json(try hawala("onchain", "balance", "--wallet", "t", "--chain", "litecoin", "--json")) as! [String: Any]
            #expect(seen["confirmedSats"] as? Int == held["confirmedSats"] as? Int && seen["utxos"] as? Int == held["utxos"] as? Int)
            // It holds no keys: a send is refused in words, nothing sent.
            let refused = try hawala("onchain", "send", "--wallet", name, "--chain", "litecoin", "--to", payee, "--amount", "10000", "--fee-rate", "2",
                                     "--yes", "--password-file", passwordFile)
            #expect(refused.status == 1 && refused.stderr.contains("is watch-only"), "\(refused.stderr)")
            let watched = files.appendingPathComponent("\(name).psbt").path
            #expect(try hawala("onchain", "psbt", "create", "--wallet", name, "--chain", "litecoin", "--to", payee, "--amount", "2000000",
                               "--fee-rate", "3", "--out", watched).status == 0)
            let decoded = try await node.rpc.call("decodepsbt", [try String(contentsOfFile: watched).trimmingCharacters(in: .whitespacesAndNewlines)]) as! [String: Any]
            #expect((decoded["fee"] as? Double ?? 0) > 0, "the node reads the file: \(decoded.keys)")
            let signed = try hawala("onchain", "psbt", "sign", watched, "--wallet", "t", "--chain", "litecoin", "--password-file", passwordFile)
            #expect(signed.status == 0 && signed.stdout.contains("ready to broadcast"), "\(signed.stderr)")
            let final = try await node.rpc.call("finalizepsbt", [try String(contentsOfFile: watched).trimmingCharacters(in: .whitespacesAndNewlines)]) as! [String: Any]
            let accepted = try await node.rpc.call("testmempoolaccept", [[try #require(final["hex"] as? String)]]) as! [[String: Any]]
            #expect(accepted.first?["allowed"] as? Bool == true, "\(accepted)")
            let sent = try json(try hawala("onchain", "psbt", "broadcast", watched, "--wallet", name, "--chain", "litecoin", "--json")) as! [String: Any]
            #expect(try await node.mempool().contains(try #require(sent["txid"] as? String)))
            try await node.mine(1)
            #expect(try hawala("onchain", "sync").status == 0)
        }
        // What is no watch-only key: one line, exit 1, no wallet added.
        let privateKey = "tprv8ZgxMBicQKsPd9TeAdPADNnSyH9SSUUbTVeFszDE23Ki6TBB5nCefAdHkK8Fm3qMQR6sHwA56zqRmKmxnHk37JkiFzvncDqoKmPWubu7hDF"
        for (option, text) in [("--descriptor", String(descriptor.dropLast()) + "x"), ("--key", privateKey), ("--descriptor", "tr(" + bareKey + ")"),
                               ("--key", String(repeating: "x", count: 5000))] {
            let refused = try hawala("wallet", "import-watch-only", "--name", "nope", "--chain", "litecoin", option, text, "--password-file", passwordFile)
            #expect(refused.status == 1 && refused.errorLines.count == 1 && !refused.stderr.contains(privateKey) && refused.stderr.utf8.count < 400, "\(refused.stderr)")
        }
        #expect(!(try hawala("wallet", "list").stdout.contains("nope")))

        // Wrong input: one line, exit 1, nothing sent.
        for bad in ["tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "hello", String(repeating: "q", count: 5000)] {
            let refused = try hawala("onchain", "send", "--chain", "litecoin", "--to", bad, "--amount", "10000", "--fee-rate", "2", "--yes",
                                     "--password-file", passwordFile)
            #expect(refused.status == 1 && refused.errorLines.count == 1 && refused.stderr.utf8.count < 400, "\(refused.stderr)")
        }
        #expect(try hawala("onchain", "send", "--chain", "litecoin", "--to", payee, "--amount", "10000", "--fee-rate", "0", "--yes").status == 1)
        #expect(try hawala("onchain", "send", "--chain", "litecoin", "--to", payee, "--yes").status == 2)
        #expect(try hawala("onchain", "send", "--chain", "litecoin", "--to", payee, "--amount", "900000000", "--fee-rate", "2", "--yes",
                           "--password-file", passwordFile).stderr.contains("not enough coins"))
    }
}
