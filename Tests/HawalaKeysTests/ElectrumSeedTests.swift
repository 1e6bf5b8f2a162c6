import Foundation
import Testing
@testable import HawalaKeys

/// Electrum's own seed phrases are recognised (cross-checked with PyPI's bip-utils, see
/// scripts/gen_electrum_vectors.py) and refused as BIP39 with a message that says what they are.
@Suite("Electrum seeds")
struct ElectrumSeedTests {
    struct Vectors: Decodable {
        struct Seed: Decodable { let phrase: String; let type: String }
        let electrum: [Seed]
        let bip39: [String]
    }

    @Test func everyTypeIsRecognisedAndRefusedAsBIP39() throws {
        let vectors = try loadVectors("electrum-seeds", as: Vectors.self)
        #expect(Set(vectors.electrum.map(\.type)) == Set(ElectrumSeed.allCases.map(\.rawValue)))
        for seed in vectors.electrum {
            #expect(ElectrumSeed.type(of: seed.phrase)?.rawValue == seed.type, "\(seed.phrase)")
            // Electrum's normalisation: case and spacing don't matter.
            let sloppy = "  " + seed.phrase.uppercased().replacingOccurrences(of: " ", with: "   ") + "\n"
            #expect(ElectrumSeed.type(of: sloppy)?.rawValue == seed.type)
            #expect(throws: MnemonicError.electrumSeed(ElectrumSeed(rawValue: seed.type)!)) { try Mnemonic(text: seed.phrase) }
        }
        let refusal = MnemonicError.electrumSeed(.segwit).description
        #expect(refusal.contains("Electrum seed (segwit), not BIP39") && refusal.contains("restore it in Electrum"), "\(refusal)")
    }

    @Test func bip39PhrasesAreNotTakenForElectrumSeeds() throws {
        for phrase in try loadVectors("electrum-seeds", as: Vectors.self).bip39 {
            #expect(throws: Never.self) { try Mnemonic(text: phrase) }
        }
        // A BIP39 phrase with a wrong word still reports the checksum, unless it happens to
        // carry an Electrum version (about 1 in 240): count those over many tries.
        var electrumByChance = 0
        for i in 0..<2_000 {
            var words = try Mnemonic.generate(wordCount: 12).words
            words[i % 12] = words[(i + 1) % 12] == "zoo" ? "abandon" : "zoo"
            do { _ = try Mnemonic(text: words.joined(separator: " ")) } catch MnemonicError.electrumSeed { electrumByChance += 1 } catch {}
        }
        #expect(electrumByChance < 40, "\(electrumByChance) of 2,000 random phrases taken for Electrum seeds")
    }

    @Test func normalization() {
        #expect(ElectrumSeed.normalize("  Ábaco   Bebé\tcafé ") == "abaco bebe cafe")
        #expect(ElectrumSeed.normalize("丘 烃 配") == "丘烃配")
        #expect(ElectrumSeed.normalize("a 丘 b") == "a 丘 b")
    }
}
