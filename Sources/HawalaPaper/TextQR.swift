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

    /// The dark modules as SVG path data in module units, offset by `quietZone` (draw it in a
    /// `viewBox` of `size + 2 × quietZone`): one `M x y h1 v1 h-1 z`-style square per run of
    /// dark modules in a row. Only digits, spaces and the letters M, h, v, z: safe to put in an
    /// attribute.
    public static func svgPath(_ symbol: SeedQR.Symbol, quietZone: Int = 4) -> String {
        var path = ""
        for y in 0..<symbol.size {
            var x = 0
            while x < symbol.size {
                guard symbol.isDark(x, y) else { x += 1; continue }
                let start = x
                while x < symbol.size && symbol.isDark(x, y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return path
    }
}
