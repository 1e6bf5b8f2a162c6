import Foundation
import GRDB
import HawalaKeys
import HawalaWallet

/// The node a wallet's coin account reads, as saved.
public struct NodeSettings: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case core, electrum

        /// What a typed address names, and the location to save: `HOST:PORT:s` or `HOST:PORT:t`
        /// an Electrum server (Electrum's own way of writing one); anything else a node's RPC,
        /// `http://` put before an address typed without it (`127.0.0.1:8332`).
        public static func reading(typedAddress typed: String) -> (kind: Kind, location: String) {
            let lowered = typed.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return (.core, typed) }
            if lowered.hasSuffix(":s") || lowered.hasSuffix(":t") { return (.electrum, typed) }
            return (.core, "http://" + typed)
        }
    }
    public let kind: Kind
    /// `http://127.0.0.1:8332` for a node, `host:port:s` for an Electrum server.
    public let location: String
    public let auth: NodeAuth
    /// The network the node said it is on when saved ("main", "test", "regtest", "signet").
    public let chain: String
    public let gapLimit: Int

    public init(kind: Kind, location: String, auth: NodeAuth, chain: String, gapLimit: Int) {
        self.kind = kind
        self.location = location
        self.auth = auth
        self.chain = chain
        self.gapLimit = gapLimit
    }

    /// The gap limit when none is chosen: BIP44's 20.
    public static let defaultGapLimit = 20
    /// The largest gap limit: deriving and matching more keys than this a sync is a mistake.
    public static let gapLimits: ClosedRange<Int> = 1...10_000
}

/// The on-chain tables of the wallet store, for one wallet and coin. Every change is one
/// transaction: a crash leaves the old state or the new.
struct OnChainStore {
    let store: WalletStore
    let walletID: String
    let coin: Coin

    /// How many recent block hashes are kept to find where a reorg forked.
    static let keptBlocks = 144

    func node() throws -> NodeSettings? {
        try store.read { db in
            try Row.fetchOne(db, sql: "SELECT kind, location, auth, chain, gapLimit FROM onchainNode WHERE walletId = ? AND coin = ?",
                             arguments: [walletID, coin.rawValue]).flatMap { row in
                guard let kind = NodeSettings.Kind(rawValue: row["kind"]),
                      let auth = try? JSONDecoder().decode(NodeAuth.self, from: Data((row["auth"] as String).utf8)) else { return nil }
                return NodeSettings(kind: kind, location: row["location"], auth: auth, chain: row["chain"], gapLimit: row["gapLimit"])
            }
        }
    }

    /// Saves the node; a node on another network than the one before starts the account afresh
    /// (a regtest chain's coins are not testnet's).
    func save(_ node: NodeSettings) throws {
        let auth = String(decoding: try JSONEncoder().encode(node.auth), as: UTF8.self)
        try store.writeTransaction { db in
            let before = try Row.fetchOne(db, sql: "SELECT chain, gapLimit, kind FROM onchainNode WHERE walletId = ? AND coin = ?", arguments: [walletID, coin.rawValue])
            if let before, before["chain"] as String != node.chain {
                for table in ["onchainBlock", "onchainTx", "onchainFrozen", "onchainLabel"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE walletId = ? AND coin = ?", arguments: [walletID, coin.rawValue])
                }
                try db.execute(sql: "DELETE FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, usedKey])
            } else if let before, before["gapLimit"] as Int != node.gapLimit || before["kind"] as String != node.kind.rawValue {
                // Another gap limit may find coins in blocks already read: the next sync reads them all again.
                // A server keeps only the tip's block: a node after it starts as a first sync does (its coin set on a long chain).
                try db.execute(sql: "DELETE FROM onchainBlock WHERE walletId = ? AND coin = ?", arguments: [walletID, coin.rawValue])
            }
            try db.execute(sql: """
                INSERT INTO onchainNode (walletId, coin, kind, location, auth, chain, gapLimit) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (walletId, coin) DO UPDATE SET kind = excluded.kind, location = excluded.location, auth = excluded.auth,
                    chain = excluded.chain, gapLimit = excluded.gapLimit
                """, arguments: [walletID, coin.rawValue, node.kind.rawValue, node.location, auth, node.chain, node.gapLimit])
        }
    }

    /// The recent blocks seen, lowest first; the last is where the sync stands.
    func blocks() throws -> [(height: Int, hash: String)] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT height, hash FROM onchainBlock WHERE walletId = ? AND coin = ? ORDER BY height",
                             arguments: [walletID, coin.rawValue]).map { ($0["height"], $0["hash"]) }
        }
    }

    func transactions() throws -> [StoredTransaction] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT raw, height, blockHash, seenAt FROM onchainTx WHERE walletId = ? AND coin = ?",
                             arguments: [walletID, coin.rawValue]).map { row in
                let raw: Data = row["raw"]
                return StoredTransaction(transaction: try Transaction(bytes: [UInt8](raw)), height: row["height"], blockHash: row["blockHash"], seenAt: row["seenAt"])
            }
        }
    }

    func frozen() throws -> Set<OutPoint> {
        try store.read { db in
            Set(try String.fetchAll(db, sql: "SELECT outpoint FROM onchainFrozen WHERE walletId = ? AND coin = ?", arguments: [walletID, coin.rawValue])
                .compactMap { try? OutPoint($0) })
        }
    }

    func setFrozen(_ outpoint: OutPoint, _ frozen: Bool) throws {
        try store.writeTransaction { db in
            if frozen {
                try db.execute(sql: "INSERT OR IGNORE INTO onchainFrozen (walletId, coin, outpoint) VALUES (?, ?, ?)",
                               arguments: [walletID, coin.rawValue, outpoint.description])
            } else {
                try db.execute(sql: "DELETE FROM onchainFrozen WHERE walletId = ? AND coin = ? AND outpoint = ?",
                               arguments: [walletID, coin.rawValue, outpoint.description])
            }
        }
    }

    /// Replaces the sync state in one transaction: blocks at or above `from` are dropped and
    /// `blocks` added; transactions confirmed at or above `from` go back to unconfirmed before
    /// `transactions` are written; `gone` are deleted.
    /// The setting that keeps the highest key of each keychain a scan of the node's coin set
    /// found: the window of watched keys reaches it, wherever it is.
    var usedKey: String { "onchain.\(coin.rawValue).used" }

    /// The keys found used by a scan of the coin set (none before one); within the furthest a
    /// scan looks at (a setting from a backup file is not trusted further).
    func usedHints() throws -> [KeyPlace] {
        try store.read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT value FROM walletSetting WHERE walletId = ? AND key = ?", arguments: [walletID, usedKey]) else { return [] }
            return ((try? JSONDecoder().decode([KeyPlace].self, from: Data(text.utf8))) ?? []).filter { $0.index <= OnChainWallet.maximumScanRange }
        }
    }

    /// The index of the address the wallet's receive counter shows on `chain` (nil: none given
    /// out past the first), within the furthest a scan looks at.
    func receiveCounter(chain: Chain) throws -> UInt32? {
        try store.setting("receive.index.\(chain.name)", walletID: walletID).flatMap { UInt32($0) }.flatMap { $0 <= OnChainWallet.maximumScanRange ? $0 : nil }
    }

    /// Commits a sync. `keptAtStart` is what the store held when the sync began: an unconfirmed
    /// transaction of it that is no longer there was replaced meanwhile (a bump sent while the
    /// sync read), and is not written back.
    func commit(from height: Int, blocks: [(height: Int, hash: String)], transactions: [StoredTransaction], gone: [Txid], used: [KeyPlace] = [],
                keptAtStart: Set<Txid> = []) throws {
        let usedText = used.isEmpty ? nil : String(decoding: try JSONEncoder().encode(used), as: UTF8.self)
        try store.writeTransaction { db in
            if let usedText {
                try db.execute(sql: "INSERT INTO walletSetting (walletId, key, value) VALUES (?, ?, ?) ON CONFLICT (walletId, key) DO UPDATE SET value = excluded.value",
                               arguments: [walletID, usedKey, usedText])
            }
            let key: StatementArguments = [walletID, coin.rawValue]
            try db.execute(sql: "DELETE FROM onchainBlock WHERE walletId = ? AND coin = ? AND height >= ?", arguments: key + [height])
            try db.execute(sql: "UPDATE onchainTx SET height = NULL, blockHash = NULL WHERE walletId = ? AND coin = ? AND height >= ?", arguments: key + [height])
            for block in blocks {
                try db.execute(sql: "INSERT INTO onchainBlock (walletId, coin, height, hash) VALUES (?, ?, ?, ?)", arguments: key + [block.height, block.hash])
            }
            if let last = blocks.last?.height {
                try db.execute(sql: "DELETE FROM onchainBlock WHERE walletId = ? AND coin = ? AND height <= ?", arguments: key + [last - Self.keptBlocks])
            }
            let keptNow = Set(try String.fetchAll(db, sql: "SELECT txid FROM onchainTx WHERE walletId = ? AND coin = ?", arguments: key).compactMap(Txid.init))
            for stored in transactions where stored.height != nil || !keptAtStart.contains(stored.txid) || keptNow.contains(stored.txid) {
                try Self.upsert(stored, key: key, db: db)
            }
            for txid in gone {
                try db.execute(sql: "DELETE FROM onchainTx WHERE walletId = ? AND coin = ? AND txid = ? AND height IS NULL", arguments: key + [txid.description])
            }
        }
    }

    /// Keeps a transaction the wallet just sent (unconfirmed), in the place of the one it replaces.
    func record(_ stored: StoredTransaction, replacing original: Txid? = nil) throws {
        try store.writeTransaction { db in
            if let original {
                try db.execute(sql: "DELETE FROM onchainTx WHERE walletId = ? AND coin = ? AND txid = ? AND height IS NULL",
                               arguments: [walletID, coin.rawValue, original.description])
            }
            try Self.upsert(stored, key: [walletID, coin.rawValue], db: db)
        }
    }

    private static func upsert(_ stored: StoredTransaction, key: StatementArguments, db: Database) throws {
        try db.execute(sql: """
            INSERT INTO onchainTx (walletId, coin, txid, raw, height, blockHash, seenAt) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (walletId, coin, txid) DO UPDATE SET height = excluded.height, blockHash = excluded.blockHash
            """, arguments: key + [stored.txid.description, Data(stored.transaction.serialized()), stored.height, stored.blockHash, stored.seenAt])
    }

    func labels() throws -> [String: String] {
        try store.read { db in
            Dictionary(try Row.fetchAll(db, sql: "SELECT type, ref, label FROM onchainLabel WHERE walletId = ? AND coin = ?", arguments: [walletID, coin.rawValue])
                .map { ("\($0["type"] as String):\($0["ref"] as String)", $0["label"]) }, uniquingKeysWith: { a, _ in a })
        }
    }
}

extension NodeSettings {
    /// The chain source these settings name.
    public func source() throws(OnChainError) -> any ChainSource {
        switch kind {
        case .core: try CoreRPC(url: location, auth: auth)
        case .electrum:
            if case .pinnedCertificate(let fingerprint) = auth { try ElectrumClient(address: location, pinnedCertificate: fingerprint) }
            else { try ElectrumClient(address: location) }
        }
    }
}

extension OnChainWallet {
    /// The on-chain wallet of `coin` in `wallet`, reading its saved node.
    public static func open(_ wallet: WalletSummary, coin: Coin, store: WalletStore) throws -> OnChainWallet {
        guard let node = try savedNode(wallet: wallet, coin: coin, store: store),
              let kind = OnChainNetwork.Kind(rawValue: node.chain) else { throw OnChainError.noNode(coin.displayName) }
        let account = try OnChainAccount.of(wallet, coin: coin, kind: kind, store: store)
        return OnChainWallet(account: account, node: node, walletStore: store, source: try node.source())
    }
}
