import Foundation
import GRDB
import HawalaCrypto
import HawalaText

// MARK: - Store-wide settings (the vault login)

extension WalletStore {
    /// A store-wide setting in the clear (e.g. the vault's URL), or nil.
    public func globalSetting(_ key: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: ["x." + key]) }
    }

    /// Sets (or, with nil, removes) a store-wide setting kept in the clear.
    public func setGlobalSetting(_ key: String, to value: String?) throws {
        try writeTransaction { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: ["x." + key, value])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: ["x." + key])
            }
        }
    }

    /// Stores `secret` sealed under the keyring (AES-256-GCM, bound to `key`), with `plain`
    /// beside it in the clear; nil removes both.
    public func setSealedSetting(_ key: String, secret: SecretBytes?, plain: String? = nil, keyring: Keyring) throws {
        let sealed = try secret.map { try keyring.seal($0, context: Array("hawala/setting/\(key)".utf8)) }
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            for (k, v) in [("x." + key, plain), ("s." + key, sealed.map { Data($0).base64EncodedString() })] {
                if let v {
                    try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [k, v])
                } else {
                    try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [k])
                }
            }
        }
    }

    /// Whether the sealed setting `key` exists (no password needed to ask).
    public func hasSealedSetting(_ key: String) throws -> Bool {
        try read { try Bool.fetchOne($0, sql: "SELECT 1 FROM setting WHERE key = ?", arguments: ["s." + key]) } ?? false
    }

    /// The sealed setting `key`, opened with the keyring; nil when absent.
    public func sealedSetting(_ key: String, keyring: Keyring) throws -> SecretBytes? {
        guard let text = try read({ try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: ["s." + key]) }),
              let data = Data(base64Encoded: text) else { return nil }
        do { return try keyring.open(Array(data), context: Array("hawala/setting/\(key)".utf8)) } catch { throw WalletError.tampered("the saved \(key)") }
    }
}

// MARK: - The unit amounts are shown in

extension WalletStore {
    static let displayUnitKey = "display.unit"

    /// The unit amounts are shown in on this machine (the CLI and the app alike): sat unless BTC
    /// was chosen. What a command takes (`--amount SATS`) and what JSON holds never change.
    public func displayUnit() throws -> AmountUnit {
        try globalSetting(Self.displayUnitKey).flatMap(AmountUnit.init(rawValue:)) ?? .sat
    }

    public func setDisplayUnit(_ unit: AmountUnit) throws {
        try setGlobalSetting(Self.displayUnitKey, to: unit == .sat ? nil : unit.rawValue)
    }
}
