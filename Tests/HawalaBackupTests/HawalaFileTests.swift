import Foundation
import HawalaCrypto
import Testing
@testable import HawalaBackup

let testPassword = SecretBytes(utf8: "backup password 1")

func encrypt(_ payload: [UInt8], password: SecretBytes = testPassword, cost: HawalaKDFCost = .floor) throws -> [UInt8] {
    let sink = MemoryStream()
    let writer = try HawalaFileWriter(sink: sink, password: password, cost: cost, createdAt: Date(timeIntervalSince1970: 1_795_000_000))
    try writer.write(payload)
    try writer.finish()
    return sink.bytes
}

func decrypt(_ file: [UInt8], password: SecretBytes = testPassword) throws -> [UInt8] {
    try HawalaFileReader(source: MemoryStream(file), password: password).readAll(limit: 1 << 24).unsafeCopy()
}

let chunk = HawalaFileHeader.chunkSize
let sealedChunk = HawalaFileHeader.chunkSize + 16
let headerSize = HawalaFileHeader.size

@Suite(".hawala format")
struct HawalaFileTests {
    @Test(arguments: [0, 1, 100, 65535, 65536, 65537, 131072, 200_000])
    func roundTrip(size: Int) throws {
        let payload = SystemRandom.bytes(size)
        let file = try encrypt(payload)
        let chunks = max(1, (size + chunk - 1) / chunk)
        #expect(file.count == headerSize + size + 16 * chunks)
        #expect(try decrypt(file) == payload)
    }

    @Test func writesInPiecesLikeInOne() throws {
        let payload = SystemRandom.bytes(150_000)
        let sink = MemoryStream()
        let writer = try HawalaFileWriter(sink: sink, password: testPassword, cost: .floor)
        var offset = 0
        for piece in [1, 65535, 3, 70000, 14461] {
            try writer.write(Array(payload[offset..<(offset + piece)]))
            offset += piece
        }
        try writer.finish()
        #expect(try decrypt(sink.bytes) == payload)
    }

    @Test func headerIsReadableWithoutPassword() throws {
        let header = try HawalaFileReader.inspect(MemoryStream(try encrypt([1, 2, 3])))
        #expect(header.version == 1 && header.kdfPasses == 2 && header.kdfMemoryKiB == 16384 && header.createdAt == 1_795_000_000)
    }

    @Test func twoFilesOfTheSamePayloadShareNothing() throws {
        let a = try encrypt([7, 7, 7]), b = try encrypt([7, 7, 7])
        #expect(a[22..<38] != b[22..<38] && a[50..<57] != b[50..<57] && a.suffix(19) != b.suffix(19))
    }

    @Test func wrongPassword() throws {
        let file = try encrypt([1, 2, 3])
        #expect(throws: HawalaFileError.wrongPasswordOrDamaged) { try decrypt(file, password: SecretBytes(utf8: "backup password 2")) }
    }

    @Test func writerRefusesParametersNoReaderAccepts() {
        #expect(throws: HawalaFileError.self) { try encrypt([1], cost: HawalaKDFCost(passes: 1, memoryKiB: 16384)) }
        #expect(throws: HawalaFileError.self) { try encrypt([1], cost: HawalaKDFCost(passes: 2, memoryKiB: 8192)) }
    }
}

/// Malformed files after age's testkit categories: each must fail with its clear error, never
/// crash, never release plaintext.
@Suite(".hawala malformed corpus")
struct HawalaCorpusTests {
    static let payload: [UInt8] = Array(0..<200_000).map { UInt8($0 & 0xFF) }  // 3 full chunks + 1 partial
    static let good = try! encrypt(payload)
    static let other = try! encrypt(payload)

    static func set(_ bytes: [UInt8], at offset: Int, _ values: [UInt8]) -> [UInt8] {
        var b = bytes
        b.replaceSubrange(offset..<(offset + values.count), with: values)
        return b
    }

    static func flip(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
        var b = bytes
        b[offset] ^= 0x01
        return b
    }

    enum Expect { case error(HawalaFileError), anyDamage }

    /// (name, file, expected error)
    static var corpus: [(String, [UInt8], Expect)] {
        let g = good
        let c1 = headerSize, c2 = headerSize + sealedChunk, c3 = headerSize + 2 * sealedChunk, c4 = headerSize + 3 * sealedChunk
        var cases: [(String, [UInt8], Expect)] = [
            ("empty", [], .error(.truncatedHeader)),
            ("magic only", Array(g[0..<4]), .error(.truncatedHeader)),
            ("bad magic", set(g, at: 0, Array("HWLB".utf8)), .error(.notHawalaFile)),
            ("age file", Array("age-encryption.org/v1\n".utf8) + g, .error(.notHawalaFile)),
            ("version 0", set(g, at: 4, [0, 0]), .error(.unsupportedVersion(0))),
            ("version 2", set(g, at: 4, [0, 2]), .error(.unsupportedVersion(2))),
            ("version 0xffff", set(g, at: 4, [0xFF, 0xFF]), .error(.unsupportedVersion(0xFFFF))),
            ("flag bit 0", set(g, at: 6, [0, 1]), .error(.unknownFlags(1))),
            ("flag bit 15", set(g, at: 6, [0x80, 0]), .error(.unknownFlags(0x8000))),
            ("kdf id 0", set(g, at: 8, [0]), .anyDamage),
            ("kdf id 2", set(g, at: 8, [2]), .anyDamage),
            ("reserved set", set(g, at: 9, [1]), .anyDamage),
            ("passes zero", set(g, at: 10, be(UInt32(0))), .anyDamage),
            ("passes one (below floor)", set(g, at: 10, be(UInt32(1))), .anyDamage),
            ("passes huge", set(g, at: 10, be(UInt32.max)), .anyDamage),
            ("memory zero", set(g, at: 14, be(UInt32(0))), .anyDamage),
            ("memory below floor", set(g, at: 14, be(UInt32(8192))), .anyDamage),
            ("memory huge", set(g, at: 14, be(UInt32.max)), .anyDamage),
            ("lanes 4", set(g, at: 18, be(UInt32(4))), .anyDamage),
            ("chunk size 1", set(g, at: 46, be(UInt32(1))), .anyDamage),
            ("chunk size huge", set(g, at: 46, be(UInt32.max)), .anyDamage),
            ("passes raised (in bounds)", set(g, at: 10, be(UInt32(3))), .error(.wrongPasswordOrDamaged)),
            ("memory raised (in bounds)", set(g, at: 14, be(UInt32(32768))), .error(.wrongPasswordOrDamaged)),
            ("salt altered", flip(g, at: 22), .error(.wrongPasswordOrDamaged)),
            ("created-at altered", flip(g, at: 45), .error(.wrongPasswordOrDamaged)),
            ("nonce prefix altered", flip(g, at: 50), .error(.wrongPasswordOrDamaged)),
            ("wrap nonce altered", flip(g, at: 57), .error(.wrongPasswordOrDamaged)),
            ("wrapped key altered", flip(g, at: 69), .error(.wrongPasswordOrDamaged)),
            ("wrapped key tag altered", flip(g, at: 116), .error(.wrongPasswordOrDamaged)),
            ("header MAC altered", flip(g, at: 117), .anyDamage),
            ("header MAC last byte altered", flip(g, at: 148), .anyDamage),
            ("header from another file", Array(other[0..<headerSize]) + Array(g[headerSize...]), .anyDamage),
            ("truncated in the header", Array(g[0..<100]), .error(.truncatedHeader)),
            ("header only", Array(g[0..<headerSize]), .anyDamage),
            ("truncated inside chunk 0", Array(g[0..<(c1 + 1000)]), .anyDamage),
            ("truncated to a tag's length", Array(g[0..<(c1 + 10)]), .anyDamage),
            ("truncated at chunk boundary 1", Array(g[0..<c2]), .anyDamage),
            ("truncated at chunk boundary 3", Array(g[0..<c4]), .anyDamage),
            ("truncated inside the final chunk", Array(g.dropLast(1)), .anyDamage),
            ("final tag missing", Array(g.dropLast(16)), .anyDamage),
            ("chunk 0 ciphertext altered", flip(g, at: c1 + 5), .anyDamage),
            ("chunk 1 tag altered", flip(g, at: c3 - 1), .anyDamage),
            ("final chunk altered", flip(g, at: g.count - 20), .anyDamage),
            ("chunks 1 and 2 swapped", Array(g[0..<c2]) + Array(g[c3..<c4]) + Array(g[c2..<c3]) + Array(g[c4...]), .anyDamage),
            ("chunk 1 duplicated", Array(g[0..<c3]) + Array(g[c2..<c3]) + Array(g[c3...]), .anyDamage),
            ("chunk 1 dropped", Array(g[0..<c2]) + Array(g[c3...]), .anyDamage),
            ("chunk from another file", Array(g[0..<c2]) + Array(other[c2..<c3]) + Array(g[c3...]), .anyDamage),
            ("trailing byte", g + [0], .anyDamage),
            ("trailing chunk-sized garbage", g + SystemRandom.bytes(sealedChunk), .anyDamage),
            ("second final chunk", g + Array(g[c4...]), .anyDamage),
        ]
        // An empty final chunk after a full one: the full chunk re-sealed as non-final needs the
        // key, so build it with a writer that is told the payload ended on a boundary.
        cases.append(("empty final chunk", emptyFinalChunkFile(), .error(.damaged("empty final chunk"))))
        return cases
    }

    /// A file whose last chunk is an empty final chunk after one full chunk (a writer bug the
    /// reader must refuse).
    static func emptyFinalChunkFile() -> [UInt8] {
        let sink = MemoryStream()
        let writer = try! HawalaFileWriter(sink: sink, password: testPassword, cost: .floor)
        try! writer.write([UInt8](repeating: 1, count: chunk))
        try! writer.write([UInt8](repeating: 1, count: 1))  // forces chunk 0 out as non-final
        try! writer.finish()
        // Replace the 1-byte final chunk with an empty final chunk sealed with the same key.
        var bytes = sink.bytes
        bytes.removeLast(17)
        bytes += writer.sealEmptyFinalChunkForTesting(counter: 1)
        return bytes
    }

    @Test func corpusHasAtLeastFortyCases() {
        #expect(Self.corpus.count >= 40)
    }

    @Test func everyCaseFailsClearly() throws {
        #expect(try decrypt(Self.good) == Self.payload)
        for (name, file, expected) in Self.corpus {
            do {
                let plain = try decrypt(file)
                Issue.record("\(name): decrypted \(plain.count) bytes")
            } catch let error as HawalaFileError {
                switch expected {
                case .error(let e): #expect(error == e, "\(name): \(error)")
                case .anyDamage: #expect(!error.description.isEmpty, "\(name)")
                }
                #expect(!error.description.contains("\n"), "\(name): one line")
            } catch {
                Issue.record("\(name): unexpected error type \(error)")
            }
        }
    }

    /// A 40-chunk file round-trips from odd-sized writes (partial chunks topped up, whole ones
    /// sealed in place); a damaged chunk deep inside releases exactly the chunks before it, then its error.
    @Test func manyChunksKeepOrderAndErrors() throws {
        let payload = SystemRandom.bytes(40 * chunk + 123)
        let sink = MemoryStream()
        let writer = try HawalaFileWriter(sink: sink, password: testPassword, cost: .floor)
        var offset = 0
        for piece in [1, 3 * chunk + 7, 17 * chunk, 5, 2 * chunk - 12, 700_000] where offset < payload.count {
            let end = min(payload.count, offset + piece)
            try writer.write(Array(payload[offset..<end]))
            offset = end
        }
        try writer.write(Array(payload[offset...]))
        try writer.finish()
        let file = sink.bytes
        #expect(try decrypt(file) == payload)

        for (damaged, expected) in [(20, "chunk 20 failed authentication"), (16, "chunk 16 failed authentication"), (33, "chunk 33 failed authentication")] {
            let reader = try HawalaFileReader(source: MemoryStream(Self.flip(file, at: headerSize + damaged * sealedChunk + 9)), password: testPassword)
            for i in 0..<damaged {
                #expect(try reader.nextChunk()?.unsafeCopy() == Array(payload[(i * chunk)..<((i + 1) * chunk)]), "chunk \(i)")
            }
            #expect(throws: HawalaFileError.damaged(expected)) { try reader.nextChunk() }
        }
        let swapped = Array(file[0..<(headerSize + 25 * sealedChunk)]) + Array(file[(headerSize + 26 * sealedChunk)..<(headerSize + 27 * sealedChunk)])
            + Array(file[(headerSize + 25 * sealedChunk)..<(headerSize + 26 * sealedChunk)]) + Array(file[(headerSize + 27 * sealedChunk)...])
        #expect(throws: HawalaFileError.damaged("chunk 25 failed authentication")) { try decrypt(swapped) }
        #expect(throws: HawalaFileError.damaged("chunk 29 failed authentication (altered, or the file is truncated)")) {
            try decrypt(Array(file[0..<(headerSize + 30 * sealedChunk)]))
        }
    }

    @Test func noPlaintextFromAFailedChunk() throws {
        let file = Self.flip(Self.good, at: headerSize + sealedChunk + 5)  // chunk 1 altered
        let reader = try HawalaFileReader(source: MemoryStream(file), password: testPassword)
        #expect(try reader.nextChunk()?.unsafeCopy() == Array(Self.payload[0..<chunk]))
        #expect(throws: HawalaFileError.self) { try reader.nextChunk() }
    }
}
