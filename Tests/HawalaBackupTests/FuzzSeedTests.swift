import Foundation
@_spi(Fuzzing) import HawalaBackup
import Testing

/// Replays the fuzzer's committed seeds and fixed crash inputs (fuzz/seeds) through the same
/// entry point `make fuzz` drives.
@Suite("Fuzz seeds")
struct FuzzSeedTests {
    @Test func everySeedRunsCleanly() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fuzz/seeds").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: seeds.path).filter { !$0.hasPrefix(".") }
        #expect(files.count >= 5)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: seeds.appendingPathComponent(file)))
            bytes.withUnsafeBufferPointer { FuzzEntry.run($0) }
        }
    }
}
