import Foundation
import Synchronization

/// Answers within a time limit whatever the work does: what a page or a command waiting on the
/// network needs (an SDK future, a connection being opened, does not stop when its task is
/// cancelled). Work that overruns is cancelled and left to finish in the background; the caller
/// gets `timedOut()` on time.
public enum Deadline {
    /// `body`'s result, or `timedOut()` thrown once `limit` has passed. Errors `body` throws
    /// pass through `mapError`. With `executor`, `body` runs there (work that may block its
    /// thread, kept off the shared pool so the timer still fires).
    public static func run<T: Sendable>(_ limit: Duration, on executor: (any TaskExecutor)? = nil,
                                        timedOut: @escaping @Sendable () -> Error,
                                        mapError: @escaping @Sendable (Error) -> Error = { $0 },
                                        _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let gate = Gate<T>()
        return try await withCheckedThrowingContinuation { continuation in
            gate.set(continuation)
            let work = Task(executorPreference: executor) {
                do { gate.resume(.success(try await body())) } catch { gate.resume(.failure(mapError(error))) }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                if gate.resume(.failure(timedOut())) { work.cancel() }
            }
            gate.onResume { timer.cancel() }
        }
    }
}

/// Resumes a continuation once, whoever comes first.
private final class Gate<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Error>?
        var done = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func set(_ c: CheckedContinuation<T, Error>) { state.withLock { $0.continuation = c } }

    func onResume(_ body: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if state.done { return true }
            state.cleanup = body
            return false
        }
        if already { body() }
    }

    @discardableResult
    func resume(_ result: Result<T, Error>) -> Bool {
        let (c, after): (CheckedContinuation<T, Error>?, (@Sendable () -> Void)?) = state.withLock { state in
            guard !state.done else { return (nil, nil) }
            state.done = true
            defer { state.continuation = nil; state.cleanup = nil }
            return (state.continuation, state.cleanup)
        }
        guard let c else { return false }
        c.resume(with: result)
        after?()
        return true
    }
}
