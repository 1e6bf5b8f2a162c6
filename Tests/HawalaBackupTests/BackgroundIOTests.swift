import Foundation
import HawalaCrypto
import Testing
@testable import HawalaBackup

@Suite("Background reads and writes")
struct BackgroundIOTests {
    final class FailingStream: ByteSink, ByteSource, @unchecked Sendable {
        var calls = 0
        let failAt: Int
        init(failAt: Int) { self.failAt = failAt }
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            calls += 1
            if calls >= failAt { throw HawalaFileError.io("disk full") }
        }
        func read(_ count: Int) throws -> [UInt8] {
            calls += 1
            if calls >= failAt { throw HawalaFileError.io("read error") }
            return [UInt8](repeating: UInt8(calls), count: count)
        }
    }

    @Test func readAheadGivesTheSameBytesInAnyPieces() throws {
        let data = SystemRandom.bytes(3 * (1 << 20) + 12345)
        let source = ReadAheadSource(MemoryStream(data), blockSize: 1 << 20, depth: 2)
        var got = [UInt8]()
        for count in [1, 149, 65552, 1 << 20, 3, 2 * (1 << 20)] { got += try source.read(count) }
        #expect(got == data)
        #expect(try source.read(10).isEmpty)
        source.finish()
    }

    @Test func readAheadErrorsComeAfterTheDataBeforeThem() throws {
        let source = ReadAheadSource(FailingStream(failAt: 3), blockSize: 1000, depth: 4)
        #expect(try source.read(2000).count == 2000)
        #expect(throws: HawalaFileError.io("read error")) { try source.read(1) }
        source.finish()
    }

    @Test func stoppingEarlyEndsTheThread() throws {
        let source = ReadAheadSource(MemoryStream(SystemRandom.bytes(10 << 20)), blockSize: 1 << 16, depth: 2)
        _ = try source.read(5)
        source.finish()  // returns: the thread stopped while the source still had data
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
