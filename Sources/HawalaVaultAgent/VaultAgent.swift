import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaText
import HawalaVaultClient
import HawalaVault
import HawalaWallet

/// The vault agent (docs/decisions/0002): uploads the newest outbox snapshot when the vault's
/// settings say a backup is due, never holding a password or a key. One `check` at a time; its
/// outcome says when to look again.
public struct VaultAgent: Sendable {
    public enum Outcome: Equatable, Sendable {
        case notDue(until: Date), disabled, skipped(retry: Date), uploaded(Backup), unchanged, failed(retry: Date)

        /// Seconds until the next check: the due time or the retry, at most an hour (settings
        /// may change meanwhile), at least a second.
        public func sleep(now: Date) -> Double {
            let next: Date = switch self {
            case .notDue(let until): until
            case .skipped(let retry), .failed(let retry): retry
            case .disabled, .uploaded, .unchanged: now.addingTimeInterval(3600)
            }
            return min(3600, max(1, next.timeIntervalSince(now)))
        }
    }

    let client: VaultClient
    let snapshot: URL
    let stateFile: URL
    let enabledAt: Date
    let metered: any MeteredConnection
    let log: @Sendable (String) -> Void
    /// Where an upload is recorded as the wallets' vault backup (nil: nowhere).
    let store: WalletStore?

    /// `snapshot`: the outbox's `.hawala` file; `stateFile`: where the agent remembers its runs
    /// (no secret: times and the last upload's identity); `log`: one line per run; `store`: the
    /// wallets whose list learns of each upload.
    public init(client: VaultClient, snapshot: URL, stateFile: URL, enabledAt: Date, store: WalletStore? = nil,
                metered: any MeteredConnection = NetworkManagerMetered(), log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.client = client
        self.snapshot = snapshot
        self.stateFile = stateFile
        self.enabledAt = enabledAt
        self.metered = metered
        self.log = log
    }

    /// Checks until the task is cancelled, sleeping as each outcome says; `now` is the clock.
    public func run(now: @Sendable () -> Date = Date.init) async {
        while !Task.isCancelled {
            let outcome = await check(now: now())
            do { try await Task.sleep(for: .seconds(outcome.sleep(now: now()))) } catch { return }
        }
    }

    /// One due check: uploads the snapshot when a backup is due and it changed since the last upload.
    public func check(now: Date) async -> Outcome {
        var state = VaultAgentState.load(from: stateFile)
        if let retry = state.retryAt, retry > now {
            log("waiting to retry at \(retry.iso8601) (\(state.failures) failed attempt\(state.failures == 1 ? "" : "s"))")
            return .failed(retry: retry)
        }
        do {
            let settings = try await client.settings()
            guard var due = state.due(settings: settings, enabledAt: enabledAt) else {
                log("automatic backups are off in the vault's settings (autoBackupEnabled is false)")
                return .disabled
            }
            // Nothing in the vault yet (a first run, or every backup deleted): upload now rather
            // than at the next slot, which may be a day away.
            if due > now, try await client.backups().isEmpty { due = now }
            guard due <= now else {
                log("next backup due at \(due.iso8601)")
                return .notDue(until: due)
            }
            if settings.wifiOnly, metered.isMetered() == true {
                let retry = now.addingTimeInterval(15 * 60)
                log("backup due but skipped: the connection is metered and wifiOnly is set; checking again at \(retry.iso8601)")
                return .skipped(retry: retry)
            }
            guard let data = try? Data(contentsOf: snapshot) else { throw VaultAgentError.noSnapshot(snapshot.path) }
            let sha = VaultClient.sha256Hex(data)
            if sha == state.lastUploadSHA256 {
                state.since = now
                state.failures = 0
                state.retryAt = nil
                try state.save(to: stateFile)
                log("backup due; the wallets have not changed since backup \(state.lastBackupID ?? "?"), nothing to upload")
                return .unchanged
            }
            if let stale = state.snapshotStaleSince {
                log("warning: the snapshot has not been refreshed since \(stale.iso8601) (\(state.snapshotProblem ?? "?")); uploading the last one written")
            }
            let backup = try await client.upload(data, kind: .auto)
            // A fresh snapshot holds every wallet; a stale one may miss the newest: not recorded.
            if state.snapshotStaleSince == nil { store?.noteBackup(.vault, wallets: nil) }
            state = VaultAgentState(since: now, lastUpload: now, lastUploadSHA256: sha, lastBackupID: backup.id, failures: 0, retryAt: nil,
                                    snapshotStaleSince: state.snapshotStaleSince, snapshotProblem: state.snapshotProblem)
            try state.save(to: stateFile)
            log("uploaded backup \(backup.id) (\(backup.sizeBytes) bytes)")
            return .uploaded(backup)
        } catch {
            state.failures += 1
            // 1, 2, 4 … minutes, at most an hour.
            let delay = min(3600, 60 * pow(2, Double(min(state.failures - 1, 6))))
            let retry = now.addingTimeInterval(delay)
            state.retryAt = retry
            try? state.save(to: stateFile)
            log("backup failed: \(error); retrying at \(retry.iso8601)")
            return .failed(retry: retry)
        }
    }
}

public enum VaultAgentError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSnapshot(String)

    public var description: String {
        switch self {
        case .noSnapshot(let path): "no snapshot in \(path): the agent must be enabled again"
        }
    }
}

/// What the agent remembers between runs (written atomically): no secret, only times and the
/// last upload's identity.
public struct VaultAgentState: Codable, Equatable, Sendable {
    /// Backups are due at the first slot after this (the last completed run, or enabling).
    public var since: Date?
    public var lastUpload: Date?
    public var lastUploadSHA256: String?
    public var lastBackupID: String?
    public var failures = 0
    public var retryAt: Date?
    /// Since when the snapshot could not be refreshed after a change, and why (the agent then
    /// uploads the last one written): nil while it is up to date.
    public var snapshotStaleSince: Date?
    public var snapshotProblem: String?

    /// When the next backup is due under `settings` (possibly already past: due now); nil when
    /// automatic backups are off. `enabledAt`: when the agent was enabled.
    public func due(settings: BackupSettings, enabledAt: Date) -> Date? {
        VaultSchedule.nextRun(settings: settings, lastRun: lastUpload, now: since ?? enabledAt)
    }

    /// The state in `url`; a fresh one when the file is missing or unreadable.
    public static func load(from url: URL) -> VaultAgentState {
        guard let data = try? Data(contentsOf: url) else { return VaultAgentState() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(VaultAgentState.self, from: data)) ?? VaultAgentState()
    }

    public func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(SecretBytes(Array(try encoder.encode(self))), to: url, replace: true)
    }
}

/// Whether the network connection is metered (nil: unknown).
public protocol MeteredConnection: Sendable {
    func isMetered() -> Bool?
}

/// NetworkManager's answer (D-Bus property `Metered`: 1 yes, 3 guessed yes); nil without it
/// (and on Apple platforms, whose apps ask `NWPath.isExpensive` through an adapter of their own).
public struct NetworkManagerMetered: MeteredConnection {
    public init() {}

    public func isMetered() -> Bool? {
        #if os(Linux)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
        process.arguments = ["--system", "get-property", "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                             "org.freedesktop.NetworkManager", "Metered"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        // "u 1": NMMetered (0 unknown, 1 yes, 2 no, 3 guess yes, 4 guess no).
        switch text.split(separator: " ").last.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) {
        case "1", "3": return true
        case "2", "4": return false
        default: return nil
        }
        #else
        return nil
        #endif
    }
}
