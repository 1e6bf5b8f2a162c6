import AsyncHTTPClient
import Foundation
import HawalaText
import NIOCore

/// Fetches an LNURL service's JSON. A protocol so the pay flow can be tested without a network.
public protocol LNURLFetching: Sendable {
    func get(_ url: URL) async throws(LNURLError) -> Data
}

/// GET over async-http-client, bounded: one deadline for the whole exchange — connecting, the
/// head, every byte of the body (a service that drips a byte a second is cut off on time, not
/// kept alive by each byte) —, a size limit on the answer, no redirects (a service could
/// otherwise send the wallet anywhere). Every outbound request of the Lightning side (LNURL,
/// Lightning addresses, logins, withdrawals, rates) goes through it.
public final class HTTPFetcher: LNURLFetching {
    public static let defaultTimeout: Duration = .seconds(15)
    public static let defaultMaximumBytes = 256 * 1024

    private let client: HTTPClient
    private let timeout: Duration
    private let maximumBytes: Int

    public init(timeout: Duration = HTTPFetcher.defaultTimeout, maximumBytes: Int = HTTPFetcher.defaultMaximumBytes) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        let milliseconds = Int64(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        configuration.timeout = .init(connect: .milliseconds(min(5_000, milliseconds)), read: .milliseconds(milliseconds))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    /// Ends the client; call once done.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public func get(_ url: URL) async throws(LNURLError) -> Data {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let host = url.host ?? "the service"
        let (client, maximumBytes, prepared) = (self.client, self.maximumBytes, request)
        do {
            return try await Deadline.run(timeout, timedOut: { LNURLError.http("\(host) did not answer in time") }) {
                let response = try await client.execute(prepared, deadline: .now() + .hours(1))
                guard response.status == .ok else {
                    // LNURL services report errors in a 200 JSON body; anything else is a transport failure.
                    throw LNURLError.http("\(host) answered HTTP \(response.status.code)")
                }
                let body = try await response.body.collect(upTo: maximumBytes)
                return Data(body.readableBytesView)
            }
        } catch let error as LNURLError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .http("\(host)'s answer is larger than \(maximumBytes / 1024) KiB; refused")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw .http("\(host) did not answer in time")
        } catch {
            throw .http("cannot reach \(host): \(error)")
        }
    }
}

/// LNURL-pay from a pasted input to a checked invoice (LUD-06, -09, -10, -12, -16).
public struct LNURLPayFlow: Sendable {
    public let fetcher: LNURLFetching
    /// For tests on loopback only: accept http:// on 127.0.0.1.
    let allowLoopbackHTTP: Bool

    public init(fetcher: LNURLFetching) {
        self.init(fetcher: fetcher, allowLoopbackHTTP: false)
    }

    init(fetcher: LNURLFetching, allowLoopbackHTTP: Bool) {
        self.fetcher = fetcher
        self.allowLoopbackHTTP = allowLoopbackHTTP
    }

    /// The pay request behind an LNURL or a Lightning address.
    public func payRequest(for input: PaymentInput) async throws(LNURLError) -> LNURLPayRequest {
        switch input {
        case .lnurl(let url):
            return try LNURLPayRequest.parse(try await fetcher.get(url), from: url, allowLoopbackHTTP: allowLoopbackHTTP)
        case let .lightningAddress(user, domain, url):
            return try LNURLPayRequest.parse(try await fetcher.get(url), from: url, identifier: "\(user)@\(domain)", allowLoopbackHTTP: allowLoopbackHTTP)
        default:
            throw .invalidResponse("not an LNURL or a Lightning address")
        }
    }

    /// Asks the service for an invoice of `amountMsat` (with an optional comment) and checks it.
    public func invoice(for request: LNURLPayRequest, amountMsat: Msat, comment: String? = nil,
                        network: LightningNetwork) async throws(LNURLError) -> (Bolt11Invoice, SuccessAction?) {
        let url = try request.callbackURL(amountMsat: amountMsat, comment: comment)
        return try request.invoice(from: try await fetcher.get(url), amountMsat: amountMsat, network: network)
    }
}
