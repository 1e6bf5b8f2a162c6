import Foundation
import HawalaText
import HawalaVault
import HawalaVaultAPI
import HawalaVaultStorage
import OpenAPIRuntime

/// Logins with the words (API 2.2.0): an account binds a login key — an Ed25519 public key its
/// wallet makes from its words for this vault alone —, and a device holding only the words
/// signs a challenge for a new token. The server stores public keys only; a challenge is
/// answered once, within `VaultLimits.challengeLifetime`; asking is rate-limited per address,
/// and a wrong answer counts too. Nothing is counted per account: a forged Ed25519 signature is
/// out of reach at any rate, and an account's limit would let others' failures lock its owner
/// out (issue 48) — the owner's right answer is refused only for the owner's own address.
extension VaultHandler {
    func bindLoginKey(_ input: Operations.bindLoginKey.Input) async throws -> Operations.bindLoginKey.Output {
        guard limits.wordsLogin else { return .forbidden(.init(body: .json(Self.wordsLoginOff))) }
        guard let user = try destroyingCaller() else { return .forbidden(Self.forbidden) }
        guard case .json(let body) = input.body, let key = Self.bytes(hex: body.publicKey, count: 32) else {
            return .badRequest(.init(body: .json(Self.error("a public key is 64 hex digits", field: "publicKey"))))
        }
        do {
            try await storage.bindLoginKey(key, user: user, now: Date())
        } catch VaultError.loginKeyTaken {
            return .conflict(.init(body: .json(Self.error(VaultError.loginKeyTaken.description))))
        }
        return .noContent(.init())
    }

    func getLoginKey(_ input: Operations.getLoginKey.Input) async throws -> Operations.getLoginKey.Output {
        let bound = try await storage.loginKey(user: try caller())
        return .ok(.init(body: .json(.init(bound: bound != nil, offered: limits.wordsLogin, boundAt: bound?.boundAt))))
    }

    func unbindLoginKey(_ input: Operations.unbindLoginKey.Input) async throws -> Operations.unbindLoginKey.Output {
        guard let user = try destroyingCaller() else { return .forbidden(Self.forbidden) }
        try await storage.unbindLoginKey(user: user)
        return .noContent(.init())
    }

    /// Every other token of the account (a lost device's, an agent's) stops working now.
    func revokeOtherTokens(_ input: Operations.revokeOtherTokens.Input) async throws -> Operations.revokeOtherTokens.Output {
        guard let user = try destroyingCaller(), let token = VaultRequest.token else { return .forbidden(Self.forbidden) }
        let revoked = try await storage.revokeOtherTokens(user: user, keeping: token)
        return .ok(.init(body: .json(.init(revoked: revoked))))
    }

    func loginChallenge(_ input: Operations.loginChallenge.Input) async throws -> Operations.loginChallenge.Output {
        guard limits.wordsLogin else { return .forbidden(.init(body: .json(Self.wordsLoginOff))) }
        guard case .json(let body) = input.body, let key = Self.bytes(hex: body.publicKey, count: 32) else {
            return .badRequest(.init(body: .json(Self.error("a public key is 64 hex digits", field: "publicKey"))))
        }
        if let retry = limited() {
            return .tooManyRequests(.init(headers: .init(Retry_hyphen_After: retry), body: .json(Self.error("too many logins; retry in \(retry) s"))))
        }
        count()
        let challenge = VaultStorageSupport.randomBytes(32)
        let now = Date(), expiresAt = now.addingTimeInterval(limits.challengeLifetime)
        try await storage.addLoginChallenge(challenge, publicKey: key, expiresAt: expiresAt, now: now)
        return .ok(.init(body: .json(.init(challenge: hexString(challenge), expiresAt: expiresAt))))
    }

    func loginWithWords(_ input: Operations.loginWithWords.Input) async throws -> Operations.loginWithWords.Output {
        guard limits.wordsLogin else { return .forbidden(.init(body: .json(Self.wordsLoginOff))) }
        guard case .json(let body) = input.body, let key = Self.bytes(hex: body.publicKey, count: 32),
              let challenge = Self.bytes(hex: body.challenge, count: 32), let signature = Self.bytes(hex: body.signature, count: 64) else {
            return .badRequest(.init(body: .json(Self.error("publicKey and challenge are 64 hex digits, signature 128", field: "body"))))
        }
        if let retry = limited() { return Self.tooManyLogins(retry) }
        // The challenge is used up whatever follows: each one is answered once.
        let now = Date()
        switch try await answer(challenge: challenge, hex: body.challenge, key: key, signature: signature, now: now) {
        case .token(let token): return .ok(.init(body: .json(.init(token: token))))
        case .wrongAnswer, .noSuchChallenge, .noAccount:
            count()
        }
        return Self.wordsRefused
    }

    private enum Answer { case token(String), noSuchChallenge, wrongAnswer, noAccount }

    /// The challenge taken (used up whatever follows), the signature checked, then the token.
    private func answer(challenge: Data, hex: String, key: Data, signature: Data, now: Date) async throws(VaultError) -> Answer {
        guard try await storage.takeLoginChallenge(challenge, publicKey: key, now: now) else { return .noSuchChallenge }
        guard VaultStorageSupport.isLoginSignature(signature, publicKey: key, message: WordsLogin.message(challengeHex: hex)) else { return .wrongAnswer }
        do {
            return .token(try await storage.tokenForLoginKey(key, now: now))
        } catch .unauthorized {
            return .noAccount
        }
    }

    private static var wordsRefused: Operations.loginWithWords.Output {
        .unauthorized(.init(body: .json(error("the words prove no account here (or the challenge expired)"))))
    }

    private static func tooManyLogins(_ retry: Int) -> Operations.loginWithWords.Output {
        .tooManyRequests(.init(headers: .init(Retry_hyphen_After: retry), body: .json(error("too many logins; retry in \(retry) s"))))
    }

    private static var wordsLoginOff: Components.Schemas._Error { error("this vault does not take logins with the words; ask its operator for a token") }

    /// Seconds to wait when the caller's address asked or failed too often.
    private func limited() -> Int? { logins.retryAfter(VaultRequest.clientAddress) }

    private func count() { logins.recordFailure(VaultRequest.clientAddress) }

    /// `count` bytes from lower-case hex (what the API's patterns allow); nil otherwise.
    static func bytes(hex: String, count: Int) -> Data? {
        guard hex.utf8.count == count * 2 else { return nil }
        var out = Data(capacity: count)
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            default: return nil
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }
}
