import Foundation
import HawalaCrypto

/// A signed Nostr event (NIP-01): its id is the SHA-256 of its canonical serialization, its
/// signature a BIP-340 signature of that id by `pubkey`.
public struct NostrEvent: Sendable, Equatable, Codable {
    public let id: String
    public let pubkey: String
    public let created_at: Int64
    public let kind: Int
    public let tags: [[String]]
    public let content: String
    public let sig: String

    /// Kinds Hawala speaks (NIP-47 and a plain note for measuring a relay).
    public enum Kind {
        public static let note = 1
        public static let walletInfo = 13194
        public static let walletRequest = 23194
        public static let walletResponse = 23195
        public static let walletNotificationNIP04 = 23196
        public static let walletNotification = 23197
    }

    /// Signs a new event by `keys`.
    /// - Throws: `Secp256k1.Error` (a key out of range).
    public static func signed(kind: Int, tags: [[String]], content: String, by keys: NostrKeys, at date: Date = Date()) throws -> NostrEvent {
        let createdAt = Int64(date.timeIntervalSince1970)
        let pubkey = keys.publicKeyHex
        let hash = Hash.sha256(Array(serialization(pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content).utf8))
        let signature = try Schnorr.sign(hash, privateKey: keys.secret)
        return NostrEvent(id: NostrHex.encode(hash), pubkey: pubkey, created_at: createdAt, kind: kind, tags: tags, content: content,
                          sig: NostrHex.encode(signature))
    }

    public init(id: String, pubkey: String, created_at: Int64, kind: Int, tags: [[String]], content: String, sig: String) {
        self.id = id
        self.pubkey = pubkey
        self.created_at = created_at
        self.kind = kind
        self.tags = tags
        self.content = content
        self.sig = sig
    }

    /// Whether the id is the hash of the event and the signature is `pubkey`'s.
    public var isValid: Bool {
        guard let id = NostrHex.decode(id, count: 32), let key = NostrHex.decode(pubkey, count: 32), let signature = NostrHex.decode(sig, count: 64) else {
            return false
        }
        let hash = Hash.sha256(Array(Self.serialization(pubkey: pubkey, createdAt: created_at, kind: kind, tags: tags, content: content).utf8))
        return hash == id && Schnorr.isValid(signature, message: hash, publicKey: key)
    }

    /// The first value of the first tag named `name` (`["p", "abc…"]` → "abc…").
    public func tag(_ name: String) -> String? { tags.first { $0.first == name && $0.count > 1 }?[1] }

    /// NIP-01's serialization `[0,pubkey,created_at,kind,tags,content]`: no whitespace, and in
    /// strings only `\n`, `"`, `\`, `\r`, `\t`, `\b` and `\f` escaped, everything else verbatim.
    static func serialization(pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String) -> String {
        var out = "[0,"
        out += quote(pubkey) + "," + String(createdAt) + "," + String(kind) + ",["
        out += tags.map { "[" + $0.map(quote).joined(separator: ",") + "]" }.joined(separator: ",")
        out += "]," + quote(content) + "]"
        return out
    }

    static func quote(_ text: String) -> String { quote(text, wire: false) }

    /// `wire`: other control characters as `\u00XX` too, as JSON requires (the id's
    /// serialization keeps them verbatim; a parser reads both to the same string).
    static func quote(_ text: String, wire: Bool) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where wire && scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The event as a JSON object, for a relay (`["EVENT", …]`).
    public var json: String {
        let q = { (text: String) in Self.quote(text, wire: true) }
        return "{\"id\":\(q(id)),\"pubkey\":\(q(pubkey)),\"created_at\":\(created_at),\"kind\":\(kind),\"tags\":["
            + tags.map { "[" + $0.map(q).joined(separator: ",") + "]" }.joined(separator: ",")
            + "],\"content\":\(q(content)),\"sig\":\(q(sig))}"
    }
}
