import BreezSdkSpark
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import Testing

/// A second parser to check Hawala's: the SDK's `parse` and `Bolt11Invoice` must agree on every
/// invoice of the BOLT11 vectors (the spec's and PyPI bolt11's, mainnet and testnet) and on
/// regtest invoices Hawala signs, and on BIP21 URIs. Offline: the SDK parses these without a
/// network (Lightning addresses and LNURLs need one, so they are not compared here).
@Suite("Spark SDK parser agrees with Hawala's", .serialized)
struct SparkParseTests {
    struct Vector: Decodable { let invoice: String }
    struct Vectors: Decodable { let valid: [Vector]; let cross: [Vector] }

    static func vectorInvoices() throws -> [String] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../HawalaLightningTests/Vectors/bolt11.json").standardizedFileURL
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        return (vectors.valid + vectors.cross).map(\.invoice)
    }

    /// Regtest invoices signed by Hawala's encoder: with and without amount, description or hash.
    static func regtestInvoices() throws -> [String] {
        let key = SecretBytes((1...32).map { UInt8($0) })
        var out: [String] = []
        for (amount, description, hash) in [(Msat(1_000), "coffee", false), (nil, "", false), (21_000_000, "ünïcödé ☕", false), (5_000, nil as String?, true)] {
            let fields = Bolt11Invoice.fields(paymentHash: Hash.sha256(Array("\(amount?.value ?? 0)".utf8)), paymentSecret: Array(repeating: 7, count: 32),
                                              description: hash ? nil : description, descriptionHash: hash ? Hash.sha256(Array("metadata".utf8)) : nil,
                                              expiry: 600, features: [8, 14])
            out.append(try Bolt11Invoice.encode(network: .regtest, amountMsat: amount, timestamp: 1_760_000_000, fields: fields, privateKey: key))
        }
        return out
    }

    static func networkName(_ n: BitcoinNetwork) -> LightningNetwork? {
        switch n {
        case .bitcoin: .bitcoin
        case .testnet3, .testnet4: .testnet
        case .signet: .signet
        case .regtest: .regtest
        }
    }

    /// Differences between the SDK's reading of an invoice and Hawala's, as lines.
    static func differences(_ text: String, sdk d: Bolt11InvoiceDetails) throws -> [String] {
        let ours = try Bolt11Invoice(text)
        var out: [String] = []
        func check<T: Equatable>(_ what: String, _ theirs: T, _ mine: T) { if theirs != mine { out.append("\(what): SDK \(theirs), Hawala \(mine)") } }
        check("amountMsat", d.amountMsat, ours.amountMsat?.value)
        check("paymentHash", d.paymentHash, hexString(ours.paymentHash))
        check("payee", d.payeePubkey, hexString(ours.payee))
        // Both keep the text; the SDK turns control characters into U+FFFD when parsing, Hawala
        // when showing it (DisplayText).
        check("description", d.description.flatMap { $0.isEmpty ? nil : $0 }, ours.description.flatMap { $0.isEmpty ? nil : DisplayText.safe($0) })
        check("descriptionHash", d.descriptionHash, ours.descriptionHash.map(hexString))
        check("expiry", d.expiry, ours.expiry)
        check("timestamp", d.timestamp, ours.timestamp)
        check("network", networkName(d.network), ours.network)
        return out
    }

    @Test func everyInvoiceReadsTheSame() async throws {
        let sdk = try await BreezSdkSpark.connect(request: ConnectRequest(
            config: defaultConfig(network: .regtest), seed: .entropy(Data(repeating: 3, count: 64)),
            storageDir: FileManager.default.temporaryDirectory.appendingPathComponent("hawala-spark-parse-\(UUID())").path))
        defer { Task { try? await sdk.disconnect() } }
        let invoices = try Self.vectorInvoices() + Self.regtestInvoices()
        #expect(invoices.count >= 79)
        var report: [String] = []
        var compared = 0
        for text in invoices {
            let parsed: InputType
            do { parsed = try await sdk.parse(input: text) } catch {
                report.append("\(text.prefix(24))…: the SDK refused it (\(error)) and Hawala reads it")
                continue
            }
            guard case .bolt11Invoice(let details) = parsed else {
                report.append("\(text.prefix(24))…: the SDK reads it as \(parsed)")
                continue
            }
            for line in try Self.differences(text, sdk: details) { report.append("\(text.prefix(24))…: \(line)") }
            compared += 1
        }
        #expect(report.isEmpty, Comment(rawValue: "\(report.count) differences:\n" + report.joined(separator: "\n")))
        #expect(compared == invoices.count)

        // BIP21: the address, amount, label, message and the lightning= invoice.
        let invoice = try Self.vectorInvoices()[0]  // the spec's amountless mainnet invoice
        let uri = "bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=0.00001&label=Shop&message=Order%2042&lightning=\(invoice)"
        guard case .bitcoinURI(let ours) = try PaymentInput.parse(uri) else { Issue.record("Hawala does not read the URI"); return }
        guard case .bip21(let theirs) = try await sdk.parse(input: uri) else { Issue.record("the SDK does not read the URI as BIP21"); return }
        #expect(theirs.amountSat == ours.amountSats?.value)
        #expect(theirs.label == ours.label)
        #expect(theirs.message == ours.message)
        let sdkInvoice = theirs.paymentMethods.compactMap { method -> String? in
            if case .bolt11Invoice(let d) = method { return d.paymentHash }
            return nil
        }
        #expect(sdkInvoice == [ours.lightning.map { hexString($0.paymentHash) } ?? "none"])

        // Bitcoin addresses of every network and kind (P2PKH, P2SH, P2WPKH, P2TR), bare and in a
        // BIP21 URI: the SDK and Hawala agree on the address, its network and the amount.
        let regtestTaproot = Bech32.segwitAddress(hrp: "bcrt", version: 1, program: [UInt8](repeating: 0x79, count: 32))
        let addresses: [(String, Set<LightningNetwork>)] = [
            ("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", [.bitcoin]), ("3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", [.bitcoin]),
            ("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", [.bitcoin]),
            ("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", [.bitcoin]),
            ("mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", [.testnet, .signet, .regtest]), ("2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc", [.testnet, .signet, .regtest]), ("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", [.testnet, .signet]),
            ("tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", [.testnet, .signet]),
            ("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", [.regtest]), (regtestTaproot, [.regtest]),
        ]
        // Base58 test addresses are the same on testnet, signet and regtest: the SDK names one
        // of them, which must be among Hawala's.
        func sdkNetwork(_ network: BitcoinNetwork) -> LightningNetwork {
            switch network {
            case .bitcoin: .bitcoin
            case .testnet3, .testnet4: .testnet
            case .signet: .signet
            case .regtest: .regtest
            }
        }
        for (address, networks) in addresses {
            let hawala = Set([LightningNetwork.bitcoin, .testnet, .signet, .regtest].filter { (try? $0.checkBitcoinAddress(address)) != nil })
            #expect(hawala == networks, "Hawala: \(address)")
            #expect(try PaymentInput.parse(address).onChainTarget?.address == address)
            guard case .bitcoinAddress(let theirs) = try await sdk.parse(input: address) else { Issue.record("the SDK does not read \(address)"); continue }
            #expect(theirs.address == address && networks.contains(sdkNetwork(theirs.network)), "SDK: \(address) \(theirs.network)")
            let uri = "bitcoin:\(address)?amount=0.0005&label=Rent"
            let ourURI = try #require(try PaymentInput.parse(uri).onChainTarget)
            guard case .bip21(let theirURI) = try await sdk.parse(input: uri) else { Issue.record("the SDK does not read \(uri) as BIP21"); continue }
            #expect(ourURI.amountSats == 50_000 && theirURI.amountSat == ourURI.amountSats?.value, "\(uri)")
            let sdkAddress = theirURI.paymentMethods.compactMap { method -> String? in
                if case .bitcoinAddress(let d) = method { return d.address }
                return nil
            }
            #expect(sdkAddress == [ourURI.address], "\(uri)")
        }

        // LNURL-auth links (read without a network: the tag is in the URL): the same domain,
        // challenge and action, as bech32 LNURLs and as keyauth:// (LUD-17).
        let k1 = String(repeating: "ab", count: 32)
        for (url, action) in [("https://auth.example.com/login?tag=login&k1=\(k1)&action=register", "register"),
                              ("https://Site.COM/a/b?tag=login&k1=\(k1)", nil as String?),
                              ("https://x.y.z.com/?tag=login&k1=\(k1)&action=link", "link")] {
            for text in [Bech32.encode(hrp: "lnurl", bytes: Array(url.utf8)), "keyauth://" + url.dropFirst("https://".count)] {
                guard case .lnurl(let parsedURL) = try PaymentInput.parse(text) else { Issue.record("Hawala does not read \(text)"); continue }
                let hawala = try LNURLAuthRequest(parsedURL)
                guard case .lnurlAuth(let theirs) = try await sdk.parse(input: text) else { Issue.record("the SDK does not read \(url) as a login"); continue }
                #expect(theirs.domain == hawala.domain, "\(url)")
                #expect(theirs.k1 == hexString(hawala.k1), "\(url)")
                #expect(theirs.action == action && hawala.action?.rawValue == action, "\(url)")
            }
        }
    }
}
