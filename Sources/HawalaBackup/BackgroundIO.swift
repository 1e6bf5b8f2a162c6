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

/// Reads another source ahead on a background thread, in blocks, so the caller's work
/// (authenticating and decrypting) overlaps the kernel's copy. At most `depth` blocks wait.
///
/// Call `finish()` on every path before the underlying file is closed: it stops the thread.
public final class ReadAheadSource: ByteSource, @unchecked Sendable {
    // Guarded by `condition`.
    private var blocks: [[UInt8]] = []
    private var offset = 0  // into blocks[0]
    private var endOfInput = false
    private var cancelled = false
    private var stopped = false
    private var failure: Error?
    private let condition = NSCondition()
    private let source: ByteSource
    private let blockSize: Int
    private let depth: Int

    public init(_ source: ByteSource, blockSize: Int = 1 << 20, depth: Int = 4) {
        self.source = source
        self.blockSize = blockSize
        self.depth = depth
        Thread.detachNewThread { self.fill() }
    }

    public func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        condition.lock()
        defer { condition.unlock() }
        while out.count < count {
            while blocks.isEmpty, !endOfInput, failure == nil { condition.wait() }
            if blocks.isEmpty, let failure { throw failure }
            guard let first = blocks.first else { break }  // end of input
            let take = min(count - out.count, first.count - offset)
            first.withUnsafeBytes { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + take)])) }
            offset += take
            if offset == first.count {
                blocks.removeFirst()
                offset = 0
                condition.broadcast()
            }
        }
        return out
    }

    /// Stops reading ahead and waits for the thread to end.
    public func finish() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
        while !stopped { condition.wait() }
    }

    private func fill() {
        while true {
            condition.lock()
            while blocks.count >= depth, !cancelled { condition.wait() }
            if cancelled {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
            let block: [UInt8]
            do { block = try source.read(blockSize) } catch {
                condition.lock()
                failure = error
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.lock()
            if !block.isEmpty { blocks.append(block) }
            if block.count < blockSize {
                endOfInput = true
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.broadcast()
            condition.unlock()
        }
    }
}
