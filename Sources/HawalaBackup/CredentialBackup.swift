import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaKeys
import HawalaWallet

/// An opaque credential blob encrypted under a key derived with Argon2id from a fresh 24-word
/// BIP39 recovery phrase (seed 001), in a small versioned, authenticated envelope:
///
/// ```
/// "HWCB" ‖ version u16 (1) ‖ kdf u8 (1 = Argon2id) ‖ reserved u8 (0) ‖ passes u32 ‖ memory KiB u32
///        ‖ salt (16) ‖ nonce (12) ‖ AES-256-GCM ciphertext ‖ tag (16)
/// ```
///
/// Everything before the ciphertext is the associated data, so no field can be changed. The key
/// is Argon2id over the phrase's NFKD words joined by spaces. Bounds are checked before the KDF.
public enum CredentialEnvelope {
    public static let magic: [UInt8] = Array("HWCB".utf8)
    public static let version: UInt16 = 1
    static let headerSize = CredentialEnvelopeFormat.headerSize
    /// The largest blob sealed (64 KiB: `CredentialEnvelopeFormat.maximumCredentialBytes` says why).
    public static let maximumBlobBytes = CredentialEnvelopeFormat.maximumCredentialBytes
    /// 64 MiB, 3 passes: the phrase carries 256 bits, the KDF only slows a stolen envelope further.
    public static let defaultCost = HawalaKDFCost(passes: 3, memoryKiB: 64 * 1024)
    /// A recovery phrase has 24 words (256 bits).
    public static let phraseWordCount = 24
    /// How a front end reads a recovery phrase word by word.
    public static var phraseEntry: RecoveryFlow.Purpose { .recoveryPhrase(wordCount: phraseWordCount) }

    /// A new recovery phrase, to be shown once and checked (`SeedBackupFlow(start: .words)`).
    public static func newPhrase() throws -> Mnemonic { try Mnemonic.generate(wordCount: phraseWordCount) }

    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case notAnEnvelope
        case unsupportedVersion(UInt16)
        case invalidParameters(String)
        case wrongPhraseOrDamaged
        case tooLarge
        /// Nothing to keep: the credential has no bytes.
        case empty
        /// The file could not be read (`path`, the system's reason).
        case unreadable(path: String, reason: String)
        /// A phrase of another length than `phraseWordCount`.
        case phraseLength(Int)

        public var description: String {
            switch self {
            case .notAnEnvelope: "not a Hawala credential backup"
            case .unsupportedVersion(let v): "unsupported credential backup version \(v)"
            case .invalidParameters(let why): "refused: \(why)"
            case .wrongPhraseOrDamaged: "wrong recovery phrase or damaged file"
            case .tooLarge: "the credential is larger than \(maximumBlobBytes / 1024) KiB (larger files belong in a .hawala backup)"
            case .empty: "the credential is empty"
            case let .unreadable(path, reason): "cannot read \(path): \(reason)"
            case .phraseLength(let n): "a recovery phrase has \(phraseWordCount) words, not \(n)"
            }
        }
    }

    /// Reads a credential or an envelope from `path`, refusing one larger than an envelope of
    /// the largest credential before reading it all.
    public static func readFile(_ path: String) throws(Error) -> SecretBytes {
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        // An envelope made before the 64 KiB limit may be larger than any credential sealed now.
        let limit = CredentialEnvelopeFormat.maximumLegacyEnvelopeBytes
        var bytes: [UInt8]
        do { bytes = try FileDescriptorStream(fd: fd).read(limit + 1) } catch { throw .unreadable(path: path, reason: "\(error)") }
        defer { SecretBytes.wipe(&bytes) }
        guard bytes.count <= limit else { throw .tooLarge }
        return SecretBytes(bytes)
    }

    /// Refuses a credential `seal` would refuse (empty, or above `maximumBlobBytes`): checked
    /// before a recovery phrase is made and learned for it.
    public static func checkSealable(_ blob: SecretBytes) throws(Error) {
        guard blob.count <= maximumBlobBytes else { throw .tooLarge }
        guard blob.count > 0 else { throw .empty }
    }

    /// Encrypts `blob` under `phrase` (a 24-word mnemonic).
    public static func seal(_ blob: SecretBytes, phrase: Mnemonic, cost: HawalaKDFCost = defaultCost) throws -> [UInt8] {
        try checkSealable(blob)
        guard phrase.wordCount == phraseWordCount else { throw Error.phraseLength(phrase.wordCount) }
        guard HawalaFileHeader.passBounds.contains(cost.passes), HawalaFileHeader.memoryBoundsKiB.contains(cost.memoryKiB) else {
            throw Error.invalidParameters("key-derivation parameters out of bounds")
        }
        let salt = SystemRandom.bytes(16), nonce = AESGCM.randomNonce()
        let header = magic + be(version) + [1, 0] + be(cost.passes) + be(cost.memoryKiB) + salt + nonce
        let key = try derive(phrase, salt: salt, passes: cost.passes, memoryKiB: cost.memoryKiB)
        return header + (try blob.withUnsafeBytes { try AESGCM.seal($0, key: key, nonce: nonce, associatedData: header) })
    }

    /// Decrypts an envelope with `phrase`.
    public static func open(_ envelope: [UInt8], phrase: Mnemonic) throws -> SecretBytes {
        guard phrase.wordCount == phraseWordCount else { throw Error.phraseLength(phrase.wordCount) }
        guard envelope.count >= 4, Array(envelope[0..<4]) == magic else { throw Error.notAnEnvelope }
        guard envelope.count >= headerSize + AESGCM.tagLength else { throw Error.wrongPhraseOrDamaged }
        let v = UInt16(envelope[4]) << 8 | UInt16(envelope[5])
        guard v == version else { throw Error.unsupportedVersion(v) }
        guard envelope[6] == 1, envelope[7] == 0 else { throw Error.invalidParameters("unknown key-derivation function") }
        let passes = HawalaFileHeader.u32(envelope, 8), memory = HawalaFileHeader.u32(envelope, 12)
        guard HawalaFileHeader.passBounds.contains(passes), HawalaFileHeader.memoryBoundsKiB.contains(memory) else {
            throw Error.invalidParameters("key-derivation parameters out of bounds (\(passes) passes, \(memory) KiB)")
        }
        guard envelope.count <= CredentialEnvelopeFormat.maximumLegacyEnvelopeBytes else { throw Error.tooLarge }
        let header = Array(envelope[0..<headerSize])
        let key = try derive(phrase, salt: Array(envelope[16..<32]), passes: passes, memoryKiB: memory)
        do {
            return try AESGCM.open(Array(envelope[headerSize...]), key: key, nonce: Array(envelope[32..<44]), associatedData: header)
        } catch {
            throw Error.wrongPhraseOrDamaged
        }
    }

    static func derive(_ phrase: Mnemonic, salt: [UInt8], passes: UInt32, memoryKiB: UInt32) throws -> SecretBytes {
        try HawalaKeys.kek(password: phrase.normalizedWords(), salt: salt, passes: passes, memoryKiB: memoryKiB)
    }
}
