import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// An LNURL-auth request (LUD-04): a service asks the wallet to prove it holds the key it
/// uses for that service's domain, to log in, register, link an account or authorize an action.
public struct LNURLAuthRequest: Sendable, Equatable {
    /// What the service says the signature is for (LUD-04's `action`).
    public enum Action: String, Sendable, CaseIterable {
        case register, login, link, auth
    }

    /// The service's URL, with its `tag`, `k1` and `action` query.
    public let url: URL
    /// The full domain name the linking key is derived for (and shown to the person).
    public let domain: String
    /// The 32-byte challenge to sign.
    public let k1: [UInt8]
    /// nil when the service does not say (then it is a login).
    public let action: Action?

    /// Reads `url` as an LNURL-auth request: `tag=login`, a `k1` of 32 hex bytes, an optional
    /// known `action`.
    /// - Throws: `LNURLError.notALogin` for another kind of LNURL, `.invalidResponse` otherwise.
    public init(_ url: URL) throws(LNURLError) {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let tag = value("tag") else { throw .notALogin("none") }
        guard tag == "login" else { throw .notALogin(String(tag.prefix(40))) }
        guard let host = url.host?.lowercased(), !host.isEmpty else { throw .invalidResponse("the login link has no host") }
        guard let k1Text = value("k1"), k1Text.count == 64, let k1 = bytes(fromHex: k1Text) else {
            throw .invalidResponse("the login link's challenge (k1) is not 32 bytes of hex")
        }
        var action: Action?
        if let text = value("action") {
            guard let known = Action(rawValue: text) else { throw .invalidResponse("unknown action \"\(text.prefix(20))\"") }
            action = known
        }
        self.url = url
        // LUD-05: the full domain name, without a trailing dot.
        domain = host.hasSuffix(".") ? String(host.dropLast()) : host
        self.k1 = k1
        self.action = action
    }

    /// What signing does, in plain words: "Log in to site.com".
    public var question: String {
        switch action ?? .login {
        case .register: "Create an account at \(domain)"
        case .login: "Log in to \(domain)"
        case .link: "Link this wallet to your account at \(domain)"
        case .auth: "Authorize an action at \(domain)"
        }
    }
}

/// LNURL-auth's keys (LUD-05) and its exchange (LUD-04): one key per service domain, derived
/// from the wallet's seed, so a service sees the same key on every login and no two services
/// can link their users.
public enum LNURLAuth {
    /// m/138'/0: the key whose HMAC of a domain chooses that domain's linking key.
    public static func hashingKey(_ keys: HDWallet) throws -> SecretBytes {
        try keys.privateKey(at: DerivationPath([try ChildNumber(138, hardened: true), try ChildNumber(0, hardened: false)]))
    }

    /// The four path elements after m/138' for `domain`: the first 16 bytes of
    /// HMAC-SHA256(hashingKey, domain), as big-endian 32-bit numbers (raw BIP32 indexes: one of
    /// 2^31 or more is a hardened step, as in LUD-05's reference).
    public static func pathSuffix(hashingKey: SecretBytes, domain: String) -> [UInt32] {
        let material = Hash.hmacSHA256(key: hashingKey, Array(domain.utf8))
        return (0..<4).map { i in material[i * 4..<i * 4 + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// The linking private key for `domain`.
    public static func linkingKey(_ keys: HDWallet, domain: String) throws -> SecretBytes {
        let suffix = pathSuffix(hashingKey: try hashingKey(keys), domain: domain)
        let path = DerivationPath([try ChildNumber(138, hardened: true)] + suffix.map(ChildNumber.init(rawValue:)))
        return try keys.privateKey(at: path)
    }

    /// The signed answer to `request`: the callback URL with `sig` (DER, hex) and `key` (the
    /// compressed linking public key, hex) appended to its query.
    public static func signedCallback(_ request: LNURLAuthRequest, keys: HDWallet) throws -> (url: URL, linkingKey: [UInt8]) {
        let linking = try linkingKey(keys, domain: request.domain)
        let signature = try Secp256k1.signDER(digest: request.k1, privateKey: linking)
        let publicKey = try Secp256k1.PublicKey(privateKey: linking).compressed
        guard var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { throw LNURLError.invalidResponse("bad login URL") }
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "sig", value: hexString(signature)),
                                                       URLQueryItem(name: "key", value: hexString(publicKey))]
        guard let url = parts.url else { throw LNURLError.invalidResponse("bad login URL") }
        return (url, publicKey)
    }

    /// Signs `request` with `secret`'s linking key for its domain and sends it; returns the
    /// linking public key the service now knows this wallet by.
    /// - Throws: `LNURLError.serviceError` with the service's reason when it refuses,
    ///   `.http` when it can't be reached.
    public static func authenticate(_ request: LNURLAuthRequest, secret: WalletSecret, fetcher: LNURLFetching) async throws -> [UInt8] {
        let (url, key) = try signedCallback(request, keys: secret.keys)
        let answer: LNURLPayRequest.StatusJSON = try LNURLPayRequest.decode(try await fetcher.get(url))
        guard answer.status?.uppercased() == "OK" else { throw LNURLError.invalidResponse("the service did not say OK") }
        return key
    }
}
