import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import Testing
@testable import HawalaLightning

@Suite("Payment inputs")
struct PaymentInputTests {
    let invoice = "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh"

    func uri(_ text: String) throws -> BitcoinURI {
        guard case .bitcoinURI(let u) = try PaymentInput.parse(text) else { throw PaymentInputError.unrecognized }
        return u
    }

    /// BIP21 amounts are exact decimal bitcoin, never floating point.
    @Test func bip21Amounts() throws {
        let a = "bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount="
        #expect(try uri(a + "0.00000001").amountSats == 1)
        #expect(try uri(a + "20999999.9769").amountSats == Sats.supply, "all the bitcoin there will ever be")
        #expect(try uri(a + "20.3").amountSats == 2_030_000_000)
        #expect(try uri(a + ".5").amountSats == 50_000_000)
        #expect(try uri(a + "1.").amountSats == 100_000_000)  // BIP21's grammar: *digit [ "." *digit ]
        #expect(try uri(a + "0.1").amountSats == 10_000_000)  // 0.1 is not exact in binary floating point
        for bad in ["1e-8", "0.000000001", "21000000.00000001", "21000000", "20999999.97690001", "-1", "1,5", " 1", "", "0x10", "1..2", "١"] {
            #expect(throws: PaymentInputError.self, "\(bad)") { try uri(a + bad) }
        }
    }

    /// Percent-decoding, unknown req- parameters, the lightning invoice and addressless URIs.
    @Test func bip21Parameters() throws {
        // BIP21's own example address has a bad checksum; a wallet must refuse it.
        #expect(throws: PaymentInputError.invalidBitcoinAddress("checksum mismatch")) { try uri("bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50") }
        let u = try uri("bitcoin:1RustyRX2oai4EYYDpQGWvEL62BBGqN9T?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz&somethingyoudontunderstand=50")
        #expect(u.address == "1RustyRX2oai4EYYDpQGWvEL62BBGqN9T" && u.amountSats == 5_000_000_000 && u.label == "Luke-Jr")
        #expect(u.message == "Donation for project xyz" && u.network == .mainnet)
        #expect(throws: PaymentInputError.invalidBitcoinURI("it requires req-somethingelse, which this wallet does not know")) {
            try uri("bitcoin:1RustyRX2oai4EYYDpQGWvEL62BBGqN9T?req-somethingelse=x")
        }
        let withInvoice = try uri("bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=0.0025&lightning=\(invoice)")
        #expect(withInvoice.lightning?.amountMsat == 250_000_000)
        let onlyInvoice = try uri("BITCOIN:?lightning=\(invoice.uppercased())")
        #expect(onlyInvoice.address.isEmpty && onlyInvoice.lightning != nil)
        #expect(throws: PaymentInputError.self) { try uri("bitcoin:?amount=1") }
        #expect(throws: PaymentInputError.self) { try uri("bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5") }
        #expect(throws: PaymentInputError.self) { try uri("bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?label=%ZZ") }
        #expect(throws: PaymentInputError.self) { try uri("bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=1&amount=2") }
        #expect(try uri("bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx").network == .testnet)
    }

    /// LUD-01's example, LUD-17 schemes, and the https-only rule (http for .onion).
    @Test func lnurl() throws {
        let lud01 = "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS"
        guard case .lnurl(let url) = try PaymentInput.parse("lightning:" + lud01) else { Issue.record("not an LNURL"); return }
        #expect(url.absoluteString == "https://service.com/api?q=3fc3645b439ce8e7f2553a69e5267081d96dcd340693afabe04be7b0ccd178df")
        guard case .lnurl(let p) = try PaymentInput.parse("lnurlp://service.com/api?q=1") else { Issue.record("not LUD-17"); return }
        #expect(p.absoluteString == "https://service.com/api?q=1")
        guard case .lnurl(let onion) = try PaymentInput.parse("lnurlp://abcdef.onion/pay") else { Issue.record("not LUD-17"); return }
        #expect(onion.absoluteString == "http://abcdef.onion/pay")
        let http = Bech32.encode(hrp: "lnurl", bytes: Array("http://service.com/api".utf8))
        #expect(throws: PaymentInputError.invalidLNURL("http:// is not allowed (https only, or http for .onion)")) { try PaymentInput.parse(http) }
        #expect(throws: PaymentInputError.self) { try PaymentInput.parse(String(lud01.dropLast()) + "T") }
    }

    /// LUD-16: the name's alphabet and a real domain.
    @Test func lightningAddresses() throws {
        guard case let .lightningAddress(user, domain, url) = try PaymentInput.parse("Alice.B-2_x@Example.COM") else { Issue.record("not an address"); return }
        #expect(user == "alice.b-2_x" && domain == "example.com" && url.absoluteString == "https://example.com/.well-known/lnurlp/alice.b-2_x")
        for bad in ["al ice@example.com", "alice@example", "alice@@example.com", "@example.com", "alice+1@example.com", "alice@-x.com", "alice@exa_mple.com", "ü@example.com"] {
            #expect(throws: PaymentInputError.self, "\(bad)") { try PaymentInput.parse(bad) }
        }
    }

    @Test func otherInputs() throws {
        guard case .bolt11 = try PaymentInput.parse("  lightning:" + invoice.uppercased() + "\n") else { Issue.record("not an invoice"); return }
        // Wrapped over lines (a chat, a PDF): taken whole, as wallets do.
        let wrapped = stride(from: 0, to: invoice.count, by: 60).map { String(invoice.dropFirst($0).prefix(60)) }.joined(separator: "\r\n ")
        guard case .bolt11(let whole) = try PaymentInput.parse(wrapped) else { Issue.record("a wrapped invoice is refused"); return }
        #expect(whole.text == invoice.lowercased())
        guard case .bitcoinAddress = try PaymentInput.parse("bc1qw508d6qejxtdg4y5r3\nzarvary0c5xw7kv8f3t4") else { Issue.record("a wrapped address is refused"); return }
        guard case .bitcoinAddress(_, .mainnet) = try PaymentInput.parse("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4") else { Issue.record("not an address"); return }
        #expect(throws: PaymentInputError.unrecognized) { try PaymentInput.parse("hello") }
        #expect(throws: PaymentInputError.empty) { try PaymentInput.parse(" \n\t ") }
        #expect(throws: PaymentInputError.tooLong) { try PaymentInput.parse(String(repeating: "lnbc1", count: 3_000)) }
        #expect(throws: PaymentInputError.tooLong) { try PaymentInput.parse("lnbc1" + String(repeating: " ", count: 30_000)) }
        #expect(throws: PaymentInputError.invoice(.bech32(.badChecksum))) { try PaymentInput.parse(String(invoice.dropLast()) + "q") }
    }
}

@Suite("Text from strangers, shown safely")
struct DisplayTextTests {
    /// An invoice description can hold terminal escapes (move the cursor, rewrite the amount
    /// line) or bidi overrides: shown, each becomes U+FFFD; everything else is kept.
    @Test func controlAndBidiCharactersAreReplaced() {
        #expect(DisplayText.safe("coffee ☕ ナンセンス") == "coffee ☕ ナンセンス")
        #expect(DisplayText.safe("tab\tand \"quotes\"") == "tab\u{FFFD}and \"quotes\"")
        #expect(DisplayText.safe("pay 1 sat\u{1B}[1A\u{1B}[2Kamount: 1 sat") == "pay 1 sat\u{FFFD}[1A\u{FFFD}[2Kamount: 1 sat")
        #expect(DisplayText.safe("abc\u{202E}fed") == "abc\u{FFFD}fed")
        #expect(DisplayText.safe("line\nbreak\u{7F}\u{9B}") == "line\u{FFFD}break\u{FFFD}\u{FFFD}")
    }
}
