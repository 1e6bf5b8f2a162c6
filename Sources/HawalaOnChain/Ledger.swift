import HawalaText

/// A transaction the wallet keeps: its bytes and where it is on the chain.
public struct StoredTransaction: Sendable, Equatable {
    public let transaction: Transaction
    public let txid: Txid
    /// The block height, nil while unconfirmed.
    public var height: Int?
    public var blockHash: String?
    /// When the wallet first saw it (seconds since 1970).
    public let seenAt: Double

    public init(transaction: Transaction, height: Int?, blockHash: String?, seenAt: Double) {
        self.transaction = transaction
        self.txid = transaction.txid
        self.height = height
        self.blockHash = blockHash
        self.seenAt = seenAt
    }
}

/// A coin the wallet holds.
public struct OnChainCoin: Sendable, Equatable {
    public let outpoint: OutPoint
    public let value: Sats
    public let place: KeyPlace
    public let script: [UInt8]
    /// 0 while unconfirmed.
    public let confirmations: Int
    /// Whether it is unconfirmed change the wallet can trust: made by its own payment resting on
    /// confirmed or trusted coins only (such change can be spent unconfirmed).
    public let fromSelf: Bool
    public let frozen: Bool

    package init(outpoint: OutPoint, value: Sats, place: KeyPlace, script: [UInt8], confirmations: Int, fromSelf: Bool, frozen: Bool) {
        self.outpoint = outpoint
        self.value = value
        self.place = place
        self.script = script
        self.confirmations = confirmations
        self.fromSelf = fromSelf
        self.frozen = frozen
    }
}

/// A payment in or out, as the history shows it.
public struct OnChainPayment: Sendable, Equatable {
    public let txid: Txid
    /// What the wallet gained (positive) or lost (negative, the fee included).
    public let amount: Int64
    /// The fee this wallet paid: 0 for a payment it received.
    public let fee: Sats
    public let confirmations: Int
    public let height: Int?
    public let seenAt: Double
    /// Whether every input is this wallet's (a payment it made, which it can speed up by replacing).
    public let isOwn: Bool
    /// Signals BIP125 replaceability.
    public let replaceable: Bool
    public let vsize: Int
}

/// Balances, coins and history, computed from the transactions the wallet keeps.
public struct Ledger: Sendable {
    public let transactions: [StoredTransaction]
    public let tipHeight: Int
    public let coins: [OnChainCoin]
    public let payments: [OnChainPayment]

    /// - Parameters:
    ///   - place: the key place of a script, nil when it isn't the wallet's.
    public init(transactions: [StoredTransaction], tipHeight: Int, frozen: Set<OutPoint>, place: ([UInt8]) -> KeyPlace?) {
        self.transactions = transactions
        self.tipHeight = tipHeight
        let byID = Dictionary(transactions.map { ($0.txid, $0) }, uniquingKeysWith: { a, _ in a })
        var ours: [OutPoint: (value: UInt64, place: KeyPlace, script: [UInt8])] = [:]
        for stored in transactions {
            for (vout, output) in stored.transaction.outputs.enumerated() {
                if let place = place(output.script) {
                    ours[OutPoint(hash: stored.txid.hash, vout: UInt32(vout))] = (output.value, place, output.script)
                }
            }
        }
        var spent = Set<OutPoint>()
        for stored in transactions { for input in stored.transaction.inputs where ours[input.prevout] != nil { spent.insert(input.prevout) } }
        func confirmations(_ stored: StoredTransaction) -> Int { stored.height.map { max(0, tipHeight - $0 + 1) } ?? 0 }
        func isOwn(_ stored: StoredTransaction) -> Bool {
            !stored.transaction.inputs.isEmpty && stored.transaction.inputs.allSatisfy { ours[$0.prevout] != nil }
        }
        // Trusted: confirmed, or the wallet's own payment whose every parent is trusted — an
        // unconfirmed payment resting on someone else's unconfirmed one can still be undone by them.
        var trust: [Txid: Bool] = [:]
        func trusted(_ txid: Txid, depth: Int = 0) -> Bool {
            if let known = trust[txid] { return known }
            guard let stored = byID[txid], depth < 1000 else { return false }
            trust[txid] = false  // a cycle (no valid chain has one) is not trusted
            let result = stored.height != nil || (isOwn(stored) && stored.transaction.inputs.allSatisfy { trusted($0.prevout.txid, depth: depth + 1) })
            trust[txid] = result
            return result
        }
        coins = ours.filter { !spent.contains($0.key) }.compactMap { outpoint, mine in
            guard let stored = byID[outpoint.txid] else { return nil }
            return OnChainCoin(outpoint: outpoint, value: Sats(clamping: mine.value), place: mine.place, script: mine.script,
                               confirmations: confirmations(stored), fromSelf: stored.height == nil && trusted(stored.txid), frozen: frozen.contains(outpoint))
        }.sorted { ($0.confirmations, $0.value) > ($1.confirmations, $1.value) }
        payments = transactions.map { stored in
            let received = stored.transaction.outputs.reduce(Int64(0)) { $0 + (place($1.script) != nil ? Int64($1.value) : 0) }
            let sent = stored.transaction.inputs.reduce(Int64(0)) { $0 + Int64(ours[$1.prevout]?.value ?? 0) }
            let own = isOwn(stored)
            let fee = own ? sent - stored.transaction.outputs.reduce(Int64(0)) { $0 + Int64($1.value) } : 0
            return OnChainPayment(txid: stored.txid, amount: received - sent, fee: Sats(clamping: UInt64(max(0, fee))),
                                  confirmations: confirmations(stored), height: stored.height, seenAt: stored.seenAt, isOwn: own,
                                  replaceable: stored.transaction.inputs.contains { $0.sequence < 0xFFFF_FFFE }, vsize: stored.transaction.vsize)
        }.sorted { ($0.height ?? Int.max, $0.seenAt) > ($1.height ?? Int.max, $1.seenAt) }
    }

    /// Confirmed coins' sum.
    public var confirmed: Sats { (try? Sats.sum(coins.filter { $0.confirmations > 0 }.map(\.value))) ?? Sats.supply }
    /// Unconfirmed coins' sum: incoming, and change of the wallet's own unconfirmed payments.
    public var unconfirmed: Sats { (try? Sats.sum(coins.filter { $0.confirmations == 0 }.map(\.value))) ?? Sats.supply }

    /// The coins a payment may use: not frozen, confirmed or the wallet's own change.
    public var spendable: [OnChainCoin] { coins.filter { !$0.frozen && ($0.confirmations > 0 || $0.fromSelf) } }

    /// The value and script of a coin the wallet had, spent or not.
    public func output(_ outpoint: OutPoint) -> TxOutput? {
        transactions.first { $0.txid == outpoint.txid }.flatMap { stored in
            stored.transaction.outputs.indices.contains(Int(outpoint.vout)) ? stored.transaction.outputs[Int(outpoint.vout)] : nil
        }
    }
}
