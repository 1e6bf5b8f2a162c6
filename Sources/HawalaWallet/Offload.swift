import Dispatch

/// Work that takes seconds of CPU (a key derivation, sealing a backup) run off Swift's
/// cooperative pool, which serves every other task of the process (an app's requests).
public enum Offload {
    /// Runs `work` on a thread of Dispatch's global pool and waits for it.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }
}
