import Foundation
import Testing
@testable import HawalaCrypto

/// BIP-340 through libsecp256k1 (what NIP-01 signs events with), against BIP-340's own vectors.
@Suite("BIP-340 Schnorr signatures")
struct SchnorrTests {
    struct Row {
        let index: Int, secretKey: String, publicKey: String, auxRand: String, message: String, signature: String, valid: Bool, comment: String
    }

    static func rows() throws -> [Row] {
        let url = try #require(Bundle.module.url(forResource: "bip340", withExtension: "csv", subdirectory: "Vectors"))
        let lines = try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst()
        return lines.map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Row(index: Int(f[0])!, secretKey: f[1], publicKey: f[2], auxRand: f[3], message: f[4], signature: f[5], valid: f[6] == "TRUE",
                       comment: f.dropFirst(7).joined(separator: ","))
        }
    }

    @Test func officialVectors() throws {
        let rows = try Self.rows()
        #expect(rows.count == 19)
        for row in rows {
            let message = unhex(row.message)
            if !row.secretKey.isEmpty {
                let secret = SecretBytes(unhex(row.secretKey))
                #expect(hex(try Schnorr.xOnlyPublicKey(privateKey: secret)) == row.publicKey.lowercased(), "vector \(row.index): public key")
                // libsecp256k1 0.2 signs 32-byte messages (NIP-01's event ids); the others are verified only.
                if message.count == 32 {
                    let signature = try Schnorr.sign(message, privateKey: secret, auxiliaryRandom: unhex(row.auxRand))
                    #expect(hex(signature) == row.signature.lowercased(), "vector \(row.index): signature")
                }
            }
            #expect(Schnorr.isValid(unhex(row.signature), message: message, publicKey: unhex(row.publicKey)) == row.valid,
                    "vector \(row.index): verification \(row.comment)")
        }
    }

    /// ECDH without hashing: the same shared x both ways round, and keys off the curve refused.
    @Test func sharedXIsSymmetric() throws {
        let a = SecretBytes(unhex("0000000000000000000000000000000000000000000000000000000000000003"))
        let b = SecretBytes(unhex("B7E151628AED2A6ABF7158809CF4F3C762E7160F38B4DA56A784D9045190CFEF"))
        let ab = try Schnorr.sharedX(privateKey: a, publicKey: try Schnorr.xOnlyPublicKey(privateKey: b))
        let ba = try Schnorr.sharedX(privateKey: b, publicKey: try Schnorr.xOnlyPublicKey(privateKey: a))
        #expect(ab == ba && ab.count == 32)
        #expect(throws: Secp256k1.Error.invalidPublicKey) { try Schnorr.sharedX(privateKey: a, publicKey: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: Secp256k1.Error.invalidPrivateKey) { try Schnorr.sharedX(privateKey: SecretBytes([UInt8](repeating: 0, count: 32)), publicKey: try Schnorr.xOnlyPublicKey(privateKey: b)) }
        #expect(throws: Secp256k1.Error.invalidMessage) { try Schnorr.sign([1, 2, 3], privateKey: a) }
    }
}
