import HawalaText

/// What the wallet reads from a chain and sends to it: a Bitcoin Core node's RPC, or (later) an
/// Electrum server. Every call is bounded in time and size by the implementation.
public protocol ChainSource: Sendable {
    /// Where it is, as people wrote it (for error words).
    var location: String { get }
    /// The node's network and tip.
    func tip() async throws(OnChainError) -> ChainTip
    /// The hashes of the blocks at `heights` on the node's best chain.
    func blockHashes(_ heights: [Int]) async throws(OnChainError) -> [String]
    /// The raw blocks with these hashes, in order.
    func blocks(_ hashes: [String]) async throws(OnChainError) -> [[UInt8]]
    /// The ids of the transactions in the node's mempool.
    func mempool() async throws(OnChainError) -> [Txid]
    /// The raw transactions with these ids from the mempool (nil: no longer there).
    func mempoolTransactions(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]?]
    /// The fee and virtual size of an unconfirmed transaction in the node's mempool with its own
    /// unconfirmed ancestors (what a child must lift), nil when it isn't there.
    func mempoolEntry(_ txid: Txid) async throws(OnChainError) -> (fee: Sats, vsize: Int)?
    /// Sends a signed transaction to the network.
    func broadcast(_ transaction: [UInt8]) async throws(OnChainError) -> Txid
    /// The node's fee estimate for confirmation within `blocks`, nil when it has none.
    func estimateFee(blocks: Int) async throws(OnChainError) -> FeeRate?
    /// The lowest fee rate the node relays.
    func relayFee() async throws(OnChainError) -> FeeRate
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
