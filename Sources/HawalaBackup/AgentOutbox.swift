import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// The vault agent's outbox (docs/decisions/0002): `.hawala` snapshots of every wallet, sealed
/// while the user is present — with the wallet keyring open — under a backup key derived once
/// from the backup password and kept sealed under that keyring. The agent that uploads them
/// unattended never holds a password or a key; the user restores them with the backup password.
public enum AgentOutbox {
    /// The newest snapshot (replaced atomically).
    public static func snapshotURL(home: WalletHome) -> URL {
        home.directory.appendingPathComponent("outbox").appendingPathComponent("snapshot.hawala")
    }

    /// What `enable` records in the clear: when, and the backup key's salt and cost.
    struct Record: Codable {
        var enabledAt: Date
        var salt: String
        var passes: UInt32
        var memoryKiB: UInt32
        /// HMAC (under the backup key) of the payload in the current snapshot.
        var payloadDigest: String?
        /// The store's `exportVersion` when the snapshot was last found current.
        var exportVersion: Int64?
    }

    static let keyKey = "vault.agent.key"

    /// When the agent was enabled; nil when it is not.
    public static func enabledAt(store: WalletStore) throws -> Date? { try record(store)?.enabledAt }

    /// Keeps `key` sealed under the keyring and writes the first snapshot.
    public static func enable(store: WalletStore, keyring: Keyring, key: BackupKey, app: String, now: Date = Date()) throws {
        let record = Record(enabledAt: now, salt: hexString(key.salt), passes: key.cost.passes, memoryKiB: key.cost.memoryKiB, payloadDigest: nil)
        try store.setSealedSetting(keyKey, secret: key.kek, plain: try encode(record), keyring: keyring)
        _ = try refresh(store: store, keyring: keyring, app: app, now: now)
    }

    /// Forgets the key and removes the snapshot.
    public static func disable(store: WalletStore, keyring: Keyring) throws {
        try store.setSealedSetting(keyKey, secret: nil, keyring: keyring)
        try? FileManager.default.removeItem(at: snapshotURL(home: store.home))
    }

    /// Writes a new snapshot when the agent is enabled and the wallets changed since the last
    /// one; returns whether it wrote. Cheap when nothing changed: two reads when no write
    /// touched what a backup holds (the store's `exportVersion`), else an export and an HMAC to
    /// compare (no Argon2id: the key is kept).
    @discardableResult
    public static func refresh(store: WalletStore, keyring: Keyring, app: String, now: Date = Date()) throws -> Bool {
        guard var record = try record(store) else { return false }
        let url = snapshotURL(home: store.home)
        // Read before the export: a write in between leaves a newer version for the next call.
        let version = try store.exportVersion()
        if record.exportVersion == version, FileManager.default.fileExists(atPath: url.path) { return false }
        guard let kek = try store.sealedSetting(keyKey, keyring: keyring) else { return false }
        guard let salt = bytes(fromHex: record.salt) else { throw WalletError.tampered("the saved vault agent key") }
        let key = try BackupKey(kek: kek, salt: salt, cost: HawalaKDFCost(passes: record.passes, memoryKiB: record.memoryKiB))
        let wallets = try store.exportWallets(names: nil, keyring: keyring)
        // With every wallet deleted the last snapshot stays: an empty one, uploaded and kept as
        // the newest, would let retention prune the backups that still hold the wallets.
        guard !wallets.isEmpty else { return false }
        let current = try store.current()?.name
        // The digest ignores the creation time, so an unchanged store gives the same one.
        let digest = hexString(Hash.hmacSHA256(key: kek, try BackupPayload(createdAt: Date(timeIntervalSince1970: 0), app: app, wallets: wallets, current: current)
            .encoded().unsafeCopy()))
        if record.payloadDigest == digest, FileManager.default.fileExists(atPath: url.path) {
            record.exportVersion = version
            try store.setSealedSetting(keyKey, secret: kek, plain: try encode(record), keyring: keyring)
            return false
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let payload = try BackupPayload(createdAt: now, app: app, wallets: wallets, current: current).encoded()
        try BackupFile.write(payload, to: url, key: key, createdAt: now, replace: true)
        record.payloadDigest = digest
        record.exportVersion = version
        try store.setSealedSetting(keyKey, secret: kek, plain: try encode(record), keyring: keyring)
        return true
    }

    private static func record(_ store: WalletStore) throws -> Record? {
        guard let text = try store.globalSetting(keyKey) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let record = try? decoder.decode(Record.self, from: Data(text.utf8)) else { throw WalletError.tampered("the saved vault agent settings") }
        return record
    }

    private static func encode(_ record: Record) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }
}
