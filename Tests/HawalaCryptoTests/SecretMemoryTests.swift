import Foundation
import HawalaCrypto
import Testing

/// Issue 39, item 14: a secret's memory is left out of core dumps (and locked where the limit
/// allows), and a process that held one makes no core file at all.
@Suite("Secrets out of core dumps")
struct SecretMemoryTests {
    /// The VmFlags of the mapping holding `address`, from /proc/self/smaps (Linux).
    static func flags(of address: UInt) throws -> [String]? {
        // Read whole: a /proc file says it is empty, and a read by its size stops at one page.
        let smaps = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
               let start = UInt(line[..<dash], radix: 16), let end = UInt(line[line.index(after: dash)..<space], radix: 16) {
                inside = (start..<end).contains(address)
            } else if inside, line.hasPrefix("VmFlags:") {
                return line.dropFirst("VmFlags:".count).split(separator: " ").map(String.init)
            }
        }
        return nil
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/smaps")))
    func secretPagesAreLeftOutOfCoreDumps() throws {
        let secret = SecretBytes(Array("correct horse battery staple".utf8))
        let address = secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let flags = try #require(try Self.flags(of: address), "no mapping holds the secret")
        #expect(flags.contains("dd"), "MADV_DONTDUMP: \(flags)")
        // A plain heap allocation is dumped: the check above can fail.
        let plain = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { plain.deallocate() }
        #expect(try Self.flags(of: UInt(bitPattern: plain)).map { !$0.contains("dd") } == true)
        #expect(address % 16 == 0, "aligned for any load")
        #expect(SecretMemory.isProcessProtected && !SecretMemory.isDumpable, "a process holding a secret makes no core file")
    }

    @Test func secretsStillBehave() throws {
        for count in [0, 1, 15, 16, 17, 4095, 4096, 70_000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let secret = SecretBytes(bytes)
            #expect(secret.count == count && secret.unsafeCopy() == bytes && secret == SecretBytes(bytes))
            #expect(secret.slice(0..<count / 2).unsafeCopy() == Array(bytes.prefix(count / 2)))
        }
        #expect(throws: CancellationError.self) { _ = try SecretBytes(count: 8) { _ in throw CancellationError() } }
    }
}
