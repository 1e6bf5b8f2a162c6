import Logging

/// A write its caller can't stop for — the payment already went out, a cleanup after a refusal,
/// a note kept beside the result — that failed: said in the log with what it concerns, never
/// swallowed. Where a failed write changes the answer, the caller throws instead.
public enum UnsavedWrite {
    /// Where the failures go; a test (or a face) replaces it for one task.
    @TaskLocal public static var logger = Logger(label: "hawala.store")

    /// Runs `write`; a failure is logged as "`concerning` was not saved: the error".
    public static func attempt(_ concerning: @autoclosure () -> String, logger: Logger = logger, _ write: () throws -> Void) {
        do { try write() } catch { report(concerning(), error, to: logger) }
    }

    /// `attempt` for an asynchronous write.
    public static func attempt(_ concerning: @autoclosure () -> String, logger: Logger = logger, _ write: () async throws -> Void) async {
        do { try await write() } catch { report(concerning(), error, to: logger) }
    }

    static func report(_ concerning: String, _ error: any Error, to logger: Logger) {
        logger.error("\(concerning) was not saved", metadata: ["reason": .string(String("\(error)".prefix(300)))])
    }
}
