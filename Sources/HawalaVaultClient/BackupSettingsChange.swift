import HawalaVault

/// A setting named by its key, as a person types it (`autoBackupEnabled true`).
public enum BackupSettingChangeError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownKey(String)
    case invalidValue(key: String, expected: String)

    public var description: String {
        switch self {
        case .unknownKey(let key): "unknown setting \(key)"
        case let .invalidValue(key, expected): "\(key) takes \(expected)"
        }
    }
}

extension BackupSettings {
    /// The settings' keys, in the order they are shown.
    public static let keys = ["autoBackupEnabled", "backupFrequency", "backupTimeUtc", "retentionDays", "includeMessages", "wifiOnly"]

    /// Changes one setting from its text; the vault checks ranges and formats when it stores them.
    public mutating func set(_ key: String, to value: String) throws(BackupSettingChangeError) {
        func bool() throws(BackupSettingChangeError) -> Bool {
            guard let b = Bool(value) else { throw .invalidValue(key: key, expected: "true or false") }
            return b
        }
        switch key {
        case "autoBackupEnabled": autoBackupEnabled = try bool()
        case "includeMessages": includeMessages = try bool()
        case "wifiOnly": wifiOnly = try bool()
        case "backupTimeUtc": backupTimeUtc = value
        case "retentionDays":
            guard let days = Int(value) else { throw .invalidValue(key: key, expected: "a number of days") }
            retentionDays = days
        case "backupFrequency":
            guard let frequency = Frequency(rawValue: value) else { throw .invalidValue(key: key, expected: "daily, weekly or monthly") }
            backupFrequency = frequency
        default: throw .unknownKey(key)
        }
    }
}
