import Foundation
import HTTPTypes
import Hummingbird
import HawalaCrypto
import Synchronization

/// Where the app listens, known once the server is bound (`--port 0` picks any free port).
final class BoundPort: Sendable {
    private let value = Mutex<Int?>(nil)
    func set(_ port: Int) { value.withLock { $0 = port } }
    var port: Int? { value.withLock { $0 } }
}

/// Work of which only one may run at a time (reading an uploaded backup: a file of up to 256
/// MiB decrypted in memory): `begin` says whether it may start now.
final class OneAtATime: Sendable {
    private let running = Atomic(false)

    func begin() -> Bool { running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }

    func end() { running.store(false, ordering: .releasing) }

    /// Whether one is running now.
    var isBusy: Bool { running.load(ordering: .acquiring) }
}

/// Answers only requests addressed to this machine's loopback names at the bound port: a web
/// page elsewhere that points its own host name at 127.0.0.1 (DNS rebinding) gets 403.
struct HostAllowlistMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let bound: BoundPort
    let extraHost: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let port = bound.port, let host = request.head.authority?.lowercased(),
              Self.allowed(port: port, extraHost: extraHost).contains(host) else {
            return AppResponse.plain(.forbidden, "This address is not the app's: open it at 127.0.0.1 or localhost.")
        }
        return try await next(request, context)
    }

    static func allowed(port: Int, extraHost: String?) -> Set<String> {
        var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        if let extraHost { hosts.insert("\(extraHost.lowercased()):\(port)") }
        return hosts
    }
}

/// An address the app does not have (or a form's address opened as a page) gets a styled page
/// with the way home, never the server's bare "Not Found".
struct NotFoundPageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: AppRoutes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            return try await routes.notFound(request, status: error.status)
        }
    }
}

/// Headers on every answer, errors included: no script, style or image from anywhere else, no
/// framing, no referrer, nothing sniffed or cached (pages show balances and words). No CORS
/// header is ever sent.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            response = AppResponse.plain(error.status, error.body ?? error.status.reasonPhrase)
        } catch {
            // Library errors say what went wrong in one line and carry no secret.
            response = AppResponse.plain(.internalServerError, "The app could not do that: \(error)")
        }
        Self.apply(&response.headers)
        return response
    }

    static func apply(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
    }
}

/// A state change must come from the app's own page: the session's form token **and** an
/// `Origin` naming the app — or, where the browser does not name it, `Sec-Fetch-Site:
/// same-origin`. Under `Referrer-Policy: no-referrer` (which every answer carries) browsers send
/// a form's POST with `Origin: null` (Fetch, "serializing a request origin"), so `null` counts as
/// unnamed; `Sec-Fetch-Site` is a header no page script can set.
enum CrossSiteCheck {
    static func passes(_ request: Request, form: FormBody, csrf: String, bound: BoundPort, extraHost: String?) -> Bool {
        passes(request, sentToken: form.text("csrf"), csrf: csrf, bound: bound, extraHost: extraHost)
    }

    /// The check, with the form token as sent (a multipart upload carries it as one of its parts).
    static func passes(_ request: Request, sentToken: String?, csrf: String, bound: BoundPort, extraHost: String?) -> Bool {
        guard let sent = sentToken, SecretBytes(utf8: sent) == SecretBytes(utf8: csrf), let port = bound.port else { return false }
        if let origin = request.headers[.origin], origin != "null" {
            let allowed = HostAllowlistMiddleware.allowed(port: port, extraHost: extraHost).map { "http://\($0)" }
            return allowed.contains(origin.lowercased())
        }
        return request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "same-origin"
    }

    /// A read that only the app's own pages may make (the payment event stream, the invoice
    /// status): a browser sends no `Origin` on a same-origin GET, so a named `Origin` must be the
    /// app's and `Sec-Fetch-Site`, when sent, must say same-origin.
    static func sameOriginRead(_ request: Request, bound: BoundPort, extraHost: String?) -> Bool {
        guard let port = bound.port else { return false }
        if let origin = request.headers[.origin] {
            let allowed = HostAllowlistMiddleware.allowed(port: port, extraHost: extraHost).map { "http://\($0)" }
            guard allowed.contains(origin.lowercased()) else { return false }
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] { return site == "same-origin" }
        return true
    }
}

/// An `application/x-www-form-urlencoded` body, read without turning a password into a String:
/// each value stays bytes until asked for as text or as a secret. Its fields are written in
/// `init` and wiped in `deinit` only, so it is read-only while shared (the request's context).
final class FormBody: @unchecked Sendable {
    private var fields: [String: [UInt8]] = [:]

    static let maximumSize = 64 * 1024

    init(_ body: [UInt8]) {
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(bytes: Self.decode(parts[0]), encoding: .utf8), fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? Self.decode(parts[1]) : []
        }
    }

    deinit {
        for name in fields.keys { SecretBytes.wipe(&fields[name]!) }
    }

    func text(_ name: String) -> String? { fields[name].flatMap { String(bytes: $0, encoding: .utf8) } }

    func secret(_ name: String) -> SecretBytes? { fields[name].map { SecretBytes($0) } }

    /// The fields among `names` that were sent, as text (up to 8 KiB each): what a page refills.
    func plainFields(_ names: Set<String>) -> [String: String] {
        var out: [String: String] = [:]
        for name in names { if let value = text(name), value.utf8.count <= 8_192 { out[name] = value } }
        return out
    }

    /// Percent-decoding, with `+` as a space.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%"), let h = hex(bytes, i + 1), let l = hex(bytes, i + 2) {
                out.append(h << 4 | l)
                i += 3
                continue
            } else {
                out.append(b)
            }
            i += 1
        }
        return out
    }

    private static func hex(_ bytes: ArraySlice<UInt8>, _ i: Int) -> UInt8? {
        guard i < bytes.endIndex else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[i] - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return bytes[i] - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[i] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
