import Foundation

/// Writes to another sink on a background thread, so the caller's work (sealing the next chunk)
/// overlaps the kernel's copy of the previous one. At most `depth` writes wait in memory.
///
/// Call `finish()` on every path: it waits for the queue to drain, stops the thread and
/// rethrows the first write error (which also fails any later `write`).
public final class BackgroundSink: ByteSink, @unchecked Sendable {
    // Guarded by `condition`.
    private var queue: [[UInt8]] = []
    private var closed = false
    private var stopped = false
    private var failure: Error?
    private let condition = NSCondition()
    private let sink: ByteSink
    private let depth: Int

    public init(_ sink: ByteSink, depth: Int = 8) {
        self.sink = sink
        self.depth = depth
        Thread.detachNewThread { self.drain() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        let copy = Array(bytes)
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= depth, failure == nil { condition.wait() }
        if let failure { throw failure }
        precondition(!closed, "write after finish")
        queue.append(copy)
        condition.broadcast()
    }

    /// Waits until everything queued is written; throws the first write error.
    public func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while !stopped { condition.wait() }
        if let failure { throw failure }
    }

    private func drain() {
        while true {
            condition.lock()
            while queue.isEmpty, !closed { condition.wait() }
            guard !queue.isEmpty, failure == nil else {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let next = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do {
                try next.withUnsafeBytes { try sink.write($0) }
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
