import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

// Devnet's withdrawals to an address and its way out without the operators. A node's balance
// is one leaf, renewed by every payment that changes it; the exit state names the leaf and its
// value. An exit puts the kept leaf on-chain (a node transaction, then after a timelock a
// refund transaction to the destination) as long as the leaf is still the node's: a state
// kept before later payments names a leaf spent since, and recovers nothing of it.

extension DevnetLedger {
    /// Virtual bytes an exit costs per leaf (its node and refund transactions).
    static let exitVbytesPerLeaf: UInt64 = 300
    /// Blocks the refund transaction waits after the node transaction (relative timelock).
    static let exitTimelockBlocks: UInt32 = 2

    /// `node`'s one leaf: an id that changes with every payment that moves its balance, and its value.
    func leaf(of node: String) throws -> (id: String, valueSat: Sats) {
        try read { db in try DevnetLedger.leaf(of: node, db: db) }
    }

    static func leaf(of node: String, db: Database) throws -> (id: String, valueSat: Sats) {
        // The newest row that moved the balance (rowid: a block confirming a withdrawal moves
        // its seq, not the balance, and so not the leaf).
        let seq = try Int64.fetchOne(db, sql: """
            SELECT MAX(rowid) FROM payment WHERE (payer = ? AND status != 'failed') OR (payee = ? AND status = 'completed')
            """, arguments: [node, node]) ?? 0
        let msat = try Int64.fetchOne(db, sql: "SELECT balanceMsat FROM node WHERE id = ?", arguments: [node]) ?? 0
        let id = hexString(Array(Hash.sha256(Array("devnet-leaf/\(node)/\(seq)/\(msat)".utf8)).prefix(16)))
        return (id, DevnetLedger.msat(msat).sats(.down))
    }

    /// Sends `amountSat` of `node`'s balance to `address` with `feeSat`, once per key: a pending
    /// on-chain payment until `mine` puts it in a block.
    func withdraw(node: String, address: String, amountSat: Sats, feeSat: Sats, idempotencyKey: String, now: Date) throws -> Payment {
        let id = DevnetLedger.newID()
        var refusal: WithdrawalError?
        try write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM payment WHERE payer = ? AND idempotencyKey = ?", arguments: [node, idempotencyKey]) == true { return }
            let debit = try? amountSat + feeSat
            let balance = DevnetLedger.msat(try Int64.fetchOne(db, sql: "SELECT balanceMsat FROM node WHERE id = ?", arguments: [node]))
            guard let debit, debit.msat <= balance else {
                refusal = .insufficientOnChainBalance(neededSat: debit ?? .supply, balanceSat: balance.sats(.down), speed: "chosen"); return
            }
            try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat - ? WHERE id = ?", arguments: [debit.msat.int64, node])
            try DevnetLedger.insertPayment(db, id: id, payer: node, payee: "onchain:" + address, paymentHash: nil, bolt11: nil,
                                           description: "on-chain withdrawal", amountMsat: amountSat.msat, feeMsat: feeSat.msat,
                                           status: .pending, failureReason: nil, preimage: nil, idempotencyKey: idempotencyKey, now: now,
                                           onChain: (hexString(SystemRandom.bytes(32)), address, nil))
        }
        if let refusal { throw refusal }
        return try read { db in
            try Row.fetchOne(db, sql: DevnetLedger.selectPayments + " WHERE payer = ? AND idempotencyKey = ?", arguments: [node, idempotencyKey])
                .flatMap { DevnetLedger.payment($0, as: node) }
        }!
    }

    /// Puts `leaf` of `node` on-chain to `destination`, paying `feeSat`: the leaf's value leaves
    /// the balance, and a pending on-chain payment records it. Refused when the leaf is not the
    /// node's current one (spent since the state was kept).
    func exit(node: String, leaf: DevnetExitState.Leaf, feeSat: Sats, destination: String, now: Date) throws -> [ExitTransaction] {
        let nodeTx = hexString(SystemRandom.bytes(32)), refundTx = hexString(SystemRandom.bytes(32))
        var spent = false
        try write { db in
            // Checked in the transaction that spends it: a payment in between can't be spent twice.
            guard try DevnetLedger.leaf(of: node, db: db).id == leaf.id else { spent = true; return }
            try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat - ? WHERE id = ?", arguments: [leaf.valueSat.msat.int64, node])
            try DevnetLedger.insertPayment(db, id: DevnetLedger.newID(), payer: node, payee: "onchain:" + destination, paymentHash: nil, bolt11: nil,
                                           description: "unilateral exit", amountMsat: leaf.valueSat.minusOrZero(feeSat).msat,
                                           feeMsat: feeSat.msat, status: .pending, failureReason: nil, preimage: nil,
                                           idempotencyKey: "exit:" + leaf.id, now: now, onChain: (refundTx, destination, nil))
        }
        if spent { throw LightningError.refused(by: "devnet", reason: "leaf \(leaf.id.prefix(12))… was spent since this exit state was kept") }
        return [ExitTransaction(kind: "node", txid: nodeTx, hex: nil, waitBlocks: nil),
                ExitTransaction(kind: "refund", txid: refundTx, hex: nil, waitBlocks: DevnetLedger.exitTimelockBlocks)]
    }
}

/// Devnet's exit state: the node and its leaves, as JSON.
struct DevnetExitState: Codable, Equatable {
    struct Leaf: Codable, Equatable {
        var id: String
        var valueSat: Sats
    }
    var version = 1
    var node: String
    var leaves: [Leaf]

    func encoded() -> SecretBytes {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return SecretBytes(Array((try? encoder.encode(self)) ?? Data()))
    }

    static func decode(_ state: SecretBytes) throws(ExitError) -> DevnetExitState {
        let decoded = state.withUnsafeBytes { try? JSONDecoder().decode(DevnetExitState.self, from: Data($0)) }
        guard let decoded, decoded.version == 1 else { throw .invalidExitState("not a devnet exit state") }
        return decoded
    }
}

extension DevnetBackend {
    // MARK: Withdrawals

    public func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote {
        let balance = try ledger.balanceMsat(node: try node()).sats(.down)
        let fees = try ledger.fees()
        let priced = OnChainSpeed.allCases.map { ($0, (try? Sats.fee(satPerVbyte: $0.rate(fees), vbytes: OnChainQuote.withdrawalVbytes)) ?? .supply) }
        return OnChainQuote.price(address: address, amount: amount, balanceSat: balance, fees: priced)
    }

    public func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> Payment {
        let option = try quote.affordable(speed)
        return try ledger.withdraw(node: try signingNode(), address: quote.address, amountSat: option.amountSat, feeSat: option.feeSat,
                                   idempotencyKey: idempotencyKey, now: Date())
    }

    // MARK: The way out

    public func exportExitState() async throws -> ExitSnapshot? {
        let node = try node()
        let leaf = try ledger.leaf(of: node)
        let leaves = leaf.valueSat > .zero ? [DevnetExitState.Leaf(id: leaf.id, valueSat: leaf.valueSat)] : []
        return ExitSnapshot(state: DevnetExitState(node: node, leaves: leaves).encoded(), valueSat: leaf.valueSat, leafCount: leaves.count)
    }

    public func importExitState(_ state: SecretBytes) async throws {
        let decoded = try DevnetExitState.decode(state)
        guard decoded.node == (try node()) else { throw ExitError.invalidExitState("it is another wallet's") }
        importedExit.withLock { $0 = decoded }
    }

    public func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan {
        guard let state = importedExit.withLock({ $0 }) else { throw ExitError.noExitState(network: "devnet") }
        let current = try? ledger.leaf(of: state.node)
        let fee = (try? Sats.fee(satPerVbyte: satPerVbyte, vbytes: DevnetLedger.exitVbytesPerLeaf)) ?? .supply
        var leaves: [ExitPlan.Leaf] = [], skipped: [ExitPlan.Skipped] = []
        for leaf in state.leaves {
            if let current, current.id != leaf.id {
                skipped.append(.init(id: leaf.id, reason: "spent since this state was kept"))
            } else if leaf.valueSat <= (try? fee + OnChainQuote.dustSat) ?? .supply {
                skipped.append(.init(id: leaf.id, reason: "worth less than its exit fee (\(AmountText.sats(fee)))"))
            } else {
                leaves.append(.init(id: leaf.id, valueSat: leaf.valueSat, method: "unilateral"))
            }
        }
        return ExitPlan(leaves: leaves, skipped: skipped, recoverableSat: try Sats.sum(leaves.map(\.valueSat)), feeSat: try fee * UInt64(leaves.count),
                        fundingSat: .zero,
                        satPerVbyte: satPerVbyte, destination: destination, backendPlan: state)
    }

    /// Devnet's exits pay their own fees: `funding` is never needed.
    public func runExit(_ plan: ExitPlan, funding: ExitFundingSource?) async throws -> [ExitTransaction] {
        guard let state = plan.backendPlan as? DevnetExitState else { throw LightningError.unsupported(backend: name, .preparedElsewhere) }
        let fee = plan.feeSat.divided(by: UInt64(plan.leaves.count))
        var transactions: [ExitTransaction] = []
        for leaf in plan.leaves {
            transactions += try ledger.exit(node: state.node, leaf: .init(id: leaf.id, valueSat: leaf.valueSat), feeSat: fee,
                                            destination: plan.destination, now: Date())
        }
        return transactions
    }
}
