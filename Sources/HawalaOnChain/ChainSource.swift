import HawalaKeys
import HawalaText

/// What the wallet reads from a chain and sends to it: a Bitcoin Core node's RPC
/// (`BlockSource`) or an Electrum server (`HistorySource`). Every call is bounded in time and
/// size by the implementation.
public protocol ChainSource: Sendable {
    /// Where it is, as people wrote it (for error words).
    var location: String { get }
    /// The network and tip.
    func tip() async throws(OnChainError) -> ChainTip
    /// The fee and virtual size of an unconfirmed transaction with its own unconfirmed ancestors
    /// (what a child must lift; an index server, which tells no ancestors, gives the
    /// transaction's own), nil when it isn't in the mempool.
    func mempoolEntry(_ txid: Txid) async throws(OnChainError) -> (fee: Sats, vsize: Int)?
    /// Sends a signed transaction to the network.
    func broadcast(_ transaction: [UInt8]) async throws(OnChainError) -> Txid
    /// The fee estimate for confirmation within `blocks`, nil when there is none.
    func estimateFee(blocks: Int) async throws(OnChainError) -> FeeRate?
    /// The lowest fee rate relayed.
    func relayFee() async throws(OnChainError) -> FeeRate
}

/// A full node: the wallet reads its blocks and mempool and keeps its own index.
public protocol BlockSource: ChainSource {
    /// The hashes of the blocks at `heights` on the node's best chain.
    func blockHashes(_ heights: [Int]) async throws(OnChainError) -> [String]
    /// The raw blocks with these hashes, in order.
    func blocks(_ hashes: [String]) async throws(OnChainError) -> [[UInt8]]
    /// The ids of the transactions in the node's mempool.
    func mempool() async throws(OnChainError) -> [Txid]
    /// The raw transactions with these ids from the mempool (nil: no longer there).
    func mempoolTransactions(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]?]
    /// The coins unspent now at the scripts of `descriptors`, each derived over `0...range`
    /// (nil: descriptors of one script): the node's scan of its whole coin set (minutes on
    /// mainnet), for a first sync or a sweep.
    func unspent(descriptors: [String], range: Int?) async throws(OnChainError) -> [ScannedCoin]
    /// The raw transactions `ids`, each in the block named beside it (no transaction index needed).
    func transactions(_ ids: [(txid: Txid, block: String)]) async throws(OnChainError) -> [[UInt8]]
}

/// One transaction of a script's history as an index server tells it.
public struct HistoryEntry: Sendable, Hashable {
    public let txid: Txid
    /// The block height that holds it; nil while unconfirmed.
    public let height: Int?

    public init(txid: Txid, height: Int?) {
        self.txid = txid
        self.height = height
    }
}

/// A server that indexes the chain by script (the Electrum protocol): the wallet asks each
/// watched script's history instead of reading blocks.
public protocol HistorySource: ChainSource {
    /// Each script's history (confirmed and in the mempool), in the order of `scripts`.
    func histories(_ scripts: [[UInt8]]) async throws(OnChainError) -> [[HistoryEntry]]
    /// The raw transactions `ids`, in order.
    func transactions(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]]
}

/// A coin the node's scan of its coin set found: where it is, the block height that holds it,
/// and the derived descriptor it matched (`wpkh([fp/84'/1'/0'/1/7]03…)#…`: keychain 1, index 7).
public struct ScannedCoin: Sendable, Equatable {
    /// The coin.
    public let outpoint: OutPoint
    /// The block height that holds it.
    public let height: Int
    /// The derived descriptor it matched, as the node writes it.
    public let descriptor: String
    /// Its value and script, as the node says.
    public let value: UInt64
    public let script: [UInt8]

    public init(outpoint: OutPoint, height: Int, descriptor: String, value: UInt64 = 0, script: [UInt8] = []) {
        self.outpoint = outpoint
        self.height = height
        self.descriptor = descriptor
        self.value = value
        self.script = script
    }

    /// The key's whole path as the descriptor's origin writes it (`[fingerprint/84'/1'/0'/0/5]`).
    public var originPath: [UInt32]? {
        guard let open = descriptor.firstIndex(of: "["), let close = descriptor[open...].firstIndex(of: "]") else { return nil }
        let steps = descriptor[descriptor.index(after: open)..<close].split(separator: "/").dropFirst()
        var path: [UInt32] = []
        for step in steps {
            let hardened = step.hasSuffix("'") || step.hasSuffix("h") || step.hasSuffix("H")
            guard let number = UInt32(hardened ? step.dropLast() : step), number < ChildNumber.hardenedOffset else { return nil }
            path.append(hardened ? number + ChildNumber.hardenedOffset : number)
        }
        return path
    }
}

/// A node's network and best block.
public struct ChainTip: Sendable, Equatable {
    /// The coin the node keeps.
    public let coin: Coin
    /// The chain as the node names it ("main", "test", "regtest", "signet").
    public let chain: String
    public let height: Int
    public let hash: String

    public init(coin: Coin, chain: String, height: Int, hash: String) {
        self.coin = coin
        self.chain = chain
        self.height = height
        self.hash = hash
    }

    /// The node's network as Hawala knows it.
    public var network: OnChainNetwork? {
        OnChainNetwork.Kind(rawValue: chain).map { OnChainNetwork(coin: coin, kind: $0) }
    }

    /// The node's network in words: "Litecoin regtest", or what the node called it.
    public var networkWords: String { network?.description ?? "\(coin.displayName)'s \(chain) chain" }
}
