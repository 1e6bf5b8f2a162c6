import Crypto
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaText
import HawalaVault
import HawalaVaultAPI
@testable import HawalaVaultClient
@testable import HawalaVaultServer
import HawalaVaultStorage
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Issue 39, item 13: a vault account bound to a key made from the words; a device holding only
/// the words signs a challenge for a new token. Each challenge answers once, within its life;
/// a wrong signature, an unknown key, a revoked user get nothing; asking is rate-limited.
@Suite("Vault logins with the words")
struct WordsLoginTests {
    static let seed = SecretBytes((0..<64).map { UInt8($0) })
    static let vault = URL(string: "http://127.0.0.1:8080")!

    @Test func theKeyIsPerVaultAndStable() {
        let a = VaultLoginKey(seed: Self.seed, vault: URL(string: "https://Vault.Example.com/some/path")!)
        let b = VaultLoginKey(seed: Self.seed, vault: URL(string: "https://vault.example.com:443")!)
        let c = VaultLoginKey(seed: Self.seed, vault: URL(string: "https://other.example.com")!)
        #expect(a.publicKey == b.publicKey, "the same origin however typed")
        #expect(a.publicKey != c.publicKey, "another vault, another key: they can't link the wallet")
        #expect(VaultLoginKey(seed: SecretBytes([UInt8](repeating: 1, count: 64)), vault: Self.vault).publicKey != VaultLoginKey(seed: Self.seed, vault: Self.vault).publicKey)
        #expect(VaultLoginKey.origin(of: URL(string: "HTTP://[::1]:8080/x")!) == "http://[::1]:8080")
        let message = WordsLogin.message(challengeHex: String(repeating: "ab", count: 32))
        #expect(VaultStorageSupport.isLoginSignature(Data(a.sign(message)), publicKey: Data(a.publicKey), message: message))
        #expect(!VaultStorageSupport.isLoginSignature(Data(c.sign(message)), publicKey: Data(a.publicKey), message: message))
    }

    @Test(arguments: StorageKind.enabled) func storageRules(kind: StorageKind) async throws {
        let storage = try await kind.makeStorage()
        defer { Task { await storage.close() } }
        let now = Date()
        let aliceToken = try await storage.addUser("alice", now: now), bobToken = try await storage.addUser("bob", now: now)
        let alice = try await storage.user(token: aliceToken), bob = try await storage.user(token: bobToken)
        let key = Data(repeating: 7, count: 32), other = Data(repeating: 8, count: 32)
        #expect(try await storage.loginKey(user: alice) == nil)
        try await storage.bindLoginKey(key, user: alice, now: now)
        try await storage.bindLoginKey(key, user: alice, now: now)  // again: fine
        #expect(try await storage.loginKey(user: alice)?.publicKey == key)
        await #expect(throws: VaultError.loginKeyTaken) { try await storage.bindLoginKey(key, user: bob, now: now) }

        // A challenge answers once, for its key, before it expires.
        let challenge = Data(repeating: 1, count: 32)
        try await storage.addLoginChallenge(challenge, publicKey: key, expiresAt: now.addingTimeInterval(60), now: now)
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: key, now: now))
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: key, now: now) == false, "used once")
        try await storage.addLoginChallenge(challenge, publicKey: key, expiresAt: now.addingTimeInterval(60), now: now)
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: other, now: now) == false, "another key's")
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: key, now: now) == false, "and gone after that try")
        try await storage.addLoginChallenge(challenge, publicKey: key, expiresAt: now.addingTimeInterval(60), now: now)
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: key, now: now.addingTimeInterval(61)) == false, "expired")
        // A key no one holds gets nothing stored (a flood of made-up keys fills nothing).
        try await storage.addLoginChallenge(challenge, publicKey: other, expiresAt: now.addingTimeInterval(60), now: now)
        #expect(try await storage.takeLoginChallenge(challenge, publicKey: other, now: now) == false)
        // A flood for one key keeps only its newest few.
        let flood = (0..<10).map { Data(repeating: UInt8(100 + $0), count: 32) }
        for (i, c) in flood.enumerated() { try await storage.addLoginChallenge(c, publicKey: key, expiresAt: now.addingTimeInterval(Double(60 + i)), now: now) }
        #expect(try await storage.takeLoginChallenge(flood[0], publicKey: key, now: now) == false)
        #expect(try await storage.takeLoginChallenge(flood[9], publicKey: key, now: now))

        // A new full token for the bound user; none for an unbound key or a revoked user.
        let fresh = try await storage.tokenForLoginKey(key, now: now)
        let freshUser = try await storage.user(token: fresh)
        #expect(freshUser.name == "alice" && freshUser.scope == .full)
        await #expect(throws: VaultError.unauthorized) { _ = try await storage.tokenForLoginKey(other, now: now) }
        #expect(try await storage.revokeOtherTokens(user: alice, keeping: fresh) == 1)
        await #expect(throws: VaultError.unauthorized) { _ = try await storage.user(token: aliceToken) }
        #expect(try await storage.user(token: fresh).name == "alice")
        try await storage.revokeUser("alice")
        await #expect(throws: VaultError.unauthorized, "the operator's revocation holds") { _ = try await storage.tokenForLoginKey(key, now: now) }
        // The name given again: the former holder's words reach nothing (the binding went with the revocation).
        #expect(try await storage.loginKey(user: alice) == nil)
        let again = try await storage.addUser("alice", now: now)
        #expect(try await storage.loginKey(user: try await storage.user(token: again)) == nil)
        await #expect(throws: VaultError.unauthorized, "old words, new holder") { _ = try await storage.tokenForLoginKey(key, now: now) }
        try await storage.unbindLoginKey(user: bob)
        #expect(try await storage.loginKey(user: bob) == nil)
        // The words never raise what the operator gave: an agent-only account gets append-only.
        let agentOnly = try await storage.addUser("agent-only", scope: .appendOnly, now: now)
        let third = Data(repeating: 9, count: 32)
        try await storage.bindLoginKey(third, user: try await storage.user(token: agentOnly), now: now)
        #expect(try await storage.user(token: try await storage.tokenForLoginKey(third, now: now)).scope == .appendOnly)
    }

    @Test(arguments: StorageKind.enabled) func throughTheServer(kind: StorageKind) async throws {
        var limits = VaultLimits()
        limits.failuresAllowed = 12
        let vault = try await RunningVault.start(kind, limits: limits)
        defer { vault.stop() }
        let url = URL(string: "http://127.0.0.1:\(vault.port)")!
        let token = try await vault.storage.addUser("alice", now: Date())
        let agent = try await vault.storage.addToken("alice", scope: .appendOnly, now: Date())
        let key = VaultLoginKey(seed: Self.seed, vault: url)
        let client = VaultClient(url: url, token: SecretBytes(utf8: token))
        // Before any binding: no login; an append-only token may not bind.
        await #expect(throws: VaultClientError.wordsLoginRefused(url: url.absoluteString)) { _ = try await VaultClient.logIn(url: url, key: key) }
        do {
            try await VaultClient(url: url, token: SecretBytes(utf8: agent)).bindLoginKey(key)
            Issue.record("an append-only token bound a login key")
        } catch .refused(let refusal) {
            #expect(refusal.status == 403)
        } catch {
            Issue.record("\(error)")
        }
        let before = try await client.loginKeyStatus()
        #expect(!before.bound && before.offered)
        #expect(try await client.hasLoginKey() == false)
        try await client.bindLoginKey(key)
        #expect(try await client.hasLoginKey())

        let fresh = try await VaultClient.logIn(url: url, key: key)
        let device = VaultClient(url: url, token: fresh)
        #expect(try await device.backups().isEmpty)
        #expect(try await device.revokeOtherTokens() == 2, "the lost device's and the agent's")
        await #expect(throws: VaultClientError.self) { _ = try await client.backups() }

        // By hand, as an attacker would: a wrong signature, a replayed challenge, a key not bound.
        let api = vault.client(token: nil)
        let hexKey = hexString(key.publicKey)
        let challenge = try await api.loginChallenge(body: .json(.init(publicKey: hexKey))).ok.body.json.challenge
        let forged = [UInt8](repeating: 9, count: 64)
        #expect(try await api.loginWithWords(body: .json(.init(publicKey: hexKey, challenge: challenge, signature: hexString(forged)))).unauthorized != nil)
        let signed = hexString(key.sign(WordsLogin.message(challengeHex: challenge)))
        #expect(try await api.loginWithWords(body: .json(.init(publicKey: hexKey, challenge: challenge, signature: signed))).unauthorized != nil,
                "a challenge answered wrong once is gone")
        let stranger = VaultLoginKey(seed: SecretBytes([UInt8](repeating: 3, count: 64)), vault: url)
        let strangersChallenge = try await api.loginChallenge(body: .json(.init(publicKey: hexString(stranger.publicKey)))).ok.body.json.challenge
        let strangerSigned = hexString(stranger.sign(WordsLogin.message(challengeHex: strangersChallenge)))
        #expect(try await api.loginWithWords(body: .json(.init(publicKey: hexString(stranger.publicKey), challenge: strangersChallenge,
                                                              signature: strangerSigned))).unauthorized != nil)
        #expect(try await api.loginChallenge(body: .json(.init(publicKey: "zz"))).badRequest != nil)
        // A flood from one address is slowed down (429 with Retry-After), nothing else breaks.
        var limited = false
        for _ in 0..<20 {
            if case .tooManyRequests = try await api.loginChallenge(body: .json(.init(publicKey: hexKey))) { limited = true; break }
        }
        #expect(limited)
        #expect(try await device.backups().isEmpty, "a token is never refused for others' failures")
    }

    /// Wrong answers for an account from many addresses (behind a trusted proxy, each its own
    /// client) slow those addresses down, and never lock the owner out: the owner's right answer,
    /// from an address that failed nothing, still logs in.
    @Test func othersFailuresNeverLockTheOwnerOut() async throws {
        var limits = VaultLimits()
        limits.failuresAllowed = 3
        let vault = try await RunningVault.start(.sqlite, limits: limits, trustedProxies: [AddressBlock("127.0.0.1/32")!])
        defer { vault.stop() }
        let url = URL(string: "http://127.0.0.1:\(vault.port)")!
        let token = try await vault.storage.addUser("alice", now: Date())
        let key = VaultLoginKey(seed: Self.seed, vault: url)
        try await VaultClient(url: url, token: SecretBytes(utf8: token)).bindLoginKey(key)
        let hexKey = hexString(key.publicKey)
        let attacker = VaultLoginKey(seed: SecretBytes([UInt8](repeating: 9, count: 64)), vault: url)
        // A client behind the trusted proxy, seen as `address`.
        func client(forwardedFor address: String) -> Client {
            vault.client(token: nil, headers: [HTTPField.Name("X-Forwarded-For")!: address])
        }
        for i in 0..<12 {
            let api = client(forwardedFor: "198.51.100.\(i + 1)")
            let challenge = try await api.loginChallenge(body: .json(.init(publicKey: hexKey))).ok.body.json.challenge
            let forged = hexString(attacker.sign(WordsLogin.message(challengeHex: challenge)))
            let answer = try await api.loginWithWords(body: .json(.init(publicKey: hexKey, challenge: challenge, signature: forged)))
            if case .ok = answer { Issue.record("a forged answer logged in") }
        }
        let api = client(forwardedFor: "203.0.113.7")
        let challenge = try await api.loginChallenge(body: .json(.init(publicKey: hexKey))).ok.body.json.challenge
        let signed = hexString(key.sign(WordsLogin.message(challengeHex: challenge)))
        let answer = try await api.loginWithWords(body: .json(.init(publicKey: hexKey, challenge: challenge, signature: signed)))
        #expect((try? answer.ok.body.json.token)?.hasPrefix("hwv_") == true, "the owner was refused: \(answer)")
    }

    @Test(arguments: StorageKind.enabled) func theOperatorMayTurnItOff(kind: StorageKind) async throws {
        var limits = VaultLimits()
        limits.wordsLogin = false
        let vault = try await RunningVault.start(kind, limits: limits)
        defer { vault.stop() }
        let url = URL(string: "http://127.0.0.1:\(vault.port)")!
        let api = vault.client(token: nil)
        #expect(try await api.loginChallenge(body: .json(.init(publicKey: String(repeating: "ab", count: 32)))).forbidden != nil)
        do {
            _ = try await VaultClient.logIn(url: url, key: VaultLoginKey(seed: Self.seed, vault: url))
            Issue.record("a login with the words where they are off")
        } catch .refused(let refusal) {
            #expect(refusal.status == 403 && refusal.reason?.contains("does not take logins with the words") == true, "\(refusal)")
        } catch {
            Issue.record("\(error)")
        }
        // A token login there binds nothing and says why; the status says it is off.
        let token = try await vault.storage.addUser("dora", now: Date())
        let client = VaultClient(url: url, token: SecretBytes(utf8: token))
        let status = try await client.loginKeyStatus()
        #expect(!status.offered && !status.bound)
    }
}
