import Foundation
import GRDB

extension WalletStore {
    // MARK: Per-wallet settings

    /// A wallet's setting (e.g. its Lightning backend), or nil.
    public func setting(_ key: String, walletID: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT value FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, key]) }
    }

    /// A wallet's settings worth carrying in a backup (not sync cursors).
    public func settings(walletID: String) throws -> [String: String] {
        try read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM walletSetting WHERE walletId = ? AND key != 'ln.syncedAt'", arguments: [walletID]) {
                out[row["key"]] = row["value"]
            }
            return out
        }
    }

    /// Sets (or, with nil, removes) a wallet's setting.
    public func setSetting(_ key: String, to value: String?, walletID: String) throws {
        try writeTransaction { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO walletSetting (walletId, key, value) VALUES (?, ?, ?)", arguments: [walletID, key, value])
            } else {
                try db.execute(sql: "DELETE FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, key])
            }
        }
    }
}

