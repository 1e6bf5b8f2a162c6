import ArgumentParser
import Foundation
import HawalaConnect
import HawalaText
import HawalaWallet

/// `--approve-above` and `--approval-wait`, for a connection made or accepted.
struct ApprovalOptions: ParsableArguments {
    @Option(name: .customLong("approve-above"), help: ArgumentHelp("A payment above this (amount + fee, in sat) waits for your approval in the app.", valueName: "sats"))
    var approveAbove: String?
    @Option(name: .customLong("approval-wait"), help: ArgumentHelp("How long such a payment waits before nothing is paid: 10s to 15m (default 2m).", valueName: "time"))
    var approvalWait: String?

    /// Wrong input is said before any password is asked.
    func validate() throws {
        if let approveAbove, (try? AmountText.parseSats(approveAbove)) == nil {
            throw ValidationError("--approve-above is an amount in sat, like 5,000; not \"\(approveAbove.prefix(40))\"")
        }
        do { _ = try parsed() } catch let error as CustomStringConvertible & Error { throw ValidationError(error.description) }
    }

    func parsed() throws -> (Sats?, Int) {
        let above = try approveAbove.map { try AmountText.parseSats($0) }
        let wait = try approvalWait.map { try ConnectionInput.approvalWait($0) } ?? AppConnection.defaultApprovalWait
        return (above, wait)
    }

    func apply(to request: inout NewConnection) throws {
        (request.approveAbove, request.approvalWait) = try parsed()
    }
}

/// `hawala connect approvals`: the payments waiting for your approval.
struct ConnectApprovals: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals", abstract: "The programs' payments waiting for your approval (no password needed to look).")
    @Flag(help: "JSON output: [{id, program, payee, amountMsat, feeMsat, totalMsat, description, askedAt, expiresAt}].") var json = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let waiting = try store.waitingApprovals()
        if json {
            JSONValue.array(waiting.map { .object(ApprovalJSON.object($0)) }).print()
            return
        }
        if waiting.isEmpty { print("no payment waits for approval"); return }
        let now = Date()
        for approval in waiting {
            print("\(approval.id.prefix(8))  \(approval.program): \(ConnectionPayer.question(approval)) Waits until \(approval.expiresAt.relative(now: now)).")
        }
    }
}

/// `hawala connect approve ID`: the person's yes, with the password.
struct ConnectApprove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve a program's payment that waits for you (the password is asked).",
        discussion: "ID is the one `connect approvals` and `connect serve` show (its first 8 characters are enough).")
    @Argument(help: "The payment's approval ID.") var id: String
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let store = try WalletSession.store(create: false)
        let approval = try ApprovalID.find(id, store: store)
        print("\(approval.program): \(ConnectionPayer.question(approval))")
        _ = try WalletSession.unlock(store, file: password.passwordFile)
        _ = try ApprovalID.decide(approval, approve: true, store: store)
        print("approved: \(approval.program) may make this payment (`hawala ln history` shows how it goes)")
    }
}

/// `hawala connect decline ID`: nothing is paid.
struct ConnectDecline: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline a program's payment that waits for you: nothing is paid.")
    @Argument(help: "The payment's approval ID.") var id: String

    func run() throws {
        let store = try WalletSession.store(create: false)
        let approval = try ApprovalID.decide(try ApprovalID.find(id, store: store), approve: false, store: store)
        print("declined: \(approval.program)'s payment of \(AmountText.sats(approval.total, rounding: .up)) is not made")
    }
}

enum ApprovalID {
    /// The waiting approval whose ID is `typed` or starts with it (the library's rule).
    static func find(_ typed: String, store: WalletStore) throws -> PaymentApproval {
        do {
            return try store.paymentApproval(named: typed)
        } catch ApprovalError.noSuchApproval {
            throw CLIError("no payment waits for approval under \"\(typed.prefix(40))\" (see `hawala connect approvals`)")
        } catch let error as ApprovalError {
            throw CLIError(error.description)
        }
    }

    static func decide(_ approval: PaymentApproval, approve: Bool, store: WalletStore) throws -> PaymentApproval {
        do {
            return try store.decideApproval(id: approval.id, approve: approve)
        } catch let error as ApprovalError {
            throw CLIError(error.description)
        }
    }
}

/// A waiting approval as `connect approvals --json` writes it.
enum ApprovalJSON {
    static func object(_ a: PaymentApproval) -> [(String, JSONValue)] {
        [("id", .string(a.id)), ("program", .string(a.program)), ("payee", .string(a.payee)), ("amountMsat", .amount(a.amount)), ("feeMsat", .amount(a.fee)),
         ("totalMsat", .amount(a.total)), ("description", a.description.map { .string($0) } ?? .null), ("askedAt", .string(a.askedAt.iso8601)),
         ("expiresAt", .string(a.expiresAt.iso8601))]
    }
}
