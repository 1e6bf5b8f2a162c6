import Foundation
import HawalaCrypto

/// The fuzzer's entry point over the parsers people paste into (`make fuzz`,
/// Sources/hawala-fuzz): addresses of every chain, extended keys, mnemonics (and Electrum
/// seeds), derivation paths, imported private keys and BIP21 amounts. Public to the fuzzer and
/// to the seed-replay test only.
@_spi(Fuzzing) public enum KeysFuzzEntry {
    /// Feeds one input; the first byte chooses the target (and, for addresses and imported keys,
    /// the chain). Never throws.
    public static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard let selector = data.first else { return }
        let input = Data(data.dropFirst())
        let text = String(decoding: input, as: UTF8.self)
        let chain = Chain.all[Int(selector / 8) % Chain.all.count]
        switch selector % 8 {
        case 0: _ = try? Address.validate(text, chain: chain)
        case 1: _ = try? ExtendedKey(text)
        case 2: _ = try? Mnemonic(text: text)
        case 3: _ = try? Mnemonic(phrase: SecretBytes(input)); _ = ElectrumSeed.type(of: text)
        case 4: _ = try? DerivationPath(text)
        case 5: _ = try? ImportedPrivateKey(text: SecretBytes(input), chain: chain)
        case 6: _ = try? BIP21.satoshis(text)
        default: _ = try? SLIP39Share(mnemonic: text)
        }
    }
}
