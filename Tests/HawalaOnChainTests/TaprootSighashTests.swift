import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaText
import Testing

/// BIP341's key-path vectors (`wallet-test-vectors.json`, the inputs signed with
/// SIGHASH_DEFAULT and SIGHASH_ALL, the two Hawala builds): the digest, and the signature made
/// with the tweaked key.
@Suite struct TaprootSighashTests {
    struct Vectors: Decodable {
        struct Spent: Decodable { let scriptPubKey: String; let amountSats: UInt64 }
        struct Input: Decodable {
            let txinIndex: Int
            let internalPrivkey: String
            let merkleRoot: String?
            let hashType: UInt8
            let sigHash: String
            let witness: String
        }
        let rawUnsignedTx: String
        let utxosSpent: [Spent]
        let inputs: [Input]
    }

    @Test func bip341KeyPathVectors() throws {
        let url = try #require(Bundle.module.url(forResource: "bip341-keypath", withExtension: "json", subdirectory: "Vectors"))
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        let transaction = try Transaction(bytes: try #require(bytes(fromHex: vectors.rawUnsignedTx)))
        let spent = try vectors.utxosSpent.map { TxOutput(value: $0.amountSats, script: try #require(bytes(fromHex: $0.scriptPubKey))) }
        let sighash = try TaprootSighash(transaction, spent: spent)
        #expect(vectors.inputs.count == 2)
        for input in vectors.inputs {
            let digest = sighash.digest(input: input.txinIndex, hashType: try #require(TaprootSighash.HashType(rawValue: input.hashType)))
            #expect(hexString(digest) == input.sigHash)
            let signature = try Schnorr.signTaprootKeyPath(digest, internalPrivateKey: SecretBytes(try #require(bytes(fromHex: input.internalPrivkey))),
                                                           merkleRoot: input.merkleRoot.flatMap { bytes(fromHex: $0) }, auxiliaryRandom: [UInt8](repeating: 0, count: 32))
            #expect(hexString(signature) + (input.hashType == 0 ? "" : String(format: "%02x", input.hashType)) == input.witness)
        }
        // Fewer spent outputs than inputs: refused, never a digest of a guess.
        #expect(throws: OnChainError.self) { try TaprootSighash(transaction, spent: Array(spent.dropLast())) }
    }
}
