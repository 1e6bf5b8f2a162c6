import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// A wallet's receive or change keys (BIP44's `change` step: 0 or 1).
public enum Keychain: UInt32, Sendable, Codable, CaseIterable {
    case receive = 0
    case change = 1
}

/// Where a key of the account sits: its keychain and index.
public struct KeyPlace: Sendable, Hashable, Codable {
    public let keychain: Keychain
    public let index: UInt32

    public init(_ keychain: Keychain, _ index: UInt32) {
        self.keychain = keychain
        self.index = index
    }
}

/// A wallet's Bitcoin-family account on one coin's network, as BIP84 descriptors
/// `wpkh([fingerprint/84'/coin'/0']xpub/0/*)` and `…/1/*`: what it derives needs no secret.
public struct OnChainAccount: Sendable {
    public let walletID: String
    public let walletName: String
    public let network: OnChainNetwork
    /// `m/84'/coin'/0'`.
    public let path: DerivationPath
    public let accountKey: ExtendedPublicKey
    private let keychainKeys: [ExtendedPublicKey]

    public init(walletID: String, walletName: String, network: OnChainNetwork, path: DerivationPath, accountKey: ExtendedPublicKey) throws {
        self.walletID = walletID
        self.walletName = walletName
        self.network = network
        self.path = path
        self.accountKey = accountKey
        keychainKeys = try Keychain.allCases.map { try accountKey.derive(ChildNumber($0.rawValue, hardened: false)) }
    }

    /// The wallet's account `coin` lives on. Every test network shares coin type 1: a testnet
    /// wallet's Bitcoin and Litecoin accounts are one key.
    public static func chain(of coin: Coin, in network: Network) -> Chain {
        switch (coin, network) {
        case (.bitcoin, .mainnet): .bitcoin
        case (.litecoin, .mainnet): .litecoin
        case (_, .testnet): .bitcoinTestnet
        }
    }

    /// The coins `wallet` has an account for.
    public static func coins(of wallet: WalletSummary) -> [Coin] {
        Coin.allCases.filter { coin in wallet.accounts.contains { $0.chain == chain(of: coin, in: wallet.network).name } }
    }

    /// The account of `wallet` on `coin`, on the chain network `kind` (which must suit the
    /// wallet's network: a testnet wallet's coins live on test networks only).
    public static func of(_ wallet: WalletSummary, coin: Coin, kind: OnChainNetwork.Kind, store: WalletStore) throws -> OnChainAccount {
        let network = OnChainNetwork(coin: coin, kind: kind)
        guard network.walletNetwork == wallet.network else {
            throw OnChainError.unsupported("wallet \"\(wallet.name)\" is a \(wallet.network.rawValue) wallet: its \(coin.displayName) lives on \(wallet.network == .mainnet ? coin.displayName : "\(coin.displayName)'s test networks"), not on \(network)")
        }
        let chain = Self.chain(of: coin, in: wallet.network)
        let export = try store.accountExport(wallet: wallet, chain: chain)
        guard case .public(let key, _) = try ExtendedKey(export.xpub) else { throw OnChainError.unsupported("the stored account key is not public") }
        return try OnChainAccount(walletID: wallet.id, walletName: wallet.name, network: network, path: try DerivationPath(export.path), accountKey: key)
    }

    /// "Litecoin regtest account of wallet “main”".
    public var description: String { "\(network)" }

    /// The public key at `place`.
    public func publicKey(at place: KeyPlace) throws -> Secp256k1.PublicKey {
        try keychainKeys[Int(place.keychain.rawValue)].childKey(place.index)
    }

    /// The output script at `place` (P2WPKH).
    public func script(at place: KeyPlace) throws -> OutputScript {
        .p2wpkh(hash: Hash.hash160(try publicKey(at: place).compressed))
    }

    /// The address at `place`.
    public func address(at place: KeyPlace) throws -> String { try script(at: place).address(on: network) }

    /// The full derivation path of the key at `place`.
    public func path(of place: KeyPlace) throws -> DerivationPath {
        path.appending(try ChildNumber(place.keychain.rawValue, hardened: false)).appending(try ChildNumber(place.index, hardened: false))
    }

    /// The BIP380 descriptor of a keychain, with its checksum.
    public func descriptor(_ keychain: Keychain, fingerprint: String) -> String {
        let origin = "[\(fingerprint)/\(path.format(hardenedMarker: "'").dropFirst(2))]"
        let key = accountKey.serialized(version: network.kind == .main ? .xpub : .tpub)
        return Descriptor.withChecksum("wpkh(\(origin)\(key)/\(keychain.rawValue)/*)")
    }
}

/// The scripts an account watches: each keychain derived up to its last used key plus the gap limit.
public struct WatchedScripts: Sendable {
    public let account: OnChainAccount
    public let gapLimit: Int
    private(set) var places: [[UInt8]: KeyPlace] = [:]
    private(set) var derived: [Keychain: UInt32] = [:]
    private(set) var used: [Keychain: UInt32] = [:]

    public init(account: OnChainAccount, gapLimit: Int) throws {
        guard NodeSettings.gapLimits.contains(gapLimit) else {
            throw OnChainError.unsupported("a gap limit is 1 to 10,000 addresses, not \(gapLimit)")
        }
        self.account = account
        self.gapLimit = gapLimit
        for keychain in Keychain.allCases { try extend(keychain) }
    }

    /// The place of a script this account derived, if any.
    public func place(of script: [UInt8]) -> KeyPlace? { places[script] }

    /// The highest index used on `keychain`, if any.
    public func lastUsed(_ keychain: Keychain) -> UInt32? { used[keychain] }

    /// Notes that the key at `place` was paid to; returns whether new scripts were derived (the
    /// gap moved), which a scan must look for in what it has read.
    @discardableResult
    public mutating func markUsed(_ place: KeyPlace) throws -> Bool {
        guard used[place.keychain].map({ place.index > $0 }) ?? true else { return false }
        used[place.keychain] = place.index
        return try extend(place.keychain)
    }

    @discardableResult
    private mutating func extend(_ keychain: Keychain) throws -> Bool {
        let wanted = (used[keychain].map { $0 + 1 } ?? 0) + UInt32(gapLimit)
        let have = derived[keychain] ?? 0
        guard wanted > have else { return false }
        for index in have..<wanted {
            places[try account.script(at: KeyPlace(keychain, index)).bytes] = KeyPlace(keychain, index)
        }
        derived[keychain] = wanted
        return true
    }
}
