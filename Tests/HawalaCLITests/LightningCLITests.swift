import Foundation
import HawalaTestSupport
import Testing

@Suite("hawala ln decode")
struct LightningCLITests {
    let rusty = "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqsfpp3qjmp7lwpagxun9pygexvgpjdc4jdj85fr9yq20q82gphp2nflc7jtzrcazrra7wwgzxqc8u7754cdlpfrmccae92qgzqvzq2ps8pqqqqqqpqqqqq9qqqvpeuqafqxu92d8lr6fvg0r5gv0heeeqgcrqlnm6jhphu9y00rrhy4grqszsvpcgpy9qqqqqqgqqqqq7qqzq9qrsgqdfjcdk6w3ak5pca9hwfwfh63zrrz06wwfya0ydlzpgzxkn5xagsqz7x9j4jwe7yj7vaf2k9lqsdk45kts2fd0fkr28am0u4w95tt2nsq76cqw0"

    /// The documented JSON keys, in order, with the spec example's values; no wallet needed.
    @Test func invoiceJSON() throws {
        let r = try CLI.run(["ln", "decode", rusty, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let keys = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.dropFirst(3).prefix { $0 != "\"" } }
        #expect(keys == ["network", "amountMsat", "paymentHash", "paymentSecret", "description", "descriptionHash", "payee", "timestamp",
                         "expiry", "createdAt", "expiresAt", "minFinalCltvExpiry", "fallbackAddresses", "routeHints", "features", "signatureValid"])
        #expect(object["network"] as? String == "bc" && object["amountMsat"] as? Int == 2_000_000_000)
        #expect(object["description"] is NSNull && object["descriptionHash"] as? String == "3925b6f67e2c340036ed12093dd44e0368df1b6ea26c53dbe4811f58fd5db8c1")
        #expect(object["payee"] as? String == "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad")
        #expect(object["timestamp"] as? Int == 1_496_314_658 && object["expiry"] as? Int == 3600 && object["minFinalCltvExpiry"] as? Int == 18)
        #expect(object["fallbackAddresses"] as? [String] == ["1RustyRX2oai4EYYDpQGWvEL62BBGqN9T"])
        let hops = try #require((object["routeHints"] as? [[[String: Any]]])?.first)
        #expect(hops.count == 2 && hops[1]["shortChannelId"] as? String == "197637x395016x2314" && hops[1]["feeProportionalMillionths"] as? Int == 30)
        #expect(object["signatureValid"] as? Bool == true)
        let human = try CLI.run(["ln", "decode", rusty])
        #expect(human.status == 0 && human.stdout.contains("amount:          2,000,000 sat") && human.stdout.contains("(expired)"))
    }

    /// Wrong input: one line, exit 1; missing argument: usage, exit 2.
    @Test func invalidInput() throws {
        expectCleanFailure(try CLI.run(["ln", "decode", String(rusty.dropLast()) + "q"]), contains: "checksum mismatch")
        expectCleanFailure(try CLI.run(["ln", "decode", "lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpujr6jxr9gq9pv6g46y7d20jfkegkg4gljz2ea2a3m9lmvvr95tq2s0kvu70u3axgelz3kyvtp2ywwt0y8hkx2869zq5dll9nelr83zzqqpgl2zg"]), contains: "invalid amount multiplier")
        expectCleanFailure(try CLI.run(["ln", "decode", "bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=1e-8"]), contains: "not a decimal number")
        expectCleanFailure(try CLI.run(["ln", "decode", "nonsense"]), contains: "not an invoice")
        expectCleanFailure(try CLI.run(["ln", "decode", String(repeating: "x", count: 100_000)]))
        #expect(try CLI.run(["ln", "decode"]).status == 2)
        let json = try CLI.run(["ln", "decode", "satoshi@bitcoin.org", "--json"])
        #expect(json.status == 0 && json.stdout.contains("\"url\": \"https://bitcoin.org/.well-known/lnurlp/satoshi\""))
    }

    /// Input echoed in an error never reaches the terminal raw: an escape sequence or a bell in
    /// a pasted address or LNURL comes out as U+FFFD. (Before, `ln decode` wrote them to stderr.)
    @Test func escapesInTheInputAreNotEchoed() throws {
        for input in ["user@\u{1B}[2J\u{1B}[31mred\u{07}", "lnurl1\u{1B}]0;title\u{07}", "bitcoin:\u{1B}[31m?amount=1", "\u{1B}[31mlnbc1\u{07}"] {
            let r = try CLI.run(["ln", "decode", input])
            #expect(r.status == 1, "\(input.debugDescription)")
            #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(r.stderr.debugDescription)")
        }
    }
}
