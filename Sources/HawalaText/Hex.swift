/// Lower-case hex of bytes: the one encoder (keys, hashes, ids, tokens alike).
public func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    let array = Array(bytes)
    return String(unsafeUninitializedCapacity: array.count * 2) { out in
        for (i, byte) in array.enumerated() {
            out[2 * i] = digits[Int(byte >> 4)]
            out[2 * i + 1] = digits[Int(byte & 0x0F)]
        }
        return array.count * 2
    }
}
