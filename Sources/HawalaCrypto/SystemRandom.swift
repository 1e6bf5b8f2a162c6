internal import CSodium

/// The operating system's CSPRNG (through libsodium's `randombytes_buf`, which reads
/// `getrandom(2)` on Linux).
public enum SystemRandom {
    private static let ready: Bool = sodium_init() >= 0

    /// Fills `bytes` with random bytes.
    public static func fill(_ bytes: inout [UInt8]) {
        precondition(ready, "libsodium failed to initialize")
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { randombytes_buf(base, $0.count) } }
    }

    /// `count` random bytes (salts, nonces, identifiers).
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        fill(&out)
        return out
    }

    /// `count` random bytes held as a secret.
    public static func secret(count: Int) -> SecretBytes {
        precondition(ready, "libsodium failed to initialize")
        return SecretBytes(count: count) { if let base = $0.baseAddress, $0.count > 0 { randombytes_buf(base, $0.count) } }
    }

    /// A uniformly random integer in `0..<upperBound`, without modulo bias.
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(ready, "libsodium failed to initialize")
        return randombytes_uniform(upperBound)
    }
}
