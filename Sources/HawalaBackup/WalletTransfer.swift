import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaWallet

/// A wallet with its secrets, as a backup carries it. Handle with care: it holds the words.
public struct WalletExport: Sendable {
    public let name: String
    public let network: Network
    public let createdAt: Date
    /// The words and BIP39 passphrase, or the seed.
    public let secret: WalletSecret
    public let backedUpAt: Date?
    public let lastVerifiedAt: Date?
    public let importedAccounts: [ImportedAccountExport]
    /// The Lightning payment history, so it comes back with the wallet.
    public let payments: [Payment]
    /// Per-wallet settings (Lightning backend, fiat currency, rates source, node id).
    public let settings: [String: String]
    /// The newest unilateral-exit state of each Lightning network (Spark's way out without the
    /// operators), so a new device can leave too.
    public let exitStates: [ExitStateExport]
    /// The on-chain labels and frozen coins (the coins themselves come back with a sync).
    public let onChain: OnChainKept

    public init(name: String, network: Network, createdAt: Date, secret: WalletSecret,
                backedUpAt: Date?, lastVerifiedAt: Date?, importedAccounts: [ImportedAccountExport],
                payments: [Payment] = [], settings: [String: String] = [:], exitStates: [ExitStateExport] = [], onChain: OnChainKept = OnChainKept()) {
        self.exitStates = exitStates
        self.onChain = onChain
        self.payments = payments
        self.settings = settings
        self.name = name
        self.network = network
        self.createdAt = createdAt
        self.secret = secret
        self.backedUpAt = backedUpAt
        self.lastVerifiedAt = lastVerifiedAt
        self.importedAccounts = importedAccounts
    }

    /// The deterministic wallet id of these keys.
    public var id: String { WalletStore.walletID(secret.keys, network: network) }
}

/// An imported account with its private key.
public struct ImportedAccountExport: Sendable {
    public let chain: String
    public let key: SecretBytes
    public let label: String?
    public let importedAt: Date
    /// False for a legacy key imported uncompressed.
    public let compressed: Bool

    public init(chain: String, key: SecretBytes, label: String?, importedAt: Date, compressed: Bool = true) {
        self.chain = chain
        self.key = key
        self.label = label
        self.importedAt = importedAt
        self.compressed = compressed
    }
}

/// What to do when an imported wallet meets one already here (same keys or same name).
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Keep what is here; drop the incoming wallet.
    case skip
    /// Keep both: on a name clash, the incoming wallet under a free name (`"Main (2)"`). The
    /// same wallet (same keys and network) is never kept twice: it is kept once, as here.
    case keepBoth = "keep-both"
    /// The incoming wallet replaces the one here (same keys, or same name).
    case replace
}

extension ConflictPolicy {
    /// The choices that mean something for a conflict: keeping both only for a name clash (the
    /// same wallet — words and network — is never kept twice).
    public static func offered(sameWallet: Bool) -> [ConflictPolicy] {
        sameWallet ? [.skip, .replace] : [.skip, .keepBoth, .replace]
    }
}

/// The outcome for one incoming wallet.
public enum ImportOutcome: Sendable, Equatable {
    case added(name: String)
    case skipped(name: String, existing: String)
    /// Keep both was asked, but the wallet is already here as `existing` (same keys and
    /// network): one wallet cannot be kept twice, so the one here stays.
    case alreadyHere(name: String, existing: String)
    case replaced(name: String, existing: String)
    /// The same wallet is already here as `existing` (skip or keep both): it stays, and takes
    /// from the backup what it lacked (`taken`, in a person's words: a newer exit state, its
    /// Lightning settings, payments it did not have).
    case completed(name: String, existing: String, taken: [String])
}

extension WalletStore {
    /// The wallets named (all when nil) with their secrets, for a backup.
    public func exportWallets(names: [String]?, keyring: Keyring) throws -> [WalletExport] {
        var wallets = try list()
        if let names {
            for name in names where !wallets.contains(where: { $0.name == name }) { throw WalletError.noSuchWallet(name) }
            wallets = wallets.filter { names.contains($0.name) }
            if let watching = wallets.first(where: { $0.kind == .watchOnly }) { throw WalletError.watchOnly(watching.name) }
        }
        // Watch-only wallets hold no secret: their public key makes them again.
        wallets = wallets.filter { $0.kind != .watchOnly }
        return try wallets.map { w in
            let secret = try secret(of: w, keyring: keyring)
            let imported = try w.importedAccounts.map { a in
                ImportedAccountExport(chain: a.chain, key: try importedKey(a, keyring: keyring), label: a.label, importedAt: a.importedAt, compressed: a.compressed)
            }
            return WalletExport(name: w.name, network: w.network, createdAt: w.createdAt, secret: secret,
                                backedUpAt: w.backup.backedUpAt, lastVerifiedAt: w.backup.lastVerifiedAt, importedAccounts: imported,
                                payments: try payments(walletID: w.id), settings: try settings(walletID: w.id),
                                exitStates: try exitStates(walletID: w.id, keyring: keyring), onChain: try onChainKept(walletID: w.id))
        }
    }

    /// Which wallets here an incoming wallet conflicts with: the same wallet (keys and network),
    /// or the same name.
    public func conflicts(for incoming: WalletExport) throws -> (sameKeys: String?, sameName: Bool) {
        (try existingWallet(secret: incoming.secret, network: incoming.network), try list().contains { $0.name == incoming.name })
    }

    /// Adds `incoming` under `policy`; the whole import of one wallet (wallet, accounts,
    /// imported keys, the replaced wallet's removal) is one transaction.
    @discardableResult
    public func importWallet(_ incoming: WalletExport, policy: ConflictPolicy, keyring: Keyring) throws -> ImportOutcome {
        let (sameKeys, sameName) = try conflicts(for: incoming)
        var name = incoming.name
        var replacing: String?
        if let existing = sameKeys {
            // The wallet is already here: what it lacks still comes in (restoring the words,
            // then the backup, must leave a wallet that can exit, with its history and settings).
            if policy != .replace {
                // The wallet's own id: an early testnet wallet's is not the one its keys give now.
                let taken = try complete(incoming, into: try wallet(named: existing).id, keyring: keyring)
                if !taken.isEmpty { return .completed(name: incoming.name, existing: existing, taken: taken) }
            }
            switch policy {
            case .skip: return .skipped(name: incoming.name, existing: existing)
            case .keepBoth: return .alreadyHere(name: incoming.name, existing: existing)
            case .replace: replacing = existing
            }
        } else if sameName {
            switch policy {
            case .skip: return .skipped(name: incoming.name, existing: incoming.name)
            case .keepBoth: name = try freeName(like: incoming.name)
            case .replace: replacing = incoming.name
            }
        }
        let prepared = try prepare(secret: incoming.secret, network: incoming.network, keyring: keyring)
        let imported = try incoming.importedAccounts.map { a -> (id: String, key: ImportedPrivateKey, account: ImportedAccountExport, sealed: [UInt8]) in
            guard let chain = Chain.named(a.chain) else { throw WalletError.unknownChain(a.chain) }
            let key = try ImportedPrivateKey(secret: a.key, chain: chain, compressed: a.compressed)
            let id = UUID().uuidString.lowercased()
            return (id, key, a, try keyring.seal(key.secret, context: WalletStore.context(imported: id)))
        }
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            // An import never changes the current wallet, unless there was none or the current
            // one is the wallet being replaced (the incoming one takes its place).
            var current = try SettingRecord.current(db)
            if let replacing, let replaced = try WalletRecord.named(replacing).fetchOne(db) {
                if current == replaced.id { current = nil }
                try replaced.delete(db)
            }
            try self.insert(prepared, name: name, createdAt: incoming.createdAt, db: db)
            if let current { try SettingRecord.setCurrent(current, db) }
            if var wallet = try WalletRecord.fetchOne(db, key: prepared.id) {
                wallet.backedUpAt = incoming.backedUpAt?.timeIntervalSince1970
                wallet.lastVerifiedAt = incoming.lastVerifiedAt?.timeIntervalSince1970
                try wallet.update(db, columns: [WalletRecord.Columns.backedUpAt, WalletRecord.Columns.lastVerifiedAt])
            }
            for a in imported {
                try ImportedAccountRecord(id: a.id, walletId: prepared.id, chain: a.key.chain.name, address: a.key.address, label: a.account.label,
                                          importedAt: a.account.importedAt.timeIntervalSince1970, sealedKey: Data(a.sealed), compressed: a.key.compressed).insert(db)
            }
            try Self.insertLightning(of: incoming, into: prepared.id, keyring: keyring, db: db)
        }
        if let replacing { return .replaced(name: name, existing: replacing) }
        return .added(name: name)
    }

    /// What a wallet brings of its Lightning side — its history, settings and exit states —
    /// inside the import's transaction.
    static func insertLightning(of incoming: WalletExport, into walletID: String, keyring: Keyring, db: Database) throws {
        // A file written before payments kept their network: inferred as the store does.
        let backend = incoming.settings[LightningWallet.SettingKey.backend]
        for var payment in incoming.payments {
            if payment.network == nil { payment.network = WalletStore.network(of: payment, walletBackend: backend) }
            try WalletStore.insert(payment, walletID: walletID, db: db)
        }
        for (key, value) in incoming.settings {
            try WalletSettingRecord(walletId: walletID, key: key, value: value).insert(db, onConflict: .replace)
        }
        for e in incoming.exitStates { try WalletStore.insertExitState(e.state, kept: e.kept, walletID: walletID, keyring: keyring, db: db) }
        try WalletStore.insert(incoming.onChain, walletID: walletID, db: db)
    }

    /// Gives the same wallet here what `incoming` has and it lacks, in one transaction: each
    /// exit state newer than the one kept, each setting it has not set, each payment it does not
    /// have. Returns what was taken, in a person's words (empty: nothing).
    func complete(_ incoming: WalletExport, into id: String, keyring: Keyring) throws -> [String] {
        var taken: [String] = []
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            var newerStates = 0
            for e in incoming.exitStates {
                let before = try ExitStateRecord.of(wallet: id, network: e.kept.network).fetchOne(db)?.exportedAt
                if before.map({ $0 < e.kept.exportedAt.timeIntervalSince1970 }) ?? true { newerStates += 1 }
                try WalletStore.insertExitState(e.state, kept: e.kept, walletID: id, keyring: keyring, db: db)
            }
            var settings = 0
            for (key, value) in incoming.settings {
                try WalletSettingRecord(walletId: id, key: key, value: value).insert(db, onConflict: .ignore)
                settings += db.changesCount
            }
            var payments = 0
            let backend = incoming.settings[LightningWallet.SettingKey.backend]
            for var payment in incoming.payments {
                guard try !WalletStore.knows(payment, walletID: id, db: db) else { continue }
                if payment.network == nil { payment.network = WalletStore.network(of: payment, walletBackend: backend) }
                try WalletStore.insert(payment, walletID: id, db: db)
                payments += 1
            }
            let labels = try WalletStore.insert(incoming.onChain, walletID: id, db: db)
            if newerStates > 0 { taken.append("its newer way-out state") }
            if labels > 0 { taken.append("its on-chain labels") }
            if settings > 0 { taken.append("its settings") }
            if payments > 0 { taken.append(payments == 1 ? "1 payment" : "\(payments) payments") }
        }
        return taken
    }

    func freeName(like base: String) throws -> String {
        let names = Set(try list().map(\.name))
        var n = 2
        while names.contains("\(base) (\(n))") { n += 1 }
        return "\(base) (\(n))"
    }
}
