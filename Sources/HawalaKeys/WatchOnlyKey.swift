/// The account key a watch-only wallet is made from, read from what other wallets export: a
/// BIP380 descriptor (`wpkh([fp/84h/0h/0h]xpub…/<0;1>/*)#checksum`, or one branch of it) or an
/// extended public key (`zpub…`, `[fp/84h/0h/0h]xpub…`), as `hawala wallet export-watch-only`
/// prints them. Holds nothing secret.
public struct WatchOnlyKey: Sendable {
    /// The output scripts the account's addresses use.
    public enum ScriptType: String, Sendable {
        /// Native segwit, BIP84.
        case wpkh
    }

    /// The account's output scripts.
    public let scriptType: ScriptType
    /// The account's extended public key (its addresses derive from it).
    public let accountKey: ExtendedPublicKey
    /// Whether the key is a test network's (tpub, vpub).
    public let isTestnet: Bool
    /// The master key's fingerprint and the account's path, when the text names its origin.
    public let origin: (fingerprint: UInt32, path: DerivationPath)?

    /// The longest text read: a descriptor of one key is a few hundred characters.
    public static let maximumLength = 1_000

    /// Reads a descriptor of one account: `wpkh(KEY)` where KEY is an origin, an extended
    /// public key and optionally its branches (`/0/*`, `/1/*`, `/<0;1>/*`); its checksum is
    /// checked when it has one.
    public init(descriptor text: String) throws(WatchOnlyKeyError) {
        let text = text.trimmingWhitespace
        guard text.unicodeScalars.count <= Self.maximumLength else { throw .tooLong }
        var body = Substring(text)
        if let hash = text.lastIndex(of: "#") {
            body = text[..<hash]
            guard Descriptor.withChecksum(String(body)) == text else { throw .badChecksum }
        }
        for (prefix, name) in [("tr(", "taproot (tr)"), ("sh(", "nested segwit (sh(wpkh))"), ("pkh(", "legacy (pkh)"), ("wsh(", "multisig (wsh)")]
        where body.hasPrefix(prefix) {
            throw .unsupportedScript(name)
        }
        guard body.hasPrefix("wpkh("), body.hasSuffix(")") else { throw .notADescriptor }
        self = try Self(keyExpression: String(body.dropFirst(5).dropLast()), scriptType: .wpkh)
    }

    /// Reads an extended public key, with or without its origin (`[fp/84h/0h/0h]`). The account
    /// is native segwit (BIP84): what zpub and vpub say, and what Hawala's own accounts are.
    public init(key text: String) throws(WatchOnlyKeyError) {
        let text = text.trimmingWhitespace
        guard text.unicodeScalars.count <= Self.maximumLength else { throw .tooLong }
        self = try Self(keyExpression: text, scriptType: .wpkh)
    }

    private init(keyExpression: String, scriptType: ScriptType) throws(WatchOnlyKeyError) {
        var rest = Substring(keyExpression)
        var origin: (UInt32, DerivationPath)?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .badOrigin }
            let parts = rest[rest.index(after: rest.startIndex)..<close].split(separator: "/", maxSplits: 1)
            guard let first = parts.first, first.count == 8, let fingerprint = UInt32(first, radix: 16),
                  let path = try? DerivationPath("m" + (parts.count > 1 ? "/" + parts[1] : "")) else { throw .badOrigin }
            origin = (fingerprint, path)
            rest = rest[rest.index(after: close)...]
        }
        // The account key, then at most its branches: the wallet derives those itself.
        let keyText = rest.prefix { $0 != "/" }
        let branches = rest.dropFirst(keyText.count)
        guard ["", "/0/*", "/1/*", "/<0;1>/*"].contains(String(branches)) else { throw .unsupportedDerivation(String(branches.prefix(40))) }
        let parsed: ExtendedKey
        do { parsed = try ExtendedKey(String(keyText)) } catch { throw .badKey("\(error)") }
        guard case .public(let key, let version) = parsed else { throw .privateKey }
        guard version != .ypub, version != .upub else { throw .unsupportedScript("nested segwit (ypub)") }
        if let origin, origin.1.components.count != Int(key.depth) {
            throw .badOrigin
        }
        self.scriptType = scriptType
        accountKey = key
        isTestnet = version.isTestnet
        self.origin = origin.map { (fingerprint: $0.0, path: $0.1) }
    }
}

/// Why a text is not an account key a watch-only wallet can be made from.
public enum WatchOnlyKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Longer than any descriptor of one key.
    case tooLong
    /// The `#checksum` doesn't match the descriptor.
    case badChecksum
    /// Not `wpkh(…)`.
    case notADescriptor
    /// A script type not watched yet (taproot, nested segwit, legacy, multisig).
    case unsupportedScript(String)
    /// Derivation steps after the key other than its branches.
    case unsupportedDerivation(String)
    /// A key origin that is not `[8 hex digits/path]` of the key's depth.
    case badOrigin
    /// The key itself doesn't parse.
    case badKey(String)
    /// A private key where a public one belongs.
    case privateKey

    /// One line a person can act on; never the key.
    public var description: String {
        switch self {
        case .tooLong: "that is longer than any account descriptor or key (\(WatchOnlyKey.maximumLength) characters at most)"
        case .badChecksum: "the descriptor's checksum doesn't match it: a character was changed or lost"
        case .notADescriptor: "not an account descriptor: expected wpkh([fingerprint/84h/0h/0h]xpub…/<0;1>/*)"
        case .unsupportedScript(let kind): "\(kind) accounts can't be watched yet: only native segwit (wpkh)"
        case .unsupportedDerivation(let steps): "the key is followed by \(steps); expected nothing, /0/*, /1/* or /<0;1>/*"
        case .badOrigin: "the key origin is not [8 hex digits/path] matching the key's depth"
        case .badKey(let why): "not an extended public key: \(why)"
        case .privateKey: "that is a private key: a watch-only wallet takes the public key (xpub, zpub, tpub, vpub) and never a secret"
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
