import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import Testing
@testable import HawalaLightning

struct Vectors: Decodable {
    struct Hop: Decodable { let nodeID, shortChannelID: String; let feeBaseMsat, feeProportionalMillionths, cltvExpiryDelta: Int }
    struct Valid: Decodable {
        let invoice: String
        let privateKey: String?
        let network: String
        let amountMsat: UInt64?
        let timestamp: UInt64
        let paymentHash: String
        let paymentSecret, description, descriptionHash, firstFallback, metadata: String?
        let payee: String
        let expiry, minFinalCltvExpiry: UInt64
        let routeHints: [[Hop]]
        let features: [Int]
    }
    struct Invalid: Decodable { let invoice, error: String }
    let specPrivateKey: String
    let valid: [Valid]
    let invalid: [Invalid]
    let cross: [Valid]

    static func load() throws -> Vectors {
        let url = try #require(Bundle.module.url(forResource: "bolt11", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }
}

func hex(_ b: [UInt8]) -> String { hexString(b) }

@Suite("BOLT11")
struct Bolt11Tests {
    func check(_ v: Vectors.Valid, _ invoice: Bolt11Invoice, sourceLocation: SourceLocation = #_sourceLocation) {
        let name = String(v.invoice.prefix(24))
        #expect(invoice.network.rawValue == v.network, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.amountMsat?.value == v.amountMsat, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.timestamp == v.timestamp, "\(name)", sourceLocation: sourceLocation)
        #expect(hex(invoice.paymentHash) == v.paymentHash, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.paymentSecret.map(hex) == v.paymentSecret, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.description == v.description, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.descriptionHash.map(hex) == v.descriptionHash, "\(name)", sourceLocation: sourceLocation)
        #expect(hex(invoice.payee) == v.payee, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.expiry == v.expiry, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.minFinalCltvExpiry == v.minFinalCltvExpiry, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.fallbacks.first?.address == v.firstFallback, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.metadata.map(hex) == v.metadata, "\(name)", sourceLocation: sourceLocation)
        #expect(invoice.features == v.features, "\(name)", sourceLocation: sourceLocation)
        let hops = invoice.routeHints.map { $0.map { [hex($0.nodeID), $0.shortChannelIDText, "\($0.feeBaseMsat)", "\($0.feeProportionalMillionths)", "\($0.cltvExpiryDelta)"] } }
        let expected = v.routeHints.map { $0.map { [$0.nodeID, $0.shortChannelID, "\($0.feeBaseMsat)", "\($0.feeProportionalMillionths)", "\($0.cltvExpiryDelta)"] } }
        #expect(hops == expected, "\(name)", sourceLocation: sourceLocation)
    }

    /// Every valid example of BOLT #11 decodes to its fields, and re-signing its fields with the
    /// spec's private key reproduces the example exactly.
    @Test func specValidVectors() throws {
        let vectors = try Vectors.load()
        #expect(vectors.valid.count == 15)  // the examples of the current spec (lightning/bolts, 2025)
        let key = SecretBytes(bytes(fromHex: vectors.specPrivateKey)!)
        for v in vectors.valid {
            let invoice = try Bolt11Invoice(v.invoice)
            check(v, invoice)
            #expect(try invoice.reencoded(privateKey: key) == v.invoice.lowercased(), "\(v.invoice.prefix(30))")
        }
    }

    /// The spec's facts, independent of any other implementation.
    @Test func specFacts() throws {
        let pico = try Bolt11Invoice(try Vectors.load().valid[10].invoice)
        #expect(pico.amountMsat == 967_878_534 && pico.expiry == 604_800 && pico.minFinalCltvExpiry == 10)
        #expect(pico.routeHints == [[RouteHintHop(nodeID: bytes(fromHex: "03d06758583bb5154774a6eb221b1276c9e82d65bbaceca806d90e20c108f4b1c7")!,
                                                  shortChannelID: 589_390 << 40 | 3312 << 16 | 1, feeBaseMsat: 1000,
                                                  feeProportionalMillionths: 2500, cltvExpiryDelta: 40)]])
        let rusty = try Bolt11Invoice(try Vectors.load().valid[5].invoice)
        #expect(rusty.fallbacks.map(\.address) == ["1RustyRX2oai4EYYDpQGWvEL62BBGqN9T"] && rusty.routeHints[0].count == 2)
        #expect(rusty.routeHints[0][1].shortChannelID == 0x0304_0506_0708_090A && rusty.routeHints[0][1].cltvExpiryDelta == 4)
        let features = try Bolt11Invoice(try Vectors.load().valid[11].invoice)
        #expect(features.features == [8, 14, 99] && features.paymentSecret == [UInt8](repeating: 0x11, count: 32))
        let metadata = try Bolt11Invoice(try Vectors.load().valid[14].invoice)
        #expect(metadata.metadata == [0x01, 0xFA, 0xFA, 0xF0] && metadata.features == [8, 14, 48])
        let twoFallbacks = try Bolt11Invoice(try Vectors.load().valid[9].invoice)
        #expect(twoFallbacks.fallbacks.map(\.address) == ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3"])
        #expect(try Vectors.load().valid.allSatisfy { try Bolt11Invoice($0.invoice).payee == bytes(fromHex: "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad")! || $0.timestamp == 1_572_468_703 })
    }

    /// Each invalid example fails with its own error.
    @Test func specInvalidVectors() throws {
        let vectors = try Vectors.load()
        #expect(vectors.invalid.count == 11)
        let expected: [String: Bolt11Error] = [
            "unknownRequiredFeature": .unknownRequiredFeature(100), "badChecksum": .bech32(.badChecksum),
            "missingSeparator": .bech32(.missingSeparator), "mixedCase": .bech32(.mixedCase),
            "invalidSignature": .invalidSignature, "tooShort": .tooShort,
            "invalidMultiplier": .invalidMultiplier("x"), "subMillisatoshiAmount": .subMillisatoshiAmount,
            "missingPaymentSecret": .missingPaymentSecret, "invalidFallback": .invalidFallback("a SegWit v0 program of 41 bytes"),
            "invalidRouteHintKey": .malformedField("a route hint's node id is not a valid public key"),
        ]
        for v in vectors.invalid {
            let error = try #require(expected[v.error])
            #expect(throws: error, "\(v.error)") { try Bolt11Invoice(v.invoice) }
        }
    }

    /// Invoices made and signed by PyPI bolt11 (random keys, every field kind): same fields, and
    /// our encoder reproduces each string from its fields and key (RFC 6979 signatures).
    @Test func crossImplementation() throws {
        let vectors = try Vectors.load()
        #expect(vectors.cross.count >= 60)
        for v in vectors.cross {
            let invoice = try Bolt11Invoice(v.invoice)
            check(v, invoice)
            let key = SecretBytes(bytes(fromHex: try #require(v.privateKey))!)
            #expect(try invoice.reencoded(privateKey: key) == v.invoice)
            // Built from typed values rather than the raw fields: the same string again when
            // the field order matches PyPI's (p, s, d/h, x, c, f, r, 9, m).
            let built = try Bolt11Invoice.encode(
                network: invoice.network, amountMsat: invoice.amountMsat, timestamp: invoice.timestamp,
                fields: Bolt11Invoice.fields(paymentHash: invoice.paymentHash, paymentSecret: invoice.paymentSecret,
                                             description: invoice.description, descriptionHash: invoice.descriptionHash,
                                             expiry: invoice.fields.contains { $0.type == 6 } ? invoice.expiry : nil,
                                             minFinalCltvExpiry: invoice.minFinalCltvExpiry, fallbacks: invoice.fallbacks,
                                             routeHints: invoice.routeHints, features: invoice.features, metadata: invoice.metadata),
                privateKey: key)
            #expect(try Bolt11Invoice(built).paymentHash == invoice.paymentHash)
            #expect(try Bolt11Invoice(built).payee == invoice.payee)
        }
    }

    /// Amounts: every multiplier, the shortest encoding, and the refusals.
    @Test func amounts() throws {
        let cases: [(String, UInt64?)] = [("lnbc", nil), ("lnbc1", 100_000_000_000), ("lnbc20m", 2_000_000_000), ("lnbc2500u", 250_000_000),
                                          ("lnbc10n", 1000), ("lnbc10p", 1), ("lntbs5u", 500_000), ("lnbcrt1m", 100_000_000),
                                          ("lnbc20999999976900u", 2_099_999_997_690_000_000)]
        for (hrp, msat) in cases {
            #expect(try Bolt11Invoice.parseHRP(hrp).1?.value == msat, "\(hrp)")
            if let msat { #expect("lnbc" + Bolt11Invoice.amountText(try Msat(msat)) == "lnbc" + hrp.drop { !$0.isNumber }) }
        }
        let refused: [(String, Bolt11Error)] = [("lnbc0", .invalidAmount("leading zero or zero amount")), ("lnbc01m", .invalidAmount("leading zero or zero amount")),
                                                ("lnbc1p", .subMillisatoshiAmount), ("lnbc21000001", .invalidAmount(AmountError.aboveSupply.description)),
                                                ("lnbc21000000", .invalidAmount(AmountError.aboveSupply.description)),
                                                ("lnbc20999999976900001n", .invalidAmount(AmountError.aboveSupply.description)),
                                                ("lnbc99999999999999999999", .invalidAmount("too large")), ("lnxx1m", .unknownNetwork("xx")),
                                                ("bc1m", .notAnInvoice), ("lnbc1x", .invalidMultiplier("x")), ("lnbcm", .unknownNetwork("bcm"))]
        for (hrp, error) in refused { #expect(throws: error, "\(hrp)") { try Bolt11Invoice.parseHRP(hrp) } }
    }

    /// A signature with high S is refused when checked against an `n` field; a changed field
    /// breaks the signature; hostile lengths are bounded.
    @Test func tamperingAndHostileInput() throws {
        let key = SecretBytes([UInt8](repeating: 0x11, count: 32))
        let nodeID = try Secp256k1.PublicKey(privateKey: key).compressed
        var fields = Bolt11Invoice.fields(paymentHash: [UInt8](repeating: 1, count: 32), paymentSecret: [UInt8](repeating: 2, count: 32), description: "tea")
        fields.append(.init(type: 19, data: Bolt11Invoice.values(nodeID)))
        let good = try Bolt11Invoice.encode(network: .bitcoin, amountMsat: 1000, timestamp: 1_700_000_000, fields: fields, privateKey: key)
        #expect(try Bolt11Invoice(good).payee == nodeID)
        #expect(try Bolt11Invoice("lightning:" + good.uppercased()).payee == nodeID)
        // Another key claiming the same `n`.
        let other = try Bolt11Invoice.encode(network: .bitcoin, amountMsat: 1000, timestamp: 1_700_000_000, fields: fields,
                                             privateKey: SecretBytes([UInt8](repeating: 0x22, count: 32)))
        #expect(throws: Bolt11Error.invalidSignature) { try Bolt11Invoice(other) }
        // High-S: s' = n - s, same r, flipped recovery id.
        let decoded = try Bech32.decode(good, limit: 2000)
        var values = decoded.values
        var sig = Bolt11Invoice.bytes(Array(values.suffix(104)), count: 65)
        var borrow = 0
        for i in (0..<32).reversed() {
            let d = Int(Secp256k1.order[i]) - Int(sig[32 + i]) - borrow
            sig[32 + i] = UInt8((d + 256) % 256)
            borrow = d < 0 ? 1 : 0
        }
        sig[64] ^= 1
        values.replaceSubrange((values.count - 104)..., with: Bolt11Invoice.values(sig))
        let highS = Bech32.encode(hrp: decoded.hrp, values: values, variant: .bech32)
        #expect(throws: Bolt11Error.invalidSignature) { try Bolt11Invoice(highS) }
        // Hostile sizes and garbage.
        #expect(throws: Bolt11Error.tooLong(limit: Bolt11Invoice.maximumLength)) { try Bolt11Invoice("lnbc1" + String(repeating: "q", count: 10_000)) }
        for garbage in ["", "ln", "lnbc1", "lnbc1qqqqqqqqqqqq", "\u{0}\u{1}", "lnbc1ééé", String(repeating: "1", count: 500)] {
            #expect(throws: Bolt11Error.self, "\(garbage)") { try Bolt11Invoice(garbage) }
        }
    }
}
