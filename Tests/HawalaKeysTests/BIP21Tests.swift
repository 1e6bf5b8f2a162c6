import Testing
@testable import HawalaKeys

@Suite("BIP21 payment requests")
struct BIP21Tests {
    /// BIP21's own example, rebuilt.
    @Test func theBIPExample() throws {
        #expect(try BIP21.uri(chain: .bitcoinLegacy, address: "175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W", amountSats: 5_000_000_000,
                              label: "Luke-Jr", message: "Donation for project xyz")
                == "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz")
        #expect(try BIP21.uri(chain: .bitcoin, address: "bc1qx") == "bitcoin:bc1qx")
        #expect(try BIP21.uri(chain: .litecoin, address: "ltc1qx", amountSats: 1) == "litecoin:ltc1qx?amount=0.00000001")
        #expect(throws: BIP21.Error.notBitcoinFamily("ethereum")) { try BIP21.uri(chain: .ethereum, address: "0x0") }
        #expect(throws: BIP21.Error.self) { try BIP21.uri(chain: .bitcoin, address: "bc1qx", amountSats: 0) }
        // Labels are percent-encoded, so nothing in them can add a parameter.
        #expect(try BIP21.uri(chain: .bitcoin, address: "bc1qx", label: "a&amount=1 ü") == "bitcoin:bc1qx?label=a%26amount%3D1%20%C3%BC")
    }

    @Test func amountsAreExact() throws {
        for (sats, text) in [(1 as UInt64, "0.00000001"), (150_000, "0.0015"), (100_000_000, "1"), (2_100_000_000_000_000, "21000000"), (123_456_789, "1.23456789")] {
            #expect(BIP21.decimal(sats) == text)
            #expect(try BIP21.satoshis(text) == sats)
        }
        #expect(try BIP21.satoshis("1.") == 100_000_000 && BIP21.satoshis(".5") == 50_000_000)
        for bad in ["", ".", "-1", "1e3", "0.123456789", "21000000.00000001", "1,5", " 1", "١"] {
            #expect(throws: BIP21.Error.self, "\(bad)") { try BIP21.satoshis(bad) }
        }
    }
}
