import Foundation

/// A rough strength estimate for a backup password: bits from length and character classes,
/// less for repeats and runs. It guides; it does not prove anything.
public struct PasswordStrength: Sendable, Equatable {
    public let bits: Int
    public var rating: String { bits < 60 ? "weak" : bits < 80 ? "fair" : "strong" }

    /// Shortest backup password accepted.
    public static let minimumLength = 10
    /// Weakest estimate accepted.
    public static let minimumBits = 40

    public init(_ password: String) {
        let scalars = Array(password.unicodeScalars)
        var pool = 0
        if scalars.contains(where: { ("a"..."z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { pool += 10 }
        if scalars.contains(where: { $0.isASCII && !CharacterSet.alphanumerics.contains($0) }) { pool += 33 }
        if scalars.contains(where: { !$0.isASCII }) { pool += 100 }
        // Characters that repeat or continue a run (abc, 123, aaa) add little.
        var effective = 0.0
        for (i, s) in scalars.enumerated() {
            if i > 0, s == scalars[i - 1] || s.value == scalars[i - 1].value + 1 || s.value + 1 == scalars[i - 1].value {
                effective += 0.25
            } else {
                effective += 1
            }
        }
        bits = pool == 0 ? 0 : Int(effective * log2(Double(pool)))
    }

    /// Why `password` is refused, or nil when it is acceptable.
    public static func refusal(_ password: String) -> String? {
        if password.count < minimumLength { return "the backup password must have at least \(minimumLength) characters" }
        let s = PasswordStrength(password)
        if s.bits < minimumBits { return "the backup password is too weak (about \(s.bits) bits); use a longer passphrase of several words" }
        return nil
    }
}
