import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaText

/// Errors reading or writing a `.hawala` file, each one line a person can act on.
public enum HawalaFileError: Error, Equatable, CustomStringConvertible {
    case truncatedHeader
    case notHawalaFile
    case unsupportedVersion(UInt16)
    case unknownFlags(UInt16)
    case invalidHeader(String)
    case invalidKDFParameters(String)
    /// The wrapped key did not open: the password is wrong or the header was changed.
    case wrongPasswordOrDamaged
    case damaged(String)
    case invalidPayload(String)
    /// The file to write is already there; nothing was replaced.
    case exists(path: String)
    case io(String)

    public var description: String {
        switch self {
        case .truncatedHeader: "damaged file: the header is truncated"
        case .notHawalaFile: "not a .hawala file"
        case .unsupportedVersion(let v): "unsupported .hawala version \(v) (this Hawala reads version \(HawalaFileHeader.currentVersion))"
        case .unknownFlags(let f): String(format: "unsupported .hawala file: unknown flags 0x%04x", f)
        case .invalidHeader(let why): "damaged file: \(why)"
        case .invalidKDFParameters(let why): "refused: the file's key-derivation parameters are out of bounds (\(why))"
        case .wrongPasswordOrDamaged: "wrong password or damaged file"
        case .damaged(let why): "damaged file: \(why)"
        case .invalidPayload(let why): "damaged file: \(why)"
        case .exists(let path): "\(path) already exists; choose another name"
        case .io(let why): why
        }
    }
}

/// The fixed 149-byte header of a `.hawala` file (docs/hawala-format.md).
public struct HawalaFileHeader: Sendable, Equatable {
    public static let magic = HawalaFormat.magic
    public static let currentVersion = HawalaFormat.currentVersion
    public static let size = HawalaFormat.headerSize
    public static let chunkSize = HawalaFormat.chunkSize
    /// Bytes covered by the wrapped key's associated data.
    static let wrapADSize = 69
    /// Bytes covered by the header MAC.
    static let macInputSize = 117

    /// Argon2id bounds a reader accepts (checked before any key derivation).
    public static let passBounds: ClosedRange<UInt32> = 2...10
    public static let memoryBoundsKiB: ClosedRange<UInt32> = 16 * 1024 ... 1024 * 1024

    public var version: UInt16 = currentVersion
    public var flags: UInt16 = 0
    public var kdfPasses: UInt32
    public var kdfMemoryKiB: UInt32
    public var salt: [UInt8]
    public var createdAt: UInt64
    public var noncePrefix: [UInt8]
    public var wrapNonce: [UInt8]
    public var wrappedKey: [UInt8]
    public var mac: [UInt8]

    /// The header bytes.
    public func serialized() -> [UInt8] {
        var out = HawalaFileHeader.magic
        out += be(version) + be(flags) + [1, 0] + be(kdfPasses) + be(kdfMemoryKiB) + be(UInt32(1))
        out += salt + be(createdAt) + be(UInt32(HawalaFileHeader.chunkSize)) + noncePrefix + wrapNonce + wrappedKey + mac
        return out
    }

    /// Parses and checks everything that can be checked without the password (steps 1–5 of
    /// the format's reader checks).
    public static func parse(_ bytes: [UInt8]) throws -> HawalaFileHeader {
        if bytes.count >= 4 && Array(bytes[0..<4]) != magic { throw HawalaFileError.notHawalaFile }
        guard bytes.count >= size else { throw HawalaFileError.truncatedHeader }
        let version = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        guard version == currentVersion else { throw HawalaFileError.unsupportedVersion(version) }
        let flags = UInt16(bytes[6]) << 8 | UInt16(bytes[7])
        guard flags == 0 else { throw HawalaFileError.unknownFlags(flags) }
        guard bytes[8] == 1 else { throw HawalaFileError.invalidHeader("unknown key-derivation function \(bytes[8])") }
        guard bytes[9] == 0 else { throw HawalaFileError.invalidHeader("reserved byte is not zero") }
        let passes = u32(bytes, 10), memory = u32(bytes, 14), lanes = u32(bytes, 18)
        guard passBounds.contains(passes) else { throw HawalaFileError.invalidKDFParameters("\(passes) passes; accepted 2–10") }
        guard memoryBoundsKiB.contains(memory) else { throw HawalaFileError.invalidKDFParameters("\(memory) KiB of memory; accepted 16–1024 MiB") }
        guard lanes == 1 else { throw HawalaFileError.invalidKDFParameters("\(lanes) lanes; accepted 1") }
        let chunk = u32(bytes, 46)
        guard chunk == UInt32(chunkSize) else { throw HawalaFileError.invalidHeader("chunk size \(chunk); expected \(chunkSize)") }
        var created: UInt64 = 0
        for b in bytes[38..<46] { created = created << 8 | UInt64(b) }
        return HawalaFileHeader(
            version: version, flags: flags, kdfPasses: passes, kdfMemoryKiB: memory,
            salt: Array(bytes[22..<38]), createdAt: created, noncePrefix: Array(bytes[50..<57]),
            wrapNonce: Array(bytes[57..<69]), wrappedKey: Array(bytes[69..<117]), mac: Array(bytes[117..<149]))
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}

func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// Argon2id cost of a new file.
public struct HawalaKDFCost: Sendable, Equatable {
    public let passes: UInt32
    public let memoryKiB: UInt32
    /// Hawala's default for exports: 256 MiB, 3 passes.
    public static let `default` = HawalaKDFCost(passes: 3, memoryKiB: 256 * 1024)
    /// The lowest cost a reader accepts (for tests and small devices).
    public static let floor = HawalaKDFCost(passes: 2, memoryKiB: 16 * 1024)

    public init(passes: UInt32, memoryKiB: UInt32) {
        self.passes = passes
        self.memoryKiB = memoryKiB
    }

    /// "Argon2id, 256 MiB, 3 passes": what a person reads about the cost.
    public var description: String { "Argon2id, \(memoryKiB / 1024) MiB, \(passes) passes" }
}

/// Key schedule shared by the writer and the reader.
enum HawalaKeys {
    static func kek(password: SecretBytes, salt: [UInt8], passes: UInt32, memoryKiB: UInt32) throws -> SecretBytes {
        do {
            return try Sodium.argon2id(password: password, salt: salt, opsLimit: Int(passes), memLimitBytes: Int(memoryKiB) * 1024)
        } catch {
            throw HawalaFileError.io("key derivation failed (not enough memory?)")
        }
    }

    static func payloadKey(_ fileKey: SecretBytes) -> SecretBytes {
        Hash.hkdfSHA256(fileKey, salt: [], info: Array("hawala payload v1".utf8), length: 32)
    }

    static func headerMAC(_ fileKey: SecretBytes, _ header: ArraySlice<UInt8>) -> [UInt8] {
        let key = Hash.hkdfSHA256(fileKey, salt: [], info: Array("hawala header mac v1".utf8), length: 32)
        return Hash.hmacSHA256(key: key, header)
    }

    /// prefix (7) ‖ counter (4) ‖ last (1).
    static func chunkNonce(prefix: [UInt8], counter: UInt32, last: Bool) -> [UInt8] {
        prefix + be(counter) + [last ? 1 : 0]
    }
}

extension HawalaFileHeader {
    /// `{version, flags, kdf: {name, passes, memoryKiB}, createdAt, chunkSize, sizeBytes}`
    /// (`hawala backup inspect --json`); `sizeBytes` is the file's.
    public func json(sizeBytes: Int) -> JSONValue {
        .object([
            ("version", .int(Int(version))),
            ("flags", .int(Int(flags))),
            ("kdf", .object([("name", .string("argon2id")), ("passes", .int(Int(kdfPasses))), ("memoryKiB", .int(Int(kdfMemoryKiB)))])),
            ("createdAt", .string(Date(timeIntervalSince1970: TimeInterval(createdAt)).iso8601)),
            ("chunkSize", .int(HawalaFileHeader.chunkSize)),
            ("sizeBytes", .int(sizeBytes)),
        ])
    }
}
