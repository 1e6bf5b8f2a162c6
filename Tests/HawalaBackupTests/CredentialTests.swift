import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaKeys
import HawalaTestSupport
import Testing
@testable import HawalaBackup

@Suite("Credential backup envelope")
struct CredentialTests {
    let phrase = try! Mnemonic.generate(wordCount: 24)
    let blob = SecretBytes(utf8: "{\"token\":\"opaque credential\"}")

    @Test func roundTripAndWrongPhrase() throws {
        let envelope = try CredentialEnvelope.seal(blob, phrase: phrase, cost: .floor)
        #expect(try CredentialEnvelope.open(envelope, phrase: phrase) == blob)
        #expect(throws: CredentialEnvelope.Error.wrongPhraseOrDamaged) { try CredentialEnvelope.open(envelope, phrase: try Mnemonic.generate(wordCount: 24)) }
        #expect(throws: CredentialEnvelope.Error.empty) { try CredentialEnvelope.seal(SecretBytes([]), phrase: phrase, cost: .floor) }
    }

    /// A credential file is read whole up to its bound and refused past it before it is all
    /// read; a missing file says which and why.
    @Test func credentialFilesAreBounded() throws {
        let folder = temporaryFolder("credential")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = folder.appendingPathComponent("small"), large = folder.appendingPathComponent("large")
        try Data("opaque".utf8).write(to: small)
        #expect(try CredentialEnvelope.readFile(small.path) == SecretBytes(utf8: "opaque"))
        // Read (an envelope may be that long), but refused before a phrase is made for it.
        let justOver = folder.appendingPathComponent("just-over")
        try Data(count: CredentialEnvelope.maximumBlobBytes + 1).write(to: justOver)
        #expect(throws: CredentialEnvelope.Error.tooLarge) { try CredentialEnvelope.checkSealable(try CredentialEnvelope.readFile(justOver.path)) }
        #expect(throws: CredentialEnvelope.Error.empty) { try CredentialEnvelope.checkSealable(SecretBytes([])) }
        try CredentialEnvelope.checkSealable(try CredentialEnvelope.readFile(small.path))
        try Data(count: CredentialEnvelopeFormat.maximumLegacyEnvelopeBytes + 1).write(to: large)
        #expect(throws: CredentialEnvelope.Error.tooLarge) { try CredentialEnvelope.readFile(large.path) }
        let missing = folder.appendingPathComponent("missing").path
        #expect(throws: CredentialEnvelope.Error.unreadable(path: missing, reason: "No such file or directory")) { try CredentialEnvelope.readFile(missing) }
    }

    @Test func everyFieldIsAuthenticatedOrChecked() throws {
        let envelope = try CredentialEnvelope.seal(blob, phrase: phrase, cost: .floor)
        for offset in 0..<envelope.count {
            var altered = envelope
            altered[offset] ^= 0x01
            #expect(throws: CredentialEnvelope.Error.self, "byte \(offset)") { try CredentialEnvelope.open(altered, phrase: phrase) }
        }
        #expect(throws: CredentialEnvelope.Error.notAnEnvelope) { try CredentialEnvelope.open([], phrase: phrase) }
        #expect(throws: CredentialEnvelope.Error.wrongPhraseOrDamaged) { try CredentialEnvelope.open(Array(envelope.prefix(50)), phrase: phrase) }
        var version = envelope
        version[5] = 2
        #expect(throws: CredentialEnvelope.Error.unsupportedVersion(2)) { try CredentialEnvelope.open(version, phrase: phrase) }
        var huge = envelope
        huge.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: CredentialEnvelope.Error.self) { try CredentialEnvelope.open(huge, phrase: phrase) }
    }
}
