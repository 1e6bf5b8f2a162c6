import Foundation
import HawalaCrypto
import Testing
@testable import HawalaBackup

@Suite("Background writes")
struct BackgroundSinkTests {
    final class FailingStream: ByteSink, @unchecked Sendable {
        var calls = 0
        let failAt: Int
        init(failAt: Int) { self.failAt = failAt }
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            calls += 1
            if calls >= failAt { throw HawalaFileError.io("disk full") }
        }
    }

    @Test func backgroundWritesKeepOrder() throws {
        let memory = MemoryStream()
        let sink = BackgroundSink(memory, depth: 2)
        var expected = [UInt8]()
        for i in 0..<200 {
            let piece = [UInt8](repeating: UInt8(i % 256), count: 1 + i * 37)
            expected += piece
            try piece.withUnsafeBytes { try sink.write($0) }
        }
        try sink.finish()
        #expect(memory.bytes == expected)
    }

    @Test func backgroundWriteErrorsSurface() throws {
        let sink = BackgroundSink(FailingStream(failAt: 2), depth: 1)
        #expect(throws: HawalaFileError.io("disk full")) {
            for _ in 0..<100 { try [UInt8](repeating: 0, count: 10).withUnsafeBytes { try sink.write($0) } }
            try sink.finish()
        }
        #expect(throws: HawalaFileError.io("disk full")) { try sink.finish() }
    }
}
