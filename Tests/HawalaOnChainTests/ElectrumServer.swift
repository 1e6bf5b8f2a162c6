import Foundation
import HawalaOnChain
import HawalaTestSupport
import Synchronization

/// ElectrumX (PyPI's e-x, in .build/electrumx-venv: `make test-deps`) in front of a regtest
/// node, on loopback: plain TCP and TLS with a self-signed certificate made for it. Killed with
/// its test, or when the test process ends.
final class ElectrumServer: @unchecked Sendable {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/electrumx-venv/bin/electrumx_server").standardized.path

    let directory: URL
    let tcpPort: Int
    let tlsPort: Int
    let process: Process
    private let stopped = Mutex(false)

    var tcp: String { "127.0.0.1:\(tcpPort):t" }
    var tls: String { "127.0.0.1:\(tlsPort):s" }

    init(node: RegtestNode) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw RegtestNode.NodeError("\(Self.binary) is missing: `make test-deps` installs ElectrumX")
        }
        directory = temporaryFolder("hawala-electrumx")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("db"), withIntermediateDirectories: true)
        tcpPort = try RegtestNode.freePort()
        tlsPort = try RegtestNode.freePort()
        let (cert, key) = (directory.appendingPathComponent("cert.pem").path, directory.appendingPathComponent("key.pem").path)
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                             "-days", "2", "-subj", "/CN=127.0.0.1"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let cookie = try String(contentsOfFile: node.cookie, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let watch = "\"$0\" \"$@\" </dev/null & child=$!; "
            + "while kill -0 \(getpid()) 2>/dev/null && [ ! -e '\(directory.path)/stop' ]; do sleep 0.1; done; kill -9 $child; wait $child"
        process.arguments = ["-c", watch, Self.binary]
        process.environment = [
            "COIN": "Litecoin", "NET": "regtest", "DB_ENGINE": "leveldb", "DB_DIRECTORY": directory.appendingPathComponent("db").path,
            "DAEMON_URL": "http://\(cookie)@127.0.0.1:\(node.port)/", "SERVICES": "tcp://127.0.0.1:\(tcpPort),ssl://127.0.0.1:\(tlsPort)",
            "SSL_CERTFILE": cert, "SSL_KEYFILE": key, "PEER_DISCOVERY": "off", "PEER_ANNOUNCE": "", "ALLOW_ROOT": "1", "CACHE_MB": "50",
            "DAEMON_POLL_INTERVAL_BLOCKS": "100", "DAEMON_POLL_INTERVAL_MEMPOOL": "100", "HOME": directory.path,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let log = directory.appendingPathComponent("electrumx.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        let client = try ElectrumClient(address: tcp, timeout: .seconds(5))
        while true {
            if (try? await client.tip()) != nil { break }
            guard Date() < deadline, process.isRunning else {
                stop()
                throw RegtestNode.NodeError("ElectrumX did not start: \((try? String(contentsOf: log, encoding: .utf8))?.suffix(600) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    deinit { stop() }

    /// Waits until the server has indexed the node's tip.
    func caughtUp(with node: RegtestNode) async throws {
        let client = try ElectrumClient(address: tcp, timeout: .seconds(5))
        let deadline = Date().addingTimeInterval(30)
        while true {
            let (ours, theirs) = (try await client.tip().height, try await node.rpc.tip().height)
            if ours == theirs { return }
            guard Date() < deadline else { throw RegtestNode.NodeError("ElectrumX is at \(ours), the node at \(theirs)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits until the server lists `txid` in the history of `address`'s script (its mempool is polled).
    func sees(_ txid: String, at script: [UInt8]) async throws {
        let client = try ElectrumClient(address: tcp, timeout: .seconds(5))
        let deadline = Date().addingTimeInterval(30)
        while try await !client.histories([script])[0].contains(where: { $0.txid.description == txid }) {
            guard Date() < deadline else { throw RegtestNode.NodeError("ElectrumX never listed \(txid)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
        while process.isRunning { usleep(10_000) }
    }
}
