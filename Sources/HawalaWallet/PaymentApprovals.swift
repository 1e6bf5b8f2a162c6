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

    public init(payee: String, amount: Msat, fee: Msat, total: Msat, description: String?) {
        self.payee = payee
        self.amount = amount
        self.fee = fee
        self.total = total
        self.description = description
    }
}

/// Why an answer to an approval was not taken.
public enum ApprovalError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchApproval
    /// Answered before (from the app, or the program's own client).
    case alreadyDecided(PaymentApproval.State)
    /// Its time ran out: nothing was paid, and nothing will be.
    case expired

    public var description: String {
        switch self {
        case .noSuchApproval: "no such payment waits for approval"
        case .alreadyDecided(let state): "this payment was \(state.rawValue) already"
        case .expired: "this payment waited too long and was not paid: the program may ask again"
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
    var askedAt: Double
    var expiresAt: Double
    var state: PaymentApproval.State
    var decidedAt: Double?

    enum Columns {
        static let state = Column(CodingKeys.state)
        static let expiresAt = Column(CodingKeys.expiresAt)
        static let askedAt = Column(CodingKeys.askedAt)
        static let decidedAt = Column(CodingKeys.decidedAt)
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

    /// Asks the person to approve `question` for `connection`: waiting until its
    /// `approvalWait` is over. Approvals answered more than a week ago are forgotten.
    public func askApproval(_ question: ApprovalQuestion, connection: AppConnection, now: Date = Date()) throws -> PaymentApproval {
        let record = PaymentApprovalRecord(
            id: UUID().uuidString.lowercased(), walletId: connection.walletID, connectionId: connection.id, program: connection.name, payee: question.payee,
            amountMsat: question.amount.int64, feeMsat: question.fee.int64, totalMsat: question.total.int64, description: question.description,
            askedAt: now.timeIntervalSince1970, expiresAt: now.addingTimeInterval(TimeInterval(connection.approvalWait)).timeIntervalSince1970,
            state: .waiting, decidedAt: nil)
        try writeTransaction { db in
            _ = try PaymentApprovalRecord.filter(PaymentApprovalRecord.Columns.expiresAt < now.addingTimeInterval(-Self.approvalsKept).timeIntervalSince1970).deleteAll(db)
            try record.insert(db)
        }
        return record.approval
    }

    public func paymentApproval(id: String) throws -> PaymentApproval? {
        try read { db in try PaymentApprovalRecord.fetchOne(db, key: id)?.approval }
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
