import Foundation
import GRDB
import HawalaCrypto

/// A row of `holdPreimage` (Schema/V16.swift): the preimage of a hold invoice Hawala made,
/// sealed under the keyring, kept until the payment is settled or cancelled.
struct HoldPreimageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "holdPreimage"
    var walletId: String
    var paymentHash: String
    var sealed: Data
    var createdAt: Double
}

extension WalletStore {
    static func context(holdPreimage paymentHash: String) -> [UInt8] { Array("hawala/hold-preimage/v1/\(paymentHash)".utf8) }

    /// Keeps the preimage of the hold invoice with `paymentHash` (hex), sealed: what settling it
    /// later releases. Kept before the invoice is shown, so a crash never leaves an invoice
    /// that can be paid but not settled.
    public func saveHoldPreimage(_ preimage: SecretBytes, paymentHash: String, walletID: String, keyring: Keyring, now: Date = Date()) throws {
        let sealed = try keyring.seal(preimage, context: WalletStore.context(holdPreimage: paymentHash))
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            try HoldPreimageRecord(walletId: walletID, paymentHash: paymentHash, sealed: Data(sealed), createdAt: now.timeIntervalSince1970).insert(db)
        }
    }

    /// The kept preimage of the hold invoice with `paymentHash`; nil when Hawala did not make
    /// it (the invoice's maker holds it) or it was forgotten.
    public func holdPreimage(paymentHash: String, walletID: String, keyring: Keyring) throws -> SecretBytes? {
        guard let record = try read({ try HoldPreimageRecord.fetchOne($0, key: ["walletId": walletID, "paymentHash": paymentHash]) }) else { return nil }
        let opened = try WalletStore.open(keyring, Array(record.sealed), WalletStore.context(holdPreimage: paymentHash), what: "a hold invoice's preimage")
        guard opened.count == 32 else { throw WalletError.unreadableRecord(.holdPreimage) }
        return opened
    }

    /// Whether the preimage of `paymentHash` is kept (the wallet can settle by hash).
    public func hasHoldPreimage(paymentHash: String, walletID: String) throws -> Bool {
        try read { try HoldPreimageRecord.exists($0, key: ["walletId": walletID, "paymentHash": paymentHash]) }
    }

    /// Forgets a preimage once its payment is settled (the payer has it) or cancelled.
    public func forgetHoldPreimage(paymentHash: String, walletID: String) throws {
        try writeTransaction { db in
            _ = try HoldPreimageRecord.deleteOne(db, key: ["walletId": walletID, "paymentHash": paymentHash])
        }
    }

    static func resealHoldPreimages(from keyring: Keyring, to newKeyring: Keyring, db: Database) throws {
        for var record in try HoldPreimageRecord.fetchAll(db) {
            let context = WalletStore.context(holdPreimage: record.paymentHash)
            let preimage = try WalletStore.open(keyring, Array(record.sealed), context, what: "a hold invoice's preimage")
            record.sealed = Data(try newKeyring.seal(preimage, context: context))
            try record.update(db, columns: ["sealed"])
        }
    }
}
