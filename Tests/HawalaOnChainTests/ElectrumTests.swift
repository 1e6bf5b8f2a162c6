import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The on-chain wallet through an Electrum server — ElectrumX in front of a regtest Litecoin Core
/// — over TLS (its certificate pinned at first use) and TCP: what arrives is seen as the node
/// shows it, a payment is sent through the server, a reorg is followed; and the same wallet read
/// from the node directly agrees.
@Suite struct ElectrumTests {
    @Test func throughAnElectrumServerAsThroughTheNode() async throws {
        let node = try await RegtestNode(extraArguments: ["-txindex=1"])  // ElectrumX needs the index
        defer { node.stop() }
        try await node.mine(101)
        let server = try await ElectrumServer(node: node)
        defer { server.stop() }
        let direct = try await RegtestWallet(node: node)

        // Saved over TLS: the certificate seen is the one pinned.
        let (store, keyring) = try newStore()
        let summary = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: nil, network: .testnet, keyring: keyring)
        let saved = try await OnChainWallet.connect(wallet: summary, coin: .litecoin, source: try ElectrumClient(address: server.tls), node: {
            NodeSettings(kind: .electrum, location: server.tls, auth: .none, chain: $0, gapLimit: NodeSettings.defaultGapLimit)
        }, store: store)
        guard case .pinnedCertificate(let fingerprint) = saved.auth else { Issue.record("no certificate pinned: \(saved.auth)"); return }
        #expect(fingerprint == (try Self.fingerprint(ofPEM: server.directory.appendingPathComponent("cert.pem"))))
        #expect(saved.kind == .electrum && saved.chain == "regtest" && saved.location == server.tls)
        let wallet = try OnChainWallet.open(summary, coin: .litecoin, store: store)

        let (address, _) = try wallet.nextReceiveAddress()
        let script = try OutputScript.of(address: address, on: wallet.account.network).bytes
        let funding = try await node.pay(address, 150_000_000)
        try await server.sees(funding, at: script)
        _ = try await wallet.sync()
        #expect(try wallet.ledger().unconfirmed == Sats(150_000_000))
        try await node.mine(1)
        try await server.caughtUp(with: node)
        _ = try await wallet.sync()
        var ledger = try wallet.ledger()
        #expect(ledger.confirmed == Sats(150_000_000) && ledger.payments.first?.confirmations == 1)
        #expect(try wallet.nextReceiveAddress().index == 1)

        // Sent through the server: the node has it, with the fee the plan showed.
        let payee = try await node.newAddress()
        let plan = try wallet.plan(to: payee, amount: .exact(Sats(40_000_000)), feeRate: try FeeRate(2))
        let txid = try await wallet.broadcast(try wallet.sign(plan, keys: try store.secret(of: summary, keyring: keyring).keys))
        #expect(try await node.mempool().contains(txid.description))
        let entry = try #require(try await ElectrumClient(address: server.tcp).mempoolEntry(txid))
        #expect(entry.fee == plan.fee)
        try await node.mine(1)
        try await server.caughtUp(with: node)
        _ = try await wallet.sync()
        ledger = try wallet.ledger()
        #expect(ledger.confirmed.value == 150_000_000 - 40_000_000 - plan.fee.value && ledger.payments.count == 2)

        // The node read directly agrees, payment for payment.
        _ = try await direct.onChain.sync()
        let fromNode = try direct.onChain.ledger()
        #expect(fromNode.confirmed == ledger.confirmed && Set(fromNode.payments.map(\.txid)) == Set(ledger.payments.map(\.txid)))
        #expect(fromNode.payments.map(\.confirmations).sorted() == ledger.payments.map(\.confirmations).sorted())

        // A reorg: the last block is replaced by two empty ones; the payment in it is unconfirmed
        // again (back in the mempool), then confirmed in the next block.
        let tip = try await node.rpc.call("getbestblockhash") as! String
        _ = try await node.rpc.call("invalidateblock", [tip])
        let miner = try await node.newAddress()
        for _ in 0..<2 { _ = try await node.rpc.call("generateblock", [miner, [] as [String]]) }
        try await server.caughtUp(with: node)
        try await server.sees(txid.description, at: script)
        _ = try await wallet.sync()
        ledger = try wallet.ledger()
        #expect(ledger.payments.first { $0.txid == txid }?.confirmations == 0, "\(ledger.payments)")
        #expect(ledger.confirmed == .zero && ledger.unconfirmed.value == 150_000_000 - 40_000_000 - plan.fee.value)
        try await node.mine(1)
        try await server.caughtUp(with: node)
        _ = try await wallet.sync()
        #expect(try wallet.ledger().payments.allSatisfy { $0.confirmations >= 1 })

        // Plain TCP reads the same.
        let (other, otherKeyring) = try newStore()
        let restored = try other.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: nil, network: .testnet, keyring: otherKeyring)
        let overTCP = try await OnChainWallet.connect(wallet: restored, coin: .litecoin, source: try ElectrumClient(address: server.tcp), node: {
            NodeSettings(kind: .electrum, location: server.tcp, auth: .none, chain: $0, gapLimit: NodeSettings.defaultGapLimit)
        }, store: other)
        #expect(overTCP.auth == NodeAuth.none)
        let plain = try OnChainWallet.open(restored, coin: .litecoin, store: other)
        _ = try await plain.sync()
        #expect(try plain.ledger().confirmed == (try wallet.ledger().confirmed) && (try plain.ledger().confirmed.value) == 150_000_000 - 40_000_000 - plan.fee.value)
    }

    /// What an Electrum server can't do: change its certificate, answer past the cap; TLS to a
    /// plain port is said so; addresses that don't read are refused (drips, hangs, garbage and
    /// another network: `HostileNodeTests`).
    @Test func aServerIsBoundedAndItsCertificateHeld() async throws {
        let node = try await RegtestNode(extraArguments: ["-txindex=1"])  // ElectrumX needs the index
        defer { node.stop() }
        let server = try await ElectrumServer(node: node)
        defer { server.stop() }

        let swapped = try ElectrumClient(address: server.tls, pinnedCertificate: String(repeating: "ab", count: 32))
        await #expect(throws: OnChainError.self) { _ = try await swapped.tip() }
        do { _ = try await swapped.tip() } catch { #expect("\(error)".contains("certificate is not the one saved"), "\(error)") }

        let tlsOnPlain = try ElectrumClient(address: "127.0.0.1:\(server.tcpPort):s", timeout: .seconds(5))
        do { _ = try await tlsOnPlain.tip(); Issue.record("TLS to a plain port answered") } catch { #expect("\(error)".contains("TLS"), "\(error)") }

        let small = try ElectrumClient(address: server.tcp, maximumBytes: 100)
        do { _ = try await small.tip(); Issue.record("an answer past the cap was read") } catch { #expect("\(error)".contains("larger than"), "\(error)") }

        for bad in ["electrum.example.org", "host:0:s", "host:50002:x", "ho st:50002", ":50002", "host:70000"] {
            #expect(throws: OnChainError.self, "\(bad)") { _ = try ElectrumClient(address: bad) }
        }
        #expect(try ElectrumClient(address: "electrum.example.org:50002").location == "electrum.example.org:50002:s")
    }

    /// `hawala onchain node --electrum`: saved with its certificate named, synced, a balance;
    /// credentials files refused beside it; a server that isn't there named in one line.
    @Test func theCommandLineSavesAnElectrumServer() async throws {
        let node = try await RegtestNode(extraArguments: ["-txindex=1"])
        defer { node.stop() }
        try await node.mine(101)
        let server = try await ElectrumServer(node: node)
        defer { server.stop() }
        let home = temporaryFolder("hawala-electrum-cli")
        let files = temporaryFolder("hawala-electrum-files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let passwordFile = files.appendingPathComponent("password").path
        try Data("correct horse battery\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        try Data((abandonAbout + "\n").utf8).write(to: files.appendingPathComponent("words"))
        func hawala(_ arguments: String...) throws -> CLIResult {
            try CLI.run(arguments, environment: ["HAWALA_HOME": home.path, "NO_COLOR": "1"], timeout: 60)
        }
        #expect(try hawala("wallet", "restore", "--name", "t", "--network", "testnet", "--mnemonic-file", files.appendingPathComponent("words").path,
                           "--password-file", passwordFile, "--yes").status == 0)
        #expect(try hawala("onchain", "node", "--chain", "litecoin", "--electrum", server.tls, "--cookie-file", node.cookie).status == 2)
        let nowhere = try hawala("onchain", "node", "--chain", "litecoin", "--electrum", "127.0.0.1:1:t")
        #expect(nowhere.status == 1 && nowhere.errorLines.count == 1 && nowhere.stderr.contains("127.0.0.1:1:t"), "\(nowhere.stderr)")
        let saved = try hawala("onchain", "node", "--chain", "litecoin", "--electrum", server.tls)
        let fingerprint = try Self.fingerprint(ofPEM: server.directory.appendingPathComponent("cert.pem"))
        #expect(saved.status == 0 && saved.stdout.contains(fingerprint), "\(saved.stdout) \(saved.stderr)")
        let address = try hawala("onchain", "receive", "--chain", "litecoin").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(address.hasPrefix("rltc1q"))
        _ = try await node.pay(address, 5_000_000)
        try await node.mine(1)
        try await server.caughtUp(with: node)
        #expect(try hawala("onchain", "sync").status == 0)
        let balance = try hawala("onchain", "balance", "--chain", "litecoin", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(balance.stdout.utf8)) as? [String: Any]
        #expect(object?["confirmedSats"] as? Int == 5_000_000, "\(balance.stdout) \(balance.stderr)")

        // A paper wallet's key swept in through the server (its coin still in the mempool).
        let paper = try await node.rpc.call("getnewaddress", ["", "bech32"]) as! String
        let keyFile = files.appendingPathComponent("paper-key").path
        try Data(((try await node.rpc.call("dumpprivkey", [paper]) as! String) + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let funding = try await node.pay(paper, 3_000_000)
        try await server.sees(funding, at: try OutputScript.of(address: paper, on: OnChainNetwork(coin: .litecoin, kind: .regtest)).bytes)
        #expect(try hawala("onchain", "sweep", "--chain", "litecoin", "--key-file", keyFile).status == 2)  // no terminal, no --yes
        let missing = try hawala("onchain", "sweep", "--chain", "litecoin", "--key-file", files.appendingPathComponent("nowhere").path, "--yes")
        #expect(missing.status == 1 && missing.errorLines.count == 1, "\(missing.stderr)")
        let swept = try hawala("onchain", "sweep", "--chain", "litecoin", "--key-file", keyFile, "--fee-rate", "2", "--yes", "--json")
        let result = try JSONSerialization.jsonObject(with: Data(swept.stdout.utf8)) as? [String: Any]
        #expect(swept.status == 0 && (result?["amountSats"] as? Int ?? 0) + (result?["feeSats"] as? Int ?? 0) == 3_000_000 && result?["coins"] as? Int == 1,
                "\(swept.stdout) \(swept.stderr)")
        #expect(try await node.mempool().contains(result?["txid"] as? String ?? "-"))
        #expect(!swept.stderr.contains(try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The SHA-256 of a PEM certificate's DER bytes, as `openssl x509 -outform der | sha256sum` gives it.
    static func fingerprint(ofPEM url: URL) throws -> String {
        let pem = try String(contentsOf: url, encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return hexString(Hash.sha256(try #require(Data(base64Encoded: body)).map { $0 }))
    }
}
