import HawalaKeys

/// The two chains of the Bitcoin family Hawala keeps coins on: one engine, their parameters differ.
public enum Coin: String, Sendable, Codable, CaseIterable {
    case bitcoin, litecoin

    /// The name shown to people.
    public var displayName: String { self == .bitcoin ? "Bitcoin" : "Litecoin" }
    /// The name of the chain's smallest unit, in which every amount is counted.
    public var baseUnit: String { self == .bitcoin ? "sat" : "litoshi" }
    /// Roughly how long a block takes, in seconds (the speeds are named in time, not blocks).
    public var blockInterval: Int { self == .bitcoin ? 600 : 150 }
}

/// One network of one coin: its address prefixes and what its node calls it.
public struct OnChainNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network as Bitcoin Core's `getblockchaininfo` names it.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case main, test, regtest, signet
    }

    public let coin: Coin
    public let kind: Kind

    public init(coin: Coin, kind: Kind) {
        self.coin = coin
        self.kind = kind
    }

    /// Every network Hawala knows, for telling a person where a foreign address belongs.
    public static let all: [OnChainNetwork] = Coin.allCases.flatMap { coin in
        Kind.allCases.filter { coin == .bitcoin || $0 != .signet }.map { OnChainNetwork(coin: coin, kind: $0) }
    }

    /// The bech32 prefix of segwit addresses.
    public var hrp: String {
        switch (coin, kind) {
        case (.bitcoin, .main): "bc"
        case (.bitcoin, .test), (.bitcoin, .signet): "tb"
        case (.bitcoin, .regtest): "bcrt"
        case (.litecoin, .main): "ltc"
        case (.litecoin, .test), (.litecoin, .signet): "tltc"
        case (.litecoin, .regtest): "rltc"
        }
    }

    /// The base58 version byte of P2PKH addresses.
    public var p2pkhVersion: UInt8 {
        switch (coin, kind) {
        case (.bitcoin, .main): 0x00
        case (.litecoin, .main): 0x30
        default: 0x6F
        }
    }

    /// The version byte of a private key in WIF (what a paper wallet or a key export writes).
    public var wifVersion: UInt8 {
        switch (coin, kind) {
        case (.bitcoin, .main): 0x80
        case (.litecoin, .main): 0xB0
        default: 0xEF
        }
    }

    /// The base58 version bytes of P2SH addresses. Litecoin's old `3…`/`2…` P2SH addresses
    /// share Bitcoin's versions: they are refused as Bitcoin's (who pastes one most likely means
    /// Bitcoin, and a payment there would be lost), never read as Litecoin's.
    public var p2shVersions: [UInt8] {
        switch (coin, kind) {
        case (.bitcoin, .main): [0x05]
        case (.bitcoin, _): [0xC4]
        case (.litecoin, .main): [0x32]
        case (.litecoin, _): [0x3A]
        }
    }

    /// The SLIP-44 coin type of the accounts on this network: every test network uses 1.
    public var coinType: UInt32 {
        switch (coin, kind) {
        case (.bitcoin, .main): 0
        case (.litecoin, .main): 2
        default: 1
        }
    }

    /// The wallet network whose accounts live on this chain network.
    public var walletNetwork: Network { kind == .main ? .mainnet : .testnet }

    /// The fee rate, in base units per virtual byte, below which an output is dust to the
    /// network's nodes (Bitcoin Core's `-dustrelayfee` default: 3 sat/vB; Litecoin Core's: 30).
    public var dustRelayFeeRate: UInt64 { coin == .bitcoin ? 3 : 30 }

    /// "Litecoin regtest", "Bitcoin testnet", "Bitcoin".
    public var description: String {
        switch kind {
        case .main: coin.displayName
        case .test: "\(coin.displayName) testnet"
        case .regtest: "\(coin.displayName) regtest"
        case .signet: "\(coin.displayName) signet"
        }
    }

    /// Whether people see test coins here (named as such everywhere).
    public var isTest: Bool { kind != .main }
}
