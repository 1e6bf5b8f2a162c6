import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// Why a payment input was refused.
public enum PaymentInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing but spaces.
    case empty
    /// Longer than any invoice, LNURL or address can be.
    case tooLong
    case unrecognized
    case invoice(Bolt11Error)
    case invalidLNURL(String)
    case invalidLightningAddress(String)
    case invalidBitcoinURI(String)
    case invalidBitcoinAddress(String)

    /// One line; what it quotes of the input is made safe to show (`DisplayText`).
    public var description: String {
        switch self {
        case .empty: "nothing to pay: give an invoice, a Lightning address, an LNURL or a bitcoin: link"
        case .tooLong: "too long to be an invoice, an LNURL or an address"
        case .unrecognized: "not an invoice, LNURL, Lightning address, bitcoin: URI or Bitcoin address"
        case .invoice(let e): e.description
        case .invalidLNURL(let why): "invalid LNURL: \(DisplayText.safe(why))"
        case .invalidLightningAddress(let why): "invalid Lightning address: \(DisplayText.safe(why))"
        case .invalidBitcoinURI(let why): "invalid bitcoin: URI: \(DisplayText.safe(why))"
        case .invalidBitcoinAddress(let why): "invalid Bitcoin address: \(DisplayText.safe(why))"
        }
    }
}

/// A `bitcoin:` URI (BIP21 / BIP-321).
public struct BitcoinURI: Sendable, Equatable {
    /// Empty when the URI carries only other payment methods (BIP-321 allows that).
    public let address: String
    public let network: Network?
    public let amountSats: Sats?
    public let label: String?
    public let message: String?
    /// The `lightning=` invoice, preferred over the address when present.
    public let lightning: Bolt11Invoice?

    public static func == (a: BitcoinURI, b: BitcoinURI) -> Bool {
        a.address == b.address && a.amountSats == b.amountSats && a.label == b.label && a.message == b.message
            && a.lightning?.paymentHash == b.lightning?.paymentHash
    }
}

/// What someone pasted into the pay screen, recognized (parse only: nothing is fetched).
public enum PaymentInput: Sendable {
    case bolt11(Bolt11Invoice)
    /// LUD-01 bech32 `lnurl…` or a LUD-17 `lnurlp://` / `lnurlw://` / `keyauth://` URL, as the
    /// https (or .onion http) URL it stands for.
    case lnurl(URL)
    /// LUD-16 `user@domain` and the LUD-06 endpoint it resolves to.
    case lightningAddress(user: String, domain: String, url: URL)
    case bitcoinURI(BitcoinURI)
    case bitcoinAddress(String, Network)

    /// Recognizes `text` (surrounding spaces and a `lightning:` prefix are ignored). With
    /// `allowLoopbackHTTP` (devnet only: its LNURL services run on this machine), an LNURL may
    /// be plain http on 127.0.0.1.
    /// - Throws: `PaymentInputError` naming what is wrong with the kind it looks like.
    public static func parse(_ text: String, allowLoopbackHTTP: Bool = false) throws(PaymentInputError) -> PaymentInput {
        // An invoice, an LNURL or an address wrapped over lines (a chat, a PDF) is taken whole,
        // as wallets do: they are checksummed, so a space inside can only be the wrapping. A
        // bitcoin: link or a Lightning address keeps its inside as typed (a space in an amount
        // is no digit to drop).
        guard text.utf8.count <= Bolt11Invoice.maximumLength * 4 else { throw .tooLong }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let compact = trimmed.filter { !$0.isWhitespace }
        let wrapped = compact.lowercased().hasPrefix("ln") || compact.lowercased().hasPrefix("lightning:")
            || !compact.contains(where: { ":@?".contains($0) })
        var input = wrapped ? compact : trimmed
        guard !input.isEmpty else { throw .empty }
        guard input.utf8.count <= Bolt11Invoice.maximumLength * 2 else { throw .tooLong }
        let lower = input.lowercased()
        if lower.hasPrefix("lightning:") {
            input = String(input.dropFirst("lightning:".count))
        }
        let body = input.lowercased()
        if body.hasPrefix("bitcoin:") { return .bitcoinURI(try parseBitcoinURI(input)) }
        if body.hasPrefix("lnurl1") { return .lnurl(try decodeLNURL(input, allowLoopbackHTTP: allowLoopbackHTTP)) }
        for scheme in ["lnurlp://", "lnurlw://", "lnurlc://", "keyauth://"] where body.hasPrefix(scheme) {
            return .lnurl(try lud17(input, scheme: scheme, allowLoopbackHTTP: allowLoopbackHTTP))
        }
        if body.hasPrefix("ln") {
            do { return .bolt11(try Bolt11Invoice(input)) } catch { throw .invoice(error) }
        }
        if input.contains("@") { return try lightningAddress(input, allowLoopbackHTTP: allowLoopbackHTTP) }
        for network in [Network.mainnet, .testnet] {
            if (try? Address.validate(input, chain: network == .mainnet ? .bitcoin : .bitcoinTestnet)) != nil {
                return .bitcoinAddress(input, network)
            }
        }
        if isRegtestAddress(input) { return .bitcoinAddress(input, .testnet) }
        throw .unrecognized
    }

    /// A regtest SegWit address (`bcrt1…`, v0 bech32 or v1+ bech32m): test networks share
    /// testnet's keys, so it parses as a testnet address; the backend checks the exact network.
    static func isRegtestAddress(_ text: String) -> Bool {
        text.lowercased().hasPrefix("bcrt1") && (try? Bech32.decodeSegwitAddress(text, hrp: "bcrt")) != nil
    }

    // MARK: LNURL (LUD-01, LUD-17)

    /// The URL inside a bech32 `lnurl1…` string; https only, or http for a .onion host.
    public static func decodeLNURL(_ text: String, allowLoopbackHTTP: Bool = false) throws(PaymentInputError) -> URL {
        let bytes: [UInt8]
        do { bytes = try Bech32.decodeBytes(text, hrp: "lnurl", limit: 2048) } catch { throw .invalidLNURL("\(error)") }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalidLNURL("the URL is not UTF-8") }
        return try checkedURL(string, allowLoopbackHTTP: allowLoopbackHTTP)
    }

    static func lud17(_ text: String, scheme: String, allowLoopbackHTTP: Bool = false) throws(PaymentInputError) -> URL {
        let rest = text.dropFirst(scheme.count)
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != ":" }.lowercased()
        let transport = host.hasSuffix(".onion") || (allowLoopbackHTTP && isLoopback(host)) ? "http://" : "https://"
        return try checkedURL(transport + rest, allowLoopbackHTTP: allowLoopbackHTTP)
    }

    /// 127.0.0.1: this machine (devnet's LNURL server listens there only).
    static func isLoopback(_ host: String) -> Bool { host == "127.0.0.1" }

    /// LUD-01: clearnet LNURLs must be https; .onion may be http.
    static func checkedURL(_ string: String, allowLoopbackHTTP: Bool = false) throws(PaymentInputError) -> URL {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            throw .invalidLNURL("not a URL")
        }
        switch scheme {
        case "https": return url
        case "http" where host.hasSuffix(".onion"): return url
        case "http" where allowLoopbackHTTP && isLoopback(host): return url
        default: throw .invalidLNURL("\(scheme):// is not allowed (https only, or http for .onion)")
        }
    }

    // MARK: Lightning address (LUD-16)

    /// The characters of a Lightning address's name (LUD-16), and its length.
    public static let addressNameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.")
    public static let addressNameLength = 1...64

    static func lightningAddress(_ text: String, allowLoopbackHTTP: Bool = false) throws(PaymentInputError) -> PaymentInput {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .invalidLightningAddress("one @ expected") }
        let user = parts[0].lowercased(), domain = parts[1].lowercased()
        guard addressNameLength.contains(user.count), user.allSatisfy(addressNameCharacters.contains) else {
            throw .invalidLightningAddress("the name may hold only a-z, 0-9, -, _ and .")
        }
        // Devnet's LNURL server: name@127.0.0.1:PORT, over plain http on this machine only.
        if allowLoopbackHTTP, domain.hasPrefix("127.0.0.1:"), let port = UInt16(domain.dropFirst("127.0.0.1:".count)), port > 0,
           let url = URL(string: "http://\(domain)/.well-known/lnurlp/\(user)") {
            return .lightningAddress(user: user, domain: domain, url: url)
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let allowedHost = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard labels.count >= 2, domain.count <= 253,
              labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(allowedHost.contains) && !$0.hasPrefix("-") && !$0.hasSuffix("-") })
        else { throw .invalidLightningAddress("\"\(domain)\" is not a domain name") }
        let transport = domain.hasSuffix(".onion") ? "http" : "https"
        guard let url = URL(string: "\(transport)://\(domain)/.well-known/lnurlp/\(user)") else { throw .invalidLightningAddress("no URL") }
        return .lightningAddress(user: user, domain: domain, url: url)
    }

    // MARK: bitcoin: URIs (BIP21, BIP-321)

    static func parseBitcoinURI(_ text: String) throws(PaymentInputError) -> BitcoinURI {
        let rest = text.dropFirst("bitcoin:".count)
        let addressPart = rest.prefix { $0 != "?" }
        let query = rest.dropFirst(addressPart.count).dropFirst()
        let address = String(addressPart)
        var network: Network?
        if !address.isEmpty {
            if (try? Address.validate(address, chain: .bitcoin)) != nil {
                network = .mainnet
            } else if (try? Address.validate(address, chain: .bitcoinTestnet)) != nil || isRegtestAddress(address) {
                network = .testnet
            } else {
                do { try Address.validate(address, chain: .bitcoin) } catch { throw .invalidBitcoinAddress("\(error)") }
            }
        }
        var amount: Sats?, label: String?, message: String?, lightning: Bolt11Invoice?
        var seen = Set<String>()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = kv[0].lowercased()
            guard let value = (kv.count > 1 ? String(kv[1]) : "").removingPercentEncoding else {
                throw .invalidBitcoinURI("\(key) is not valid percent-encoding")
            }
            guard seen.insert(key).inserted else { throw .invalidBitcoinURI("\(key) appears twice") }
            switch key {
            case "amount": amount = try sats(value)
            case "label": label = value
            case "message": message = value
            case "lightning":
                do { lightning = try Bolt11Invoice(value) } catch { throw .invalidBitcoinURI("lightning: \(error)") }
            default:
                if key.hasPrefix("req-") { throw .invalidBitcoinURI("it requires \(key), which this wallet does not know") }
            }
        }
        guard !address.isEmpty || lightning != nil else { throw .invalidBitcoinURI("no address and no invoice") }
        return BitcoinURI(address: address, network: network, amountSats: amount, label: label, message: message, lightning: lightning)
    }

    /// A decimal bitcoin amount as satoshis, exactly (BIP21's rules: see `BIP21.satoshis`).
    public static func sats(_ text: String) throws(PaymentInputError) -> Sats {
        let value: UInt64
        do { value = try BIP21.satoshis(text) } catch { throw .invalidBitcoinURI(error.description) }
        do { return try Sats(value) } catch { throw .invalidBitcoinURI("amount \"\(text)\": \(error.description)") }
    }
}
