import Foundation
import HawalaText
import HawalaVault
import HawalaVaultStorage
import Logging
import ServiceLifecycle

/// Retention for every user once a day, as a service of the vault application: it stops when
/// the server shuts down gracefully. Every `every` (an hour) it asks the storage for the
/// day's pass (`VaultStorage.dailyPass`): the first server sharing the database to ask runs it,
/// the others hear it is taken. Uploads a crash left unfinished for more than a day go too.
struct DailyPrune: Service {
    let storage: any VaultStorage
    let every: Duration
    let metrics: VaultMetrics
    let now: @Sendable () -> Date
    static let logger = Logger(label: "hawala.vault")

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    await pass()
                    try await Task.sleep(for: every)
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
    }

    /// Today's pass, unless another server has run it.
    func pass() async {
        let started = now()
        do {
            let ran = try await storage.dailyPass(day: DailyPrune.day(started), now: started) { [storage] () async throws(VaultError) in
                let removed = try await storage.pruneAll(now: started)
                if removed > 0 { DailyPrune.logger.info("retention removed \(removed) backups") }
                let abandoned = try await storage.removeAbandonedUploads(startedBefore: started.addingTimeInterval(-86_400))
                if abandoned > 0 { DailyPrune.logger.info("removed \(abandoned) unfinished uploads") }
            }
            if ran { metrics.dailyPassRan() }
        } catch {
            DailyPrune.logger.error("retention failed: \(error)")
        }
    }

    /// The UTC date of `date`, "2026-11-25": the day a pass is claimed for.
    static func day(_ date: Date) -> String { String(date.iso8601.prefix(10)) }
}
