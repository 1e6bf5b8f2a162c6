import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// What a sync did.
public struct SyncSummary: Sendable, Equatable {
    public let height: Int
    public let blocksRead: Int
    /// Transactions new to the wallet (confirmed or in the mempool).
    public let newTransactions: Int
    /// Blocks the node no longer has on its best chain (a reorg), whose transactions went back to unconfirmed.
    public let reorgedBlocks: Int
    /// The first sync read the node's coin set instead of every block: the coins held now, not
    /// the payments before it that left no coin.
    public var fromCoinSet = false
}

/// How a first sync finds what the wallet already holds.
public enum FirstScan: Sendable {
    /// Every block on a short chain (regtest, a young test chain), the node's coin set on a long one.
    case automatic
    /// Every block from the start: the whole history.
    case everyBlock
    /// The node's coin set (`scantxoutset`), then blocks from the tip on: quick on any chain,
    /// the coins held now without the payments that left none.
    case coinSet

    /// Chains longer than this start from the node's coin set when `automatic`.
    public static let everyBlockUpTo = 50_000

    func usesCoinSet(tipHeight: Int) -> Bool {
        switch self {
        case .automatic: tipHeight > Self.everyBlockUpTo
        case .everyBlock: false
        case .coinSet: true
        }
    }
}

/// How far a sync is, for a progress line.
public enum SyncProgress: Sendable, Equatable {
    /// Blocks read of those to read.
    case blocks(done: Int, of: Int)
    /// The node scans its coin set (minutes on mainnet); no figure until it answers.
    case scanningCoins
    /// Addresses whose history an index server told, of those to ask about.
    case addresses(done: Int, of: Int)
}

/// One coin account of one wallet against its chain source: sync, balances, history, receive, send.
public struct OnChainWallet: Sendable {
    public let account: OnChainAccount
    public let node: NodeSettings
    let store: OnChainStore
    let source: any ChainSource

    /// Blocks read per exchange round.
    static let blocksPerRound = 100

    public init(account: OnChainAccount, node: NodeSettings, walletStore: WalletStore, source: any ChainSource) {
        self.account = account
        self.node = node
        self.store = OnChainStore(store: walletStore, walletID: account.walletID, coin: account.network.coin)
        self.source = source
    }

    /// The node saved for `coin` of `wallet`, if any.
    public static func savedNode(wallet: WalletSummary, coin: Coin, store: WalletStore) throws -> NodeSettings? {
        try OnChainStore(store: store, walletID: wallet.id, coin: coin).node()
    }

    /// Checks that `source` answers and is on a network of `wallet`'s, then saves it as the node
    /// of `coin`. Nothing is saved when it isn't.
    public static func connect(wallet: WalletSummary, coin: Coin, source: any ChainSource, node: (String) -> NodeSettings,
                               store: WalletStore) async throws -> NodeSettings {
        let tip = try await source.tip()
        guard let network = tip.network, network.coin == coin, network.walletNetwork == wallet.network else {
            throw OnChainError.nodeOnWrongNetwork(url: source.location, nodeSays: tip.networkWords,
                                                  account: wallet.network == .mainnet ? coin.displayName : "\(coin.displayName)'s test networks")
        }
        var settings = node(tip.chain)
        // An Electrum server's certificate, as seen now, is the one trusted from here on.
        if let electrum = source as? ElectrumClient, let certificate = electrum.seenCertificate {
            settings = NodeSettings(kind: .electrum, location: electrum.location, auth: .pinnedCertificate(certificate), chain: settings.chain, gapLimit: settings.gapLimit)
        }
        guard NodeSettings.gapLimits.contains(settings.gapLimit) else {
            throw OnChainError.unsupported("a gap limit is 1 to 10,000 addresses, not \(settings.gapLimit)")
        }
        try OnChainStore(store: store, walletID: wallet.id, coin: coin).save(settings)
        return settings
    }

    // MARK: Reading

    /// Balances, coins and history as last synced.
    public func ledger() throws -> Ledger {
        let (transactions, watched) = try watchedTransactions()
        // No block kept (a new gap limit reads the chain again): the highest block seen stands in,
        // so confirmed payments don't read as unconfirmed meanwhile.
        return Ledger(transactions: transactions, tipHeight: try store.blocks().last?.height ?? transactions.compactMap(\.height).max() ?? 0,
                      frozen: try store.frozen(), place: watched.place(of:))
    }

    /// The kept transactions and the scripts derived far enough to recognise all of them.
    func watchedTransactions() throws -> ([StoredTransaction], WatchedScripts) {
        let transactions = try store.transactions()
        var watched = try WatchedScripts(account: account, gapLimit: node.gapLimit)
        for place in try store.usedHints() { try watched.markUsed(place) }
        // An address given out by the wallet's receive counter (which needs no node) is watched,
        // paid or not, as is the gap past it.
        for branch in account.branches {
            if let shown = try store.receiveCounter(chain: branch.chain) { try watched.markUsed(KeyPlace(.receive, shown, kind: branch.kind)) }
        }
        var grew = true
        while grew {
            grew = false
            for stored in transactions {
                for output in stored.transaction.outputs {
                    if let place = watched.place(of: output.script), try watched.markUsed(place) { grew = true }
                }
            }
        }
        return (transactions, watched)
    }

    /// The account's scripts, derived past every key used.
    func watchedScripts() throws -> WatchedScripts { try watchedTransactions().1 }

    /// The next receive address of the `kind` account nobody has paid: the one after the last used.
    public func nextReceiveAddress(kind: ScriptKind = .nativeSegwit) throws -> (address: String, index: UInt32) {
        let index = try watchedScripts().lastUsed(.receive, kind: kind).map { $0 + 1 } ?? 0
        return (try account.address(at: KeyPlace(.receive, index, kind: kind)), index)
    }

    /// Labels by BIP-329 type and reference ("tx:TXID", "addr:ADDRESS", "output:TXID:VOUT").
    public func labels() throws -> [String: String] { try store.labels() }

    /// Freezes or thaws a coin: a frozen coin is never chosen to pay.
    public func setFrozen(_ outpoint: OutPoint, _ frozen: Bool) throws {
        guard try ledger().coins.contains(where: { $0.outpoint == outpoint }) else { throw OnChainError.unknown("coin \(outpoint)") }
        try store.setFrozen(outpoint, frozen)
    }

    // MARK: Sync

    /// Brings the wallet up to the node's tip: finds a reorg by the kept block hashes, reads the
    /// blocks since, then the mempool; commits all of it in one transaction.
    /// An Electrum server is asked each watched script's history instead (`firstScan` does not apply).
    public func sync(firstScan: FirstScan = .automatic, progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws -> SyncSummary {
        let tip = try await source.tip()
        guard tip.network == account.network else {
            throw OnChainError.nodeOnWrongNetwork(url: source.location, nodeSays: tip.networkWords, account: account.network.description)
        }
        if let index = source as? any HistorySource { return try await sync(index: index, tip: tip, progress: progress) }
        guard let node = source as? any BlockSource else { throw OnChainError.unsupported("\(source.location) can't be read: neither a node nor an index server") }
        return try await sync(node: node, tip: tip, firstScan: firstScan, progress: progress)
    }

    private func sync(node: any BlockSource, tip: ChainTip, firstScan: FirstScan, progress: (@Sendable (SyncProgress) -> Void)?) async throws -> SyncSummary {
        let kept = try store.blocks()
        var (transactions, watched) = try watchedTransactions()
        // Where the node's chain and the kept one agree.
        var start = 0
        if !kept.isEmpty {
            let candidates = kept.filter { $0.height <= tip.height }
            let nodeHashes = try await node.blockHashes(candidates.map(\.height))
            // No kept block on the node's chain (a reorg deeper than those kept): read it all again.
            let agreed = Array(zip(candidates, nodeHashes)).last { $0.0.hash == $0.1 }?.0.height
            start = agreed.map { $0 + 1 } ?? 0
        }
        var fromCoinSet = false
        var byID0: [Txid: StoredTransaction] = [:]
        var hints: [KeyPlace] = []
        var firstBlocks: [(height: Int, hash: String)] = []
        // No block kept: a first sync, or a new gap limit. A long chain starts from the coin set
        // (what was kept stays; the coin set adds what the new window finds).
        if kept.isEmpty, firstScan.usesCoinSet(tipHeight: tip.height) {
            progress?(.scanningCoins)
            (byID0, hints) = try await holdings(node: node, watched: &watched)
            // The recent blocks' hashes, as a sync that read them keeps: a reorg of the tip is
            // found, and never sends the next sync back to the genesis block.
            let recent = Array(max(0, tip.height - OnChainStore.keptBlocks + 1)...tip.height)
            firstBlocks = Array(zip(recent, try await node.blockHashes(recent)))
            start = tip.height + 1
            fromCoinSet = true
        }
        let reorged = kept.filter { $0.height >= start }.count
        for i in transactions.indices where (transactions[i].height ?? -1) >= start {
            transactions[i].height = nil
            transactions[i].blockHash = nil
        }
        var byID = Dictionary(transactions.map { ($0.txid, $0) }, uniquingKeysWith: { a, _ in a }).merging(byID0) { a, _ in a }
        let now = Date().timeIntervalSince1970
        var newBlocks: [(height: Int, hash: String)] = firstBlocks
        var read = 0
        let total = max(0, tip.height - start + 1)
        /// Reads `range` in rounds; the last height at which the window moved (new scripts derived).
        func scan(_ range: ClosedRange<Int>, keepBlocks: Bool) async throws -> Int? {
            var grewAt: Int? = nil
            for roundStart in stride(from: range.lowerBound, through: range.upperBound, by: Self.blocksPerRound) {
                let heights = Array(roundStart...min(range.upperBound, roundStart + Self.blocksPerRound - 1))
                let hashes = try await node.blockHashes(heights)
                let raws = try await node.blocks(hashes)
                for (height, (hash, raw)) in zip(heights, zip(hashes, raws)) {
                    for transaction in try Block.transactions(raw) where Self.touches(transaction, watched: watched, known: byID) {
                        let txid = transaction.txid
                        byID[txid] = StoredTransaction(transaction: transaction, height: height, blockHash: hash, seenAt: byID[txid]?.seenAt ?? now)
                        for output in transaction.outputs {
                            if let place = watched.place(of: output.script), try watched.markUsed(place) { grewAt = height }
                        }
                    }
                    if keepBlocks { newBlocks.append((height, hash)) }
                }
                read += heights.count
                if keepBlocks { progress?(.blocks(done: min(read, total), of: total)) }
            }
            return grewAt
        }
        // The window moves as keys are found used; while a pass moved it, every block is read
        // once more for the scripts derived since (a key past the old window may have been paid
        // earlier, or later than where the pass that found it stood). Payments in order need one
        // more pass; each further pass needs a payment out of order, so it ends.
        if start <= tip.height {
            var moved = try await scan(start...tip.height, keepBlocks: true) != nil
            while moved { moved = try await scan(start...tip.height, keepBlocks: false) != nil }
        }
        // The mempool: what is new to the wallet (again until nothing more is found: a child may
        // come before its parent), and which unconfirmed ones are gone.
        let pool = Set(try await node.mempool())
        var unseen: [Txid: Transaction] = [:]
        for chunk in Array(pool.filter { byID[$0] == nil }).chunked(100) {
            for raw in try await node.mempoolTransactions(chunk).compactMap({ $0 }) {
                if let transaction = try? Transaction(bytes: raw) { unseen[transaction.txid] = transaction }
            }
        }
        var found = true
        while found {
            found = false
            for (txid, transaction) in unseen where Self.touches(transaction, watched: watched, known: byID) {
                byID[txid] = StoredTransaction(transaction: transaction, height: nil, blockHash: nil, seenAt: now)
                for output in transaction.outputs { if let place = watched.place(of: output.script) { try watched.markUsed(place) } }
                unseen[txid] = nil
                found = true
            }
        }
        // An unconfirmed payment no longer in the mempool: the wallet's own is sent again (a node
        // restarted without its mempool, an eviction) and kept while the node takes it; refused
        // (replaced, or its coins spent elsewhere), it is gone — as is anyone else's.
        var gone: [Txid] = []
        for (txid, stored) in byID where stored.height == nil && !pool.contains(txid) {
            if Self.isOwn(stored.transaction, watched: watched, known: byID), (try? await source.broadcast(stored.transaction.serialized())) != nil {
                continue
            }
            gone.append(txid)
            byID[txid] = nil
        }
        let before = Set(transactions.map(\.txid))
        try store.commit(from: fromCoinSet ? tip.height : start, blocks: newBlocks, transactions: Array(byID.values), gone: gone, used: hints,
                         keptAtStart: before)
        var summary = SyncSummary(height: tip.height, blocksRead: read, newTransactions: byID.keys.filter { !before.contains($0) }.count, reorgedBlocks: reorged)
        summary.fromCoinSet = fromCoinSet
        return summary
    }

    /// The furthest key a scan of the coin set looks at (Bitcoin Core's own limit of a range).
    static let maximumScanRange = 999_999

    /// The transactions of the coins the account holds now, from the node's scan of its coin set
    /// over the first thousand keys of each keychain (again, wider, when a coin is near the end),
    /// and the highest key found used on each keychain.
    private func holdings(node: any BlockSource, watched: inout WatchedScripts) async throws -> ([Txid: StoredTransaction], [KeyPlace]) {
        var range = max(999, watched.gapLimit + 999)
        var coins: [ScannedCoin] = []
        while true {
            let descriptors = try account.kinds.flatMap { kind in try Keychain.allCases.map { try account.descriptor($0, fingerprint: "00000000", kind: kind) } }
            let scanned: Result<[ScannedCoin], OnChainError>
            do { scanned = .success(try await node.unspent(descriptors: descriptors, range: range)) } catch { scanned = .failure(error) }
            if case .failure(.nodeRefused(let why)) = scanned, why.contains("not a valid descriptor function"), account.kinds.contains(.taproot) {
                throw OnChainError.nodeRefused("it can't look for Taproot coins (tr() descriptors need Bitcoin Core 22 or later): \(why)")
            }
            coins = try scanned.get()
            var furthest: UInt32 = 0
            for coin in coins {
                // Only keys of the range asked for: a node can't make the wallet derive billions.
                guard let place = coin.originPath.flatMap(account.place(ofPath:)), place.index <= range else {
                    throw OnChainError.badAnswer("its scan of the coin set gave a coin without a key of the range asked for")
                }
                try watched.markUsed(place)
                furthest = max(furthest, place.index)
            }
            // A key near the end of the range: the window may reach past it.
            guard Int(furthest) + watched.gapLimit > range else { break }
            guard range < OnChainWallet.maximumScanRange else { break }
            range = min(OnChainWallet.maximumScanRange, Int(furthest) + watched.gapLimit + 1_000)
        }
        let heights = Array(Set(coins.map(\.height))).sorted()
        let hashes = Dictionary(uniqueKeysWithValues: zip(heights, try await node.blockHashes(heights)))
        let wanted = Array(Set(coins.map(\.outpoint.txid))).compactMap { txid in
            coins.first { $0.outpoint.txid == txid }.flatMap { coin in hashes[coin.height].map { (txid: txid, block: $0, height: coin.height) } }
        }
        let now = Date().timeIntervalSince1970
        let highest = Dictionary(coins.compactMap { $0.originPath.flatMap(account.place(ofPath:)) }.map { (WatchedScripts.Lane(kind: $0.kind, keychain: $0.keychain), $0.index) },
                                 uniquingKeysWith: max)
        let hints = highest.map { KeyPlace($0.key.keychain, $0.value, kind: $0.key.kind) }
        var found: [Txid: StoredTransaction] = [:]
        for chunk in wanted.chunked(100) {
            let raws = try await node.transactions(chunk.map { ($0.txid, $0.block) })
            for (want, raw) in zip(chunk, raws) {
                let transaction = try Transaction(bytes: raw)
                guard transaction.txid == want.txid else { throw OnChainError.badAnswer("getrawtransaction gave another transaction than asked") }
                found[want.txid] = StoredTransaction(transaction: transaction, height: want.height, blockHash: want.block, seenAt: now)
            }
        }
        return (found, hints)
    }

    /// Whether every input of a transaction spends one of the wallet's coins (a payment it made).
    static func isOwn(_ transaction: Transaction, watched: WatchedScripts, known: [Txid: StoredTransaction]) -> Bool {
        !transaction.inputs.isEmpty && transaction.inputs.allSatisfy { input in
            known[input.prevout.txid].map { stored in
                stored.transaction.outputs.indices.contains(Int(input.prevout.vout))
                    && watched.place(of: stored.transaction.outputs[Int(input.prevout.vout)].script) != nil
            } ?? false
        }
    }

    /// Whether a transaction pays one of the wallet's scripts or spends one of its coins.
    private static func touches(_ transaction: Transaction, watched: WatchedScripts, known: [Txid: StoredTransaction]) -> Bool {
        transaction.outputs.contains { watched.place(of: $0.script) != nil }
            || transaction.inputs.contains { input in
                known[input.prevout.txid].map { stored in
                    stored.transaction.outputs.indices.contains(Int(input.prevout.vout))
                        && watched.place(of: stored.transaction.outputs[Int(input.prevout.vout)].script) != nil
                } ?? false
            }
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min(count, $0 + size)]) }
    }
}

/// A raw block's transactions (the header and any extension data after them are skipped).
enum Block {
    static func transactions(_ raw: [UInt8]) throws(OnChainError) -> [Transaction] {
        var reader = ByteReader(raw)
        _ = try reader.bytes(80)
        let count = try reader.varint()
        guard count <= UInt64(reader.remaining / 60) else { throw .badAnswer("a block claims \(count) transactions") }
        var transactions: [Transaction] = []
        transactions.reserveCapacity(Int(count))
        for _ in 0..<count { transactions.append(try Transaction(reading: &reader)) }
        return transactions
    }
}
