import ArgumentParser
import Foundation
import HawalaVault
import HawalaVaultServer
import Logging

/// `hawala-vault serve`: the HTTP server, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the vault server (until SIGINT or SIGTERM; shuts down gracefully).",
        discussion: """
            Prints "vault listening on http://HOST:PORT" once it accepts connections (and, with \
            --metrics-port, "metrics on http://127.0.0.1:PORT/metrics"). Behind a \
            reverse proxy, give the proxy's address with --trusted-proxy so the rate limits count \
            the real clients (from Forwarded / X-Forwarded-For) rather than the proxy.
            """)
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port (0: any free port, printed).") var port = 8080
    @OptionGroup var database: DatabaseOptions
    @Option(name: .customLong("max-upload-mib"), help: "Largest upload, MiB (413 beyond; default: the largest .hawala file, a little over 256 MiB).")
    var maxUploadMiB: Int64?
    @Option(name: .customLong("quota-mib"), help: "Storage per user, MiB (507 beyond).") var quotaMiB: Int64 = 2048
    @Option(name: .customLong("auth-failures"), help: "Failed authentications per address or token per minute before 429.") var authFailures = 10
    @Option(name: .customLong("idle-timeout"),
            help: "Seconds a connection may send nothing (between requests, within its headers, between body chunks) before it is closed.")
    var idleTimeout = 30
    @Option(name: .customLong("body-timeout"),
            help: "Seconds within which a small request body (JSON, a credential envelope) must arrive whole, and after which an upload must keep up --min-upload-rate (408 beyond).")
    var bodyTimeout = 10
    @Option(name: .customLong("min-upload-rate"), help: "Bytes a second an upload must average once --body-timeout has passed (408 beyond).")
    var minimumUploadRate = 1024
    @Option(name: .customLong("transfers-per-user"), help: "Uploads and downloads one user may run at once (429 beyond).") var transfersPerUser = 4
    @Option(name: .customLong("trusted-proxy"), parsing: .upToNextOption,
            help: ArgumentHelp("Reverse proxies (addresses or CIDR blocks) whose forwarding headers name the client.", valueName: "cidr"))
    var trustedProxies: [String] = []
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM; with --tls-key).", valueName: "pem"))
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The certificate's private key (unencrypted PEM, readable only by the server).", valueName: "pem"))
    var tlsKey: String?
    @Option(name: .customLong("disk-reserve-mib"),
            help: "SQLite: disk space (MiB) held in a file beside the database and given up when the disk fills, so deleting backups still works.")
    var diskReserveMiB: Int64 = 64
    @Option(name: .customLong("metrics-port"),
            help: ArgumentHelp("Serve GET /metrics (Prometheus text) on 127.0.0.1 at this port (0: any free port, printed); none without.", valueName: "port"))
    var metricsPort: Int?
    @Flag(name: .customLong("access-log"), help: "Log every request (method, path, status, bytes, time, client) to stderr.") var accessLog = false
    @Flag(name: .customLong("no-words-login"),
          help: "Refuse logins with the words (/auth/…, 403): users then need a token from you to log in on a new device.")
    var noWordsLogin = false
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "warning"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        if let metricsPort { guard (0...65535).contains(metricsPort) else { throw ValidationError("--metrics-port must be 0–65535") } }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be 1–3600 seconds") }
        guard (1...3600).contains(bodyTimeout) else { throw ValidationError("--body-timeout must be 1–3600 seconds") }
        guard (1...(1 << 30)).contains(minimumUploadRate) else { throw ValidationError("--min-upload-rate must be 1 byte a second or more") }
        guard (maxUploadMiB ?? 1) > 0, quotaMiB > 0, authFailures > 0, transfersPerUser > 0 else { throw ValidationError("limits must be positive") }
        guard (0...4096).contains(diskReserveMiB) else { throw ValidationError("--disk-reserve-mib must be 0–4096") }
        guard (maxUploadMiB ?? 0) <= 1 << 20, quotaMiB <= 1 << 30 else { throw ValidationError("limits are in MiB; those are too large") }
        for block in trustedProxies where AddressBlock(block) == nil {
            throw ValidationError("--trusted-proxy takes an address or CIDR block (10.0.0.0/8, ::1); not \"\(block)\"")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level takes one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        // The access log is written at notice, so it shows whatever the level (up to notice).
        let threshold = accessLog ? min(level, .notice) : level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = threshold
            return handler
        }
        VaultServer.raiseDescriptorLimit()
        let tls = try loadTLS()
        let storage = try await database.open(diskReserve: diskReserveMiB << 20)
        var limits = VaultLimits()
        if let maxUploadMiB { limits.maximumUpload = maxUploadMiB << 20 }
        limits.quota = quotaMiB << 20
        limits.failuresAllowed = authFailures
        limits.idleTimeout = .seconds(idleTimeout)
        limits.transfersPerUser = transfersPerUser
        limits.smallBodyTime = .seconds(bodyTimeout)
        limits.uploadGrace = .seconds(bodyTimeout)
        limits.minimumUploadRate = minimumUploadRate
        limits.wordsLogin = !noWordsLogin
        let host = self.host
        let app = try VaultServer.application(storage: storage, host: host, port: port, limits: limits,
                                              trustedProxies: trustedProxies.compactMap(AddressBlock.init), accessLog: accessLog, tls: tls,
                                              metricsPort: metricsPort, onRunning: { port in
            print("vault listening on \(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            fflush(nil)
        }, onMetricsRunning: { port in
            print("metrics on http://127.0.0.1:\(port)/metrics")
            fflush(nil)
        })
        do {
            try await app.runService()
        } catch {
            await storage.close()
            throw OperatorError(message: "the vault server stopped: \(error)")
        }
        await storage.close()
    }

    /// The certificate and key, read before anything else starts.
    private func loadTLS() throws -> VaultTLS? {
        guard let tlsCertificate, let tlsKey else { return nil }
        do {
            return try VaultTLS(certificateChainFile: tlsCertificate, privateKeyFile: tlsKey)
        } catch VaultError.invalidField(_, let why) {
            throw OperatorError(message: why)
        }
    }
}
