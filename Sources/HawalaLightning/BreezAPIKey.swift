import Foundation
import X509

/// A Breez API key checked offline when it is saved: Breez issues each key as the base64 of a
/// DER X.509 certificate (issued by "Breez" to the developer, Ed25519). A text that is not one,
/// or a certificate past its end date, is refused in words before anything is saved — not
/// found out later as "Lightning is not available now".
enum BreezAPIKey {
    /// - Throws: `LightningSettingsError.notABreezAPIKey`, `.apiKeyExpired`.
    static func check(_ text: String, now: Date = Date()) throws(LightningSettingsError) {
        guard let der = Data(base64Encoded: text), der.count >= 64, let certificate = try? Certificate(derEncoded: Array(der)) else {
            throw .notABreezAPIKey
        }
        guard certificate.notValidAfter > now else { throw .apiKeyExpired(certificate.notValidAfter) }
    }
}
