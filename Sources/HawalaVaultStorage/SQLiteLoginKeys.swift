import Foundation
import GRDB
import HawalaVault

/// Logins with the words, on SQLite (the protocol's words: `VaultStorage`).
extension SQLiteVaultStorage {
    public func bindLoginKey(_ publicKey: Data, user: VaultUser, now: Date) async throws(VaultError) {
        try await write { db in
            if let holder = try Int64.fetchOne(db, sql: "SELECT userId FROM loginKey WHERE publicKey = ?", arguments: [publicKey]), holder != user.id {
                throw VaultError.loginKeyTaken
            }
            try db.execute(sql: "INSERT OR REPLACE INTO loginKey (userId, publicKey, boundAt) VALUES (?, ?, ?)",
                           arguments: [user.id, publicKey, now.timeIntervalSince1970])
        }
    }

    public func unbindLoginKey(user: VaultUser) async throws(VaultError) {
        try await write { db in try db.execute(sql: "DELETE FROM loginKey WHERE userId = ?", arguments: [user.id]) }
    }

    public func loginKey(user: VaultUser) async throws(VaultError) -> (publicKey: Data, boundAt: Date)? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT publicKey, boundAt FROM loginKey WHERE userId = ?", arguments: [user.id])
                .map { (publicKey: $0["publicKey"] as Data, boundAt: Date(timeIntervalSince1970: $0["boundAt"])) }
        }
    }

    public func addLoginChallenge(_ challenge: Data, publicKey: Data, expiresAt: Date, now: Date) async throws(VaultError) {
        try await write(durable: false) { db in
            try db.execute(sql: "DELETE FROM loginChallenge WHERE expiresAt <= ?", arguments: [now.timeIntervalSince1970])
            try db.execute(sql: """
                DELETE FROM loginChallenge WHERE challenge IN (
                    SELECT challenge FROM loginChallenge WHERE publicKey = ? ORDER BY expiresAt DESC LIMIT -1 OFFSET ?)
                """, arguments: [publicKey, VaultStorageSupport.challengesPerKey - 1])
            try db.execute(sql: """
                INSERT INTO loginChallenge (challenge, publicKey, expiresAt)
                SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM loginKey WHERE publicKey = ?)
                """, arguments: [challenge, publicKey, expiresAt.timeIntervalSince1970, publicKey])
        }
    }

    public func takeLoginChallenge(_ challenge: Data, publicKey: Data, now: Date) async throws(VaultError) -> Bool {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT publicKey, expiresAt FROM loginChallenge WHERE challenge = ?", arguments: [challenge]) else {
                return false
            }
            try db.execute(sql: "DELETE FROM loginChallenge WHERE challenge = ?", arguments: [challenge])
            return (row["publicKey"] as Data) == publicKey && (row["expiresAt"] as Double) > now.timeIntervalSince1970
        }
    }

    public func tokenForLoginKey(_ publicKey: Data, now: Date) async throws(VaultError) -> String {
        let token = VaultStorageSupport.newToken()
        try await write { db in
            guard let user = try Int64.fetchOne(db, sql: "SELECT userId FROM loginKey WHERE publicKey = ?", arguments: [publicKey]),
                  let scope = VaultStorageSupport.wordsLoginScope(try String.fetchAll(db, sql: "SELECT DISTINCT scope FROM token WHERE userId = ?", arguments: [user])
                    .compactMap(VaultScope.init(rawValue:))) else {
                throw VaultError.unauthorized
            }
            try db.execute(sql: "INSERT INTO token (hash, userId, scope, createdAt) VALUES (?, ?, ?, ?)",
                           arguments: [VaultStorageSupport.tokenHash(token), user, scope.rawValue, now.timeIntervalSince1970])
        }
        return token
    }

    public func revokeOtherTokens(user: VaultUser, keeping token: String) async throws(VaultError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM token WHERE userId = ? AND hash != ?", arguments: [user.id, VaultStorageSupport.tokenHash(token)])
            return db.changesCount
        }
    }
}
