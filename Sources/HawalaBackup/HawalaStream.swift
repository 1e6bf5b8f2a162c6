import Foundation
import HawalaCrypto

/// Where encrypted or decrypted bytes go.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Where bytes come from. `read` returns fewer than `count` bytes only at the end.
public protocol ByteSource: AnyObject {
    func read(_ count: Int) throws -> [UInt8]
}

/// A file descriptor as a sink or a source (POSIX read/write, retrying short transfers).
public final class FileDescriptorStream: ByteSink, ByteSource {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw HawalaFileError.io("cannot write: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    public func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HawalaFileError.io("cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        if filled < count { out.removeLast(count - filled) }
        return out
    }
}

/// Bytes in memory as a sink or a source (tests, small payloads).
public final class MemoryStream: ByteSink, ByteSource {
    public private(set) var bytes: [UInt8]
    private var position = 0
    public init(_ bytes: [UInt8] = []) { self.bytes = bytes }
    public func write(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }
    public func read(_ count: Int) throws -> [UInt8] {
        let end = min(bytes.count, position + count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
}

/// Encrypts a payload into the `.hawala` format, streaming: memory stays at about two chunks
/// whatever the payload size.
public final class HawalaFileWriter {
    public let header: HawalaFileHeader
    private let sink: ByteSink
    private let payloadKey: SecretBytes
    private var pending: [UInt8] = []
    private var counter: UInt32 = 0
    private var finished = false

    /// Writes the header at once (one Argon2id run).
    public convenience init(sink: ByteSink, password: SecretBytes, cost: HawalaKDFCost = .default, createdAt: Date = Date()) throws {
        try self.init(sink: sink, key: try BackupKey.derive(password: password, cost: cost), createdAt: createdAt)
    }

    /// Writes the header at once with a key derived earlier (no Argon2id run): the file opens
    /// with the password `key` came from.
    public init(sink: ByteSink, key: BackupKey, createdAt: Date = Date()) throws {
        self.sink = sink
        let fileKey = SystemRandom.secret(count: 32)
        var header = HawalaFileHeader(
            kdfPasses: key.cost.passes, kdfMemoryKiB: key.cost.memoryKiB, salt: key.salt,
            createdAt: UInt64(max(0, createdAt.timeIntervalSince1970)), noncePrefix: SystemRandom.bytes(7),
            wrapNonce: AESGCM.randomNonce(), wrappedKey: [UInt8](repeating: 0, count: 48), mac: [UInt8](repeating: 0, count: 32))
        let ad = Array(header.serialized()[0..<HawalaFileHeader.wrapADSize])
        header.wrappedKey = try fileKey.withUnsafeBytes { try AESGCM.seal($0, key: key.kek, nonce: header.wrapNonce, associatedData: ad) }
        header.mac = HawalaKeys.headerMAC(fileKey, header.serialized()[0..<HawalaFileHeader.macInputSize])
        self.header = header
        payloadKey = HawalaKeys.payloadKey(fileKey)
        pending.reserveCapacity(2 * HawalaFileHeader.chunkSize)
        try header.serialized().withUnsafeBytes { try sink.write($0) }
    }

    /// Adds payload bytes; full chunks are written as soon as more data follows them.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "write after finish")
        let size = HawalaFileHeader.chunkSize
        var input = bytes
        // Top up a partial chunk first; whole chunks are then sealed straight from `bytes`.
        if !pending.isEmpty {
            let take = min(size - pending.count, input.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[..<take]))
            input = UnsafeRawBufferPointer(rebasing: input[take...])
            guard !input.isEmpty else { return }  // the chunk may be the last: wait for more
            try pending.withUnsafeBytes { try emit($0, last: false) }
            SecretBytes.wipe(&pending)
            pending.removeAll(keepingCapacity: true)
        }
        while input.count > size {
            try emit(UnsafeRawBufferPointer(rebasing: input[..<size]), last: false)
            input = UnsafeRawBufferPointer(rebasing: input[size...])
        }
        pending.append(contentsOf: input)
    }

    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    /// Writes the final chunk (empty only when the whole payload is).
    public func finish() throws {
        precondition(!finished, "finish twice")
        try pending.withUnsafeBytes { try emit($0, last: true) }
        SecretBytes.wipe(&pending)
        finished = true
    }

    /// An empty final chunk at `counter`, sealed under this file's key — for the malformed-file
    /// corpus only (a correct writer never emits one after other chunks).
    func sealEmptyFinalChunkForTesting(counter: UInt32) -> [UInt8] {
        let nonce = HawalaKeys.chunkNonce(prefix: header.noncePrefix, counter: counter, last: true)
        return try! AESGCM.seal([UInt8](), key: payloadKey, nonce: nonce, associatedData: header.mac)
    }

    private func emit(_ chunk: UnsafeRawBufferPointer, last: Bool) throws {
        guard counter < UInt32.max else { throw HawalaFileError.io("payload too large for one .hawala file") }
        let nonce = HawalaKeys.chunkNonce(prefix: header.noncePrefix, counter: counter, last: last)
        try AESGCM.seal(chunk, key: payloadKey, nonce: nonce, associatedData: header.mac) { try sink.write($0) }
        counter += 1
    }
}

/// Decrypts a `.hawala` file chunk by chunk, releasing only authenticated plaintext.
public final class HawalaFileReader {
    public let header: HawalaFileHeader
    private let source: ByteSource
    private let payloadKey: SecretBytes
    private var counter: UInt32 = 0
    private var lookahead: [UInt8]?
    private var finished = false
    private static let sealedChunkSize = HawalaFileHeader.chunkSize + AESGCM.tagLength

    /// Reads the header only: no password, no key derivation (`backup inspect`).
    public static func inspect(_ source: ByteSource) throws -> HawalaFileHeader {
        try HawalaFileHeader.parse(try source.read(HawalaFileHeader.size))
    }

    /// Checks the header, derives the key (one Argon2id run) and opens the file key.
    /// - Throws: `HawalaFileError` — `.wrongPasswordOrDamaged` when the key does not open.
    public convenience init(source: ByteSource, password: SecretBytes) throws {
        try self.init(source: source) { header in
            try HawalaKeys.kek(password: password, salt: header.salt, passes: header.kdfPasses, memoryKiB: header.kdfMemoryKiB)
        }
    }

    /// Opens a file written with `key` (same salt and cost) without running Argon2id.
    /// - Throws: `.wrongPasswordOrDamaged` when the file was sealed under another key.
    public convenience init(source: ByteSource, key: BackupKey) throws {
        try self.init(source: source) { header in
            guard header.salt == key.salt, header.kdfPasses == key.cost.passes, header.kdfMemoryKiB == key.cost.memoryKiB else {
                throw HawalaFileError.wrongPasswordOrDamaged
            }
            return key.kek
        }
    }

    /// For the fuzzer: the key-encryption key given directly, so each input skips Argon2id.
    @_spi(Fuzzing) public convenience init(source: ByteSource, keyEncryptionKey: SecretBytes) throws {
        try self.init(source: source) { _ in keyEncryptionKey }
    }

    /// For the fuzzer: the key-encryption key `password` gives with `header`'s parameters.
    @_spi(Fuzzing) public static func keyEncryptionKey(password: SecretBytes, header: HawalaFileHeader) throws -> SecretBytes {
        try HawalaKeys.kek(password: password, salt: header.salt, passes: header.kdfPasses, memoryKiB: header.kdfMemoryKiB)
    }

    private init(source: ByteSource, kek deriveKEK: (HawalaFileHeader) throws -> SecretBytes) throws {
        self.source = source
        let bytes = try source.read(HawalaFileHeader.size)
        let header = try HawalaFileHeader.parse(bytes)
        let kek = try deriveKEK(header)
        let fileKey: SecretBytes
        do {
            fileKey = try AESGCM.open(header.wrappedKey, key: kek, nonce: header.wrapNonce, associatedData: Array(bytes[0..<HawalaFileHeader.wrapADSize]))
        } catch {
            throw HawalaFileError.wrongPasswordOrDamaged
        }
        guard fileKey.count == 32 else { throw HawalaFileError.wrongPasswordOrDamaged }
        let mac = HawalaKeys.headerMAC(fileKey, bytes[0..<HawalaFileHeader.macInputSize])
        guard SecretBytes(mac) == SecretBytes(header.mac) else { throw HawalaFileError.damaged("the header failed authentication") }
        self.header = header
        payloadKey = HawalaKeys.payloadKey(fileKey)
    }

    /// The next chunk's plaintext, or nil after the final chunk.
    public func nextChunk() throws -> SecretBytes? {
        if finished { return nil }
        let current = try lookahead ?? source.read(HawalaFileReader.sealedChunkSize)
        guard !current.isEmpty else {
            throw HawalaFileError.damaged(counter == 0 ? "no payload after the header" : "the final chunk is missing (file truncated)")
        }
        guard current.count >= AESGCM.tagLength else { throw HawalaFileError.damaged("chunk \(counter) is truncated") }
        let next = current.count == HawalaFileReader.sealedChunkSize ? try source.read(HawalaFileReader.sealedChunkSize) : []
        let isLast = next.isEmpty
        let plain: SecretBytes
        do {
            plain = try AESGCM.open(current, key: payloadKey, nonce: nonce(last: isLast), associatedData: header.mac)
        } catch {
            if !isLast, (try? AESGCM.open(current, key: payloadKey, nonce: nonce(last: true), associatedData: header.mac)) != nil {
                throw HawalaFileError.damaged("data after the final chunk")
            }
            throw HawalaFileError.damaged(isLast
                ? "chunk \(counter) failed authentication (altered, or the file is truncated)"
                : "chunk \(counter) failed authentication")
        }
        if isLast && plain.isEmpty && counter > 0 { throw HawalaFileError.damaged("empty final chunk") }
        guard counter < UInt32.max else { throw HawalaFileError.damaged("too many chunks") }
        counter += 1
        lookahead = next
        finished = isLast
        return plain
    }

    /// The whole payload, released only once the final chunk authenticated. For small payloads
    /// (wallet JSON); `limit` bounds what a hostile file can make us hold.
    public func readAll(limit: Int) throws -> SecretBytes {
        var parts: [SecretBytes] = []
        var total = 0
        while let chunk = try nextChunk() {
            total += chunk.count
            guard total <= limit else { throw HawalaFileError.invalidPayload("the payload is larger than \(limit) bytes") }
            parts.append(chunk)
        }
        return SecretBytes(count: total) { out in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { out.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(out.baseAddress!), byteCount: $0.count) }
                offset += part.count
            }
        }
    }

    private func nonce(last: Bool) -> [UInt8] {
        HawalaKeys.chunkNonce(prefix: header.noncePrefix, counter: counter, last: last)
    }
}

extension SecretBytes {
    /// Wipes `range` of an array (best effort for temporaries).
    static func wipe(_ bytes: inout [UInt8], range: Range<Int>) {
        bytes.withUnsafeMutableBytes { raw in
            for i in range { raw[i] = 0 }
        }
    }
}

/// A backup password's key-encryption key, derived once with its salt and cost, so later
/// files can be sealed without the password — the vault agent's snapshots. Every file sealed
/// with it shares the salt (each still has its own random file key and nonces) and opens with
/// the password alone.
public struct BackupKey: Sendable {
    public let kek: SecretBytes
    public let salt: [UInt8]
    public let cost: HawalaKDFCost

    /// Derives the key (one Argon2id run) under a new random salt.
    public static func derive(password: SecretBytes, cost: HawalaKDFCost = .default) throws -> BackupKey {
        // Refuse to write what no reader would accept.
        guard HawalaFileHeader.passBounds.contains(cost.passes), HawalaFileHeader.memoryBoundsKiB.contains(cost.memoryKiB) else {
            throw HawalaFileError.invalidKDFParameters("\(cost.passes) passes, \(cost.memoryKiB) KiB")
        }
        let salt = SystemRandom.bytes(16)
        return try BackupKey(kek: try HawalaKeys.kek(password: password, salt: salt, passes: cost.passes, memoryKiB: cost.memoryKiB), salt: salt, cost: cost)
    }

    /// A key kept earlier (checked for shape and bounds).
    public init(kek: SecretBytes, salt: [UInt8], cost: HawalaKDFCost) throws {
        guard kek.count == 32, salt.count == 16, HawalaFileHeader.passBounds.contains(cost.passes),
              HawalaFileHeader.memoryBoundsKiB.contains(cost.memoryKiB) else {
            throw HawalaFileError.invalidKDFParameters("a saved backup key of the wrong shape")
        }
        self.kek = kek
        self.salt = salt
        self.cost = cost
    }
}
