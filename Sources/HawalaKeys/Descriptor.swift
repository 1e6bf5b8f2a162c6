/// BIP380 output descriptor checksums.
public enum Descriptor {
    private static let inputCharset = Array("0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ".unicodeScalars)
    private static let checksumCharset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")

    private static func polymod(_ c: UInt64, _ value: UInt64) -> UInt64 {
        let c0 = c >> 35
        var c = (c & 0x7_FFFF_FFFF) << 5 ^ value
        if c0 & 1 != 0 { c ^= 0xF5_DEE5_1989 }
        if c0 & 2 != 0 { c ^= 0xA9_FDCA_3312 }
        if c0 & 4 != 0 { c ^= 0x1B_AB10_E32D }
        if c0 & 8 != 0 { c ^= 0x37_06B1_677A }
        if c0 & 16 != 0 { c ^= 0x64_4D62_6FFD }
        return c
    }

    /// The 8-character checksum of a descriptor, or nil when it has a character BIP380 forbids.
    public static func checksum(_ descriptor: String) -> String? {
        var c: UInt64 = 1, cls: UInt64 = 0, clsCount = 0
        for ch in descriptor.unicodeScalars {
            guard let pos = inputCharset.firstIndex(of: ch) else { return nil }
            c = polymod(c, UInt64(pos & 31))
            cls = cls * 3 + UInt64(pos >> 5)
            clsCount += 1
            if clsCount == 3 { c = polymod(c, cls); cls = 0; clsCount = 0 }
        }
        if clsCount > 0 { c = polymod(c, cls) }
        for _ in 0..<8 { c = polymod(c, 0) }
        c ^= 1
        return String((0..<8).map { checksumCharset[Int((c >> (5 * (7 - UInt64($0)))) & 31)] })
    }

    /// `descriptor#checksum`.
    public static func withChecksum(_ descriptor: String) -> String {
        descriptor + "#" + (checksum(descriptor) ?? "")
    }
}
