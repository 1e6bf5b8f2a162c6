import CQREncode
import Foundation

/// A QR code of a short text (an invoice) drawn in a terminal with half-block characters.
public enum TextQR {
    /// Encodes `text` (error correction M). With `caseInsensitive` (a Bech32 invoice, which reads
    /// the same in capitals) letters are upper-cased first, which lets QR use its denser
    /// alphanumeric mode; anything else (a base58 address, a label) is encoded as it is.
    public static func encode(_ text: String, caseInsensitive: Bool = false) throws -> SeedQR.Symbol {
        let encoded = caseInsensitive ? text.uppercased() : text
        guard let code = QRcode_encodeString(encoded, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { throw SeedQR.Error.encodingFailed }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return SeedQR.Symbol(size: width, modules: (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 })
    }

    /// Lines for a terminal: two module rows per line, light modules drawn (terminals are
    /// usually dark), a quiet zone of two modules.
    public static func terminalLines(_ symbol: SeedQR.Symbol, quietZone: Int = 2) -> [String] {
        let size = symbol.size + 2 * quietZone
        func light(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quietZone, y - quietZone)
            guard (0..<symbol.size).contains(mx), (0..<symbol.size).contains(my) else { return true }
            return !symbol.isDark(mx, my)
        }
        return stride(from: 0, to: size, by: 2).map { y in
            String((0..<size).map { x -> Character in
                switch (light(x, y), y + 1 < size ? light(x, y + 1) : false) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }
}
