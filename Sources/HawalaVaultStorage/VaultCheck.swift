import Foundation
import HawalaVault

/// The operator's integrity check (`hawala-vault check`): every stored backup is read back and
/// its bytes hashed against the SHA-256 recorded at upload. Nothing is changed or deleted: a
/// damaged backup is reported, with what its user still has intact, so the operator can ask
/// that device for a new upload (or restore the database from its own backup).
public enum VaultCheck {
    /// Reads every backup, one chunk at a time; `progress(done, total)`
    /// after each. A backup deleted while the check runs is skipped.
    public static func run(storage: any VaultStorage, progress: (Int, Int) -> Void = { _, _ in }) async throws(VaultError) -> VaultCheckReport {
        let stored = try await storage.storedBackups()
        var report = VaultCheckReport()
        for (index, item) in stored.enumerated() {
            do {
                _ = try await storage.verify(id: item.backup.id, user: item.user)
                report.checked += 1
                report.bytes += item.backup.sizeBytes
                report.intactNewest[item.user.name] = max(report.intactNewest[item.user.name] ?? .distantPast, item.backup.createdAt)
            } catch VaultError.corrupted {
                report.checked += 1
                report.damaged.append(item)
            } catch VaultError.notFound {
                // Deleted (by its user or retention) since the list was read.
            }
            progress(index + 1, stored.count)
        }
        return report
    }
}

/// What `VaultCheck.run` found.
public struct VaultCheckReport: Sendable, Equatable {
    /// Backups read (intact or damaged).
    public var checked = 0
    /// Bytes of the intact ones.
    public var bytes: Int64 = 0
    /// Backups whose bytes no longer match their SHA-256, oldest first.
    public var damaged: [StoredBackup] = []
    /// Per user name, the creation date of the newest intact backup.
    public var intactNewest: [String: Date] = [:]

    public init() {}

    /// One line per user with damaged backups: how many, and whether an intact one is left.
    public var repairAdvice: [(user: String, damaged: [Backup], newestIntact: Date?)] {
        Dictionary(grouping: damaged, by: \.user.name)
            .sorted { $0.key < $1.key }
            .map { (user: $0.key, damaged: $0.value.map(\.backup), newestIntact: intactNewest[$0.key]) }
    }
}
