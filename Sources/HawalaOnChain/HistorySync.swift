import Foundation

extension OnChainWallet {
    /// Scripts asked about per exchange with an index server.
    static let scriptsPerRound = 100

    /// A sync through an index server (Electrum): every watched script's history, again for the
    /// scripts derived as the window moves; the transactions not kept yet; heights as the server
    /// has them now (a reorg shows as a height changed or a payment gone). One commit.
    func sync(index: any HistorySource, tip: ChainTip, progress: (@Sendable (SyncProgress) -> Void)?) async throws -> SyncSummary {
        var (transactions, watched) = try watchedTransactions()
        let before = Dictionary(transactions.map { ($0.txid, $0) }, uniquingKeysWith: { (a: StoredTransaction, _: StoredTransaction) in a })
        var heights: [Txid: Int?] = [:]
        var asked = Set<[UInt8]>()
        while true {
            let scripts = watched.places.keys.filter { !asked.contains($0) }
            guard !scripts.isEmpty else { break }
            for chunk in scripts.chunked(Self.scriptsPerRound) {
                for (script, history) in zip(chunk, try await index.histories(chunk)) {
                    asked.insert(script)
                    guard !history.isEmpty else { continue }
                    if let place = watched.place(of: script) { try watched.markUsed(place) }
                    for entry in history { heights[entry.txid] = entry.height }
                }
                progress?(.addresses(done: asked.count, of: watched.places.count))
            }
        }
        let missing = heights.keys.filter { before[$0] == nil }
        let now = Date().timeIntervalSince1970
        var byID: [Txid: StoredTransaction] = [:]
        for chunk in Array(missing).chunked(Self.scriptsPerRound) {
            for (txid, raw) in zip(chunk, try await index.transactions(chunk)) {
                let transaction = try Transaction(bytes: raw)
                guard transaction.txid == txid else { throw OnChainError.badAnswer("it gave another transaction than the one asked for") }
                byID[txid] = StoredTransaction(transaction: transaction, height: nil, blockHash: nil, seenAt: now)
            }
        }
        for (txid, height) in heights {
            guard var stored = byID[txid] ?? before[txid] else { continue }
            // A height past the tip the server gave a moment ago is a block found meanwhile.
            stored.height = height.map { min($0, tip.height) }
            stored.blockHash = nil
            byID[txid] = stored
        }
        // Kept but in no history now: replaced, or its block reorged away and the payment gone. The
        // wallet's own payment — unconfirmed, or confirmed in a block that is gone — is sent
        // again and kept, unconfirmed, if taken (as a node's reorg gives it back to its mempool).
        var gone: [Txid] = []
        transactions = Array(byID.values)
        for (txid, stored) in before where heights[txid] == nil {
            if Self.isOwn(stored.transaction, watched: watched, known: before),
               (try? await index.broadcast(stored.transaction.serialized())) != nil {
                var unconfirmed = stored
                unconfirmed.height = nil
                unconfirmed.blockHash = nil
                transactions.append(unconfirmed)
                continue
            }
            gone.append(txid)
        }
        try store.commit(from: 0, blocks: [(tip.height, tip.hash)], transactions: transactions, gone: gone, keptAtStart: Set(before.keys))
        // No blocks are read: a reorg shows in the heights, not as blocks counted.
        return SyncSummary(height: tip.height, blocksRead: 0, newTransactions: missing.count, reorgedBlocks: 0)
    }
}
