import GRDB

/// A wallet's on-chain labels and frozen coins as backups carry them: what a person wrote and
/// chose, which no chain can give back (coins and history come back with a sync).
public struct OnChainKept: Sendable, Equatable, Codable {
    /// A BIP-329 label of one coin's account: `type` tx, addr, output…; `ref` what it labels.
    public struct Label: Sendable, Equatable, Codable {
        public let coin: String, type: String, ref: String, label: String

        /// A label of `coin`'s account.
        public init(coin: String, type: String, ref: String, label: String) {
            (self.coin, self.type, self.ref, self.label) = (coin, type, ref, label)
        }
    }

    /// A coin kept from paying: `outpoint` is TXID:VOUT.
    public struct Frozen: Sendable, Equatable, Codable {
        public let coin: String, outpoint: String

        /// A frozen coin of `coin`'s account.
        public init(coin: String, outpoint: String) { (self.coin, self.outpoint) = (coin, outpoint) }
    }

    /// Every label, by coin, type and reference.
    public var labels: [Label]
    /// Every frozen coin, by coin and outpoint.
    public var frozen: [Frozen]

    /// What a wallet keeps (nothing by default).
    public init(labels: [Label] = [], frozen: [Frozen] = []) {
        self.labels = labels
        self.frozen = frozen
    }

    /// Whether there is nothing to carry.
    public var isEmpty: Bool { labels.isEmpty && frozen.isEmpty }
}

extension WalletStore {
    /// The on-chain labels and frozen coins of `walletID`.
    public func onChainKept(walletID: String) throws -> OnChainKept {
        try read { db in
            OnChainKept(
                labels: try Row.fetchAll(db, sql: "SELECT coin, type, ref, label FROM onchainLabel WHERE walletId = ? ORDER BY coin, type, ref", arguments: [walletID])
                    .map { .init(coin: $0["coin"], type: $0["type"], ref: $0["ref"], label: $0["label"]) },
                frozen: try Row.fetchAll(db, sql: "SELECT coin, outpoint FROM onchainFrozen WHERE walletId = ? ORDER BY coin, outpoint", arguments: [walletID])
                    .map { .init(coin: $0["coin"], outpoint: $0["outpoint"]) })
        }
    }

    /// Adds `kept` to `walletID` inside the caller's transaction; what the wallet already has
    /// stays (a label written here is newer than a backup's). Returns how many rows were added.
    @discardableResult
    package static func insert(_ kept: OnChainKept, walletID: String, db: Database) throws -> Int {
        var added = 0
        for label in kept.labels {
            try db.execute(sql: "INSERT OR IGNORE INTO onchainLabel (walletId, coin, type, ref, label) VALUES (?, ?, ?, ?, ?)",
                           arguments: [walletID, label.coin, label.type, label.ref, label.label])
            added += db.changesCount
        }
        for coin in kept.frozen {
            try db.execute(sql: "INSERT OR IGNORE INTO onchainFrozen (walletId, coin, outpoint) VALUES (?, ?, ?)", arguments: [walletID, coin.coin, coin.outpoint])
            added += db.changesCount
        }
        return added
    }
}
