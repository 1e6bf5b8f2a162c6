import Foundation
import HTTPTypes

/// An IPv4 or IPv6 address block: `10.0.0.0/8`, `fd00::/8`, or one address (`127.0.0.1`).
public struct AddressBlock: Sendable, Equatable, CustomStringConvertible {
    /// The network, as 16 bytes (IPv4 as `::ffff:a.b.c.d`).
    let network: [UInt8]
    /// Leading bits that must match, of 128.
    let prefixBits: Int
    public let description: String

    /// Parses `ADDRESS[/BITS]`; nil when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let (bytes, isV4) = ClientAddress.bytes(parts[0]) else { return nil }
        let width = isV4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...width).contains(n), parts[1].allSatisfy(\.isASCII) else { return nil }
            bits = n
        }
        prefixBits = bits + (isV4 ? 96 : 0)
        network = ClientAddress.masked(bytes, bits: prefixBits)
        description = text
    }

    /// Whether `address` (text, as a socket reports it) lies in the block.
    public func contains(_ address: String) -> Bool {
        guard let (bytes, _) = ClientAddress.bytes(address) else { return false }
        return ClientAddress.masked(bytes, bits: prefixBits) == network
    }
}

/// Who the client of a request is, for the per-address limits.
enum ClientAddress {
    /// The peer itself, unless the peer is a trusted proxy: then the nearest address in the
    /// forwarding chain (`Forwarded: for=…`, else `X-Forwarded-For`) that is not a trusted
    /// proxy, read from the right — the entries to its left are the client's to invent.
    static func resolve(peer: String, headers: HTTPFields, trustedProxies: [AddressBlock]) -> String {
        guard trustedProxies.contains(where: { $0.contains(peer) }) else { return peer }
        let forwarded = headers[values: HTTPField.Name("Forwarded")!]
        let chain = forwarded.isEmpty
            ? headers[values: HTTPField.Name("X-Forwarded-For")!].flatMap { $0.split(separator: ",") }.map { strip(String($0)) }
            : forwarded.flatMap { $0.split(separator: ",") }.compactMap(forValue)
        for hop in chain.reversed() {
            // A hop that is not an address ("unknown", garbage): nobody to attribute it to
            // but the proxy that sent it.
            guard bytes(hop) != nil else { return peer }
            if !trustedProxies.contains(where: { $0.contains(hop) }) { return hop }
        }
        return chain.first ?? peer
    }

    /// The key a client's failures count under: its IPv4 address, or the /64 of an IPv6
    /// address (one home or host gets a whole /64, so single addresses would be free).
    static func limitKey(_ address: String) -> String {
        guard let (bytes, isV4) = bytes(address), !isV4 else { return address }
        if bytes[0..<12].elementsEqual(v4Mapped) { return bytes[12..<16].map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 8, by: 2).map { String(format: "%x", UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])) }.joined(separator: ":") + "::/64"
    }

    /// 16 bytes of an IPv4 or IPv6 address, and whether it was IPv4.
    static func bytes(_ text: String) -> ([UInt8], Bool)? {
        var v6 = [UInt8](repeating: 0, count: 16)
        if text.contains(":") {
            guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
            return (v6, false)
        }
        var v4 = [UInt8](repeating: 0, count: 4)
        guard inet_pton(AF_INET, text, &v4) == 1 else { return nil }
        return (v4Mapped + v4, true)
    }

    /// The first 12 bytes of an IPv4 address written as IPv6 (`::ffff:a.b.c.d`).
    private static let v4Mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    static func masked(_ bytes: [UInt8], bits: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(max(bits - index * 8, 0), 8)
            return keep == 8 ? byte : byte & ~(0xFF >> UInt8(keep))
        }
    }

    /// `for=` of one `Forwarded` element (RFC 7239): quotes, brackets and a port removed.
    private static func forValue(_ element: Substring) -> String? {
        for pair in element.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
            return strip(String(kv[1]))
        }
        return nil
    }

    /// An address as a header writes it: `"[2001:db8::1]:4711"`, `192.0.2.1:80`, ` 192.0.2.1`.
    private static func strip(_ value: String) -> String {
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<close]) }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}
