import Foundation
import HawalaCrypto
import HawalaText

/// The chains a BOLT11 prefix names (`lnbc`, `lntb`, `lntbs`, `lnbcrt`, `lnsb`).
public enum LightningNetwork: String, Sendable, CaseIterable, Codable {
    case bitcoin = "bc"
    case testnet = "tb"
    case signet = "tbs"
    case regtest = "bcrt"
    case simnet = "sb"

    /// Base58 version bytes (P2PKH, P2SH) and the SegWit prefix of fallback addresses.
    var fallbackEncoding: (p2pkh: UInt8, p2sh: UInt8, segwit: String) {
        switch self {
        case .bitcoin: (0x00, 0x05, "bc")
        case .testnet, .signet: (0x6F, 0xC4, "tb")
        case .regtest: (0x6F, 0xC4, "bcrt")
        case .simnet: (0x3F, 0x7B, "sb")
        }
    }
}

/// One entry of a route hint (`r` field): a private channel into the payee.
public struct RouteHintHop: Sendable, Equatable, Codable {
    public let nodeID: [UInt8]          // 33-byte compressed public key
    public let shortChannelID: UInt64
    public let feeBaseMsat: UInt32
    public let feeProportionalMillionths: UInt32
    public let cltvExpiryDelta: UInt16

    public init(nodeID: [UInt8], shortChannelID: UInt64, feeBaseMsat: UInt32, feeProportionalMillionths: UInt32, cltvExpiryDelta: UInt16) {
        self.nodeID = nodeID
        self.shortChannelID = shortChannelID
        self.feeBaseMsat = feeBaseMsat
        self.feeProportionalMillionths = feeProportionalMillionths
        self.cltvExpiryDelta = cltvExpiryDelta
    }

    /// `block x transaction x output`, as people write short channel ids.
    public var shortChannelIDText: String {
        "\(shortChannelID >> 40)x\(shortChannelID >> 16 & 0xFF_FFFF)x\(shortChannelID & 0xFFFF)"
    }
}

/// An on-chain fallback address (`f` field).
public struct FallbackAddress: Sendable, Equatable {
    /// 0–16: witness version; 17: P2PKH; 18: P2SH.
    public let version: UInt8
    public let program: [UInt8]
    public let address: String
}

/// A decoded (and signature-checked) BOLT11 invoice, or one built to be signed.
public struct Bolt11Invoice: Sendable {
    /// One tagged field as it appears in the invoice: its 5-bit type and 5-bit data.
    public struct Field: Sendable, Equatable {
        public let type: UInt8
        public let data: [UInt8]
        public init(type: UInt8, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    /// The invoice as text, lowercase, without a `lightning:` prefix.
    public let text: String
    public let network: LightningNetwork
    /// nil for an amountless invoice.
    public let amountMsat: Msat?
    public let timestamp: UInt64
    /// Every tagged field in order, including the ignored ones, so the invoice re-encodes exactly.
    public let fields: [Field]

    public let paymentHash: [UInt8]
    public let paymentSecret: [UInt8]?
    public let description: String?
    public let descriptionHash: [UInt8]?
    /// The payee's node id: the `n` field, or recovered from the signature.
    public let payee: [UInt8]
    public let expiry: UInt64
    public let minFinalCltvExpiry: UInt64
    public let fallbacks: [FallbackAddress]
    /// One route per `r` field.
    public let routeHints: [[RouteHintHop]]
    /// The set feature bits.
    public let features: [Int]
    public let metadata: [UInt8]?

    public static let defaultExpiry: UInt64 = 3600
    public static let defaultMinFinalCltvExpiry: UInt64 = 18
    /// Feature bits Hawala understands (BOLT 9): var_onion_optin, payment_secret, basic_mpp,
    /// option_route_blinding, option_payment_metadata — each compulsory (even) or optional (odd).
    public static let knownFeatures: Set<Int> = [8, 9, 14, 15, 16, 17, 24, 25, 48, 49]
    /// No real invoice comes near this; longer input is refused before any work.
    public static let maximumLength = 7089

    /// When the invoice stops being payable.
    public var expiresAt: Date { Date(timeIntervalSince1970: Double(timestamp) + Double(expiry)) }
    public func isExpired(at now: Date = Date()) -> Bool { now >= expiresAt }

    // MARK: Decoding

    /// Decodes `invoice` (a `lightning:` prefix is accepted) and checks its signature: against
    /// the `n` field when present (low-S required), else by recovering the payee's key.
    /// - Throws: `Bolt11Error`.
    public init(_ invoice: String) throws(Bolt11Error) {
        // ASCII trimming on the UTF-8 view: Foundation's trimming bridges through NSString and
        // cost a quarter of the decoding time.
        var utf8 = Substring(invoice).utf8
        while let first = utf8.first, first == 0x20 || (0x09...0x0D).contains(first) { utf8 = utf8.dropFirst() }
        while let last = utf8.last, last == 0x20 || (0x09...0x0D).contains(last) { utf8 = utf8.dropLast() }
        var text = String(Substring(utf8))
        if text.utf8.count > 10, text.utf8.prefix(10).map({ $0 | 0x20 }) == Array("lightning:".utf8) { text = String(text.dropFirst(10)) }
        guard text.utf8.count <= Bolt11Invoice.maximumLength else { throw .tooLong(limit: Bolt11Invoice.maximumLength) }
        let hrp: String, values: [UInt8]
        do {
            let decoded = try Bech32.decode(text, limit: Bolt11Invoice.maximumLength)
            guard decoded.variant == .bech32 else { throw Bech32.Error.wrongVariant }
            (hrp, values) = (decoded.hrp, decoded.values)
        } catch let error as Bech32.Error {
            throw .bech32(error)
        } catch {
            throw .bech32(.badChecksum)
        }
        let (network, amount) = try Bolt11Invoice.parseHRP(hrp)
        // 35-bit timestamp, then fields, then 104 values of signature (520 bits).
        guard values.count >= 7 + 104 else { throw .tooShort }
        let signatureValues = values[(values.count - 104)...]
        let body = Array(values[..<(values.count - 104)])
        let timestamp = body[0..<7].reduce(UInt64(0)) { $0 << 5 | UInt64($1) }

        var fields: [Field] = []
        var i = 7
        while i < body.count {
            guard i + 3 <= body.count else { throw .malformedField("a field header is cut short") }
            let length = Int(body[i + 1]) << 5 | Int(body[i + 2])
            guard i + 3 + length <= body.count else { throw .malformedField("a field runs past the signature") }
            fields.append(Field(type: body[i], data: Array(body[(i + 3)..<(i + 3 + length)])))
            i += 3 + length
        }

        let signatureBytes = Bolt11Invoice.bytes(Array(signatureValues), count: 65)
        let digest = Bolt11Invoice.signingDigest(hrp: hrp, body: body)
        let signature = Secp256k1.RecoverableSignature(compact: Array(signatureBytes[0..<64]), recoveryID: Int(signatureBytes[64]))
        let parsed = try Bolt11Invoice.interpret(fields, network: network)

        let payee: [UInt8]
        if let n = parsed.payee {
            guard let key = try? Secp256k1.PublicKey(sec1: n),
                  Secp256k1.verify(compact: signature.compact, digest: digest, publicKey: key) else { throw .invalidSignature }
            payee = n
        } else {
            guard let key = Secp256k1.recover(signature, digest: digest) else { throw .invalidSignature }
            payee = key.compressed
        }
        self.init(text: text.lowercased(), network: network, amountMsat: amount, timestamp: timestamp, fields: fields, parsed: parsed, payee: payee)
    }

    private init(text: String, network: LightningNetwork, amountMsat: Msat?, timestamp: UInt64, fields: [Field], parsed: Interpreted, payee: [UInt8]) {
        self.text = text
        self.network = network
        self.amountMsat = amountMsat
        self.timestamp = timestamp
        self.fields = fields
        paymentHash = parsed.paymentHash
        paymentSecret = parsed.paymentSecret
        description = parsed.description
        descriptionHash = parsed.descriptionHash
        self.payee = payee
        expiry = parsed.expiry ?? Bolt11Invoice.defaultExpiry
        minFinalCltvExpiry = parsed.minFinalCltvExpiry ?? Bolt11Invoice.defaultMinFinalCltvExpiry
        fallbacks = parsed.fallbacks
        routeHints = parsed.routeHints
        features = parsed.features
        metadata = parsed.metadata
    }

    /// `ln` + network + optional amount with multiplier.
    static func parseHRP(_ hrp: String) throws(Bolt11Error) -> (LightningNetwork, Msat?) {
        guard hrp.hasPrefix("ln") else { throw .notAnInvoice }
        let rest = hrp.dropFirst(2)
        let prefix = rest.prefix { !$0.isNumber }
        var amountText = rest.dropFirst(prefix.count)
        guard let network = LightningNetwork(rawValue: String(prefix)) else { throw .unknownNetwork(String(prefix)) }
        guard !amountText.isEmpty else { return (network, nil) }
        var divisor: UInt64 = 1  // the amount is value / divisor bitcoin
        let multiplier = amountText.last!
        if !multiplier.isNumber {
            amountText = amountText.dropLast()
            switch multiplier {
            case "m": divisor = 1_000
            case "u": divisor = 1_000_000
            case "n": divisor = 1_000_000_000
            case "p": divisor = 1_000_000_000_000
            default: throw .invalidMultiplier(multiplier)
            }
        }
        guard !amountText.isEmpty, amountText.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .invalidAmount("\"\(rest.dropFirst(prefix.count))\"") }
        guard amountText.first != "0" else { throw .invalidAmount("leading zero or zero amount") }
        guard amountText.count <= 19, let value = UInt64(amountText) else { throw .invalidAmount("too large") }
        // msat = value · 10^11 / divisor (1 BTC = 10^11 msat), exactly.
        let msatPerUnit: (numerator: UInt64, denominator: UInt64) = divisor <= 100_000_000_000 ? (100_000_000_000 / divisor, 1) : (1, divisor / 100_000_000_000)
        guard value % msatPerUnit.denominator == 0 else { throw .subMillisatoshiAmount }
        let (msat, overflow) = (value / msatPerUnit.denominator).multipliedReportingOverflow(by: msatPerUnit.numerator)
        guard !overflow, let amount = try? Msat(msat) else { throw .invalidAmount(AmountError.aboveSupply.description) }
        return (network, amount)
    }

    /// SHA-256 of the human-readable part's bytes and the data before the signature, padded to bytes.
    static func signingDigest(hrp: String, body: [UInt8]) -> [UInt8] {
        var message = Array(hrp.utf8)
        message += (try? Bech32.convertBits(body, from: 5, to: 8, pad: true)) ?? []
        return Hash.sha256(message)
    }

    /// The first `count` bytes of 5-bit `values` (trailing padding bits dropped).
    static func bytes(_ values: [UInt8], count: Int) -> [UInt8] {
        Array(((try? Bech32.convertBits(values, from: 5, to: 8, pad: true)) ?? []).prefix(count))
    }

    static func uint(_ values: [UInt8]) throws(Bolt11Error) -> UInt64 {
        guard values.count <= 12 else { throw .malformedField("a number field is longer than 60 bits") }
        return values.reduce(UInt64(0)) { $0 << 5 | UInt64($1) }
    }

    struct Interpreted {
        var paymentHash: [UInt8] = []
        var paymentSecret: [UInt8]?
        var description: String?
        var descriptionHash: [UInt8]?
        var payee: [UInt8]?
        var expiry: UInt64?
        var minFinalCltvExpiry: UInt64?
        var fallbacks: [FallbackAddress] = []
        var routeHints: [[RouteHintHop]] = []
        var features: [Int] = []
        var metadata: [UInt8]?
    }

    /// The meaning of the fields, by BOLT11's reader rules: the first of each kind counts;
    /// `p`, `h`, `s` and `n` of the wrong length and `f` of an unknown version are skipped;
    /// `p` and `s` are required, and exactly one of `d` and `h`.
    static func interpret(_ fields: [Field], network: LightningNetwork) throws(Bolt11Error) -> Interpreted {
        var r = Interpreted()
        var seenHash = false
        for field in fields {
            let d = field.data
            switch field.type {
            case 1 where d.count == 52 && !seenHash:  // p
                r.paymentHash = bytes(d, count: 32)
                seenHash = true
            case 16 where d.count == 52 && r.paymentSecret == nil:  // s
                r.paymentSecret = bytes(d, count: 32)
            case 13 where r.description == nil:  // d
                guard let text = String(validating: bytes(d, count: d.count * 5 / 8), as: UTF8.self) else { throw .invalidDescription }
                r.description = text
            case 23 where d.count == 52 && r.descriptionHash == nil:  // h
                r.descriptionHash = bytes(d, count: 32)
            case 19 where d.count == 53 && r.payee == nil:  // n
                r.payee = bytes(d, count: 33)
            case 6 where r.expiry == nil:  // x
                r.expiry = try uint(d)
            case 24 where r.minFinalCltvExpiry == nil:  // c
                r.minFinalCltvExpiry = try uint(d)
            case 9:  // f
                if let fallback = try fallback(d, network: network) { r.fallbacks.append(fallback) }
            case 3:  // r
                r.routeHints.append(try routeHint(d))
            case 5 where r.features.isEmpty:  // 9
                r.features = featureBits(d)
                if let unknown = r.features.first(where: { $0 % 2 == 0 && !knownFeatures.contains($0) }) {
                    throw .unknownRequiredFeature(unknown)
                }
            case 27 where r.metadata == nil:  // m
                r.metadata = bytes(d, count: d.count * 5 / 8)
            default:
                continue  // unknown, repeated or of the wrong length: skipped
            }
        }
        guard seenHash else { throw .missingPaymentHash }
        guard r.paymentSecret != nil else { throw .missingPaymentSecret }
        guard r.description != nil || r.descriptionHash != nil else { throw .missingDescription }
        guard r.description == nil || r.descriptionHash == nil else { throw .descriptionAndHash }
        return r
    }

    /// A fallback address; nil for an unknown version (19–31, skipped). A known version whose
    /// program breaks its rules fails the invoice: v0 takes 20 or 32 bytes (BIP141), v1 32
    /// (BIP341), v2–16 2 to 40, P2PKH and P2SH 20.
    static func fallback(_ d: [UInt8], network: LightningNetwork) throws(Bolt11Error) -> FallbackAddress? {
        guard let version = d.first else { throw .invalidFallback("an empty f field") }
        let program = bytes(Array(d.dropFirst()), count: (d.count - 1) * 5 / 8)
        let encoding = network.fallbackEncoding
        let address: String
        switch version {
        case 17, 18:
            guard program.count == 20 else { throw .invalidFallback("a \(version == 17 ? "P2PKH" : "P2SH") hash of \(program.count) bytes") }
            address = Base58.encodeCheck([version == 17 ? encoding.p2pkh : encoding.p2sh] + program)
        case 0...16:
            let valid = switch version {
            case 0: [20, 32].contains(program.count)
            case 1: program.count == 32
            default: (2...40).contains(program.count)
            }
            guard valid else { throw .invalidFallback("a SegWit v\(version) program of \(program.count) bytes") }
            address = Bech32.segwitAddress(hrp: encoding.segwit, version: Int(version), program: program)
        default: return nil  // versions 19–31: unknown, skipped
        }
        return FallbackAddress(version: version, program: program, address: address)
    }

    static func routeHint(_ d: [UInt8]) throws(Bolt11Error) -> [RouteHintHop] {
        let raw = bytes(d, count: d.count * 5 / 8)
        guard !raw.isEmpty, raw.count % 51 == 0 else { throw .malformedField("a route hint is not a whole number of 51-byte hops") }
        return try stride(from: 0, to: raw.count, by: 51).map { o throws(Bolt11Error) in
            func be(_ range: Range<Int>) -> UInt64 { raw[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let nodeID = Array(raw[o..<(o + 33)])
            // A hop through a node id that is not a public key can't be routed: refused, as the
            // Breez SDK's parser refuses it (found by the cross-check in HawalaSparkTests).
            guard nodeID[0] == 2 || nodeID[0] == 3, (try? Secp256k1.PublicKey(sec1: nodeID)) != nil else {
                throw .malformedField("a route hint's node id is not a valid public key")
            }
            return RouteHintHop(nodeID: nodeID, shortChannelID: be((o + 33)..<(o + 41)),
                                feeBaseMsat: UInt32(be((o + 41)..<(o + 45))), feeProportionalMillionths: UInt32(be((o + 45)..<(o + 49))),
                                cltvExpiryDelta: UInt16(be((o + 49)..<(o + 51))))
        }
    }

    /// Set bit numbers; bit 0 is the last bit of the last value.
    static func featureBits(_ d: [UInt8]) -> [Int] {
        var bits: [Int] = []
        for (i, value) in d.reversed().enumerated() {
            for b in 0..<5 where value >> b & 1 == 1 { bits.append(i * 5 + b) }
        }
        return bits.sorted()
    }

    // MARK: Encoding

    /// Builds an invoice's fields in the usual order (p, s, d or h, x, c, f, r, 9, m) for
    /// `sign(with:)`. Expiry and CLTV are written only when they differ from the defaults.
    public static func fields(paymentHash: [UInt8], paymentSecret: [UInt8]?, description: String?, descriptionHash: [UInt8]? = nil,
                              expiry: UInt64? = nil, minFinalCltvExpiry: UInt64? = nil, fallbacks: [FallbackAddress] = [],
                              routeHints: [[RouteHintHop]] = [], features: [Int] = [], metadata: [UInt8]? = nil) -> [Field] {
        var out: [Field] = [Field(type: 1, data: values(paymentHash))]
        if let paymentSecret { out.append(Field(type: 16, data: values(paymentSecret))) }
        if let description { out.append(Field(type: 13, data: values(Array(description.utf8)))) }
        if let descriptionHash { out.append(Field(type: 23, data: values(descriptionHash))) }
        if let expiry, expiry != defaultExpiry { out.append(Field(type: 6, data: uintValues(expiry))) }
        if let minFinalCltvExpiry { out.append(Field(type: 24, data: uintValues(minFinalCltvExpiry))) }
        for f in fallbacks { out.append(Field(type: 9, data: [f.version] + values(f.program))) }
        for route in routeHints {
            var raw: [UInt8] = []
            for hop in route {
                raw += hop.nodeID
                raw += (0..<8).reversed().map { UInt8(truncatingIfNeeded: hop.shortChannelID >> (8 * $0)) }
                raw += (0..<4).reversed().map { UInt8(truncatingIfNeeded: hop.feeBaseMsat >> (8 * $0)) }
                raw += (0..<4).reversed().map { UInt8(truncatingIfNeeded: hop.feeProportionalMillionths >> (8 * $0)) }
                raw += (0..<2).reversed().map { UInt8(truncatingIfNeeded: hop.cltvExpiryDelta >> (8 * $0)) }
            }
            out.append(Field(type: 3, data: values(raw)))
        }
        if let top = features.max() {
            var bits = [UInt8](repeating: 0, count: top / 5 + 1)
            for f in features { bits[bits.count - 1 - f / 5] |= 1 << (f % 5) }
            out.append(Field(type: 5, data: bits))
        }
        if let metadata { out.append(Field(type: 27, data: values(metadata))) }
        return out
    }

    /// Encodes and signs an invoice (RFC 6979 nonces through libsecp256k1, so the same inputs
    /// give the same string). The human-readable amount uses the shortest form.
    public static func encode(network: LightningNetwork, amountMsat: Msat?, timestamp: UInt64, fields: [Field],
                              privateKey: SecretBytes) throws -> String {
        let hrp = "ln" + network.rawValue + (amountMsat.map(amountText) ?? "")
        var body = (0..<7).reversed().map { UInt8(truncatingIfNeeded: timestamp >> (5 * UInt64($0))) & 31 }
        for field in fields {
            precondition(field.data.count < 1024, "a BOLT11 field holds at most 1023 values")
            body += [field.type, UInt8(field.data.count >> 5), UInt8(field.data.count & 31)] + field.data
        }
        let signature = try Secp256k1.signRecoverable(digest: signingDigest(hrp: hrp, body: body), privateKey: privateKey)
        body += values(signature.compact + [UInt8(signature.recoveryID)])
        return Bech32.encode(hrp: hrp, values: body, variant: .bech32)
    }

    /// The same invoice signed again by `privateKey` (for the spec vectors and tests).
    public func reencoded(privateKey: SecretBytes) throws -> String {
        try Bolt11Invoice.encode(network: network, amountMsat: amountMsat, timestamp: timestamp, fields: fields, privateKey: privateKey)
    }

    static func amountText(_ amount: Msat) -> String {
        let msat = amount.value
        for (unit, suffix) in [(UInt64(100_000_000_000), ""), (100_000_000, "m"), (100_000, "u"), (100, "n")] where msat % unit == 0 {
            return "\(msat / unit)\(suffix)"
        }
        return "\(msat)0p"  // tenths of a millisatoshi: the digits and a zero (times 10 could overflow)
    }

    static func values(_ bytes: [UInt8]) -> [UInt8] {
        (try? Bech32.convertBits(bytes, from: 8, to: 5, pad: true)) ?? []
    }

    static func uintValues(_ value: UInt64) -> [UInt8] {
        guard value > 0 else { return [] }
        var out: [UInt8] = []
        var v = value
        while v > 0 {
            out.insert(UInt8(v & 31), at: 0)
            v >>= 5
        }
        return out
    }
}
