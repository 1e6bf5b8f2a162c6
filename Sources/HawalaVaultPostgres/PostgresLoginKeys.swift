import Foundation
import HawalaVault
import HawalaVaultStorage
import Logging
import PostgresNIO

/// Logins with the words, on PostgreSQL (the protocol's words: `VaultStorage`).
extension PostgresVaultStorage {
    public func bindLoginKey(_ publicKey: Data, user: VaultUser, now: Date) async throws(VaultError) {
        let logger = self.logger
        try await transaction { db in
            let holders = try await db.query("SELECT user_id FROM vault_login_key WHERE public_key = \(publicKey) FOR UPDATE", logger: logger)
                .decode(Int64.self).collect()
            if let holder = holders.first, holder != user.id { throw VaultError.loginKeyTaken }
            try await db.query("""
                INSERT INTO vault_login_key (user_id, public_key, bound_at) VALUES (\(user.id), \(publicKey), \(now.timeIntervalSince1970))
                ON CONFLICT (user_id) DO UPDATE SET public_key = EXCLUDED.public_key, bound_at = EXCLUDED.bound_at
                """, logger: logger)
        }
    }

    public func unbindLoginKey(user: VaultUser) async throws(VaultError) {
        let logger = self.logger
        try await run { db in _ = try await db.query("DELETE FROM vault_login_key WHERE user_id = \(user.id)", logger: logger) }
    }

    public func loginKey(user: VaultUser) async throws(VaultError) -> (publicKey: Data, boundAt: Date)? {
        let logger = self.logger
        let rows = try await run { db in
            try await db.query("SELECT public_key, bound_at FROM vault_login_key WHERE user_id = \(user.id)", logger: logger)
                .decode((Data, Double).self).collect()
        }
        return rows.first.map { (publicKey: $0.0, boundAt: Date(timeIntervalSince1970: $0.1)) }
    }

    public func addLoginChallenge(_ challenge: Data, publicKey: Data, expiresAt: Date, now: Date) async throws(VaultError) {
        let logger = self.logger
        let keep = VaultStorageSupport.challengesPerKey - 1
        try await transaction { db in
            try await db.query("DELETE FROM vault_login_challenge WHERE expires_at <= \(now.timeIntervalSince1970)", logger: logger)
            try await db.query("""
                DELETE FROM vault_login_challenge WHERE challenge IN (
                    SELECT challenge FROM vault_login_challenge WHERE public_key = \(publicKey) ORDER BY expires_at DESC OFFSET \(keep))
                """, logger: logger)
            try await db.query("""
                INSERT INTO vault_login_challenge (challenge, public_key, expires_at)
                SELECT \(challenge), \(publicKey), \(expiresAt.timeIntervalSince1970)
                WHERE EXISTS (SELECT 1 FROM vault_login_key WHERE public_key = \(publicKey))
                """, logger: logger)
        }
    }

    public func takeLoginChallenge(_ challenge: Data, publicKey: Data, now: Date) async throws(VaultError) -> Bool {
        let logger = self.logger
        let rows = try await run { db in
            try await db.query("DELETE FROM vault_login_challenge WHERE challenge = \(challenge) RETURNING public_key, expires_at", logger: logger)
                .decode((Data, Double).self).collect()
        }
        guard let row = rows.first else { return false }
        return row.0 == publicKey && row.1 > now.timeIntervalSince1970
    }

    public func tokenForLoginKey(_ publicKey: Data, now: Date) async throws(VaultError) -> String {
        let logger = self.logger
        let token = VaultStorageSupport.newToken()
        try await transaction { db in
            // The user's row locked as `revokeUser` locks it: a revocation committed meanwhile is
            // seen (read committed would otherwise let this insert follow it).
            let users = try await db.query("""
                SELECT u.id FROM vault_user u JOIN vault_login_key k ON k.user_id = u.id WHERE k.public_key = \(publicKey) FOR UPDATE OF u
                """, logger: logger).decode(Int64.self).collect()
            guard let user = users.first else { throw VaultError.unauthorized }
            let scopes = try await db.query("SELECT DISTINCT scope FROM vault_token WHERE user_id = \(user)", logger: logger).decode(String.self).collect()
            guard let scope = VaultStorageSupport.wordsLoginScope(scopes.compactMap(VaultScope.init(rawValue:))) else { throw VaultError.unauthorized }
            try await db.query("""
                INSERT INTO vault_token (hash, user_id, scope, created_at)
                VALUES (\(VaultStorageSupport.tokenHash(token)), \(user), \(scope.rawValue), \(now.timeIntervalSince1970))
                """, logger: logger)
        }
        return token
    }

    public func revokeOtherTokens(user: VaultUser, keeping token: String) async throws(VaultError) -> Int {
        let logger = self.logger
        let rows = try await run { db in
            try await db.query("""
                DELETE FROM vault_token WHERE user_id = \(user.id) AND hash <> \(VaultStorageSupport.tokenHash(token)) RETURNING 1
                """, logger: logger).decode(Int.self).collect()
        }
        return rows.count
    }
}
