import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet
import Testing
@testable import HawalaBackup
import HawalaTestSupport

@Suite("Backup key and the vault agent's outbox")
struct AgentOutboxTests {
    /// Files sealed with a kept key open with the password alone; a key from another
    /// derivation (other salt) is refused, not misused.
    @Test func filesSealedWithAKeptKeyOpenWithThePassword() throws {
        let password = SecretBytes(utf8: "a long backup password 42")
        let key = try BackupKey.derive(password: password, cost: .floor)
        let payload = SecretBytes(Array("the payload".utf8))
        let first = temporaryFolder("key", suffix: ".hawala")
        let second = temporaryFolder("key", suffix: ".hawala")
        try BackupFile.write(payload, to: first, key: key)
        try BackupFile.write(payload, to: second, key: key)
        #expect(try BackupFile.read(first, password: password) == payload)
        #expect(try BackupFile.read(second, key: key) == payload)
        // Same salt, yet each file has its own file key and nonces.
        let a = try BackupFile.inspect(first), b = try BackupFile.inspect(second)
        #expect(a.salt == b.salt && a.wrappedKey != b.wrappedKey && a.noncePrefix != b.noncePrefix)
        #expect(throws: HawalaFileError.wrongPasswordOrDamaged) { try BackupFile.read(first, password: SecretBytes(utf8: "another password 42")) }
        let other = try BackupKey.derive(password: password, cost: .floor)
        #expect(throws: HawalaFileError.wrongPasswordOrDamaged) { try BackupFile.read(first, key: other) }
        #expect(throws: HawalaFileError.self) { try BackupKey(kek: SecretBytes([UInt8](repeating: 7, count: 31)), salt: key.salt, cost: .floor) }
    }

    /// A snapshot is written on enable, again only when the wallets change, and kept when the
    /// last wallet is deleted; it opens with the backup password.
    @Test func refreshWritesOnlyOnChange() throws {
        let (store, keyring) = try newStore()
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == false)  // not enabled
        let password = SecretBytes(utf8: "a long backup password 42")
        try AgentOutbox.enable(store: store, keyring: keyring, key: try BackupKey.derive(password: password, cost: .floor), app: "test")
        #expect(try AgentOutbox.enabledAt(store: store) != nil)
        let url = AgentOutbox.snapshotURL(home: store.home)
        let first = try Data(contentsOf: url)
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == false)
        #expect(try Data(contentsOf: url) == first)
        // Nothing a backup holds was written since: no secret is opened at all (a keyring that
        // opens nothing is not even used), however often it is asked.
        let stranger = try Keyring(password: SecretBytes(utf8: "not the password"), parameters: fastKDF())
        try store.setSetting("ln.syncedAt", to: "1700000000", walletID: main.id)
        #expect(try AgentOutbox.refresh(store: store, keyring: stranger, app: "test") == false)
        // A write that leaves the same backup: compared (with the right keyring), not rewritten.
        try store.setSetting("ln.fiat", to: "USD", walletID: main.id)
        #expect(throws: (any Error).self) { try AgentOutbox.refresh(store: store, keyring: stranger, app: "test") }
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == true)
        let withFiat = try Data(contentsOf: url)
        try store.setSetting("ln.fiat", to: "USD", walletID: main.id)
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == false)
        #expect(try Data(contentsOf: url) == withFiat)
        #expect(try AgentOutbox.refresh(store: store, keyring: stranger, app: "test") == false)
        try store.rename("Main", to: "Renamed")
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == true)
        let payload = try BackupPayload.decode(try BackupFile.read(url, password: password))
        #expect(payload.wallets.map(\.name) == ["Renamed"])
        let renamed = try Data(contentsOf: url)
        try store.delete("Renamed", keyring: keyring)
        #expect(try AgentOutbox.refresh(store: store, keyring: keyring, app: "test") == false)
        #expect(try Data(contentsOf: url) == renamed)
        try AgentOutbox.disable(store: store, keyring: keyring)
        #expect(try AgentOutbox.enabledAt(store: store) == nil && !FileManager.default.fileExists(atPath: url.path))
    }
}
