import Foundation

/// A program's proposal of a connection (Nostr Wallet Auth, NIP-47's `nostr+walletauth://`, as
/// Alby Hub reads it): its own public key, where it listens, its name, the methods it asks for,
/// and the limits it proposes. Only a proposal: nothing is allowed until a person accepts it.
/// Also the NWC deep link `nostrnwc://connect?appname=…&callback=…`, where the program has no
/// key yet and the wallet answers with a connection URI sent to its callback.
public struct WalletAuthRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `nostr+walletauth://`: the program's key is `clientPublicKey`.
        case walletAuth(clientPublicKey: String)
        /// `nostrnwc://connect`: the wallet makes the key and sends the URI to `callback`.
        case deepLink(callback: URL?)
    }

    public let kind: Kind
    public let relays: [String]
    public let name: String?
    /// NIP-47 method names (`pay_invoice`, `get_balance`…), as asked.
    public let methods: [String]
    /// The proposed budget a period, in sats (`max_amount`), and its renewal (`budget_renewal`).
    public let maxAmountSats: UInt64?
    public let budgetRenewal: String?
    public let expiresAt: Date?
    /// Where to say it was accepted (`return_to`), for a program that asked so.
    public let returnTo: URL?

    /// Why a text is not a proposal.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case notARequest
        case noKey
        case badNumber(String)
        case tooLong

        public var description: String {
            switch self {
            case .notARequest: "not a connection request: it starts with nostr+walletauth:// or nostrnwc://connect"
            case .noKey: "the request has no program key (64 hex digits)"
            case .badNumber(let name): "the request's \(name) is not a whole number"
            case .tooLong: "the request is longer than 8 KiB"
            }
        }
    }

    /// Reads `text`.
    /// - Throws: `Problem`.
    public init(_ text: String) throws(Problem) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= 8 * 1024 else { throw .tooLong }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else { throw .notARequest }
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 } }
        func number(_ name: String) throws(Problem) -> UInt64? {
            guard let text = value(name) else { return nil }
            guard let number = UInt64(text) else { throw .badNumber(name) }
            return number
        }
        if scheme == "nostr+walletauth" || scheme.hasPrefix("nostr+walletauth+") {
            // nostr+walletauth://PUBKEY?… or, the generic form, nostr+walletauth://connect?pubkey=PUBKEY&…
            let host = components.host?.lowercased() ?? ""
            let key = host == "connect" ? value("pubkey")?.lowercased() : host
            guard let key, key.utf8.count == 64, key.allSatisfy(\.isHexDigit) else { throw .noKey }
            kind = .walletAuth(clientPublicKey: key)
        } else if scheme == "nostrnwc" || scheme.hasPrefix("nostrnwc+"), components.host?.lowercased() == "connect" {
            kind = .deepLink(callback: value("callback").flatMap(URL.init(string:)))
        } else {
            throw .notARequest
        }
        relays = items.filter { $0.name == "relay" }.compactMap(\.value).filter { !$0.isEmpty }
        name = value("name") ?? value("appname")
        let asked = value("request_methods") ?? value("required_commands").map { [$0, value("optional_commands")].compactMap { $0 }.joined(separator: " ") }
        methods = (asked ?? "").split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map(String.init)
        maxAmountSats = try number("max_amount")
        budgetRenewal = value("budget_renewal")?.lowercased()
        expiresAt = try number("expires_at").map { Date(timeIntervalSince1970: TimeInterval(min($0, 100_000_000_000))) }
        returnTo = value("return_to").flatMap(URL.init(string:))
    }
}
