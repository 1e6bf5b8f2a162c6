import Foundation
import GRDB

/// A row of `paywallUse` (Schema/V16.swift): how often a credential the wallet's paywall sold
/// (keyed by its payment hash) was used.
struct PaywallUseRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "paywallUse"
    var walletId: String
    var paymentHash: String
    var used: Int
    var lastAt: Double
}

extension WalletStore {
    /// Counts one use of the credential sold under `paymentHash`, when fewer than `limit` were
    /// made (nil: no limit), in one transaction: two requests at once never both take the last
    /// use. False when it is used up.
    public func usePaywallCredential(paymentHash: String, walletID: String, limit: Int?, now: Date = Date()) throws -> Bool {
        var allowed = false
        try writeTransaction { db in
            let key: [String: any DatabaseValueConvertible] = ["walletId": walletID, "paymentHash": paymentHash]
            var record = try PaywallUseRecord.fetchOne(db, key: key)
                ?? PaywallUseRecord(walletId: walletID, paymentHash: paymentHash, used: 0, lastAt: now.timeIntervalSince1970)
            if let limit, record.used >= limit { return }
            record.used += 1
            record.lastAt = now.timeIntervalSince1970
            try record.save(db)
            allowed = true
        }
        return allowed
    }
}
