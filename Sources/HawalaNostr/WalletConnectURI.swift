import Foundation
import HawalaCrypto

/// A Nostr Wallet Connect URI (NIP-47): `nostr+walletconnect://<wallet service key>?relay=…&secret=…`.
/// The secret is the client's key: shown once, never kept by the wallet.
public struct WalletConnectURI: Sendable, Equatable {
    public let walletPublicKey: String
    public let relays: [String]
    public let secret: SecretBytes
    public let lud16: String?

    public init(walletPublicKey: String, relays: [String], secret: SecretBytes, lud16: String? = nil) {
        self.walletPublicKey = walletPublicKey
        self.relays = relays
        self.secret = secret
        self.lud16 = lud16
    }

    /// The URI's text (it holds the secret: show it once, keep it nowhere).
    public func text() -> String {
        var components = URLComponents()
        components.scheme = "nostr+walletconnect"
        components.host = walletPublicKey
        var items = relays.map { URLQueryItem(name: "relay", value: $0) }
        items.append(URLQueryItem(name: "secret", value: secret.withUnsafeBytes { NostrHex.encode(Array($0)) }))
        if let lud16 { items.append(URLQueryItem(name: "lud16", value: lud16)) }
        components.queryItems = items
        // URLComponents leaves ":" and "/" in query values; NIP-47's example encodes them.
        components.percentEncodedQuery = items.map { item in
            item.name + "=" + (item.value?.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")
        }.joined(separator: "&")
        return components.string ?? ""
    }

    /// RFC 3986's unreserved characters: everything else in a value is percent-encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A URI as a client would read one; nil when it is not one.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              components.scheme == "nostr+walletconnect", let host = components.host, NostrHex.decode(host, count: 32) != nil else { return nil }
        let items = components.queryItems ?? []
        let relays = items.filter { $0.name == "relay" }.compactMap(\.value)
        guard !relays.isEmpty, let secretHex = items.first(where: { $0.name == "secret" })?.value,
              let secret = NostrHex.decode(secretHex, count: 32) else { return nil }
        self.init(walletPublicKey: host.lowercased(), relays: relays, secret: SecretBytes(secret), lud16: items.first { $0.name == "lud16" }?.value)
    }

    public static func == (a: WalletConnectURI, b: WalletConnectURI) -> Bool {
        a.walletPublicKey == b.walletPublicKey && a.relays == b.relays && a.secret == b.secret && a.lud16 == b.lud16
    }
}
