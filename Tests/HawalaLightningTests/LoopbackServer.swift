import Foundation

/// A minimal HTTP/1.1 server on 127.0.0.1 for the LNURL tests: each request's path (with its
/// query) goes to `handler`, whose answer is written after an optional delay, then the
/// connection closes. Blocking sockets on one background thread; test use only.
final class LoopbackServer: @unchecked Sendable {
    struct Reply {
        var status = 200
        var body: [UInt8]
        var delay: Double = 0
        /// Seconds between bytes of the body, sent after the head at once (a hostile drip).
        var drip: Double = 0
        static func json(_ text: String) -> Reply { Reply(body: Array(text.utf8)) }
    }

    let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (String) -> Reply
    private let lock = NSLock()
    private var paths: [String] = []

    /// The request paths seen so far, in order.
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return paths }
    var base: String { "http://127.0.0.1:\(port)" }

    init(handler: @escaping @Sendable (String) -> Reply) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { close(fd); throw POSIXError(.EADDRINUSE) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { self.serve() }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Thread.detachNewThread { self.answer(client) }
        }
    }

    private func answer(_ client: Int32) {
        defer { close(client) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 16384, !request.ends(with: Array("\r\n\r\n".utf8)) {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { return }
            request += buffer[0..<n]
        }
        let firstLine = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        guard firstLine.count >= 2 else { return }
        let path = String(firstLine[1])
        lock.lock(); paths.append(path); lock.unlock()
        let reply = handler(path)
        if reply.delay > 0 { Thread.sleep(forTimeInterval: reply.delay) }
        let head = "HTTP/1.1 \(reply.status) X\r\nContent-Type: application/json\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + reply.body
        var sent = 0
        while sent < bytes.count {
            let headBytes = head.utf8.count
            let end = reply.drip <= 0 ? bytes.count : sent < headBytes ? headBytes : sent + 1
            let n = bytes[sent..<end].withUnsafeBytes { write(client, $0.baseAddress!, $0.count) }
            if n <= 0 { return }
            sent += n
            if reply.drip > 0 && sent > head.utf8.count { Thread.sleep(forTimeInterval: reply.drip) }
        }
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
