import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// A wallet's receive or change keys (BIP44's `change` step: 0 or 1).
public enum Keychain: UInt32, Sendable, Codable, CaseIterable {
    case receive = 0
    case change = 1
}

/// The script type of one of a wallet's Bitcoin-family accounts, as its purpose in the path says.
public enum ScriptKind: String, Sendable, Codable, CaseIterable {
    /// BIP84 `wpkh`: receive and change; the only kind on Litecoin and the test networks.
    case nativeSegwit = "wpkh"
    /// BIP86 `tr`, key path only.
    case taproot = "tr"
    /// BIP49 `sh(wpkh)`.
    case nestedSegwit = "sh-wpkh"
    /// BIP44 `pkh`.
    case legacy = "pkh"

    /// The kind of addresses `format` makes, if a Bitcoin-family one.
    public init?(_ format: AddressFormat) {
        switch format {
        case .p2wpkh: self = .nativeSegwit
        case .p2tr: self = .taproot
        case .p2shP2wpkh: self = .nestedSegwit
        case .p2pkh: self = .legacy
        default: return nil
        }
    }

    /// The path's purpose step (BIP43).
    public var purpose: UInt32 {
        switch self {
        case .nativeSegwit: 84
        case .taproot: 86
        case .nestedSegwit: 49
        case .legacy: 44
        }
    }

    /// "Taproot", for people.
    public var displayName: String {
        switch self {
        case .nativeSegwit: "native SegWit"
        case .taproot: "Taproot"
        case .nestedSegwit: "nested SegWit"
        case .legacy: "legacy"
        }
    }

    /// The kind called `name`: its descriptor name (`tr`) or its name for people (`taproot`,
    /// `nested-segwit`, `native-segwit`, `legacy`), any case.
    public static func named(_ name: String) -> ScriptKind? {
        let name = name.lowercased()
        return allCases.first { $0.rawValue == name || $0.displayName.lowercased().replacingOccurrences(of: " ", with: "-") == name }
    }

    /// The output a key of this kind locks.
    public func script(of key: Secp256k1.PublicKey) throws -> OutputScript {
        switch self {
        case .nativeSegwit: .p2wpkh(hash: Hash.hash160(key.compressed))
        case .taproot: .p2tr(key: try key.taprootOutputKey())
        case .nestedSegwit: .p2sh(hash: Hash.hash160(Self.nestedProgram(of: key)))
        case .legacy: .p2pkh(hash: Hash.hash160(key.compressed))
        }
    }

    /// The P2WPKH program a nested SegWit output's script hash commits to (its redeem script).
    static func nestedProgram(of key: Secp256k1.PublicKey) -> [UInt8] {
        OutputScript.p2wpkh(hash: Hash.hash160(key.compressed)).bytes
    }

    /// The BIP380 descriptor around `key` (a key expression with origin).
    func descriptor(_ key: String) -> String {
        switch self {
        case .nativeSegwit: "wpkh(\(key))"
        case .taproot: "tr(\(key))"
        case .nestedSegwit: "sh(wpkh(\(key)))"
        case .legacy: "pkh(\(key))"
        }
    }
}

/// Where a key of the wallet sits: its account's kind, its keychain and index.
public struct KeyPlace: Sendable, Hashable, Codable {
    public let keychain: Keychain
    public let index: UInt32
    public let kind: ScriptKind

    public init(_ keychain: Keychain, _ index: UInt32, kind: ScriptKind = .nativeSegwit) {
        self.keychain = keychain
        self.index = index
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey { case keychain, index, kind }

    /// Places kept before other kinds were watched have no kind: native SegWit.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keychain = try container.decode(Keychain.self, forKey: .keychain)
        index = try container.decode(UInt32.self, forKey: .index)
        kind = try container.decodeIfPresent(ScriptKind.self, forKey: .kind) ?? .nativeSegwit
    }
}

/// A wallet's Bitcoin-family accounts on one coin's network — native SegWit always (it takes
/// the change), Taproot, nested SegWit and legacy where the wallet has them — as BIP380
/// descriptors `wpkh([fingerprint/84'/coin'/0']xpub/0/*)` and `…/1/*`: what they derive needs
/// no secret.
public struct OnChainAccount: Sendable {
    /// One account: its path, key and chain (whose receive counter gives its addresses).
    public struct Branch: Sendable {
        public let kind: ScriptKind
        public let chain: Chain
        /// `m/84'/coin'/0'` and the like.
        public let path: DerivationPath
        public let accountKey: ExtendedPublicKey
        fileprivate let keychainKeys: [ExtendedPublicKey]

        public init(kind: ScriptKind, chain: Chain, path: DerivationPath, accountKey: ExtendedPublicKey) throws {
            self.kind = kind
            self.chain = chain
            self.path = path
            self.accountKey = accountKey
            keychainKeys = try Keychain.allCases.map { try accountKey.derive(ChildNumber($0.rawValue, hardened: false)) }
        }
    }

    public let walletID: String
    public let walletName: String
    public let network: OnChainNetwork
    /// The accounts watched, native SegWit first.
    public let branches: [Branch]

    /// The native SegWit account's path (`m/84'/coin'/0'`).
    public var path: DerivationPath { branches[0].path }
    /// The native SegWit account's key.
    public var accountKey: ExtendedPublicKey { branches[0].accountKey }
    /// The kinds watched, native SegWit first.
    public var kinds: [ScriptKind] { branches.map(\.kind) }

    /// `branches` must start with the native SegWit account.
    public init(walletID: String, walletName: String, network: OnChainNetwork, branches: [Branch]) throws {
        guard branches.first?.kind == .nativeSegwit, Set(branches.map(\.kind)).count == branches.count else {
            throw OnChainError.unsupported("an on-chain wallet needs its native SegWit account first, and each kind once")
        }
        self.walletID = walletID
        self.walletName = walletName
        self.network = network
        self.branches = branches
    }

    /// A native SegWit account alone.
    public init(walletID: String, walletName: String, network: OnChainNetwork, path: DerivationPath, accountKey: ExtendedPublicKey) throws {
        let walletNetwork: Network = network.kind == .main ? .mainnet : .testnet
        try self.init(walletID: walletID, walletName: walletName, network: network,
                      branches: [Branch(kind: .nativeSegwit, chain: Self.chain(of: network.coin, in: walletNetwork), path: path, accountKey: accountKey)])
    }

    /// The wallet's native SegWit account `coin` lives on. Every test network shares coin
    /// type 1: a testnet wallet's Bitcoin and Litecoin accounts are one key.
    public static func chain(of coin: Coin, in network: Network) -> Chain {
        switch (coin, network) {
        case (.bitcoin, .mainnet): .bitcoin
        case (.litecoin, .mainnet): .litecoin
        case (_, .testnet): .bitcoinTestnet
        }
    }

    /// Every account chain of `coin` on `network`, native SegWit first.
    public static func chains(of coin: Coin, in network: Network) -> [Chain] {
        switch (coin, network) {
        case (.bitcoin, .mainnet): [.bitcoin, .bitcoinTaproot, .bitcoinNestedSegwit, .bitcoinLegacy]
        default: [chain(of: coin, in: network)]
        }
    }

    /// The coin whose accounts include `chain`, for a wallet on `network`.
    public static func coin(of chain: Chain, in network: Network) -> Coin? {
        Coin.allCases.first { chains(of: $0, in: network).contains { $0.name == chain.name } }
    }

    /// The coins `wallet` has an account for.
    public static func coins(of wallet: WalletSummary) -> [Coin] {
        Coin.allCases.filter { coin in wallet.accounts.contains { $0.chain == chain(of: coin, in: wallet.network).name } }
    }

    /// The accounts of `wallet` on `coin`, on the chain network `kind` (which must suit the
    /// wallet's network: a testnet wallet's coins live on test networks only).
    public static func of(_ wallet: WalletSummary, coin: Coin, kind: OnChainNetwork.Kind, store: WalletStore) throws -> OnChainAccount {
        let network = OnChainNetwork(coin: coin, kind: kind)
        guard network.walletNetwork == wallet.network else {
            throw OnChainError.unsupported("wallet \"\(wallet.name)\" is a \(wallet.network.rawValue) wallet: its \(coin.displayName) lives on \(wallet.network == .mainnet ? coin.displayName : "\(coin.displayName)'s test networks"), not on \(network)")
        }
        let held = chains(of: coin, in: wallet.network).filter { chain in chain.name == Self.chain(of: coin, in: wallet.network).name || wallet.accounts.contains { $0.chain == chain.name } }
        let branches = try held.map { chain -> Branch in
            let export = try store.accountExport(wallet: wallet, chain: chain)
            guard case .public(let key, _) = try ExtendedKey(export.xpub), let kind = ScriptKind(chain.addressFormat) else {
                throw OnChainError.unsupported("the stored account key is not public")
            }
            return try Branch(kind: kind, chain: chain, path: try DerivationPath(export.path), accountKey: key)
        }
        return try OnChainAccount(walletID: wallet.id, walletName: wallet.name, network: network, branches: branches)
    }

    /// "Litecoin regtest account of wallet “main”".
    public var description: String { "\(network)" }

    /// The account of `kind`.
    func branch(_ kind: ScriptKind) throws -> Branch {
        guard let branch = branches.first(where: { $0.kind == kind }) else {
            throw OnChainError.unsupported("this wallet has no \(kind.displayName) account on \(network.coin.displayName)")
        }
        return branch
    }

    /// The public key at `place`.
    public func publicKey(at place: KeyPlace) throws -> Secp256k1.PublicKey {
        try branch(place.kind).keychainKeys[Int(place.keychain.rawValue)].childKey(place.index)
    }

    /// The output script at `place`.
    public func script(at place: KeyPlace) throws -> OutputScript {
        try place.kind.script(of: try publicKey(at: place))
    }

    /// The address at `place`.
    public func address(at place: KeyPlace) throws -> String { try script(at: place).address(on: network) }

    /// The full derivation path of the key at `place`.
    public func path(of place: KeyPlace) throws -> DerivationPath {
        try branch(place.kind).path.appending(try ChildNumber(place.keychain.rawValue, hardened: false)).appending(try ChildNumber(place.index, hardened: false))
    }

    /// The BIP380 descriptor of a keychain of the `kind` account, with its checksum.
    public func descriptor(_ keychain: Keychain, fingerprint: String, kind: ScriptKind = .nativeSegwit) throws -> String {
        let branch = try branch(kind)
        let origin = "[\(fingerprint)/\(branch.path.format(hardenedMarker: "'").dropFirst(2))]"
        let key = branch.accountKey.serialized(version: network.kind == .main ? .xpub : .tpub)
        return Descriptor.withChecksum(kind.descriptor("\(origin)\(key)/\(keychain.rawValue)/*"))
    }

    /// The place a key origin path names in one of these accounts (its account path, a keychain,
    /// an unhardened index), if any.
    func place(ofPath path: [UInt32]) -> KeyPlace? {
        for branch in branches {
            let accountPath = branch.path.components.map(\.rawValue)
            guard path.count == accountPath.count + 2, Array(path.prefix(accountPath.count)) == accountPath,
                  let keychain = Keychain(rawValue: path[accountPath.count]), path[accountPath.count + 1] < ChildNumber.hardenedOffset else { continue }
            return KeyPlace(keychain, path[accountPath.count + 1], kind: branch.kind)
        }
        return nil
    }
}

/// The scripts an account watches: each keychain of each kind derived up to its last used key
/// plus the gap limit.
public struct WatchedScripts: Sendable {
    /// One keychain of one kind.
    struct Lane: Hashable, Sendable {
        let kind: ScriptKind
        let keychain: Keychain
    }

    public let account: OnChainAccount
    public let gapLimit: Int
    private(set) var places: [[UInt8]: KeyPlace] = [:]
    private(set) var derived: [Lane: UInt32] = [:]
    private(set) var used: [Lane: UInt32] = [:]

    public init(account: OnChainAccount, gapLimit: Int) throws {
        guard NodeSettings.gapLimits.contains(gapLimit) else {
            throw OnChainError.unsupported("a gap limit is 1 to 10,000 addresses, not \(gapLimit)")
        }
        self.account = account
        self.gapLimit = gapLimit
        for kind in account.kinds {
            for keychain in Keychain.allCases { try extend(Lane(kind: kind, keychain: keychain)) }
        }
    }

    /// The place of a script this account derived, if any.
    public func place(of script: [UInt8]) -> KeyPlace? { places[script] }

    /// The highest index used on `keychain` of `kind`, if any.
    public func lastUsed(_ keychain: Keychain, kind: ScriptKind = .nativeSegwit) -> UInt32? { used[Lane(kind: kind, keychain: keychain)] }

    /// Notes that the key at `place` was paid to; returns whether new scripts were derived (the
    /// gap moved), which a scan must look for in what it has read.
    @discardableResult
    public mutating func markUsed(_ place: KeyPlace) throws -> Bool {
        let lane = Lane(kind: place.kind, keychain: place.keychain)
        guard account.kinds.contains(place.kind), used[lane].map({ place.index > $0 }) ?? true else { return false }
        used[lane] = place.index
        return try extend(lane)
    }

    @discardableResult
    private mutating func extend(_ lane: Lane) throws -> Bool {
        let wanted = (used[lane].map { $0 + 1 } ?? 0) + UInt32(gapLimit)
        let have = derived[lane] ?? 0
        guard wanted > have else { return false }
        for index in have..<wanted {
            let place = KeyPlace(lane.keychain, index, kind: lane.kind)
            places[try account.script(at: place).bytes] = place
        }
        derived[lane] = wanted
        return true
    }
}
