import Foundation
import HawalaLightning
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `DevnetLNURLService` over HTTP on 127.0.0.1 (never another interface): devnet's Lightning
/// addresses and withdraw vouchers, served until SIGINT or SIGTERM. While it runs it tells the
/// ledger its port every few seconds, so wallets on the ledger register `NAME@127.0.0.1:PORT`.
public struct DevnetLNURLServer: Sendable {
    public let service: DevnetLNURLService

    public init(ledgerPath: String, port: Int) throws {
        service = try DevnetLNURLService(ledgerPath: ledgerPath, port: port)
    }

    /// Serves until a signal; `onRunning` hears once it listens.
    public func run(onRunning: @escaping @Sendable () async -> Void) async throws {
        let logger = Logger(label: "hawala-devnet-lnurl")
        let service = self.service
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                try? service.announce()
            }
        }
        defer {
            heartbeat.cancel()
            service.stop()
        }
        let group = ServiceGroup(configuration: .init(services: [.init(service: application(logger: logger, onRunning: onRunning))],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The server (no signal handling: `run` adds it); it announces itself once listening.
    public func application(logger: Logger = Logger(label: "hawala-devnet-lnurl"),
                            onRunning: @escaping @Sendable () async -> Void = {}) -> some ApplicationProtocol {
        let service = self.service
        let router = Router()
        router.get("**") { request, _ -> Response in
            let (status, body) = service.respond(to: request.uri.description)
            return Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: service.port), serverName: "hawala-devnet-lnurl"),
                           onServerRunning: { _ in
                               try? service.announce()
                               await onRunning()
                           }, logger: logger)
    }
}
