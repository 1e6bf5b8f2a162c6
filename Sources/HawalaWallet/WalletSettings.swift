import Foundation
import GRDB

// MARK: - Per-wallet settings

extension WalletStore {
    /// A wallet's setting (e.g. its Lightning backend), or nil.
    public func setting(_ key: String, walletID: String) throws -> String? {
        try read { try WalletSettingRecord.fetchOne($0, key: ["walletId": walletID, "key": key])?.value }
    }

    /// A wallet's settings worth carrying in a backup (not sync cursors).
    public func settings(walletID: String) throws -> [String: String] {
        let records = try read {
            try WalletSettingRecord.of(wallet: walletID).filter(WalletSettingRecord.Columns.key != WalletSettingRecord.syncCursorKey).fetchAll($0)
        }
        return Dictionary(records.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Sets (or, with nil, removes) a wallet's setting.
    public func setSetting(_ key: String, to value: String?, walletID: String) throws {
        try writeTransaction { db in
            if let value {
                try WalletSettingRecord(walletId: walletID, key: key, value: value).insert(db, onConflict: .replace)
            } else {
                _ = try WalletSettingRecord.deleteOne(db, key: ["walletId": walletID, "key": key])
            }
        }
    }
}
