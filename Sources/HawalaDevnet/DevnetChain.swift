import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

// Devnet's chain: deposit addresses (regtest bech32), deposits that wait for confirmations
// (`mine`), claims under the wallet's fee cap at the chain's fee table, refunds. Test money on
// this machine, mirroring what a Spark wallet does with real on-chain deposits.

extension DevnetLedger {
    /// Confirmations a deposit needs before it is claimed (Spark's: 3).
    static let confirmationsNeeded = 3
    /// Outputs below this are dust: not worth claiming.
    static let dustSat: Sats = 546

    /// The chain's fee table.
    func fees() throws -> RecommendedFees {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT fast, medium, slow FROM chain WHERE id = 1")!
            func rate(_ column: String) -> UInt64 { UInt64(max(1, row[column] as Int64)) }
            let (fast, medium, slow) = (rate("fast"), rate("medium"), rate("slow"))
            return RecommendedFees(fastest: fast, halfHour: medium, hour: slow, economy: slow, minimum: 1)
        }
    }

    func setFees(fast: UInt64, medium: UInt64, slow: UInt64) throws {
        guard [fast, medium, slow].allSatisfy(PaymentLimits.feeRates.contains) else { throw LightningError.outOfRange(.feeRate) }
        try write { db in
            try db.execute(sql: "UPDATE chain SET fast = ?, medium = ?, slow = ? WHERE id = 1", arguments: [Int64(fast), Int64(medium), Int64(slow)])
        }
    }

    /// Mines `blocks`: unconfirmed deposits are in the first; returns the new height.
    @discardableResult
    func mine(_ blocks: Int) throws -> Int {
        guard DevnetChain.blocksAtOnce.contains(blocks) else { throw LightningError.outOfRange(.blocks) }
        var height = 0
        try write { db in
            let old = try Int.fetchOne(db, sql: "SELECT height FROM chain WHERE id = 1") ?? 0
            height = old + blocks
            try db.execute(sql: "UPDATE deposit SET height = ? WHERE height IS NULL", arguments: [old + 1])
            // Withdrawals and exits: in the first block, then final (their seq moves, so the
            // wallets' event pollers see them settle).
            let unconfirmed = try String.fetchAll(db, sql: "SELECT id FROM payment WHERE txid IS NOT NULL AND height IS NULL ORDER BY seq")
            for id in unconfirmed {
                let seq = (try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM payment") ?? 0) + 1
                try db.execute(sql: "UPDATE payment SET height = ?, status = 'completed', seq = ? WHERE id = ?", arguments: [old + 1, seq, id])
            }
            try db.execute(sql: "UPDATE chain SET height = ? WHERE id = 1", arguments: [height])
        }
        return height
    }

    /// `node`'s deposit address: its newest one while nothing was sent to it, else (or with
    /// `fresh`) a new one.
    func depositAddress(node: String, fresh: Bool, now: Date) throws -> String {
        var address = ""
        try write { db in
            if !fresh, let unused = try String.fetchOne(db, sql: """
                SELECT address FROM depositAddress a WHERE node = ? AND NOT EXISTS (SELECT 1 FROM deposit d WHERE d.address = a.address)
                ORDER BY createdAt DESC LIMIT 1
                """, arguments: [node]) {
                address = unused
                return
            }
            address = Bech32.segwitAddress(hrp: "bcrt", version: 0, program: SystemRandom.bytes(20))
            try db.execute(sql: "INSERT INTO depositAddress (address, node, createdAt) VALUES (?, ?, ?)", arguments: [address, node, now.timeIntervalSince1970])
        }
        return address
    }

    /// An on-chain payment of `sats` to a devnet deposit address, unconfirmed; its txid.
    func sendToAddress(_ address: String, sats: Sats, now: Date) throws -> String {
        guard sats > .zero else { throw LightningError.outOfRange(.amount) }
        let txid = hexString(SystemRandom.bytes(32))
        var known = true
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM depositAddress WHERE address = ?", arguments: [address]) == true else { known = false; return }
            try db.execute(sql: "INSERT INTO deposit (txid, vout, address, amountSat, createdAt) VALUES (?, 0, ?, ?, ?)",
                           arguments: [txid, address, sats.int64, now.timeIntervalSince1970])
        }
        guard known else { throw DepositError.notADevnetAddress(address) }
        return txid
    }

    /// `node`'s deposits, newest first.
    func deposits(of node: String) throws -> [Deposit] {
        try read { db in
            let height = try Int.fetchOne(db, sql: "SELECT height FROM chain WHERE id = 1") ?? 0
            return try Row.fetchAll(db, sql: """
                SELECT d.* FROM deposit d JOIN depositAddress a ON a.address = d.address WHERE a.node = ? ORDER BY d.createdAt DESC, d.txid
                """, arguments: [node]).map { DevnetLedger.deposit($0, height: height) }
        }
    }

    static func deposit(_ row: Row, height: Int) -> Deposit {
        let amount = DevnetLedger.sats(row["amountSat"])
        let state: Deposit.State
        switch row["state"] as String {
        case "claimed": state = .claimed(feeSat: DevnetLedger.sats(row["claimFeeSat"]))
        case "refunded": state = .refunded(txid: row["refundTxid"] ?? "")
        case "notClaimed":
            switch row["reason"] as String? {
            case "belowDust": state = .notClaimed(.belowDust)
            case "feeAboveAmount":
                let fee = DevnetLedger.sats(row["requiredFeeSat"])
                state = .notClaimed(.other("claiming costs \(AmountText.sats(fee)), as much as the deposit or more: claim it when fees fall, or send it elsewhere"))
            default: state = .notClaimed(.feeAboveCap(requiredSat: DevnetLedger.sats(row["requiredFeeSat"]), capSat: (row["capSat"] as Int64?).map { DevnetLedger.sats($0) }))
            }
        default:
            let confirmations = (row["height"] as Int?).map { height - $0 + 1 } ?? 0
            state = confirmations >= confirmationsNeeded ? .claimable : .waiting(confirmations: confirmations, needed: confirmationsNeeded)
        }
        return Deposit(txid: row["txid"], vout: UInt32(row["vout"] as Int64), amountSat: amount, state: state)
    }

    /// Claims `node`'s confirmed deposit under `capSat`, in one transaction: its value less the
    /// claim's fee is credited, as a received payment; or it is marked not claimed, with why.
    func claim(txid: String, vout: UInt32, node: String, capSat: Sats, now: Date) throws -> Deposit {
        var result: Deposit?
        var refusal: DepositError?
        try write { db in
            let height = try Int.fetchOne(db, sql: "SELECT height FROM chain WHERE id = 1") ?? 0
            let medium = UInt64(max(1, try Int64.fetchOne(db, sql: "SELECT medium FROM chain WHERE id = 1") ?? 1))
            guard let row = try Row.fetchOne(db, sql: """
                SELECT d.* FROM deposit d JOIN depositAddress a ON a.address = d.address WHERE a.node = ? AND d.txid = ? AND d.vout = ?
                """, arguments: [node, txid, vout]) else { refusal = .unknownDeposit("\(txid):\(vout)"); return }
            let deposit = DevnetLedger.deposit(row, height: height)
            switch deposit.state {
            case .claimable, .notClaimed(.feeAboveCap), .notClaimed(.other): break
            default: refusal = .depositNotAvailable(deposit.outpoint, state: deposit.stateText); return
            }
            let fee = (try? Sats.fee(satPerVbyte: medium, vbytes: ClaimFeePolicy.claimVbytes)) ?? .supply
            if deposit.amountSat < DevnetLedger.dustSat {
                try db.execute(sql: "UPDATE deposit SET state = 'notClaimed', reason = 'belowDust' WHERE txid = ? AND vout = ?", arguments: [txid, vout])
            } else if deposit.amountSat <= fee {
                try db.execute(sql: "UPDATE deposit SET state = 'notClaimed', reason = 'feeAboveAmount', requiredFeeSat = ? WHERE txid = ? AND vout = ?",
                               arguments: [fee.int64, txid, vout])
            } else if fee > capSat {
                try db.execute(sql: "UPDATE deposit SET state = 'notClaimed', reason = 'feeAboveCap', requiredFeeSat = ?, capSat = ? WHERE txid = ? AND vout = ?",
                               arguments: [fee.int64, capSat.int64, txid, vout])
            } else {
                let credit = deposit.amountSat.minusOrZero(fee).msat
                try db.execute(sql: "INSERT OR IGNORE INTO node (id, balanceMsat, createdAt) VALUES (?, 0, ?)", arguments: [node, now.timeIntervalSince1970])
                try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [credit.int64, node])
                try db.execute(sql: "UPDATE deposit SET state = 'claimed', claimFeeSat = ? WHERE txid = ? AND vout = ?", arguments: [fee.int64, txid, vout])
                try DevnetLedger.insertPayment(db, id: "deposit-\(txid.prefix(24))-\(vout)", payer: nil, payee: node, paymentHash: nil, bolt11: nil,
                                               description: "on-chain deposit, output \(vout)", amountMsat: credit, feeMsat: fee.msat,
                                               status: .completed, failureReason: nil, preimage: nil, idempotencyKey: nil, now: now,
                                               onChain: (txid, row["address"], row["height"]))
            }
            let after = try Row.fetchOne(db, sql: "SELECT * FROM deposit WHERE txid = ? AND vout = ?", arguments: [txid, vout])!
            result = DevnetLedger.deposit(after, height: height)
        }
        if let refusal { throw refusal }
        return result!
    }

    /// Sends `node`'s unclaimed deposit to `address` instead, at `satPerVbyte`.
    func refund(txid: String, vout: UInt32, node: String, to address: String, satPerVbyte: UInt64) throws -> Deposit {
        var result: Deposit?
        var refusal: DepositError?
        try write { db in
            let height = try Int.fetchOne(db, sql: "SELECT height FROM chain WHERE id = 1") ?? 0
            guard let row = try Row.fetchOne(db, sql: """
                SELECT d.* FROM deposit d JOIN depositAddress a ON a.address = d.address WHERE a.node = ? AND d.txid = ? AND d.vout = ?
                """, arguments: [node, txid, vout]) else { refusal = .unknownDeposit("\(txid):\(vout)"); return }
            let deposit = DevnetLedger.deposit(row, height: height)
            switch deposit.state {
            case .claimed, .refunded, .waiting: refusal = .depositNotAvailable(deposit.outpoint, state: deposit.stateText); return
            default: break
            }
            let fee = try? Sats.fee(satPerVbyte: satPerVbyte, vbytes: ClaimFeePolicy.claimVbytes) + DevnetLedger.dustSat
            guard let fee, deposit.amountSat > fee else {
                refusal = .depositNotAvailable(deposit.outpoint, state: "too small to pay \(satPerVbyte) sat/vB"); return
            }
            let refundTxid = hexString(SystemRandom.bytes(32))
            try db.execute(sql: "UPDATE deposit SET state = 'refunded', refundTxid = ?, refundAddress = ? WHERE txid = ? AND vout = ?",
                           arguments: [refundTxid, address, txid, vout])
            result = DevnetLedger.deposit(try Row.fetchOne(db, sql: "SELECT * FROM deposit WHERE txid = ? AND vout = ?", arguments: [txid, vout])!, height: height)
        }
        if let refusal { throw refusal }
        return result!
    }
}

extension DevnetBackend {
    public func newDepositAddress() async throws -> String {
        try ledger.depositAddress(node: try signingNode(), fresh: true, now: Date())
    }

    public func listDeposits() async throws -> [Deposit] { try ledger.deposits(of: try node()) }

    public func claimDeposit(txid: String, vout: UInt32, policy: ClaimFeePolicy) async throws -> Deposit {
        try ledger.claim(txid: txid, vout: vout, node: try signingNode(), capSat: policy.capSat(fees: try ledger.fees()), now: Date())
    }

    public func refundDeposit(txid: String, vout: UInt32, to address: String, satPerVbyte: UInt64) async throws -> Deposit {
        try network.checkBitcoinAddress(address, backend: "devnet")
        return try ledger.refund(txid: txid, vout: vout, node: try signingNode(), to: address, satPerVbyte: satPerVbyte)
    }

    /// Claims every confirmed deposit under the wallet's cap, as a Spark wallet does on sync and
    /// in the background (one not claimed stays so, with its reason, until claimed by hand). A
    /// node watched without its key claims too: the SDK claims without asking either.
    func claimConfirmedDeposits() throws {
        guard let node = try? node() else { return }
        let cap = claimPolicy.capSat(fees: try ledger.fees())
        for deposit in try ledger.deposits(of: node) where deposit.state == .claimable {
            // Another process may have claimed it meanwhile: that one is not this sync's failure.
            do {
                _ = try ledger.claim(txid: deposit.txid, vout: deposit.vout, node: node, capSat: cap, now: Date())
            } catch DepositError.depositNotAvailable {
                continue
            }
        }
    }
}

/// Devnet's chain, for the commands that play the rest of the world: a deposit from elsewhere,
/// blocks, the fee table.
public enum DevnetChain {
    /// How many blocks one `mine` makes: 1 to 1,000.
    public static let blocksAtOnce = 1...1_000

    /// Sends `sats` on-chain to a devnet deposit address (unconfirmed); the txid.
    public static func deposit(ledgerPath: String, address: String, sats: Sats) throws -> String {
        try DevnetLedger(path: ledgerPath).sendToAddress(address, sats: sats, now: Date())
    }

    /// Mines `blocks`; the new height.
    public static func mine(ledgerPath: String, blocks: Int) throws -> Int {
        try DevnetLedger(path: ledgerPath).mine(blocks)
    }

    /// Sets the fee table claims and withdrawals use (sat/vB), or reads it.
    public static func fees(ledgerPath: String, set: (fast: UInt64, medium: UInt64, slow: UInt64)? = nil) throws -> RecommendedFees {
        let ledger = try DevnetLedger(path: ledgerPath)
        if let set { try ledger.setFees(fast: set.fast, medium: set.medium, slow: set.slow) }
        return try ledger.fees()
    }
}
