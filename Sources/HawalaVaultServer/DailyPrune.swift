import Foundation
import HawalaVault
import Logging
import ServiceLifecycle

/// Retention for every user, at start and then every `every` (a day), as a service of the
/// vault application: it stops when the server shuts down gracefully. Uploads a crash left
/// unfinished for more than a day go too.
struct DailyPrune: Service {
    let storage: any VaultStorage
    let every: Duration
    static let logger = Logger(label: "hawala.vault")

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    do {
                        let removed = try await storage.pruneAll(now: Date())
                        if removed > 0 { DailyPrune.logger.info("retention removed \(removed) backups") }
                        let abandoned = try await storage.removeAbandonedUploads(startedBefore: Date().addingTimeInterval(-86_400))
                        if abandoned > 0 { DailyPrune.logger.info("removed \(abandoned) unfinished uploads") }
                    } catch {
                        DailyPrune.logger.error("retention failed: \(error)")
                    }
                    try await Task.sleep(for: every)
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
    }
}
