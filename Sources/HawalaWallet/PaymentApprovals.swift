import Foundation
import GRDB
import HawalaText

/// A program's payment waiting for the person's yes: asked by the process that pays (`connect
/// serve`, `hawala mcp`), answered from another (the app), so it lives in the store. Waiting
/// until `expiresAt`, then approved, declined or expired — decided once.
public struct PaymentApproval: Sendable, Equatable, Identifiable {
    public enum State: String, Sendable, Codable { case waiting, approved, declined, expired }

    public let id: String
    public let walletID: String
    public let connectionID: String
    /// The connection's name: which program asks.
    public let program: String
    /// Who is paid, as Hawala knows it (a Lightning address, an L402 host, a node id).
    public let payee: String
    public let amount: Msat
    public let fee: Msat
    public let total: Msat
    /// The payee's own words for it.
    public let description: String?
    public let askedAt: Date
    public let expiresAt: Date
    public let state: State
    public let decidedAt: Date?

    /// Still waiting for an answer at `now`.
    public func isWaiting(at now: Date) -> Bool { state == .waiting && expiresAt > now }
}

/// What the person is asked to approve (the payer's figures, before anything is sent).
public struct ApprovalQuestion: Sendable, Equatable {
    public let payee: String
    public let amount: Msat
    public let fee: Msat
    public let total: Msat
    public let description: String?
    /// The key its budget is reserved under: given back when nothing will be paid.
    public let paymentKey: String
    /// The invoice's payment hash (hex), when known: one approval at a time for one invoice.
    public let paymentHash: String?

    public init(payee: String, amount: Msat, fee: Msat, total: Msat, description: String?, paymentKey: String, paymentHash: String?) {
        self.payee = payee
        self.amount = amount
        self.fee = fee
        self.total = total
        self.description = description
        self.paymentKey = paymentKey
        self.paymentHash = paymentHash
    }
}

/// Why an answer to an approval was not taken.
public enum ApprovalError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchApproval
    /// Answered before (from the app, or the program's own client).
    case alreadyDecided(PaymentApproval.State)
    /// Its time ran out: nothing was paid, and nothing will be.
    case expired
    /// The same invoice already waits for the person's answer (a program's retry).
    case alreadyWaiting
    /// This connection has as many payments waiting as it may.
    case tooManyWaiting(Int)
    /// The start of an ID typed names more than one waiting payment.
    case ambiguous(String)

    public var description: String {
        switch self {
        case .noSuchApproval: "no such payment waits for approval"
        case .ambiguous(let typed): "\"\(typed.prefix(40))\" names more than one payment that waits: give more of its ID"
        case .alreadyDecided(.expired), .expired: "this payment waited too long and was not paid: the program may ask again"
        case .alreadyDecided(let state): "this payment was \(state.rawValue) already"
        case .alreadyWaiting: "this invoice already waits for the person's approval: nothing more was asked; ask again once it is answered"
        case .tooManyWaiting(let count): "\(count) payments of this connection already wait for the person's approval: nothing more was asked"
        }
    }
}

/// A row of `paymentApproval` (Schema/V17.swift).
struct PaymentApprovalRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "paymentApproval"

    var id: String
    var walletId: String
    var connectionId: String
    var program: String
    var payee: String
    var amountMsat: Int64
    var feeMsat: Int64
    var totalMsat: Int64
    var description: String?
    var paymentKey: String
    var paymentHash: String?
    var askedAt: Double
    var expiresAt: Double
    var state: PaymentApproval.State
    var decidedAt: Double?

    enum Columns {
        static let state = Column(CodingKeys.state)
        static let expiresAt = Column(CodingKeys.expiresAt)
        static let askedAt = Column(CodingKeys.askedAt)
        static let decidedAt = Column(CodingKeys.decidedAt)
        static let connectionId = Column(CodingKeys.connectionId)
        static let paymentHash = Column(CodingKeys.paymentHash)
    }

    var approval: PaymentApproval {
        PaymentApproval(id: id, walletID: walletId, connectionID: connectionId, program: program, payee: payee,
                        amount: Msat(clamping: UInt64(clamping: amountMsat)), fee: Msat(clamping: UInt64(clamping: feeMsat)), total: Msat(clamping: UInt64(clamping: totalMsat)),
                        description: description, askedAt: Date(timeIntervalSince1970: askedAt), expiresAt: Date(timeIntervalSince1970: expiresAt),
                        state: state, decidedAt: decidedAt.map(Date.init(timeIntervalSince1970:)))
    }
}

extension WalletStore {
    /// How long answered approvals are kept (what the app showed, should the person ask).
    static let approvalsKept: TimeInterval = 7 * 86_400

    /// The most payments of one connection that may wait at once: each holds a request open.
    public static let waitingPerConnection = 3

    /// Asks the person to approve `question` for `connection`: waiting until its
    /// `approvalWait` is over. Approvals answered more than a week ago are forgotten; the
    /// budgets held by ones whose payer is gone are given back first.
    /// - Throws: `ApprovalError.alreadyWaiting` (this invoice waits already),
    ///   `.tooManyWaiting`; the store's errors.
    public func askApproval(_ question: ApprovalQuestion, connection: AppConnection, now: Date = Date()) throws -> PaymentApproval {
        let record = PaymentApprovalRecord(
            id: UUID().uuidString.lowercased(), walletId: connection.walletID, connectionId: connection.id, program: connection.name, payee: question.payee,
            amountMsat: question.amount.int64, feeMsat: question.fee.int64, totalMsat: question.total.int64, description: question.description,
            paymentKey: question.paymentKey, paymentHash: question.paymentHash,
            askedAt: now.timeIntervalSince1970, expiresAt: now.addingTimeInterval(TimeInterval(connection.approvalWait)).timeIntervalSince1970,
            state: .waiting, decidedAt: nil)
        var refusal: ApprovalError?
        try writeTransaction { db in
            try Self.releaseAbandoned(now: now, db: db)
            _ = try PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.expiresAt < now.addingTimeInterval(-Self.approvalsKept).timeIntervalSince1970).deleteAll(db)
            let waiting = PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.connectionId == connection.id)
                .filter(PaymentApprovalRecord.Columns.state == PaymentApproval.State.waiting.rawValue)
                .filter(PaymentApprovalRecord.Columns.expiresAt > now.timeIntervalSince1970)
            if let hash = question.paymentHash, try waiting.filter(PaymentApprovalRecord.Columns.paymentHash == hash).fetchCount(db) > 0 {
                refusal = .alreadyWaiting
                return
            }
            if try waiting.fetchCount(db) >= Self.waitingPerConnection {
                refusal = .tooManyWaiting(Self.waitingPerConnection)
                return
            }
            try record.insert(db)
        }
        if let refusal { throw refusal }
        return record.approval
    }

    /// How long past its wait an approved payment's payer has to record it before the budget it
    /// held is counted as abandoned (a payer records the payment before sending it).
    static let approvedGrace: TimeInterval = 300

    /// Gives back the budgets held for approvals that will never be paid: no answer in time,
    /// declined, or approved long ago with no payment under their key (their payer is gone: a
    /// program's server stopped while it waited).
    static func releaseAbandoned(now: Date, db: Database) throws {
        let over = try PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.expiresAt < now.timeIntervalSince1970)
            .filter(PaymentApprovalRecord.Columns.expiresAt > now.addingTimeInterval(-Self.approvalsKept).timeIntervalSince1970).fetchAll(db)
        for approval in over {
            if approval.state == .approved {
                guard approval.expiresAt < now.addingTimeInterval(-Self.approvedGrace).timeIntervalSince1970 else { continue }
                let paid = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM payment WHERE walletId = ? AND idempotencyKey = ?",
                                            arguments: [approval.walletId, approval.paymentKey]) ?? 0
                guard paid == 0 else { continue }
            }
            try Self.releaseReserved(approval, db: db)
        }
    }

    /// The budget `approval` held, given back when it is still only reserved (never a payment's).
    static func releaseReserved(_ approval: PaymentApprovalRecord, db: Database) throws {
        _ = try ConnectionSpendRecord.of(approval.connectionId, paymentKey: approval.paymentKey)
            .filter(ConnectionSpendRecord.Columns.state == ConnectionSpendRecord.State.reserved.rawValue)
            .updateAll(db, ConnectionSpendRecord.Columns.msat.set(to: 0), ConnectionSpendRecord.Columns.state.set(to: ConnectionSpendRecord.State.released.rawValue))
    }

    public func paymentApproval(id: String) throws -> PaymentApproval? {
        try read { db in try PaymentApprovalRecord.fetchOne(db, key: id)?.approval }
    }

    /// Gives back the budgets held by approvals whose payer is gone (see `askApproval`): for a
    /// service starting, and the page that lists them.
    public func releaseAbandonedApprovals(now: Date = Date()) throws {
        try writeTransaction { db in try Self.releaseAbandoned(now: now, db: db) }
    }

    /// Ends `connection`'s waiting approvals (it was revoked): nothing more of it is paid.
    static func endApprovals(of connection: AppConnection, now: Date, db: Database) throws {
        let waiting = try PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.connectionId == connection.id)
            .filter(PaymentApprovalRecord.Columns.state == PaymentApproval.State.waiting.rawValue).fetchAll(db)
        for var record in waiting {
            record.state = .expired
            record.decidedAt = now.timeIntervalSince1970
            try record.update(db)
            try Self.releaseReserved(record, db: db)
        }
    }

    /// The approval whose ID is `typed`, or the one waiting payment whose ID starts with it (at
    /// least 4 characters: what a person copies from a list).
    /// - Throws: `ApprovalError.noSuchApproval`, `.ambiguous`; the store's errors.
    public func paymentApproval(named typed: String, now: Date = Date()) throws -> PaymentApproval {
        let text = typed.trimmingCharacters(in: .whitespaces).lowercased()
        if text.count == 36, let exact = try paymentApproval(id: text) { return exact }
        let matches = text.count >= 4 ? try waitingApprovals(now: now).filter { $0.id.hasPrefix(text) } : []
        guard matches.count <= 1 else { throw ApprovalError.ambiguous(typed) }
        guard let match = matches.first else { throw ApprovalError.noSuchApproval }
        return match
    }

    /// The payments waiting for the person's yes at `now`, of every wallet, oldest first.
    public func waitingApprovals(now: Date = Date()) throws -> [PaymentApproval] {
        try read { db in
            try PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.state == PaymentApproval.State.waiting.rawValue)
                .filter(PaymentApprovalRecord.Columns.expiresAt > now.timeIntervalSince1970)
                .order(PaymentApprovalRecord.Columns.askedAt).fetchAll(db).map(\.approval)
        }
    }

    /// The person's answer: approved or declined, once, while it waits (checked and written in
    /// one transaction, so the app and a program's client never both decide).
    /// - Throws: `ApprovalError`.
    public func decideApproval(id: String, approve: Bool, now: Date = Date()) throws -> PaymentApproval {
        var outcome: Result<PaymentApproval, ApprovalError> = .failure(.noSuchApproval)
        try writeTransaction { db in
            guard var record = try PaymentApprovalRecord.fetchOne(db, key: id) else { return }
            guard record.state == .waiting else { outcome = .failure(.alreadyDecided(record.state)); return }
            guard record.expiresAt > now.timeIntervalSince1970 else { outcome = .failure(.expired); return }
            record.state = approve ? .approved : .declined
            record.decidedAt = now.timeIntervalSince1970
            try record.update(db)
            // Declined: its budget is free at once, whether or not its payer still waits.
            if !approve { try Self.releaseReserved(record, db: db) }
            outcome = .success(record.approval)
        }
        return try outcome.get()
    }

    /// Ends a wait: an approval still waiting is expired (nothing will be paid for it); one
    /// answered meanwhile keeps its answer. Returns how it ended.
    public func endApproval(id: String, now: Date = Date()) throws -> PaymentApproval.State {
        var state = PaymentApproval.State.expired
        try writeTransaction { db in
            guard var record = try PaymentApprovalRecord.fetchOne(db, key: id) else { return }
            if record.state == .waiting {
                record.state = .expired
                record.decidedAt = now.timeIntervalSince1970
                try record.update(db)
            }
            if record.state != .approved { try Self.releaseReserved(record, db: db) }
            state = record.state
        }
        return state
    }
}

extension WalletStore {
    static let appAddressKey = "app.address"

    /// Where the app answers while it runs ("http://127.0.0.1:PORT"): a program's client can
    /// send the person to a payment's approval there. Nil when the app is not running.
    public func appAddress() throws -> String? { try globalSetting(Self.appAddressKey) }

    /// Said by the app when it starts (its address) and stops (nil).
    public func setAppAddress(_ address: String?) throws { try setGlobalSetting(Self.appAddressKey, to: address) }
}
