import Foundation
import HawalaCrypto

/// Argon2id parameters, stored beside what they protect and checked against bounds before any
/// key derivation runs: a damaged or hostile database can neither exhaust the machine nor
/// quietly lower the cost.
public struct KDFParameters: Sendable, Equatable, Codable {
    /// Passes over memory (t).
    public let passes: Int
    /// Memory in KiB (m).
    public let memoryKiB: Int
    /// 16 random bytes.
    public let salt: [UInt8]

    /// Hawala's default for the wallet password: 64 MiB, 3 passes.
    public static let defaultPasses = 3
    public static let defaultMemoryKiB = 64 * 1024

    /// Accepted when read: 8 MiB–1 GiB, 1–10 passes.
    public static let memoryBoundsKiB = 8 * 1024 ... 1024 * 1024
    public static let passBounds = 1...10

    public init(passes: Int = defaultPasses, memoryKiB: Int = defaultMemoryKiB, salt: [UInt8] = SystemRandom.bytes(16)) {
        self.passes = passes
        self.memoryKiB = memoryKiB
        self.salt = salt
    }

    /// Throws unless the parameters are within bounds.
    public func validate() throws {
        guard KDFParameters.memoryBoundsKiB.contains(memoryKiB) else { throw WalletError.invalidKDFParameters("memory \(memoryKiB) KiB") }
        guard KDFParameters.passBounds.contains(passes) else { throw WalletError.invalidKDFParameters("\(passes) passes") }
        guard salt.count == 16 else { throw WalletError.invalidKDFParameters("salt of \(salt.count) bytes") }
    }

    /// The 32-byte key for `password` (one Argon2id run).
    public func deriveKey(password: SecretBytes) throws -> SecretBytes {
        try validate()
        return try Sodium.argon2id(password: password, salt: salt, opsLimit: passes, memLimitBytes: memoryKiB * 1024)
    }
}

/// The key that seals every secret of the store, derived from the wallet password.
///
/// A verifier (a constant sealed under the key) tells a wrong password from a damaged secret.
/// Each secret is sealed with AES-256-GCM, a fresh random nonce, and associated data naming its
/// owner and kind, so a sealed value cannot be moved to another row unnoticed.
public struct Keyring: Sendable {
    public let parameters: KDFParameters
    let key: SecretBytes

    static let verifierPlaintext = Array("hawala wallet keyring v1".utf8)
    static let verifierContext = Array("hawala/keyring/v1".utf8)

    /// Derives the key for `password` under `parameters`.
    public init(password: SecretBytes, parameters: KDFParameters) throws {
        self.parameters = parameters
        key = try parameters.deriveKey(password: password)
    }

    /// A sealed verifier: nonce ‖ ciphertext ‖ tag.
    func makeVerifier() throws -> [UInt8] {
        try seal(SecretBytes(Keyring.verifierPlaintext), context: Keyring.verifierContext)
    }

    /// Throws `WalletError.wrongPassword` unless `verifier` opens under this key.
    func check(verifier: [UInt8]) throws {
        do {
            let plain = try open(verifier, context: Keyring.verifierContext)
            guard plain.unsafeCopy() == Keyring.verifierPlaintext else { throw WalletError.wrongPassword }
        } catch {
            throw WalletError.wrongPassword
        }
    }

    /// Seals `secret`; `context` is authenticated (not stored) and must be given again to open.
    package func seal(_ secret: SecretBytes, context: [UInt8]) throws -> [UInt8] {
        let nonce = AESGCM.randomNonce()
        let sealed = try secret.withUnsafeBytes { try AESGCM.seal($0, key: key, nonce: nonce, associatedData: context) }
        return nonce + sealed
    }

    /// Opens what `seal` made. - Throws: `AESGCM.Error.authenticationFailed`.
    package func open(_ sealed: [UInt8], context: [UInt8]) throws -> SecretBytes {
        guard sealed.count >= AESGCM.nonceLength + AESGCM.tagLength else { throw AESGCM.Error.authenticationFailed }
        return try AESGCM.open(Array(sealed.dropFirst(AESGCM.nonceLength)), key: key,
                               nonce: Array(sealed.prefix(AESGCM.nonceLength)), associatedData: context)
    }
}
