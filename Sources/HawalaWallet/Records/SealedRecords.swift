import Foundation
import GRDB
import HawalaText

/// A row of `l402Token` (Schema/V13.swift): a credential bought for an origin and a folder,
/// sealed under the keyring.
struct L402TokenRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "l402Token"

    var walletId: String
    var origin: String
    var path: String
    var scheme: String
    var sealed: Data
    var paymentId: String
    var createdAt: Double

    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
        static let origin = Column(CodingKeys.origin)
        static let path = Column(CodingKeys.path)
    }
}

/// A row of `exitState` (Schema/V10.swift): the way out kept for a network, sealed under the
/// keyring; what it holds (its time, value and leaves) readable without the password.
struct ExitStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "exitState"

    var walletId: String
    var network: String
    var exportedAt: Double
    var valueSat: Int64?
    var leafCount: Int?
    var sealedState: Data

    enum Columns {
        static let walletId = Column(CodingKeys.walletId)
        static let network = Column(CodingKeys.network)
    }

    /// What the row says of the state, without opening it.
    var kept: KeptExitState {
        KeptExitState(network: network, exportedAt: Date(timeIntervalSince1970: exportedAt),
                      valueSat: valueSat.map { Sats(clamping: UInt64(max(0, $0))) }, leafCount: leafCount)
    }

    /// The row of `walletID` for `network`.
    static func of(wallet walletID: String, network: String) -> QueryInterfaceRequest<ExitStateRecord> {
        filter(Columns.walletId == walletID && Columns.network == network)
    }
}
