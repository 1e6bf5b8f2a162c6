import CQREncode
import Foundation
import HawalaCrypto
import HawalaKeys

/// SeedSigner's SeedQR formats (English BIP39 words only), encoded with libqrencode.
///
/// - Standard: each word's index as four decimal digits, concatenated (48 digits for 12 words,
///   96 for 24), numeric mode: version 2 (25×25) for 12 words, 3 (29×29) for 24.
/// - Compact: the raw entropy bytes, byte mode: version 1 (21×21) for 12 words, 2 (25×25) for 24.
/// Error correction L in both.
public enum SeedQR {
    public enum Format: String, Sendable, CaseIterable { case standard, compact }

    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case notEnglish
        case unsupportedLength(Int)
        case encodingFailed

        public var description: String {
            switch self {
            case .notEnglish: "SeedQR is defined for English words only"
            case .unsupportedLength(let n): "SeedQR is defined for 12 and 24 words, not \(n)"
            case .encodingFailed: "libqrencode could not encode the SeedQR"
            }
        }
    }

    /// The Standard payload: four digits per word. Handle with care.
    public static func standardDigits(_ mnemonic: Mnemonic) -> String {
        mnemonic.wordIndexes.map { String(format: "%04d", $0) }.joined()
    }

    /// The QR symbol: `size`×`size` modules, true = dark.
    public struct Symbol: Sendable, Equatable {
        public let size: Int
        public let modules: [Bool]
        public func isDark(_ x: Int, _ y: Int) -> Bool { modules[y * size + x] }
    }

    /// Whether SeedQR is defined for `mnemonic`: 12 or 24 English words.
    public static func supports(_ mnemonic: Mnemonic) -> Bool {
        mnemonic.language == .english && (mnemonic.wordCount == 12 || mnemonic.wordCount == 24)
    }

    public static func encode(_ mnemonic: Mnemonic, format: Format) throws -> Symbol {
        guard mnemonic.language == .english else { throw Error.notEnglish }
        guard mnemonic.wordCount == 12 || mnemonic.wordCount == 24 else { throw Error.unsupportedLength(mnemonic.wordCount) }
        let twelve = mnemonic.wordCount == 12
        let code: UnsafeMutablePointer<QRcode>?
        switch format {
        case .standard:
            let digits = standardDigits(mnemonic)
            code = QRcode_encodeString(digits, twelve ? 2 : 3, QR_ECLEVEL_L, QR_MODE_8, 1)
        case .compact:
            var entropy = mnemonic.entropy().unsafeCopy()
            defer { SecretBytes.wipe(&entropy) }
            code = QRcode_encodeData(Int32(entropy.count), entropy, twelve ? 1 : 2, QR_ECLEVEL_L)
        }
        guard let code else { throw Error.encodingFailed }
        defer {
            // The module buffer held the secret's encoding.
            memset(code.pointee.data, 0, Int(code.pointee.width * code.pointee.width))
            QRcode_free(code)
        }
        let width = Int(code.pointee.width)
        let modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
        return Symbol(size: width, modules: modules)
    }
}
