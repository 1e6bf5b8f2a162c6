/// Arithmetic in GF(2^8) with Rijndael's polynomial x^8 + x^4 + x^3 + x + 1, as SLIP-39's
/// Shamir sharing specifies.
///
/// Share indices (the x coordinates) are public, so their logarithms come from tables; share
/// values are secret, so they are multiplied without tables or branches on their bits.
enum GF256 {
    /// exp[i] = 3^i, log[3^i] = i (3 = x + 1 generates the multiplicative group).
    static let (exp, log): ([UInt8], [Int]) = {
        var exp = [UInt8](repeating: 0, count: 255)
        var log = [Int](repeating: 0, count: 256)
        var poly = 1
        for i in 0..<255 {
            exp[i] = UInt8(poly)
            log[poly] = i
            poly = (poly << 1) ^ poly
            if poly & 0x100 != 0 { poly ^= 0x11B }
        }
        return (exp, log)
    }()

    /// a · b in constant time (eight fixed rounds, masks instead of branches).
    @inline(__always)
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        for _ in 0..<8 {
            product ^= a & (0 &- (b & 1))
            let carry = 0 &- (a >> 7)
            a = (a << 1) ^ (0x1B & carry)
            b >>= 1
        }
        return product
    }

    /// f(x) from the points `shares` (distinct x, values of one length), by Lagrange interpolation.
    static func interpolate(_ shares: [(x: UInt8, value: [UInt8])], at x: UInt8) -> [UInt8] {
        if let hit = shares.first(where: { $0.x == x }) { return hit.value }
        let length = shares[0].value.count
        var result = [UInt8](repeating: 0, count: length)
        // log of Π (x_i − x); subtraction is xor in characteristic 2.
        let logProduct = shares.reduce(0) { $0 + log[Int($1.x ^ x)] }
        for share in shares {
            // The Lagrange basis polynomial of this share evaluated at x — public, from tables.
            var logBasis = logProduct - log[Int(share.x ^ x)]
            for other in shares where other.x != share.x { logBasis -= log[Int(share.x ^ other.x)] }
            let basis = exp[((logBasis % 255) + 255) % 255]
            for i in 0..<length { result[i] ^= multiply(share.value[i], basis) }
        }
        return result
    }
}
