import Foundation
import Logging
import MCP
import Synchronization

/// MCP over standard input and output — one JSON-RPC message a line — read in linear time,
/// each line capped: the SDK's own stdio transport scans everything unread for a newline after
/// every 4 KiB (a 4 MiB line cost 40 s of CPU) and takes any length. A line past
/// `maximumLineBytes` is skipped whole and answered with a JSON-RPC error; the next line is
/// read as usual. Reads block a thread of their own, never the shared pool.
public actor LineTransport: Transport {
    /// The longest message taken.
    public static let maximumLineBytes = 1 << 20

    public nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let writer = Mutex(())
    private let messages: AsyncThrowingStream<Data, Swift.Error>
    private let continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation
    private var started = false

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, logger: Logger = Logger(label: "hawala.mcp")) {
        self.input = input
        self.output = output
        self.logger = logger
        (messages, continuation) = AsyncThrowingStream.makeStream()
    }

    public func connect() async throws {
        guard !started else { return }
        started = true
        let (input, continuation, logger) = (self.input, self.continuation, self.logger)
        let thread = Thread { [self] in Self.readLines(from: input, into: continuation, logger: logger) { self.write($0) } }
        thread.name = "mcp-stdin"
        thread.start()
    }

    public func disconnect() async { continuation.finish() }

    public func send(_ data: Data) async throws {
        guard write(data + [UInt8(ascii: "\n")]) else { throw MCPError.transportError(POSIXError(.EPIPE)) }
    }

    public func receive() -> AsyncThrowingStream<Data, Swift.Error> { messages }

    /// Writes all of `bytes`, one message at a time (the reader answers oversized lines too).
    @discardableResult
    nonisolated func write(_ bytes: Data) -> Bool {
        writer.withLock { _ in
            bytes.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR || errno == EAGAIN { continue }
                        return false
                    }
                    offset += written
                }
                return true
            }
        }
    }

    /// The loop of the reading thread: each line yielded; a line past the cap skipped to its end
    /// and answered with an error; end of input ends the stream.
    static func readLines(from input: Int32, into continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation, logger: Logger,
                          answer: (Data) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var line: [UInt8] = []
        var skipping = false
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN {
                usleep(10_000)
                continue
            }
            guard count > 0 else { break }
            var start = 0
            // Only the bytes just read are scanned: linear in the input.
            while let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) {
                if skipping {
                    skipping = false
                } else if line.count + (newline - start) <= maximumLineBytes {
                    line += chunk[start..<newline]
                    if !line.isEmpty { continuation.yield(Data(line)) }
                } else {
                    tooLong(logger: logger, answer: answer)
                }
                line.removeAll(keepingCapacity: line.count <= 64 * 1024)
                start = newline + 1
            }
            guard !skipping else { continue }
            if line.count + (count - start) > maximumLineBytes {
                tooLong(logger: logger, answer: answer)
                line.removeAll(keepingCapacity: false)
                skipping = true
            } else {
                line += chunk[start..<count]
            }
        }
        // The last line may end with the input instead of a newline.
        if !skipping, !line.isEmpty { continuation.yield(Data(line)) }
        continuation.finish()
    }

    static func tooLong(logger: Logger, answer: (Data) -> Void) {
        logger.warning("an MCP message longer than the limit was skipped", metadata: ["limit_bytes": "\(maximumLineBytes)"])
        answer(Data(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the message is longer than 1 MiB: skipped"}}"#.utf8) + [UInt8(ascii: "\n")])
    }
}
