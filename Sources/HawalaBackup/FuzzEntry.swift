import Foundation
import HawalaCrypto
@_spi(Fuzzing) import HawalaKeys

/// The fuzzer's entry point over the .hawala decoder, the payload and credential parsers and
/// SLIP-39 share parsing and recovery
/// (`make fuzz`, Sources/hawala-fuzz), public to the fuzzer and to the seed-replay test only.
@_spi(Fuzzing) public enum FuzzEntry {
    /// One valid file, made once: its header and key-encryption key let the fuzzer reach the
    /// chunk reader without paying for Argon2id on every input.
    struct Fixture: @unchecked Sendable {
        let file: [UInt8]
        let kek: SecretBytes
        let phrase: Mnemonic

        static let shared: Fixture = {
            let password = SecretBytes(utf8: "fuzz password")
            let sink = MemoryStream()
            let writer = try! HawalaFileWriter(sink: sink, password: password, cost: .floor, createdAt: Date(timeIntervalSince1970: 0))
            try! writer.write(Array("{\"format\":1}".utf8) + [UInt8](repeating: 0x41, count: 70_000))
            try! writer.finish()
            let header = try! HawalaFileHeader.parse(Array(sink.bytes.prefix(HawalaFileHeader.size)))
            return Fixture(file: sink.bytes, kek: try! HawalaFileReader.keyEncryptionKey(password: password, header: header),
                           phrase: try! Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"))
        }()
    }

    static func drain(_ bytes: [UInt8]) {
        guard let reader = try? HawalaFileReader(source: MemoryStream(bytes), keyEncryptionKey: Fixture.shared.kek) else { return }
        var total = 0
        while let chunk = try? reader.nextChunk() {
            total += chunk.count
            if total > 4 << 20 { return }
        }
    }

    /// Feeds one input; the first byte chooses the target. Never throws, never crashes (the
    /// fuzzer's job is to find an input that does).
    public static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard let selector = data.first else { return }
        let input = Array(data.dropFirst())
        let fixture = Fixture.shared
        switch selector % 6 {
        case 0: _ = try? HawalaFileHeader.parse(input)                                    // any header
        case 1: drain(Array(fixture.file.prefix(HawalaFileHeader.size)) + input)           // authentic header, hostile chunks
        case 2: drain(input)                                                               // hostile header and chunks, right key
        case 3: _ = try? BackupPayload.decode(SecretBytes(input))                         // hostile payload JSON
        case 5:
            // SLIP-39 shares, one per line: parsing and Shamir recovery (not the PBKDF2 decryption,
            // whose cost a share's exponent sets by design).
            let lines = String(decoding: input, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(32)
            let shares = lines.enumerated().compactMap { try? SLIP39Share(mnemonic: String($1), number: $0 + 1) }
            _ = try? SLIP39.recoverEncryptedForFuzzing(shares)
        default:
            // A credential envelope's checks before its KDF (magic, version, bounds).
            if input.count < 8 || input[6] != 1 { _ = try? CredentialEnvelope.open(input, phrase: fixture.phrase) }
        }
    }
}
