import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HTTPTypes
import HawalaText
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A paid test endpoint on 127.0.0.1 (`hawala ln devnet l402`): a stand-in for a compute API.
/// A request without a credential gets `402` and an L402 challenge — an invoice of `price` from
/// the wallet serving it, and a token bound to the invoice's payment hash by an HMAC under a key
/// of this process (as L402 macaroons are bound) —; a request with `Authorization: L402
/// TOKEN:PREIMAGE` whose token is this server's and whose preimage hashes to its payment hash
/// gets a small JSON job result. A token works `uses` times (nil: always).
public final class DevnetL402Server: Sendable {
    public let port: Int
    public let price: Sats
    let uses: Int?
    let session: LightningSession
    private let key = SecretBytes(SystemRandom.bytes(32))
    private let state = Mutex<(jobs: Int, used: [String: Int])>((0, [:]))

    public init(session: LightningSession, port: Int, price: Sats, uses: Int? = nil) {
        self.session = session
        self.port = port
        self.price = price
        self.uses = uses
    }

    /// Serves until SIGINT or SIGTERM; `onRunning` hears once it listens.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        let logger = Logger(label: "hawala-devnet-l402")
        let router = Router()
        // Every path is paid, the root too (the address printed).
        for path in ["/", "**"] {
            router.on(RouterPath(path), method: .get) { request, _ in try await self.answer(request) }
            router.on(RouterPath(path), method: .post) { request, _ in try await self.answer(request) }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hawala-devnet-l402"),
                              onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    func answer(_ request: Request) async throws -> Response {
        if let credential = request.headers[.authorization], let job = try check(credential) {
            var body = try await request.body.collect(upTo: 64 * 1024)
            let input = body.readBytes(length: body.readableBytes) ?? []
            return json(.ok, [("job", "\(job)"), ("path", quoted(request.uri.path)),
                              ("result", quoted(hex(Hash.sha256(Array(request.uri.path.utf8) + input)))), ("priceSats", "\(price.value)")])
        }
        let invoice = try await session.receive(ReceiveRequest(amountSats: price, description: "devnet compute job", expirySeconds: 600))
        let hash = invoice.response.paymentHash
        guard let hashBytes = bytes(fromHex: hash), hashBytes.count == 32 else { return json(.internalServerError, [("error", quoted("no payment hash"))]) }
        let token = Data(hashBytes + tag(hashBytes)).base64EncodedString()
        var response = json(.init(code: 402, reasonPhrase: "Payment Required"), [("error", quoted("payment required")), ("priceSats", "\(price.value)")])
        response.headers[HTTPField.Name("WWW-Authenticate")!] = "L402 version=\"0\", token=\"\(token)\", invoice=\"\(invoice.response.invoice)\""
        return response
    }

    /// The job number a valid credential buys; nil when it is not one of this server's, not
    /// paid, or used up.
    func check(_ credential: String) throws -> Int? {
        let parts = credential.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["L402", "LSAT"].contains(parts[0].uppercased()) else { return nil }
        let pair = parts[1].split(separator: ":")
        guard pair.count == 2, let token = Data(base64Encoded: String(pair[0])), token.count == 64,
              let preimage = bytes(fromHex: String(pair[1])), preimage.count == 32 else { return nil }
        let hash = [UInt8](token.prefix(32))
        guard zip(tag(hash), token.suffix(32)).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0, Hash.sha256(preimage) == hash else { return nil }
        let key = hex(hash)
        return state.withLock { state -> Int? in
            let used = state.used[key, default: 0]
            if let uses, used >= uses { return nil }
            state.used[key] = used + 1
            state.jobs += 1
            return state.jobs
        }
    }

    func tag(_ paymentHash: [UInt8]) -> [UInt8] {
        Hash.hmacSHA256(key: key, Array("hawala devnet l402".utf8) + paymentHash)
    }

    func json(_ status: HTTPResponse.Status, _ fields: [(String, String)]) -> Response {
        let body = "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}\n"
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
