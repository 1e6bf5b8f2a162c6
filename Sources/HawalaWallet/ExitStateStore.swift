import Foundation
import GRDB
import HawalaCrypto
import HawalaText

/// What a wallet keeps of a Lightning network's unilateral-exit state, without the state
/// itself: enough to say how old it is and what it covers, no password needed.
public struct KeptExitState: Sendable, Equatable {
    /// The network it belongs to, as a payment's (`devnet:PATH`, `spark:regtest`, `spark:mainnet`).
    public let network: String
    public let exportedAt: Date
    /// The value it covers when it was exported, when the backend says.
    public let valueSat: Sats?
    /// How many leaves (Spark's units of ownership) it covers, when the backend says.
    public let leafCount: Int?

    public init(network: String, exportedAt: Date, valueSat: Sats?, leafCount: Int?) {
        self.network = network
        self.exportedAt = exportedAt
        self.valueSat = valueSat
        self.leafCount = leafCount
    }
}

/// A kept exit state with the state, as a backup carries it. Handle with care: with the words,
/// it is what leaves Spark without the operators.
public struct ExitStateExport: Sendable {
    public let kept: KeptExitState
    public let state: SecretBytes
    public init(kept: KeptExitState, state: SecretBytes) {
        self.kept = kept
        self.state = state
    }
}

extension WalletStore {
    /// Keeps `state`, just exported by this device's backend, as the wallet's exit state of
    /// `kept.network`, sealed under the keyring (AES-256-GCM, bound to the wallet and the
    /// network). It always replaces the one kept — the backend was given that one before
    /// exporting, so this covers it — whatever the clocks say; only a state from a backup is
    /// compared by time (`importWallet`).
    public func saveExitState(_ state: SecretBytes, kept: KeptExitState, walletID: String, keyring: Keyring) throws {
        try writeTransaction { db in
            try self.saveKeyringIfNew(keyring, db: db)
            try WalletStore.insertExitState(state, kept: kept, walletID: walletID, keyring: keyring, db: db, local: true)
        }
    }

    /// Keeps `state` sealed for `walletID` (see `saveExitState`; without `local`, a state from a
    /// backup, kept only when newer than the one here).
    static func insertExitState(_ state: SecretBytes, kept: KeptExitState, walletID: String, keyring: Keyring, db: Database, local: Bool = false) throws {
        let context = context(exitState: walletID, network: kept.network)
        if let old = try Row.fetchOne(db, sql: "SELECT exportedAt, sealedState FROM exitState WHERE walletId = ? AND network = ?", arguments: [walletID, kept.network]) {
            // A backup's older state never overwrites a fresher one.
            guard local || kept.exportedAt.timeIntervalSince1970 >= old["exportedAt"] as Double else { return }
            // The same state found again only renews its time (the export counter stays: no
            // new backup for nothing).
            if (try? keyring.open(bytes(old, "sealedState"), context: context)) == state {
                try db.execute(sql: "UPDATE exitState SET exportedAt = ?, valueSat = ?, leafCount = ? WHERE walletId = ? AND network = ?",
                               arguments: [kept.exportedAt.timeIntervalSince1970, kept.valueSat.map(\.int64), kept.leafCount,
                                           walletID, kept.network])
                return
            }
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO exitState (walletId, network, exportedAt, valueSat, leafCount, sealedState) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [walletID, kept.network, kept.exportedAt.timeIntervalSince1970, kept.valueSat.map(\.int64),
                             kept.leafCount, Data(try keyring.seal(state, context: context))])
    }

    /// What the wallet keeps for `network` (no password needed); nil when it keeps nothing.
    public func keptExitState(walletID: String, network: String) throws -> KeptExitState? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM exitState WHERE walletId = ? AND network = ?", arguments: [walletID, network]).map(WalletStore.kept)
        }
    }

    /// The wallet's exit state of `network`, opened with the keyring; nil when it keeps none.
    public func exitState(walletID: String, network: String, keyring: Keyring) throws -> ExitStateExport? {
        guard let row = try read({ try Row.fetchOne($0, sql: "SELECT * FROM exitState WHERE walletId = ? AND network = ?", arguments: [walletID, network]) })
        else { return nil }
        let state = try WalletStore.open(keyring, WalletStore.bytes(row, "sealedState"), WalletStore.context(exitState: walletID, network: network),
                                         what: "the kept exit state")
        return ExitStateExport(kept: WalletStore.kept(row), state: state)
    }

    /// Every exit state the wallet keeps, opened (for a backup).
    public func exitStates(walletID: String, keyring: Keyring) throws -> [ExitStateExport] {
        let networks = try read { try String.fetchAll($0, sql: "SELECT network FROM exitState WHERE walletId = ? ORDER BY network", arguments: [walletID]) }
        return try networks.compactMap { try exitState(walletID: walletID, network: $0, keyring: keyring) }
    }

    static func kept(_ row: Row) -> KeptExitState {
        KeptExitState(network: row["network"], exportedAt: Date(timeIntervalSince1970: row["exportedAt"]),
                      valueSat: (row["valueSat"] as Int64?).map { Sats(clamping: UInt64(max(0, $0))) }, leafCount: row["leafCount"])
    }

    static func context(exitState walletID: String, network: String) -> [UInt8] { Array("hawala/exit/v1/\(walletID)/\(network)".utf8) }

    static func resealExitStates(from keyring: Keyring, to newKeyring: Keyring, db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT walletId, network, sealedState FROM exitState") {
            let context = context(exitState: row["walletId"], network: row["network"])
            let state = try open(keyring, bytes(row, "sealedState"), context, what: "the kept exit state")
            try db.execute(sql: "UPDATE exitState SET sealedState = ? WHERE walletId = ? AND network = ?",
                           arguments: [Data(try newKeyring.seal(state, context: context)), row["walletId"] as String, row["network"] as String])
        }
    }
}
