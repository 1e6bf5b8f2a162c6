import Foundation

/// A whole number as a program wrote it in JSON (`JSONSerialization`'s value), read exactly or
/// not at all: a fraction (`1000.9`), a float's notation (`5.0`, `1e3`), a boolean, a string or
/// a number past 64 bits (`18446744073709651616`, which Foundation keeps as a decimal whose
/// `int64Value` wraps) is no whole number. Amounts then go through `Msat`/`Sats`, which refuse
/// what is above the supply.
public enum JSONInteger {
    /// `value` when it is a JSON integer from 0 to `UInt64.max`; nil otherwise.
    public static func unsigned(_ value: Any?) -> UInt64? {
        guard let number = value as? NSNumber, !(number is NSDecimalNumber) else { return nil }
        // "c"/"B": a boolean; "d"/"f": a number written with a fraction or an exponent.
        let type = String(cString: number.objCType)
        guard !["c", "B", "d", "f"].contains(type) else { return nil }
        let text = number.stringValue
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(text)
    }

    /// `value` when it is a JSON integer from 0 to `Int.max`; nil otherwise.
    public static func count(_ value: Any?) -> Int? {
        unsigned(value).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
    }
}
