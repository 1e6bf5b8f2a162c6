import Foundation
import HawalaKeys
import HawalaCrypto
import Testing
import HawalaTestSupport


/// A failure must be one clear line on stderr: no crash, no stack trace.
func expectCleanFailure(_ r: CLIResult, status: Int32 = 1, contains text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(r.status == status, "exit \(r.status), stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stdout.isEmpty, "stdout: \(r.stdout)", sourceLocation: sourceLocation)
    if status == 1 { #expect(r.errorLines.count == 1, "stderr: \(r.stderr)", sourceLocation: sourceLocation) }
    #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"), sourceLocation: sourceLocation)
    if let text { #expect(r.stderr.contains(text), "stderr: \(r.stderr)", sourceLocation: sourceLocation) }
}

@Suite("hawala mnemonic")
struct MnemonicCLITests {
    /// Issue 39: a command Hawala doesn't have is a usage error, with `--help` too (it printed
    /// the nearest command's help and exited 0); a real one's help still answers.
    @Test func unknownCommandsAreUsageErrors() throws {
        for (arguments, parent) in [(["frobnicate", "--help"], "hawala"), (["ln", "frobnicate", "--help"], "hawala ln"),
                                    (["help", "ln", "frob"], "hawala ln"), (["wallet", "creat"], "hawala wallet")] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2 && result.stdout.isEmpty && result.errorLines.count == 1
                    && result.stderr.contains("\(parent) has no command"), "\(arguments): \(result.status) \(result.stderr)")
        }
        for arguments in [["ln", "pay", "--help"], ["help", "ln", "pay"], ["--version"]] {
            #expect(try CLI.run(arguments).status == 0, "\(arguments)")
        }
        #expect(try CLI.run(["--version"]).stdout.contains("Breez Spark SDK"), "the version says whether Spark is built in")
    }

    @Test func generateValidatesBack() throws {
        let r = try CLI.run(["mnemonic", "generate"])
        #expect(r.status == 0)
        let line = r.stdout.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n") && line.split(separator: " ").count == 12)
        let v = try CLI.run(["mnemonic", "validate"], input: line + "\n")
        #expect(v.status == 0 && v.stdout == "valid (English, 12 words)\n")
        // Two runs differ.
        #expect(try CLI.run(["mnemonic", "generate"]).stdout != r.stdout)
    }

    @Test func generateJapanese24() throws {
        let r = try CLI.run(["mnemonic", "generate", "--words", "24", "--language", "japanese"])
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .newlines).components(separatedBy: "\u{3000}").count == 24)
        let v = try CLI.run(["mnemonic", "validate"], input: r.stdout)
        #expect(v.stdout == "valid (Japanese, 24 words)\n")
    }

    @Test func generateRefusesBadCounts() throws {
        expectCleanFailure(try CLI.run(["mnemonic", "generate", "--words", "13"]), status: 2, contains: "12, 15, 18, 21 or 24")
        expectCleanFailure(try CLI.run(["mnemonic", "generate", "--language", "klingon"]), status: 2)
    }

    @Test func validateNamesTheProblem() throws {
        let typo = abandonAbout.replacingOccurrences(of: "about", with: "abandn")
        let r = try CLI.run(["mnemonic", "validate"], input: typo)
        expectCleanFailure(r)
        #expect(r.stderr == "word 12 is not in the English word list; did you mean: abandon\n", "the typo is not echoed: it is nearly a secret word")
        expectCleanFailure(try CLI.run(["mnemonic", "validate"], input: "abandon abandon"), contains: "expected 12, 15, 18, 21 or 24 words, got 2")
        expectCleanFailure(try CLI.run(["mnemonic", "validate"], input: String(repeating: "abandon ", count: 12)), contains: "checksum")
        expectCleanFailure(try CLI.run(["mnemonic", "validate", "--language", "french"], input: abandonAbout))
    }

    @Test func hostileInput() throws {
        expectCleanFailure(try CLI.run(["mnemonic", "validate"], stdin: Data()), contains: "no mnemonic")
        expectCleanFailure(try CLI.run(["mnemonic", "validate"], stdin: Data([0xFF, 0xFE, 0x00, 0x80, 0x0A])), contains: "UTF-8")
        var random = [UInt8](repeating: 0, count: 3000)
        SystemRandom.fill(&random)
        random = random.map { $0 == 0x0A ? 0x20 : $0 }
        expectCleanFailure(try CLI.run(["mnemonic", "validate"], stdin: Data(random)))
        // Megabytes on one line: refused quickly, not read whole.
        let huge = Data(repeating: 0x61, count: 8 * 1024 * 1024)
        let start = Date()
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin"], stdin: huge), contains: "too long")
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func suggest() throws {
        #expect(try CLI.run(["mnemonic", "suggest", "aban"]).stdout == "abandon\n")
        #expect(try CLI.run(["mnemonic", "suggest", "zo"]).stdout == "zone\nzoo\n")
        expectCleanFailure(try CLI.run(["mnemonic", "suggest", "qqq"]))
    }
}

@Suite("hawala derive, xpub, address")
struct DeriveCLITests {
    @Test func deriveJSON() throws {
        let r = try CLI.run(["derive", "--chain", "bitcoin", "--count", "3", "--json"], input: abandonAbout + "\n")
        #expect(r.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: String]]
        #expect(rows.count == 3)
        #expect(rows[0]["address"] == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(rows[1]["path"] == "m/84'/0'/0'/0/1")
        #expect(rows[0]["publicKey"] == "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        #expect(rows[0]["chain"] == "bitcoin")
        // Keys in the documented order.
        let order = ["\"chain\"", "\"path\"", "\"address\"", "\"publicKey\""].map { r.stdout.range(of: $0)!.lowerBound }
        #expect(order == order.sorted())
    }

    @Test func deriveEveryChainMatchesTheLibrary() throws {
        let wallet = HDWallet(mnemonic: try Mnemonic(text: abandonAbout))
        for chain in Chain.all {
            let r = try CLI.run(["derive", "--chain", chain.name, "--account", "1", "--change", "1", "--from", "5", "--count", "2", "--json"], input: abandonAbout)
            #expect(r.status == 0, "\(chain.name): \(r.stderr)")
            let rows = try JSONDecoder().decode([DerivedAddress].self, from: Data(r.stdout.utf8))
            #expect(rows == (try wallet.addresses(chain: chain, account: 1, change: 1, from: 5, count: 2)))
        }
    }

    @Test func passphraseFileIsReadExactly() throws {
        let dir = temporaryFolder("hawala-cli")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("passphrase")
        try Data("  TREZOR ☃ \n".utf8).write(to: file)
        let r = try CLI.run(["derive", "--chain", "ethereum", "--passphrase-file", file.path, "--json"], input: abandonAbout)
        let rows = try JSONDecoder().decode([DerivedAddress].self, from: Data(r.stdout.utf8))
        let expected = try HDWallet(mnemonic: Mnemonic(text: abandonAbout), passphrase: SecretBytes(utf8: "  TREZOR ☃ ")).addresses(chain: .ethereum)
        #expect(rows == expected)
        let plain = try HDWallet(mnemonic: Mnemonic(text: abandonAbout)).addresses(chain: .ethereum)
        #expect(rows != plain)
        // The passphrase may follow the mnemonic on stdin.
        let viaStdin = try CLI.run(["derive", "--chain", "ethereum", "--passphrase-file", "-", "--json"], input: abandonAbout + "\n  TREZOR ☃ \n")
        #expect(try JSONDecoder().decode([DerivedAddress].self, from: Data(viaStdin.stdout.utf8)) == expected)
        expectCleanFailure(try CLI.run(["derive", "--chain", "ethereum", "--passphrase-file", dir.appendingPathComponent("missing").path], input: abandonAbout), contains: "cannot open")
    }

    @Test func deriveBadArguments() throws {
        expectCleanFailure(try CLI.run(["derive", "--chain", "dogecoin"], input: abandonAbout), status: 2)
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin", "--count", "0"], input: abandonAbout), status: 2)
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin", "--change", "2"], input: abandonAbout), status: 2)
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin", "--account", "2147483648"], input: abandonAbout), status: 2)
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin", "--from", "-1"], input: abandonAbout), status: 2)
        expectCleanFailure(try CLI.run(["derive", "--chain", "bitcoin"], input: ""), contains: "no mnemonic")
        expectCleanFailure(try CLI.run(["derive"], input: abandonAbout), status: 2)
    }

    @Test func xpub() throws {
        let r = try CLI.run(["xpub", "--chain", "bitcoin", "--json"], input: abandonAbout)
        #expect(r.status == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: String]
        #expect(obj["xpub"] == "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs")
        #expect(obj["descriptor"] == "wpkh([73c5da0a/84h/0h/0h]xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V/0/*)#afwvtk2s")
        #expect(obj["fingerprint"] == "73c5da0a" && obj["path"] == "m/84'/0'/0'" && obj["chain"] == "bitcoin")
        let plain = try CLI.run(["xpub", "--chain", "bitcoin-taproot"], input: abandonAbout)
        #expect(plain.stdout.hasPrefix("xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ\ntr([73c5da0a/86h/0h/0h]"))
        expectCleanFailure(try CLI.run(["xpub", "--chain", "ethereum"], input: abandonAbout), status: 2)
    }

    /// --json where a script reads the output, one shape per concept.
    @Test func jsonWhereScriptsReadIt() throws {
        let chains = try #require(try JSONSerialization.jsonObject(with: Data(CLI.run(["chains", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(chains.first?["name"] as? String == "bitcoin" && chains.first?["watchOnly"] as? Bool == true && chains.count == Chain.all.count)
        let f = try WalletFixture()
        let created = try f.run(["wallet", "create", "--name", "J", "--skip-backup", "--json", "--password-file", f.path("password")])
        let wallet = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any], "\(created.stdout)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(f.run(["wallet", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(wallet["name"] as? String == "J" && wallet["id"] as? String == listed[0]["id"] as? String && Set(wallet.keys) == Set(listed[0].keys))
    }

    /// A receive request: BIP21 URI whose QR (read back by zbarimg) is the same text; the same
    /// address until --new; a request another chain can't carry changes nothing.
    @Test func receiveWithRequestAndQR() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let r = try f.run(["wallet", "receive", "--amount", "0.0015", "--label", "Luke-Jr & co"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "bitcoin m/84'/0'/0'/0/0" && lines[1] == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(lines[2] == "bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.0015&label=Luke-Jr%20%26%20co")
        #expect(try decodeTerminalQR(Array(lines.dropFirst(3)), scratch: f.home) == lines[2])
        func receive(_ extra: [String]) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(f.run(["wallet", "receive", "--json"] + extra).stdout.utf8)) as? [String: Any])
        }
        #expect(try receive([])["index"] as? Int == 0)
        expectCleanFailure(try f.run(["wallet", "receive", "--new", "--chain", "ethereum", "--amount", "1"]), contains: "no BIP21 payment request")
        expectCleanFailure(try f.run(["wallet", "receive", "--new", "--amount", "0.123456789"]), contains: "more than 8 decimals")
        #expect(try receive([])["index"] as? Int == 0, "a refused request gives out no address")
        let next = try receive(["--new"])
        #expect(next["index"] as? Int == 1 && next["address"] as? String == "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g")
        #expect(try receive([])["address"] as? String == "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g")
        let eth = try receive(["--chain", "ethereum"])
        #expect(eth["address"] as? String == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" && eth["uri"] is NSNull)
    }

    /// From the stored wallet, without the words: the same keys as from the words, both branches.
    @Test func watchOnlyExportFromTheStore() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon().status == 0)
        let fromWords = try CLI.run(["xpub", "--chain", "bitcoin", "--json"], input: abandonAbout)
        let fromStore = try f.run(["xpub", "--chain", "bitcoin", "--wallet", "Abandon", "--json"])
        #expect(fromStore.status == 0 && fromStore.stdout == fromWords.stdout, "\(fromStore.stderr)")
        let r = try f.run(["wallet", "export-watch-only", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let accounts = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: String]])
        #expect(accounts.map { $0["chain"]! } == ["bitcoin", "bitcoin-taproot", "bitcoin-nested-segwit", "bitcoin-legacy", "litecoin"], "\(accounts)")
        let bitcoin = accounts[0]
        #expect(bitcoin["multipathDescriptor"]?.hasSuffix("/<0;1>/*)#qf45pmyh") == true && bitcoin["changeDescriptor"]?.hasSuffix("/1/*)#vatdkr6g") == true)
        let text = try f.run(["wallet", "export-watch-only", "--chain", "bitcoin"])
        #expect(text.stdout.contains("key:        zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"))
        #expect(!text.stdout.contains("abandon") && !r.stdout.contains("prv"))
        expectCleanFailure(try f.run(["wallet", "export-watch-only", "--chain", "solana"]), status: 2)
        expectCleanFailure(try f.run(["xpub", "--chain", "bitcoin", "--wallet", "Abandon", "--account", "1"]), status: 2)
    }

    @Test func addressValidate() throws {
        #expect(try CLI.run(["address", "validate", "--chain", "bitcoin", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"]).stdout == "valid\n")
        #expect(try CLI.run(["address", "validate", "--chain", "cardano", "addr1qy8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mq4afdhv"]).status == 0)
        expectCleanFailure(try CLI.run(["address", "validate", "--chain", "bitcoin", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv"]), contains: "checksum")
        expectCleanFailure(try CLI.run(["address", "validate", "--chain", "ethereum", "0x9858EfFD232B4033E47d90003D41EC34EcaEda95"]), contains: "checksum")
        expectCleanFailure(try CLI.run(["address", "validate", "--chain", "bitcoin"]), status: 2)
    }

    @Test func helpEverywhere() throws {
        for args in [[], ["mnemonic"], ["mnemonic", "generate"], ["mnemonic", "validate"], ["mnemonic", "suggest"], ["derive"], ["xpub"], ["address", "validate"], ["chains"]] {
            let r = try CLI.run(args + ["--help"])
            #expect(r.status == 0 && r.stdout.contains("USAGE"), "\(args)")
        }
    }
}
