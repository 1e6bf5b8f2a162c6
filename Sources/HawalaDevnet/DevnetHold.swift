import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText

/// Devnet's hold invoices: the ledger takes a payment to one from its payer and holds it until
/// the payee settles (with the preimage, which only the payee holds) or cancels, or the invoice
/// expires (then it goes back, as an HTLC times out). Each step is one ledger transaction, so a
/// held payment ends once: settled or given back, never both.
extension DevnetLedger {
    /// Gives back every held payment whose time has passed: to its payer, fee included.
    func releaseExpiredHolds(now: Date) throws {
        try write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id FROM payment WHERE status = 'pending' AND heldUntil IS NOT NULL AND heldUntil <= ?",
                                        arguments: [now.timeIntervalSince1970])
            for row in rows {
                try DevnetLedger.giveBack(db, id: row["id"], reason: "the payee did not settle it before the invoice expired: given back")
            }
        }
    }

    /// Settles `node`'s held payment whose hash is SHA-256 of `preimage`: credited to `node`,
    /// the preimage recorded for the payer. Settling a settled payment returns it.
    /// - Throws: `HoldInvoiceError`.
    func settleHeld(node: String, preimage: [UInt8], now: Date) throws -> Payment {
        let hash = hexString(Hash.sha256(preimage))
        var id: String?
        var refusal: HoldInvoiceError?
        try write { db in
            guard let row = try DevnetLedger.heldRow(db, hash: hash, payee: node) else { refusal = .nothingHeld(paymentHash: hash); return }
            id = row["id"]
            switch row["status"] as String {
            case "completed": return
            case "failed":
                refusal = (row["failureReason"] as String?)?.contains("expired") == true
                    ? .expired(at: Date(timeIntervalSince1970: row["heldUntil"])) : .cancelled
                return
            default: break
            }
            let until: Double = row["heldUntil"]
            guard now.timeIntervalSince1970 < until else {
                try DevnetLedger.giveBack(db, id: row["id"], reason: "the payee did not settle it before the invoice expired: given back")
                refusal = .expired(at: Date(timeIntervalSince1970: until))
                return
            }
            let amount = DevnetLedger.msat(row["amountMsat"])
            try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [amount.int64, node])
            try db.execute(sql: "UPDATE invoice SET preimage = ? WHERE paymentHash = ?", arguments: [hexString(preimage), hash])
            try db.execute(sql: "UPDATE payment SET status = 'completed', preimage = ?, seq = (SELECT MAX(seq) + 1 FROM payment) WHERE id = ?",
                           arguments: [hexString(preimage), row["id"] as String])
        }
        if let refusal { throw refusal }
        return try payment(id: id!, as: node)!
    }

    /// Gives `node`'s held payment under `hash` back to its payer. Cancelling a cancelled
    /// payment returns it.
    /// - Throws: `HoldInvoiceError`.
    func cancelHeld(node: String, hash: String, now: Date) throws -> Payment {
        var id: String?
        var refusal: HoldInvoiceError?
        try write { db in
            guard let row = try DevnetLedger.heldRow(db, hash: hash, payee: node) else { refusal = .nothingHeld(paymentHash: hash); return }
            id = row["id"]
            switch row["status"] as String {
            case "completed": refusal = .settled
            case "failed": return
            default: try DevnetLedger.giveBack(db, id: row["id"], reason: "cancelled by the payee: given back")
            }
        }
        if let refusal { throw refusal }
        return try payment(id: id!, as: node)!
    }

    /// The latest payment of `payee` to its hold invoice `hash`.
    static func heldRow(_ db: Database, hash: String, payee: String) throws -> Row? {
        try Row.fetchOne(db, sql: "SELECT * FROM payment WHERE paymentHash = ? AND payee = ? AND heldUntil IS NOT NULL ORDER BY seq DESC LIMIT 1",
                         arguments: [hash, payee])
    }

    /// A held payment back to its payer: amount and fee refunded, the payment failed with `reason`.
    static func giveBack(_ db: Database, id: String, reason: String) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM payment WHERE id = ? AND status = 'pending'", arguments: [id]),
              let payer: String = row["payer"] else { return }
        let refund = try DevnetLedger.msat(row["amountMsat"]) + DevnetLedger.msat(row["feeMsat"])
        try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [refund.int64, payer])
        try db.execute(sql: "UPDATE payment SET status = 'failed', feeMsat = 0, failureReason = ?, seq = (SELECT MAX(seq) + 1 FROM payment) WHERE id = ?",
                       arguments: [reason, id])
    }
}

extension DevnetBackend {
    /// A hold invoice signed by this node for `paymentHash`; the ledger is not told its preimage.
    public func receiveHeldPayment(_ request: ReceiveRequest, paymentHash: String) async throws -> ReceiveResponse {
        guard let hash = bytes(fromHex: paymentHash), hash.count == 32 else { throw HoldInvoiceError.notAHash }
        return try makeInvoice(request, paymentHash: hash, preimage: nil)
    }

    public func settleHeldPayment(preimage: SecretBytes) async throws -> Payment {
        var bytes = preimage.unsafeCopy()
        defer { SecretBytes.wipe(&bytes) }
        return try ledger.settleHeld(node: try signingNode(), preimage: bytes, now: clock())
    }

    public func cancelHeldPayment(paymentHash: String) async throws -> Payment {
        try ledger.cancelHeld(node: try signingNode(), hash: paymentHash.lowercased(), now: clock())
    }
}
