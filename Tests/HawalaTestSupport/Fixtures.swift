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

/// Runs a tool from Debian's poppler-utils or zbar-tools (installed by `make test`); its stdout.
public func tool(_ name: String, _ arguments: [String]) throws -> Data {
    try toolRun(name, arguments).stdout
}

/// Runs `/usr/bin/NAME` with `arguments`: its exit status and stdout (stderr dropped).
public func toolRun(_ name: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/\(name)")
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}

/// A PDF's text as poppler's pdftotext reads it (an independent reader).
public func pdfText(_ pdf: [UInt8]) throws -> String {
    let file = temporaryFolder("sheet", suffix: ".pdf")
    try Data(pdf).write(to: file)
    return String(decoding: try tool("pdftotext", [file.path, "-"]), as: UTF8.self)
}

/// A Breez API key's shape, made for the tests (python3-cryptography): the base64 of an Ed25519
/// X.509 certificate issued by "Breez", valid 2025–2045. No Breez service accepts it.
public let testBreezAPIKey = "MIIBADCBs6ADAgECAhRdTCjxapgVxFbA+78zx/gIEkqJHzAFBgMrZXAwEDEOMAwGA1UEAwwFQnJlZXowHhcNMjUwMTAxMDAwMDAwWhcNNDUwMTAxMDAwMDAwWjAxMRgwFgYDVQQKDA9IYXdhbGEgdGVzdCBrZXkxFTATBgNVBAMMDEhhd2FsYSB0ZXN0czAqMAUGAytlcAMhAM3ox03QwTa3j7HSpoFYCmLA8vS+nYMzRnIKbydR+QwzMAUGAytlcANBACRB0TRMHVswyDQb578Fh8oSf6A13cE40Cc5B0Uv36A2e0o2FkGSHsJISc8qznrDe6L/Q2amYSPv15zJ9RGtqwY="

/// The same, expired at the start of 2021.
public let expiredBreezAPIKey = "MIIBAzCBtqADAgECAhQxrVgExSf8Ng5TCzSIhNYFKHsW5DAFBgMrZXAwEDEOMAwGA1UEAwwFQnJlZXowHhcNMjAwMTAxMDAwMDAwWhcNMjEwMTAxMDAwMDAwWjA0MRswGQYDVQQKDBJIYXdhbGEgZXhwaXJlZCBrZXkxFTATBgNVBAMMDEhhd2FsYSB0ZXN0czAqMAUGAytlcAMhAIwv0StGF8/p2MjSbmXpf69klILCMUPXO6pzw7KDNK/9MAUGAytlcANBAPuBZHmiFu1G39eNCGa7taRh4z7A7GifVTR8HZYH5zhOCkVqv8jMphEnc+c5GRSo0vID118HDXc8U9Kbc0p0kAc="
