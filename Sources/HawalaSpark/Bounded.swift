import Foundation
import HawalaLightning
import Synchronization

/// Runs `body` and answers within `timeout`. The SDK's futures do not stop when their task is
/// cancelled, so a call that overruns is left to finish in the background and the caller gets
/// `LightningError.unreachable` on time (never a hang, and never "failed").
func bounded<T: Sendable>(_ timeout: Duration, network: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let gate = Gate<T>()
    return try await withCheckedThrowingContinuation { continuation in
        gate.set(continuation)
        let work = Task {
            do { gate.resume(.success(try await body())) } catch { gate.resume(.failure(SparkErrors.map(error))) }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if gate.resume(.failure(LightningError.unreachable(network: network, reason: "no answer within \(timeout.components.seconds) s"))) {
                work.cancel()
            }
        }
        gate.onResume { timer.cancel() }
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
