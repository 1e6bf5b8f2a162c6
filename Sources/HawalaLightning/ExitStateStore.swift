import Foundation
import GRDB
import HawalaCrypto
import HawalaText
import HawalaWallet

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
    package static func insertExitState(_ state: SecretBytes, kept: KeptExitState, walletID: String, keyring: Keyring, db: Database, local: Bool = false) throws {
        let context = context(exitState: walletID, network: kept.network)
        if var old = try ExitStateRecord.of(wallet: walletID, network: kept.network).fetchOne(db) {
            // A backup's older state never overwrites a fresher one.
            guard local || kept.exportedAt.timeIntervalSince1970 >= old.exportedAt else { return }
            // The same state found again only renews its time (the export counter stays: no
            // new backup for nothing).
            if (try? keyring.open(Array(old.sealedState), context: context)) == state {
                old.exportedAt = kept.exportedAt.timeIntervalSince1970
                old.valueSat = kept.valueSat.map(\.int64)
                old.leafCount = kept.leafCount
                try old.update(db, columns: ["exportedAt", "valueSat", "leafCount"])
                return
            }
        }
        try ExitStateRecord(walletId: walletID, network: kept.network, exportedAt: kept.exportedAt.timeIntervalSince1970,
                            valueSat: kept.valueSat.map(\.int64), leafCount: kept.leafCount,
                            sealedState: Data(try keyring.seal(state, context: context))).insert(db, onConflict: .replace)
    }

    /// What the wallet keeps for `network` (no password needed); nil when it keeps nothing.
    public func keptExitState(walletID: String, network: String) throws -> KeptExitState? {
        try read { db in
            try ExitStateRecord.of(wallet: walletID, network: network).fetchOne(db)?.kept
        }
    }

    /// The wallet's exit state of `network`, opened with the keyring; nil when it keeps none.
    public func exitState(walletID: String, network: String, keyring: Keyring) throws -> ExitStateExport? {
        guard let record = try read({ try ExitStateRecord.of(wallet: walletID, network: network).fetchOne($0) }) else { return nil }
        return try record.opened(keyring)
    }

    /// Every exit state the wallet keeps, opened (for a backup).
    public func exitStates(walletID: String, keyring: Keyring) throws -> [ExitStateExport] {
        let records = try read {
            try ExitStateRecord.filter(ExitStateRecord.Columns.walletId == walletID).order(ExitStateRecord.Columns.network).fetchAll($0)
        }
        return try records.map { try $0.opened(keyring) }
    }
}

extension ExitStateRecord {
    /// The state this row keeps, opened with the keyring.
    /// - Throws: `WalletError.tampered` when the seal does not open.
    func opened(_ keyring: Keyring) throws -> ExitStateExport {
        let state = try WalletStore.open(keyring, Array(sealedState), WalletStore.context(exitState: walletId, network: network),
                                         what: "the kept exit state")
        return ExitStateExport(kept: kept, state: state)
    }

    /// What the row says of the state, without opening it.
    var kept: KeptExitState {
        KeptExitState(network: network, exportedAt: Date(timeIntervalSince1970: exportedAt),
                      valueSat: valueSat.map { Sats(clamping: UInt64(max(0, $0))) }, leafCount: leafCount)
    }
}
