import Foundation
import HawalaCrypto
import HawalaVault
import HawalaBackup
import HawalaKeys
import HawalaTestSupport
import HawalaVaultAgent
import HawalaVaultClient
import HawalaWallet
import Testing

/// The client library against a real vault on loopback: what the CLI and the app both use.
@Suite("Vault client")
struct VaultClientTests {
    static let sealed = Data("HWLA".utf8) + Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test func callsAndTheirFailures() async throws {
        let vault = try await RunningVault.start(.sqlite)
        defer { vault.stop() }
        let url = URL(string: "http://127.0.0.1:\(vault.port)")!
        let owner = VaultClient(url: url, token: SecretBytes(utf8: try await vault.storage.addUser("alice", now: Date())))
        let agent = VaultClient(url: url, token: SecretBytes(utf8: try await vault.storage.addToken("alice", scope: .appendOnly, now: Date())))
        try await owner.checkLogin()

        let progress = ProgressLog()
        let backup = try await owner.upload(Self.sealed, kind: .manual, progress: { progress.add($0, $1) })
        #expect(backup.sizeBytes == Int64(Self.sealed.count) && backup.type == .manual)
        #expect(progress.values.last == Self.sealed.count && progress.values == progress.values.sorted())
        #expect(try await owner.backups().map(\.id) == [backup.id])
        #expect(try await owner.backupID(String(backup.id.prefix(8)).uppercased()) == backup.id)
        #expect(try await owner.download(backup.id) == Self.sealed)
        await #expect(throws: VaultClientError.backupIDTooShort) { try await owner.backupID("abc") }
        await #expect(throws: VaultClientError.noSuchBackup(id: "ffffffff")) { try await owner.backupID("ffffffff") }
        let missing = UUID().uuidString.lowercased()
        await #expect(throws: VaultClientError.noSuchBackup(id: missing)) { try await owner.download(missing) }

        // The vault's refusals arrive typed, with what it said.
        do {
            try await agent.delete(backup.id)
            Issue.record("an append-only token deleted a backup")
        } catch {
            guard case .refused(let refusal) = error else { Issue.record("\(error)"); return }
            #expect(refusal.status == 403 && refusal.operation == .delete && refusal.reason?.contains("append-only") == true)
            #expect(error.description.hasPrefix("the vault refused the deletion (HTTP 403): this token is append-only"))
        }
        var settings = try await owner.settings()
        try settings.set("retentionDays", to: "3")
        do {
            _ = try await owner.updateSettings(settings)
            Issue.record("a retention of 3 days was accepted")
        } catch {
            guard case .refused(let refusal) = error else { Issue.record("\(error)"); return }
            #expect(refusal.status == 400 && refusal.reason?.contains("retentionDays") == true)
        }
        #expect(throws: BackupSettingChangeError.invalidValue(key: "backupFrequency", expected: "daily, weekly or monthly")) {
            try settings.set("backupFrequency", to: "hourly")
        }
        #expect(throws: BackupSettingChangeError.unknownKey("colour")) { try settings.set("colour", to: "blue") }
        try settings.set("retentionDays", to: "60")
        try settings.set("autoBackupEnabled", to: "true")
        #expect(try await owner.updateSettings(settings) == settings)

        // Credential backups.
        #expect(try await owner.credentialBackupStatus().exists == false)
        await #expect(throws: VaultClientError.noCredentialBackup) { _ = try await owner.recoverCredentialBackup(limit: 1 << 20) }
        try await owner.uploadCredentialBackup(Data("envelope".utf8))
        #expect(try await owner.recoverCredentialBackup(limit: 1 << 20) == Data("envelope".utf8))
        #expect(try await owner.credentialBackupStatus().lastVerifiedAt != nil)

        let preview = try await owner.deletionPreview(String(backup.id.prefix(8)))
        #expect(preview.backup == backup && preview.isLast)
        try await owner.delete(backup.id)
        #expect(try await owner.backups().isEmpty)

        // A wrong token; a closed port.
        let stranger = VaultClient(url: url, token: SecretBytes(utf8: "hwv_wrong"))
        do {
            try await stranger.checkLogin()
            Issue.record("a wrong token logged in")
        } catch {
            guard case .refused(let refusal) = error else { Issue.record("\(error)"); return }
            #expect(refusal.status == 401)
        }
        let closed = VaultClient(url: URL(string: "http://127.0.0.1:9")!, token: SecretBytes(utf8: "hwv_x"))
        do {
            _ = try await closed.backups()
            Issue.record("a closed port answered")
        } catch {
            guard case .unreachable(let where_, let cause) = error else { Issue.record("\(error)"); return }
            #expect(where_ == "http://127.0.0.1:9" && cause == "connection refused")
        }
    }

    @Test func loginURLs() throws {
        #expect(try VaultClient.loginURL("https://vault.example.com", allowPlainHTTP: false).host == "vault.example.com")
        for loopback in ["http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:80"] {
            #expect(try VaultClient.loginURL(loopback, allowPlainHTTP: false).scheme == "http")
        }
        #expect(throws: VaultClientError.plainHTTP(url: "http://192.0.2.1")) { try VaultClient.loginURL("http://192.0.2.1", allowPlainHTTP: false) }
        #expect(throws: VaultClientError.plainHTTP(url: "http://127.0.0.1.example.com")) {
            try VaultClient.loginURL("http://127.0.0.1.example.com", allowPlainHTTP: false)
        }
        #expect(try VaultClient.loginURL("http://192.0.2.1", allowPlainHTTP: true).host == "192.0.2.1")
        for bad in ["ftp://x", "vault.example.com", "https://"] {
            #expect(throws: VaultClientError.invalidURL(bad)) { try VaultClient.loginURL(bad, allowPlainHTTP: true) }
        }
    }

    /// Enabling the agent needs a vault login and a wallet, both checked before any password;
    /// a vault that can't say whether automatic backups are on doesn't stop it; disabling
    /// forgets the key, the snapshot and the agent's memory of its runs.
    @Test func agentIsEnabledAndDisabledForAHome() async throws {
        let (store, keyring) = try newStore()
        #expect(throws: VaultClientError.notLoggedIn) { try VaultAgent.checkCanEnable(store: store) }
        #expect(throws: VaultClientError.notLoggedIn) { _ = try VaultAgent.open(store: store, token: SecretBytes(utf8: "hwv_x")) { _ in } }
        let closed = VaultClient(url: URL(string: "http://127.0.0.1:9")!, token: SecretBytes(utf8: "hwv_x"))
        try SavedVaultLogin.save(client: closed, token: SecretBytes(utf8: "hwv_x"), store: store, keyring: keyring)
        #expect(throws: WalletError.noWallets) { try VaultAgent.checkCanEnable(store: store) }
        #expect(throws: VaultClientError.agentNotEnabled) { _ = try VaultAgent.open(store: store, token: SecretBytes(utf8: "hwv_x")) { _ in } }
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        try VaultAgent.checkCanEnable(store: store)
        let key = try BackupKey.derive(password: SecretBytes(utf8: "a long backup password 42"), cost: .floor)
        #expect(try await VaultAgent.enable(store: store, keyring: keyring, key: key, app: "test") == nil)
        #expect(FileManager.default.fileExists(atPath: AgentOutbox.snapshotURL(home: store.home).path))
        let agent = try VaultAgent.open(store: store, token: SecretBytes(utf8: "hwv_x")) { _ in }
        if case .failed = await agent.check(now: Date()) {} else { Issue.record("a closed port did not fail the check") }
        let state = VaultAgent.stateFile(home: store.home)
        #expect(FileManager.default.fileExists(atPath: state.path))
        try VaultAgent.disable(store: store, keyring: keyring)
        #expect(!FileManager.default.fileExists(atPath: state.path) && !FileManager.default.fileExists(atPath: AgentOutbox.snapshotURL(home: store.home).path))
        #expect(throws: VaultClientError.agentNotEnabled) { _ = try VaultAgent.open(store: store, token: SecretBytes(utf8: "hwv_x")) { _ in } }
    }

    /// A snapshot that can't be refreshed after a change is said and remembered (the status
    /// shows it, the agent warns before uploading the last one), never silently ignored; the next
    /// refresh that works clears it. Both faces call this one function after a change.
    @Test func aSnapshotThatCannotBeRefreshedIsSaid() async throws {
        let (store, keyring) = try newStore()
        #expect(VaultAgent.afterChange(store: store, keyring: keyring, app: "test") == .notEnabled)
        let closed = VaultClient(url: URL(string: "http://127.0.0.1:9")!, token: SecretBytes(utf8: "hwv_x"))
        try SavedVaultLogin.save(client: closed, token: SecretBytes(utf8: "hwv_x"), store: store, keyring: keyring)
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        _ = try await VaultAgent.enable(store: store, keyring: keyring, key: try BackupKey.derive(password: SecretBytes(utf8: "a long backup password 42"), cost: .floor), app: "test")
        #expect(VaultAgent.afterChange(store: store, keyring: keyring, app: "test") == .unchanged)
        // The outbox folder becomes a file: the next snapshot can't be written.
        let outbox = AgentOutbox.snapshotURL(home: store.home).deletingLastPathComponent()
        try FileManager.default.removeItem(at: outbox)
        try Data("in the way".utf8).write(to: outbox)
        try store.rename("Main", to: "Renamed")
        let when = Date(timeIntervalSince1970: 1_900_000_000)
        guard case .failed = VaultAgent.afterChange(store: store, keyring: keyring, app: "test", now: when) else { Issue.record("a failed refresh was not said"); return }
        let status = try VaultAgentStatus(store: store, settings: .defaults)
        #expect(status.snapshotStaleSince == when && status.snapshotProblem != nil)
        try FileManager.default.removeItem(at: outbox)
        #expect(VaultAgent.afterChange(store: store, keyring: keyring, app: "test") == .written)
        #expect(try VaultAgentStatus(store: store, settings: .defaults).snapshotStaleSince == nil)
    }

    /// The agent on an injected clock and connection: off until enabled, due at once on an
    /// empty vault, skipped while metered, then on the daily slot; an unchanged snapshot is not
    /// uploaded again, a changed one is; a vault gone means backoff, and no attempt before the
    /// retry time.
    @Test func agentFollowsTheSchedule() async throws {
        let vault = try await RunningVault.start(.sqlite)
        var running = true
        defer { if running { vault.stop() } }
        let folder = temporaryFolder("agent")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = folder.appendingPathComponent("snapshot.hawala"), stateFile = folder.appendingPathComponent("state.json")
        try Self.sealed.write(to: snapshot)
        let client = VaultClient(url: URL(string: "http://127.0.0.1:\(vault.port)")!,
                                 token: SecretBytes(utf8: try await vault.storage.addUser("alice", now: Date())))
        let metered = FakeMetered()
        let log = ProgressLog()
        let start = ISO8601DateFormatter().date(from: "2026-03-01T12:00:00Z")!
        let agent = VaultAgent(client: client, snapshot: snapshot, stateFile: stateFile, enabledAt: start, metered: metered) { log.add(line: $0) }
        func at(_ hours: Double) -> Date { start.addingTimeInterval(hours * 3600) }

        #expect(await agent.check(now: at(1)) == .disabled)
        var settings = try await client.settings()
        settings.autoBackupEnabled = true
        settings.wifiOnly = true
        _ = try await client.updateSettings(settings)

        metered.value = true
        #expect(await agent.check(now: at(2)) == .skipped(retry: at(2.25)))
        #expect(try await client.backups().isEmpty)
        metered.value = nil  // unknown: not metered
        guard case .uploaded(let first) = await agent.check(now: at(2.5)) else { Issue.record("no upload: \(log.lines)"); return }
        #expect(first.type == .auto)
        // Next: 03:00 UTC, at least 12 hours after the upload.
        let next = ISO8601DateFormatter().date(from: "2026-03-02T03:00:00Z")!
        #expect(await agent.check(now: at(3)) == .notDue(until: next))
        #expect(VaultAgent.Outcome.notDue(until: next).sleep(now: at(3)) == 3600)
        #expect(await agent.check(now: next) == .unchanged)
        #expect(try await client.backups().count == 1)

        try (Self.sealed + Data("changed".utf8)).write(to: snapshot)
        guard case .uploaded(let second) = await agent.check(now: next.addingTimeInterval(86_400)) else { Issue.record("no upload: \(log.lines)"); return }
        #expect(try await client.backups().map(\.id) == [second.id, first.id])

        await vault.stopped()
        running = false
        let later = next.addingTimeInterval(3 * 86_400)
        #expect(await agent.check(now: later) == .failed(retry: later.addingTimeInterval(60)))
        #expect(await agent.check(now: later.addingTimeInterval(30)) == .failed(retry: later.addingTimeInterval(60)))
        #expect(log.lines.last?.contains("waiting to retry") == true)
        #expect(await agent.check(now: later.addingTimeInterval(61)) == .failed(retry: later.addingTimeInterval(61 + 120)))
        #expect(VaultAgentState.load(from: stateFile).failures == 2)
        #expect(!log.lines.contains { $0.contains("hawala ") }, "library lines name no command: \(log.lines)")
    }
}

/// A connection whose meteredness the test sets.
final class FakeMetered: MeteredConnection, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?
    var value: Bool? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func isMetered() -> Bool? { value }
}

/// What a callback saw, in order.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int] = []
    private var storedLines: [String] = []
    var values: [Int] { lock.withLock { stored } }
    var lines: [String] { lock.withLock { storedLines } }
    func add(_ done: Int, _ total: Int) { lock.withLock { stored.append(done) } }
    func add(line: String) { lock.withLock { storedLines.append(line) } }
}
