import Foundation
@_spi(Fuzzing) import HawalaLightning
import Testing

/// Replays the fuzzer's committed Lightning seeds (fuzz/seeds/ln-*) through the entry point
/// `make fuzz` drives.
@Suite("Lightning fuzz seeds")
struct LightningFuzzSeedTests {
    @Test func everySeedRunsCleanly() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fuzz/seeds").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: seeds.path).filter { $0.hasPrefix("ln-") }
        #expect(files.count >= 7)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: seeds.appendingPathComponent(file)))
            bytes.withUnsafeBufferPointer { LightningFuzzEntry.run($0) }
        }
    }
}
