import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import HawalaVault
import HawalaVaultStorage
import HawalaVaultAPI
@testable import HawalaVaultClient  // its BearerMiddleware
@testable import HawalaVaultServer
import Hummingbird
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing

/// Adds fixed header fields to every request (a reverse proxy's `X-Forwarded-For`).
struct ExtraHeaders: ClientMiddleware {
    let fields: HTTPFields
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields.append(contentsOf: fields)
        return try await next(request, body, baseURL)
    }
}

/// A vault server on a free loopback port over a fresh storage, for one test.
struct RunningVault {
    let storage: any VaultStorage
    let port: Int
    /// Where `GET /metrics` answers (127.0.0.1 only).
    let metricsPort: Int
    let task: Task<Void, Error>

    static func start(_ kind: StorageKind, limits: VaultLimits = VaultLimits(), trustedProxies: [AddressBlock] = []) async throws -> RunningVault {
        try await start(storage: try await kind.makeStorage(), limits: limits, trustedProxies: trustedProxies)
    }

    /// The token lookup's bound is raised to 30 s: on a loaded CI machine a lookup queued behind
    /// another test's synced commit took over the server's 3 s and a test not about outages got
    /// 503 (the outage tests make their storage fail at once; the bound itself is the torture
    /// script's).
    static func start(storage: any VaultStorage, limits: VaultLimits = VaultLimits(), trustedProxies: [AddressBlock] = []) async throws -> RunningVault {
        var limits = limits
        limits.storageAnswer = max(limits.storageAnswer, .seconds(30))
        let (ports, continuation) = AsyncStream<(String, Int)>.makeStream()
        let app = try VaultServer.application(storage: storage, port: 0, limits: limits, trustedProxies: trustedProxies, metricsPort: 0,
                                              onRunning: { continuation.yield(("api", $0)) }, onMetricsRunning: { continuation.yield(("metrics", $0)) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var found: [String: Int] = [:]
        for await (name, port) in ports {
            found[name] = port
            if found.count == 2 { break }
        }
        return RunningVault(storage: storage, port: found["api"]!, metricsPort: found["metrics"]!, task: task)
    }

    /// The metrics page, as a scraper on this machine reads it.
    func metrics() async throws -> String {
        let (status, body) = try await get("http://127.0.0.1:\(metricsPort)/metrics")
        #expect(status == 200)
        return body
    }

    /// Status and body of a plain GET.
    func get(_ url: String) async throws -> (Int, String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    func client(token: String?, recorder: ResponseRecorder? = nil, headers: HTTPFields = [:]) -> Client {
        Client(serverURL: URL(string: "http://127.0.0.1:\(port)")!, transport: AsyncHTTPClientTransport(),
               middlewares: (token.map { [BearerMiddleware(token: $0)] } ?? []) + (recorder.map { [$0] } ?? []) + [ExtraHeaders(fields: headers)])
    }

    func stop() {
        task.cancel()
        let storage = self.storage
        Task { await storage.close() }
    }

    /// Stops the server and waits until it no longer answers.
    func stopped() async {
        task.cancel()
        _ = try? await task.value
        await storage.close()
    }
}

func hexSHA256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

@Suite("Vault server through the generated client")
struct VaultServerTests {
    @Test(arguments: StorageKind.enabled) func backupsEndToEnd(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let alice = vault.client(token: try await vault.storage.addUser("alice", now: Date()))
        let payload = Data("HWLA".utf8) + Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })

        let created = try await alice.uploadBackup(query: .init(_type: .manual), headers: .init(X_hyphen_Content_hyphen_SHA256: hexSHA256(payload)),
                                                   body: .binary(HTTPBody(payload))).created.body.json
        #expect(created.sizeBytes == Int64(payload.count) && created._type == .manual && created.status == .complete)
        #expect(created.encryptionMethod == "hawala-v1" && created.sha256 == hexSHA256(payload))
        #expect(try await alice.listBackups().ok.body.json.map(\.id) == [created.id])

        let download = try await alice.downloadBackup(path: .init(backupId: created.id)).ok
        #expect(download.headers.X_hyphen_Content_hyphen_SHA256 == created.sha256 && download.headers.ETag == "\"\(created.sha256)\"")
        #expect(download.headers.Repr_hyphen_Digest == "sha-256=:\(Data(SHA256.hash(data: payload)).base64EncodedString()):")
        #expect(try await Data(collecting: download.body.binary, upTo: 1 << 20) == payload)

        // The restore answer is metadata: the bytes stream from the download path.
        let restore = try await alice.restoreBackup(body: .json(.init(backupId: created.id))).ok.body.json
        #expect(restore.download == "/vault/backups/\(created.id)" && restore.backup.id == created.id && restore.backup.sha256 == created.sha256)

        // A wrong hash is refused, naming the header; nothing is stored.
        let bad = try await alice.uploadBackup(headers: .init(X_hyphen_Content_hyphen_SHA256: String(repeating: "0", count: 64)), body: .binary(HTTPBody(payload)))
        #expect(try bad.conflict.body.json.field == "X-Content-SHA256")
        _ = try await alice.uploadBackup(body: .binary(HTTPBody(Data()))).badRequest  // empty
        #expect(try await alice.listBackups().ok.body.json.count == 1)

        _ = try await alice.deleteBackup(path: .init(backupId: created.id)).noContent
        #expect(try await alice.listBackups().ok.body.json.isEmpty)
        _ = try await alice.deleteBackup(path: .init(backupId: created.id)).notFound
    }

    /// Listings are served from a per-user cache while the user's backups are unchanged; two
    /// servers sharing one database (two processes behind a load balancer) never serve a stale
    /// list after an upload, delete or prune made through the other.
    @Test(arguments: StorageKind.enabled) func listingsFollowChangesMadeElsewhere(kind: StorageKind) async throws {
        let storages = try await kind.makeStorages(count: 2)
        let first = try await RunningVault.start(storage: storages[0])
        defer { first.stop() }
        let second = try await RunningVault.start(storage: storages[1])
        defer { second.stop() }
        let token = try await storages[0].addUser("alice", now: Date())
        let (one, two) = (first.client(token: token), second.client(token: token))
        #expect(try await two.listBackups().ok.body.json.isEmpty)  // cached on the second server

        let a = try await one.uploadBackup(body: .binary(HTTPBody(Data("a".utf8)))).created.body.json.id
        #expect(try await two.listBackups().ok.body.json.map(\.id) == [a])
        #expect(try await two.listBackups().ok.body.json.map(\.id) == [a])  // from the cache
        let b = try await one.uploadBackup(body: .binary(HTTPBody(Data("b".utf8)))).created.body.json.id
        #expect(Set(try await two.listBackups().ok.body.json.map(\.id)) == [a, b])
        _ = try await one.deleteBackup(path: .init(backupId: a)).noContent
        #expect(try await two.listBackups().ok.body.json.map(\.id) == [b])
        #expect(try await one.listBackups().ok.body.json.map(\.id) == [b])

        // Retention run by the storage directly (the daily pass) is seen as well: an older
        // backup, then a newer one, and a prune far in the future keeps only the newest.
        let user = try await storages[0].user(token: token)
        let old = try await storages[0].addBackup(Data("old".utf8), type: .auto, encryptionMethod: "opaque", sha256: nil, user: user,
                                                  now: Date(timeIntervalSinceNow: -400 * 86_400))
        #expect(Set(try await two.listBackups().ok.body.json.map(\.id)) == [b, old.id])
        try await storages[0].pruneAll(now: Date())
        #expect(try await two.listBackups().ok.body.json.map(\.id) == [b])
        // Another user's listing is never served from alice's entry.
        let bob = second.client(token: try await storages[1].addUser("bob", now: Date()))
        #expect(try await bob.listBackups().ok.body.json.isEmpty)
    }

    /// User B can't list, download, restore, delete or read the settings of user A.
    @Test(arguments: StorageKind.enabled) func isolationAndAuthentication(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let a = vault.client(token: try await vault.storage.addUser("a", now: Date()))
        let b = vault.client(token: try await vault.storage.addUser("b", now: Date()))
        let id = try await a.uploadBackup(body: .binary(HTTPBody(Data("secret".utf8)))).created.body.json.id
        var settings = try await a.getSettings().ok.body.json
        settings.retentionDays = 90
        _ = try await a.putSettings(body: .json(settings)).ok
        #expect(try await b.listBackups().ok.body.json.isEmpty)
        _ = try await b.downloadBackup(path: .init(backupId: id)).notFound
        _ = try await b.restoreBackup(body: .json(.init(backupId: id))).notFound
        _ = try await b.deleteBackup(path: .init(backupId: id)).notFound
        #expect(try await b.getSettings().ok.body.json.retentionDays == 30)
        #expect(try await a.listBackups().ok.body.json.count == 1)
        // No token, a wrong token: 401. Health and metrics need none.
        _ = try await vault.client(token: nil).listBackups().unauthorized
        _ = try await vault.client(token: "hwv_wrong").listBackups().unauthorized
        #expect(try await String(collecting: vault.client(token: nil).health().ok.body.plainText, upTo: 100) == "ok\n")
        let metrics = try await vault.metrics()
        #expect(metrics.contains("hawala_vault_requests_total{route=\"listBackups\",status=\"200\"}") && metrics.contains("hawala_vault_backups_stored_total 1"),
                "\(metrics)")
        #expect(metrics.contains("hawala_vault_request_duration_seconds_bucket{route=\"listBackups\",le=\"0.001\"}"), "\(metrics)")
        // Not on the API's port.
        _ = try await vault.client(token: nil).health().ok
        #expect(try await vault.get("http://127.0.0.1:\(vault.port)/metrics").0 == 404)
    }

    /// An append-only token (the agent's) uploads, lists, downloads and reads settings, but a
    /// delete, a settings change or a new credential backup is 403 and changes nothing; the
    /// owner's full token for the same user can.
    @Test(arguments: StorageKind.enabled) func appendOnlyTokens(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let owner = vault.client(token: try await vault.storage.addUser("alice", now: Date()))
        let agent = vault.client(token: try await vault.storage.addToken("alice", scope: .appendOnly, now: Date()))
        let id = try await agent.uploadBackup(body: .binary(HTTPBody(Data("sealed".utf8)))).created.body.json.id
        #expect(try await owner.listBackups().ok.body.json.map(\.id) == [id])
        #expect(try await Data(collecting: agent.downloadBackup(path: .init(backupId: id)).ok.body.binary, upTo: 100) == Data("sealed".utf8))
        #expect(try await agent.deleteBackup(path: .init(backupId: id)).forbidden.body.json.error.contains("append-only"))
        var settings = try await agent.getSettings().ok.body.json
        settings.retentionDays = 7
        _ = try await agent.putSettings(body: .json(settings)).forbidden
        _ = try await agent.uploadCredentialBackup(body: .binary(HTTPBody(Data("envelope".utf8)))).forbidden
        #expect(try await owner.getSettings().ok.body.json.retentionDays == 30)
        #expect(try await owner.getCredentialBackupStatus().ok.body.json.exists == false)
        #expect(try await agent.listBackups().ok.body.json.map(\.id) == [id])
        _ = try await owner.deleteBackup(path: .init(backupId: id)).noContent
    }

    @Test(arguments: StorageKind.enabled) func settingsAreValidated(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let c = vault.client(token: try await vault.storage.addUser("c", now: Date()))
        var settings = try await c.getSettings().ok.body.json
        settings.retentionDays = 400
        #expect(try await c.putSettings(body: .json(settings)).badRequest.body.json.field == "retentionDays")
        settings.retentionDays = 7
        settings.backupTimeUtc = "25:00"
        #expect(try await c.putSettings(body: .json(settings)).badRequest.body.json.field == "backupTimeUtc")
        settings.backupTimeUtc = "04:30"
        settings.backupFrequency = .monthly
        #expect(try await c.putSettings(body: .json(settings)).ok.body.json == settings)
        #expect(try await c.getSettings().ok.body.json == settings)
    }

    /// Limits: 413 past the request size, 507 past the quota, 429 with Retry-After after
    /// repeated failed authentication from one address.
    @Test(arguments: StorageKind.enabled) func limits(kind: StorageKind) async throws {
        var limits = VaultLimits()
        limits.maximumUpload = 1000
        limits.quota = 1500
        limits.failuresAllowed = 3
        let vault = try await RunningVault.start(kind, limits: limits)
        defer { vault.stop() }
        let d = vault.client(token: try await vault.storage.addUser("d", now: Date()))
        _ = try await d.uploadBackup(body: .binary(HTTPBody(Data(count: 1001)))).contentTooLarge
        _ = try await d.uploadBackup(body: .binary(HTTPBody(Data(count: 1000)))).created
        _ = try await d.uploadBackup(body: .binary(HTTPBody(Data(count: 600)))).code507
        let intruder = vault.client(token: "hwv_guess")
        for _ in 0..<3 { _ = try await intruder.listBackups().unauthorized }
        let limited = try await intruder.listBackups().tooManyRequests
        #expect((limited.headers.Retry_hyphen_After ?? 0) > 0)
        // The same address with a valid token is never refused for the intruder's failures
        // (a NAT, an office, a reverse proxy: one address, many people).
        _ = try await d.listBackups().ok
        _ = try await d.getSettings().ok
    }

    /// Every answer: no-store and nosniff; a 401 says Bearer; a 400 names the field, never a
    /// Swift type.
    @Test(arguments: StorageKind.enabled) func headersAndErrorBodies(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let recorder = ResponseRecorder()
        let anonymous = vault.client(token: "hwv_wrong", recorder: recorder)
        _ = try await anonymous.listBackups().unauthorized
        let refused = try #require(recorder.last)
        #expect(refused.headerFields[.cacheControl] == "no-store" && refused.headerFields[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
        #expect(refused.headerFields[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
        let user = vault.client(token: try await vault.storage.addUser("h", now: Date()), recorder: recorder)
        _ = try await user.listBackups().ok
        #expect(recorder.last?.headerFields[.cacheControl] == "no-store" && recorder.last?.headerFields[.wwwAuthenticate] == nil)
        // Refusals before any operation are counted too.
        let metrics = try await vault.metrics()
        #expect(metrics.contains("hawala_vault_requests_total{route=\"auth\",status=\"401\"} 1"), "\(metrics)")
        // An invalid value: 400 naming the field.
        let bad = try await user.putSettings(body: .json(.init(autoBackupEnabled: true, backupFrequency: .daily, backupTimeUtc: "25:99",
                                                                retentionDays: 30, includeMessages: false, wifiOnly: false)))
        if case .badRequest(let r) = bad {
            let message = try r.body.json.error
            #expect(message.contains("backupTimeUtc") && !message.contains("DecodingError") && !message.contains("CodingKeys"), "\(message)")
        } else {
            Issue.record("expected 400, got \(bad)")
        }
    }

    /// Failures count per IPv4 address and per IPv6 /64.
    @Test func clientKeys() {
        #expect(ClientAddress.limitKey("203.0.113.7") == "203.0.113.7")
        #expect(ClientAddress.limitKey("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("::ffff:198.51.100.4") == "198.51.100.4")
        #expect(ClientAddress.limitKey("::1") == "0:0:0:0::/64")
    }

    /// `--trusted-proxy` blocks, and who the client is behind them: only a trusted peer's
    /// forwarding headers count, read from the right, skipping the trusted hops.
    @Test func forwardedClients() throws {
        let block = try #require(AddressBlock("10.0.0.0/8"))
        #expect(block.contains("10.255.1.2") && !block.contains("11.0.0.1") && !block.contains("::1") && !block.contains("garbage"))
        let v6 = try #require(AddressBlock("2001:db8::/32"))
        #expect(v6.contains("2001:db8:ffff::1") && !v6.contains("2001:db9::1") && !v6.contains("10.0.0.1"))
        #expect(AddressBlock("127.0.0.1")?.contains("127.0.0.1") == true && AddressBlock("127.0.0.1")?.contains("127.0.0.2") == false)
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/8/8", "example.com", "10.0.0.0/", "10.0.0.0/٣"] {
            #expect(AddressBlock(bad) == nil, "\(bad)")
        }
        let proxies = [AddressBlock("127.0.0.1")!, AddressBlock("10.0.0.0/8")!]
        func resolve(_ peer: String, _ fields: [(String, String)]) -> String {
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            return ClientAddress.resolve(peer: peer, headers: headers, trustedProxies: proxies)
        }
        // An untrusted peer's headers are ignored: anyone can write them.
        #expect(resolve("203.0.113.9", [("X-Forwarded-For", "198.51.100.1")]) == "203.0.113.9")
        #expect(resolve("127.0.0.1", [("X-Forwarded-For", "198.51.100.1")]) == "198.51.100.1")
        // The client's own claims sit left of what the proxies appended.
        #expect(resolve("127.0.0.1", [("X-Forwarded-For", "1.1.1.1, 198.51.100.1, 10.1.1.1")]) == "198.51.100.1")
        #expect(resolve("127.0.0.1", [("X-Forwarded-For", "1.1.1.1"), ("X-Forwarded-For", "198.51.100.1")]) == "198.51.100.1")
        #expect(resolve("127.0.0.1", [("Forwarded", "for=1.1.1.1, for=\"[2001:db8:cafe::17]:4711\";proto=https")]) == "2001:db8:cafe::17")
        #expect(resolve("127.0.0.1", [("Forwarded", "for=192.0.2.60:8080;by=10.0.0.1"), ("X-Forwarded-For", "1.1.1.1")]) == "192.0.2.60")
        // Nothing usable: the proxy itself.
        #expect(resolve("127.0.0.1", []) == "127.0.0.1")
        #expect(resolve("127.0.0.1", [("X-Forwarded-For", "1.1.1.1, unknown")]) == "127.0.0.1")
        #expect(resolve("127.0.0.1", [("X-Forwarded-For", "10.0.0.2, 10.0.0.3")]) == "10.0.0.2")
    }

    /// Behind a trusted proxy, failures count per forwarded client: one client's failures
    /// don't lock out another behind the same proxy. Without the setting, forwarded addresses
    /// are ignored, so rotating them gains an attacker nothing.
    @Test func rateLimitsBehindAProxy() async throws {
        var limits = VaultLimits()
        limits.failuresAllowed = 3
        let proxied = try await RunningVault.start(.sqlite, limits: limits, trustedProxies: [AddressBlock("127.0.0.1/32")!])
        defer { proxied.stop() }
        let attacker = proxied.client(token: nil, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.1"])
        for _ in 0..<3 { _ = try await attacker.listBackups().unauthorized }
        _ = try await attacker.listBackups().tooManyRequests
        _ = try await proxied.client(token: nil, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.2"]).listBackups().unauthorized

        let direct = try await RunningVault.start(.sqlite, limits: limits)
        defer { direct.stop() }
        for i in 0..<3 { _ = try await direct.client(token: nil, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.\(i)"]).listBackups().unauthorized }
        _ = try await direct.client(token: nil, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.9"]).listBackups().tooManyRequests
    }

    /// Recovering credentials counts per user: another user's recoveries from the same address
    /// never use up a victim's budget.
    @Test(arguments: StorageKind.enabled) func recoveriesCountPerUser(kind: StorageKind) async throws {
        var limits = VaultLimits()
        limits.failuresAllowed = 2
        let vault = try await RunningVault.start(kind, limits: limits)
        defer { vault.stop() }
        let victim = vault.client(token: try await vault.storage.addUser("victim", now: Date()))
        let other = vault.client(token: try await vault.storage.addUser("other", now: Date()))
        for client in [victim, other] { _ = try await client.uploadCredentialBackup(body: .binary(HTTPBody(Data("envelope".utf8)))).noContent }
        for _ in 0..<2 { _ = try await other.recoverCredentials().ok }
        _ = try await other.recoverCredentials().tooManyRequests
        _ = try await victim.recoverCredentials().ok
    }

    @Test(arguments: StorageKind.enabled) func credentialBackup(kind: StorageKind) async throws {
        let vault = try await RunningVault.start(kind)
        defer { vault.stop() }
        let e = vault.client(token: try await vault.storage.addUser("e", now: Date()))
        #expect(try await e.getCredentialBackupStatus().ok.body.json.exists == false)
        _ = try await e.recoverCredentials().notFound
        _ = try await e.uploadCredentialBackup(body: .binary(HTTPBody(Data("envelope".utf8)))).noContent
        let status = try await e.getCredentialBackupStatus().ok.body.json
        #expect(status.exists && status.createdAt != nil && status.lastVerifiedAt == nil)
        #expect(try await Data(collecting: e.recoverCredentials().ok.body.binary, upTo: 1000) == Data("envelope".utf8))
        #expect(try await e.getCredentialBackupStatus().ok.body.json.lastVerifiedAt != nil)
    }
}

@Suite("Vault date format")
struct VaultDateTranscoderTests {
    /// Same text as OpenAPIRuntime's ISO 8601 transcoder, across eras, leap days and the
    /// fractions it drops.
    @Test func matchesTheRuntimesTranscoder() throws {
        let ours = VaultDateTranscoder(), theirs = ISO8601DateTranscoder()
        var dates = [0, 951_782_400, 1_709_164_799.999, 4_102_444_800, -86_400.5, 253_402_300_799].map { Date(timeIntervalSince1970: $0) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -2_000_000_000...6_000_000_000, using: &generator))) }
        for date in dates { #expect(try ours.encode(date) == theirs.encode(date), "\(date.timeIntervalSince1970)") }
        #expect(try ours.decode("2028-02-29T03:00:00Z") == Date(timeIntervalSince1970: 1_835_406_000))
    }
}

/// Keeps the last response's head, to look at headers the generated client doesn't expose.
final class ResponseRecorder: ClientMiddleware, @unchecked Sendable {
    private let lock = NSLock()
    private var response: HTTPResponse?
    var last: HTTPResponse? { lock.withLock { response } }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, body) = try await next(request, body, baseURL)
        lock.withLock { self.response = response }
        return (response, body)
    }
}
