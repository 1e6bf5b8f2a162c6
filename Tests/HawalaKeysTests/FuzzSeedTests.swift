import Foundation
@_spi(Fuzzing) import HawalaKeys
import Testing

/// Replays the fuzzer's committed seeds for the parsers people paste into (fuzz/seeds/keys-*)
/// through the entry point `make fuzz` drives: every chain's address, extended keys, mnemonics,
/// paths, imported keys, BIP21 amounts, SLIP-39 shares.
@Suite("Keys fuzz seeds")
struct KeysFuzzSeedTests {
    @Test func everySeedRunsCleanly() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fuzz/seeds").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: seeds.path).filter { $0.hasPrefix("keys-") }
        #expect(files.filter { $0.hasPrefix("keys-address-") }.count == Chain.all.count, "a seed for every chain's addresses")
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: seeds.appendingPathComponent(file)))
            bytes.withUnsafeBufferPointer { KeysFuzzEntry.run($0) }
        }
    }
}
