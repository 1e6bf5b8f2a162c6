import Foundation
import HawalaCrypto
import HawalaText

/// Recognises Electrum's own "new" (version 2) seed phrases, which look like BIP39 words but
/// are not BIP39: Electrum marks a phrase's type in the first bits of
/// HMAC-SHA512(key: "Seed version", normalized phrase), and derives keys another way. Hawala
/// does not derive from them; recognising one lets it say which wallet reads the phrase
/// instead of reporting a bad checksum.
public enum ElectrumSeed: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Prefix "01": legacy P2PKH addresses.
    case standard
    /// Prefix "100": native SegWit (P2WPKH).
    case segwit
    /// Prefix "101": a TrustedCoin two-factor wallet.
    case twoFactor
    /// Prefix "102": a TrustedCoin two-factor SegWit wallet.
    case twoFactorSegwit

    /// The hex prefix of the phrase's HMAC that marks this type.
    var versionPrefix: String {
        switch self {
        case .standard: "01"
        case .segwit: "100"
        case .twoFactor: "101"
        case .twoFactorSegwit: "102"
        }
    }

    public var description: String {
        switch self {
        case .standard: "standard"
        case .segwit: "segwit"
        case .twoFactor: "2FA"
        case .twoFactorSegwit: "2FA segwit"
        }
    }

    /// The Electrum seed type of `phrase`, or nil when it is not an Electrum version 2 seed.
    /// A random phrase has this form by chance about once in 256 (standard) or 4,096 (the
    /// others), so callers ask only after a phrase has failed as BIP39.
    public static func type(of phrase: String) -> ElectrumSeed? {
        let normalized = normalize(phrase)
        guard !normalized.isEmpty else { return nil }
        let mac = Hash.hmacSHA512(key: Array("Seed version".utf8), Array(normalized.utf8))
        let hex = hexString(mac.prefix(2))
        return allCases.first { hex.hasPrefix($0.versionPrefix) }
    }

    /// Electrum's `normalize_text`: NFKD, lower case, accents removed, single spaces, and no
    /// spaces between CJK characters.
    static func normalize(_ phrase: String) -> String {
        let lowered = phrase.decomposedStringWithCompatibilityMapping.lowercased()
        let scalars = lowered.unicodeScalars.filter { !isCombining($0) }
        let words = String(String.UnicodeScalarView(scalars)).split(whereSeparator: { $0.isWhitespace })
        var out = String.UnicodeScalarView()
        for (i, word) in words.enumerated() {
            if i > 0, let last = out.last, let next = word.unicodeScalars.first, !(isCJK(last) && isCJK(next)) {
                out.append(" ")
            }
            out.append(contentsOf: word.unicodeScalars)
        }
        return String(out)
    }

    /// Python's `unicodedata.combining(c) != 0`.
    private static func isCombining(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.canonicalCombiningClass.rawValue != 0
    }

    /// Electrum's CJK ranges.
    private static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        let ranges: [ClosedRange<UInt32>] = [
            0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F, 0xF900...0xFAFF,
            0x2F800...0x2FA1F, 0x2E80...0x2EFF, 0x2F00...0x2FDF, 0x2FF0...0x2FFF, 0x3000...0x303F, 0x31C0...0x31EF,
            0x3200...0x32FF, 0x3300...0x33FF, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0x1F200...0x1F2FF, 0x3040...0x309F,
            0x30A0...0x30FF, 0x31F0...0x31FF, 0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF, 0x3130...0x318F,
            0xAC00...0xD7AF,
        ]
        return ranges.contains { $0.contains(scalar.value) }
    }
}
