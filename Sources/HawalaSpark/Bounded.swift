import Foundation
import HawalaLightning

/// Runs `body` on the SDK's own threads (`SparkExecutor`) and answers within `timeout`. The
/// SDK's futures do not stop when their task is cancelled, so a call that overruns is left to
/// finish in the background and the caller gets `LightningError.unreachable` on time (never a
/// hang, and never "failed").
func bounded<T: Sendable>(_ timeout: Duration, network: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Deadline.run(timeout, on: SparkExecutor.shared,
                           timedOut: { LightningError.unreachable(network: network, reason: "no answer within \(timeout.components.seconds) s") },
                           mapError: SparkErrors.map, body)
}
