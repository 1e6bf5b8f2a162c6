import Foundation
import GRDB
import HawalaCrypto
import HawalaText

// MARK: - Store-wide settings (the vault login)

extension WalletStore {
    /// A store-wide setting in the clear (e.g. the vault's URL), or nil.
    public func globalSetting(_ key: String) throws -> String? {
        try read { try SettingRecord.fetchOne($0, key: "x." + key)?.value }
    }

    /// Sets (or, with nil, removes) a store-wide setting kept in the clear.
    public func setGlobalSetting(_ key: String, to value: String?) throws {
        try writeTransaction { db in
            try WalletStore.set("x." + key, to: value, db)
        }
    }

    /// Stores `secret` sealed under the keyring (AES-256-GCM, bound to `key`), with `plain`
    /// beside it in the clear; nil removes both.
    public func setSealedSetting(_ key: String, secret: SecretBytes?, plain: String? = nil, keyring: Keyring) throws {
        let sealed = try secret.map { try keyring.seal($0, context: Array("hawala/setting/\(key)".utf8)) }
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            try WalletStore.set("x." + key, to: plain, db)
            try WalletStore.set("s." + key, to: sealed.map { Data($0).base64EncodedString() }, db)
        }
    }

    /// Whether the sealed setting `key` exists (no password needed to ask).
    public func hasSealedSetting(_ key: String) throws -> Bool {
        try read { try SettingRecord.exists($0, key: "s." + key) }
    }

    /// The sealed setting `key`, opened with the keyring; nil when absent.
    public func sealedSetting(_ key: String, keyring: Keyring) throws -> SecretBytes? {
        guard let text = try read({ try SettingRecord.fetchOne($0, key: "s." + key)?.value }),
              let data = Data(base64Encoded: text) else { return nil }
        do { return try keyring.open(Array(data), context: Array("hawala/setting/\(key)".utf8)) } catch { throw WalletError.tampered("the saved \(key)") }
    }

    /// Sets the setting `key` to `value`, or removes it (nil), inside the caller's transaction.
    static func set(_ key: String, to value: String?, _ db: Database) throws {
        if let value {
            try SettingRecord(key: key, value: value).insert(db, onConflict: .replace)
        } else {
            _ = try SettingRecord.deleteOne(db, key: key)
        }
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
