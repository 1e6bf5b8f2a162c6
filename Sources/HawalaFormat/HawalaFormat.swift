/// The `.hawala` backup file's fixed identity (docs/hawala-format.md), key-free: what the backup
/// code writes and reads, and what the vault server (which can't open a file) recognises it by.
public enum HawalaFormat {
    /// The first four bytes of every `.hawala` file.
    public static let magic: [UInt8] = Array("HWLA".utf8)
    /// The version this build writes and reads (big-endian `UInt16` after the magic).
    public static let currentVersion: UInt16 = 1
    /// Bytes of the fixed header.
    public static let headerSize = 149
    /// Plaintext bytes per sealed chunk.
    public static let chunkSize = 65536
    /// The `encryptionMethod` the vault records for a `.hawala` file; anything else is "opaque".
    public static let encryptionMethod = "hawala-v1"
    /// The largest payload a `.hawala` file holds (256 MiB: a backup of 100,000 payments is
    /// about 80 MB).
    public static let maximumPayloadBytes = 256 << 20
    /// The largest `.hawala` file read, from a disk, an upload or a vault: the largest payload,
    /// sealed (the header and a 16-byte tag a chunk).
    public static let maximumFileBytes = headerSize + maximumPayloadBytes + (maximumPayloadBytes / chunkSize + 1) * 16

    /// Whether `bytes` start like a `.hawala` file (the magic; nothing is verified).
    public static func looksLikeHawalaFile<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.starts(with: magic)
    }
}
