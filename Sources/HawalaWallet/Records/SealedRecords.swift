import Foundation
import GRDB
import HawalaText

/// A row of `l402Token` (Schema/V13.swift): a credential bought for an origin and a folder,
/// sealed under the keyring.
package struct L402TokenRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "l402Token"

    package var walletId: String
    package var origin: String
    package var path: String
    package var scheme: String
    package var sealed: Data
    package var paymentId: String
    package var createdAt: Double

    package enum Columns {
        package static let walletId = Column(CodingKeys.walletId)
        package static let origin = Column(CodingKeys.origin)
        package static let path = Column(CodingKeys.path)
    }
}

/// A row of `exitState` (Schema/V10.swift): the way out kept for a network, sealed under the
/// keyring; what it holds (its time, value and leaves) readable without the password.
package struct ExitStateRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "exitState"

    package var walletId: String
    package var network: String
    package var exportedAt: Double
    package var valueSat: Int64?
    package var leafCount: Int?
    package var sealedState: Data

    package init(walletId: String, network: String, exportedAt: Double, valueSat: Int64?, leafCount: Int?, sealedState: Data) {
        self.walletId = walletId
        self.network = network
        self.exportedAt = exportedAt
        self.valueSat = valueSat
        self.leafCount = leafCount
        self.sealedState = sealedState
    }

    package enum Columns {
        package static let walletId = Column(CodingKeys.walletId)
        package static let network = Column(CodingKeys.network)
    }

    /// The row of `walletID` for `network`.
    package static func of(wallet walletID: String, network: String) -> QueryInterfaceRequest<ExitStateRecord> {
        filter(Columns.walletId == walletID && Columns.network == network)
    }
}

extension WalletStore {
    /// What an exit state is sealed to: its wallet and network.
    package static func context(exitState walletID: String, network: String) -> [UInt8] { Array("hawala/exit/v1/\(walletID)/\(network)".utf8) }

    static func resealExitStates(from keyring: Keyring, to newKeyring: Keyring, db: Database) throws {
        for var record in try ExitStateRecord.fetchAll(db) {
            let context = context(exitState: record.walletId, network: record.network)
            let state = try open(keyring, Array(record.sealedState), context, what: "the kept exit state")
            record.sealedState = Data(try newKeyring.seal(state, context: context))
            try record.update(db, columns: ["sealedState"])
        }
    }
}
