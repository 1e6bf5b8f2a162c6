import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet

// Fixtures every test target shares (one definition each).

/// BIP39's test mnemonic of all-zero entropy (12 words).
public let abandonAbout = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
/// BIP39's test mnemonic of 0x7f… entropy (12 words).
public let legalWinner = "legal winner thank year wave sausage worth useful legal winner thank yellow"

/// Cheap key derivation for tests only (the store's default is 64 MiB, 3 passes).
public func fastKDF() -> KDFParameters { KDFParameters(passes: 1, memoryKiB: 8192) }

/// A wallet home in a fresh temporary folder (not created yet), removed when the test process
/// ends.
public func temporaryHome() -> WalletHome {
    WalletHome(directory: temporaryFolder("hawala-test"))
}

/// A fresh path under the temporary directory (not created), removed with everything in it when
/// the test process exits: test runs on a CI machine must not fill its disk.
public func temporaryFolder(_ prefix: String, suffix: String = "") -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
    TemporaryFolders.shared.add(url)
    return url
}

final class TemporaryFolders: @unchecked Sendable {
    static let shared = TemporaryFolders()
    private let lock = NSLock()
    private var urls: [URL] = []

    private init() {
        atexit { TemporaryFolders.shared.removeAll() }
    }

    func add(_ url: URL) { lock.withLock { urls.append(url) } }

    func removeAll() {
        for url in lock.withLock({ urls }) { try? FileManager.default.removeItem(at: url) }
    }
}

public func password(_ text: String) -> SecretBytes { SecretBytes(utf8: text) }

/// A new store with a wallet password (cheap KDF) and its keyring.
public func newStore(password text: String = "correct horse") throws -> (WalletStore, Keyring) {
    let store = try WalletStore(home: temporaryHome(), create: true)
    return (store, try store.newKeyring(password: password(text), parameters: fastKDF()))
}

/// A new store holding "Main", the `abandonAbout` wallet on mainnet.
public func storeWithWallet() throws -> (WalletStore, WalletSummary) {
    let (store, keyring) = try newStore()
    return (store, try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring))
}
