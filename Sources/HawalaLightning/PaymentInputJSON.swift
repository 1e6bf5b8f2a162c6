import Foundation
import HawalaKeys
import HawalaText

// The documented `--json` shapes of what a payment input decodes to (docs/reference.md: ln decode).

extension PaymentInput: JSONRepresentable {
    /// `{type, …}`: an invoice's fields, an LNURL's or Lightning address's URL, a URI's parts.
    public var json: JSONValue {
        switch self {
        case .bolt11(let invoice): return invoice.json
        case .lnurl(let url): return .object([("type", .string("lnurl")), ("url", .string(url.absoluteString))])
        case let .lightningAddress(user, domain, url):
            return .object([("type", .string("lightning-address")), ("user", .string(user)), ("domain", .string(domain)), ("url", .string(url.absoluteString))])
        case .bitcoinURI(let uri):
            return .object([
                ("type", .string("bitcoin-uri")), ("address", uri.address.isEmpty ? .null : .string(uri.address)),
                ("network", uri.network.map { .string($0.rawValue) } ?? .null),
                ("amountSats", uri.amountSats.map { .amount($0) } ?? .null),
                ("label", uri.label.map { .string($0) } ?? .null), ("message", uri.message.map { .string($0) } ?? .null),
                ("lightning", uri.lightning.map(\.json) ?? .null),
            ])
        case let .bitcoinAddress(address, network):
            return .object([("type", .string("bitcoin-address")), ("address", .string(address)), ("network", .string(network.rawValue))])
        }
    }
}

extension Bolt11Invoice: JSONRepresentable {
    /// The decoded invoice; `signatureValid` is always true (an invoice whose signature fails
    /// is an error, never a value).
    public var json: JSONValue {
        let i = self
        return .object([
            ("network", .string(i.network.rawValue)),
            ("amountMsat", i.amountMsat.map { .amount($0) } ?? .null),
            ("paymentHash", .string(hexString(i.paymentHash))),
            ("paymentSecret", i.paymentSecret.map { .string(hexString($0)) } ?? .null),
            ("description", i.description.map { .string($0) } ?? .null),
            ("descriptionHash", i.descriptionHash.map { .string(hexString($0)) } ?? .null),
            ("payee", .string(hexString(i.payee))),
            ("timestamp", .int(Int(i.timestamp))),
            ("expiry", .int(Int(i.expiry))),
            ("createdAt", .string((Date(timeIntervalSince1970: Double(i.timestamp))).iso8601)),
            ("expiresAt", .string(i.expiresAt.iso8601)),
            ("minFinalCltvExpiry", .int(Int(i.minFinalCltvExpiry))),
            ("fallbackAddresses", .array(i.fallbacks.map { .string($0.address) })),
            ("routeHints", .array(i.routeHints.map { route in
                .array(route.map { hop in
                    .object([("nodeId", .string(hexString(hop.nodeID))), ("shortChannelId", .string(hop.shortChannelIDText)),
                             ("feeBaseMsat", .int(Int(hop.feeBaseMsat))), ("feeProportionalMillionths", .int(Int(hop.feeProportionalMillionths))),
                             ("cltvExpiryDelta", .int(Int(hop.cltvExpiryDelta)))])
                })
            })),
            ("features", .array(i.features.map { .int($0) })),
            ("signatureValid", .bool(true)),  // an invoice whose signature fails is an error, never printed
        ])
    }
}
