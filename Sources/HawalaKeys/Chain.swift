/// The curve and derivation scheme a chain uses.
public enum Curve: String, Sendable, Codable {
    /// BIP32 on secp256k1.
    case secp256k1
    /// SLIP-10 on Ed25519 (hardened only).
    case ed25519
    /// BIP32-Ed25519 with the Icarus master key (Cardano).
    case ed25519Cardano = "ed25519-cardano"
}

/// Mainnet or a test network.
public enum Network: String, Sendable, Codable, CaseIterable {
    case mainnet, testnet
}

/// How an address is built from a public key, with the chain's parameters.
public enum AddressFormat: Sendable, Hashable {
    /// P2WPKH, SegWit v0 (BIP84): bech32 of HASH160(compressed key).
    case p2wpkh(hrp: String)
    /// P2TR key-path output (BIP86): bech32m of the tweaked x-only key.
    case p2tr(hrp: String)
    /// P2SH-wrapped P2WPKH (BIP49): base58check of HASH160(0x0014 ‖ HASH160(key)).
    case p2shP2wpkh(version: UInt8)
    /// P2PKH (BIP44): base58check of HASH160(compressed key).
    case p2pkh(version: UInt8)
    /// EIP-55 checksummed `0x` + last 20 bytes of Keccak-256(uncompressed key).
    case ethereum
    /// Base58 of the 32-byte Ed25519 public key.
    case solana
    /// Ripple-alphabet base58check of HASH160(compressed key), version 0.
    case xrp
    /// Bech32 of HASH160(compressed key) under the chain's prefix.
    case cosmos(hrp: String)
    /// Shelley base address: header ‖ BLAKE2b-224(payment key) ‖ BLAKE2b-224(stake key).
    case cardanoBase(networkID: UInt8)
}

/// Everything that differs between chains, in one row: the table below drives derivation,
/// address encoding, validation and account export.
public struct Chain: Sendable, Hashable, Identifiable {
    /// The name used on the command line and in JSON, e.g. `bitcoin-taproot`.
    public let name: String
    /// The name shown to people.
    public let displayName: String
    /// The SLIP-44 coin type.
    public let coinType: UInt32
    public let curve: Curve
    /// The path template: `P` purpose, `C` coin type, `a` account, `c` change, `i` index;
    /// a trailing `'` hardens a step.
    public let pathTemplate: String
    public let addressFormat: AddressFormat
    public let network: Network
    /// The SLIP-132 version for the account extended public key (Bitcoin family only).
    public let accountKeyVersion: ExtendedKeyVersion?
    /// The BIP380 output descriptor with `KEY` for the key expression, e.g. `sh(wpkh(KEY))`
    /// (Bitcoin family only).
    public let descriptorTemplate: String?

    public var id: String { name }

    /// Whether the account extended public key and descriptor export apply.
    public var isBitcoinFamily: Bool { accountKeyVersion != nil }
}

extension Chain {
    public static let bitcoin = Chain(
        name: "bitcoin", displayName: "Bitcoin", coinType: 0, curve: .secp256k1,
        pathTemplate: "m/84'/0'/a'/c/i", addressFormat: .p2wpkh(hrp: "bc"), network: .mainnet,
        accountKeyVersion: .zpub, descriptorTemplate: "wpkh(KEY)")
    public static let bitcoinTaproot = Chain(
        name: "bitcoin-taproot", displayName: "Bitcoin (Taproot)", coinType: 0, curve: .secp256k1,
        pathTemplate: "m/86'/0'/a'/c/i", addressFormat: .p2tr(hrp: "bc"), network: .mainnet,
        accountKeyVersion: .xpub, descriptorTemplate: "tr(KEY)")
    public static let bitcoinNestedSegwit = Chain(
        name: "bitcoin-nested-segwit", displayName: "Bitcoin (nested SegWit)", coinType: 0, curve: .secp256k1,
        pathTemplate: "m/49'/0'/a'/c/i", addressFormat: .p2shP2wpkh(version: 0x05), network: .mainnet,
        accountKeyVersion: .ypub, descriptorTemplate: "sh(wpkh(KEY))")
    public static let bitcoinLegacy = Chain(
        name: "bitcoin-legacy", displayName: "Bitcoin (legacy)", coinType: 0, curve: .secp256k1,
        pathTemplate: "m/44'/0'/a'/c/i", addressFormat: .p2pkh(version: 0x00), network: .mainnet,
        accountKeyVersion: .xpub, descriptorTemplate: "pkh(KEY)")
    public static let bitcoinTestnet = Chain(
        name: "bitcoin-testnet", displayName: "Bitcoin testnet", coinType: 1, curve: .secp256k1,
        pathTemplate: "m/84'/1'/a'/c/i", addressFormat: .p2wpkh(hrp: "tb"), network: .testnet,
        accountKeyVersion: .vpub, descriptorTemplate: "wpkh(KEY)")
    public static let litecoin = Chain(
        name: "litecoin", displayName: "Litecoin", coinType: 2, curve: .secp256k1,
        pathTemplate: "m/84'/2'/a'/c/i", addressFormat: .p2wpkh(hrp: "ltc"), network: .mainnet,
        accountKeyVersion: .zpub, descriptorTemplate: "wpkh(KEY)")
    public static let ethereum = Chain(
        name: "ethereum", displayName: "Ethereum", coinType: 60, curve: .secp256k1,
        pathTemplate: "m/44'/60'/a'/c/i", addressFormat: .ethereum, network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    public static let bsc = Chain(
        name: "bsc", displayName: "BNB Smart Chain", coinType: 60, curve: .secp256k1,
        pathTemplate: "m/44'/60'/a'/c/i", addressFormat: .ethereum, network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    public static let polygon = Chain(
        name: "polygon", displayName: "Polygon", coinType: 60, curve: .secp256k1,
        pathTemplate: "m/44'/60'/a'/c/i", addressFormat: .ethereum, network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    /// The index is the account (`m/44'/501'/i'/0'`), as Phantom and most Solana wallets do.
    public static let solana = Chain(
        name: "solana", displayName: "Solana", coinType: 501, curve: .ed25519,
        pathTemplate: "m/44'/501'/i'/0'", addressFormat: .solana, network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    public static let xrp = Chain(
        name: "xrp", displayName: "XRP Ledger", coinType: 144, curve: .secp256k1,
        pathTemplate: "m/44'/144'/a'/c/i", addressFormat: .xrp, network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    public static let cosmos = Chain(
        name: "cosmos", displayName: "Cosmos Hub", coinType: 118, curve: .secp256k1,
        pathTemplate: "m/44'/118'/a'/c/i", addressFormat: .cosmos(hrp: "cosmos"), network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)
    /// Payment keys on `m/1852'/1815'/a'/c/i`, the stake key on `m/1852'/1815'/a'/2/0`.
    public static let cardano = Chain(
        name: "cardano", displayName: "Cardano", coinType: 1815, curve: .ed25519Cardano,
        pathTemplate: "m/1852'/1815'/a'/c/i", addressFormat: .cardanoBase(networkID: 1), network: .mainnet,
        accountKeyVersion: nil, descriptorTemplate: nil)

    /// Every supported chain, in the order they are listed to people.
    public static let all: [Chain] = [
        .bitcoin, .bitcoinTaproot, .bitcoinNestedSegwit, .bitcoinLegacy, .bitcoinTestnet, .litecoin,
        .ethereum, .bsc, .polygon, .solana, .xrp, .cosmos, .cardano,
    ]

    /// The chain called `name`, if any.
    public static func named(_ name: String) -> Chain? { all.first { $0.name == name.lowercased() } }

    /// The path of the key at (`account`, `change`, `index`).
    /// - Throws: `DerivationPathError.indexOutOfRange` when a number is ≥ 2³¹.
    public func path(account: UInt32, change: UInt32, index: UInt32) throws -> DerivationPath {
        var text = pathTemplate
        text = text.replacingOccurrences(of: "a", with: String(account))
        text = text.replacingOccurrences(of: "c", with: String(change))
        text = text.replacingOccurrences(of: "i", with: String(index))
        return try DerivationPath(text)
    }

    /// The account-level path (the part of the template before the change step), for chains
    /// derived in BIP44 layers.
    /// Chains without an account step (Solana's `m/44'/501'/i'/0'`) answer the part before the
    /// index step.
    public func accountPath(account: UInt32) throws -> DerivationPath {
        guard pathTemplate.contains("/a'") else {
            return try DerivationPath(pathTemplate.components(separatedBy: "/").prefix { !$0.contains("i") }.joined(separator: "/"))
        }
        return try DerivationPath(pathTemplate.components(separatedBy: "/a'")[0] + "/\(account)'")
    }
}

extension Network {
    /// The chains whose first address a person is shown to confirm a wallet is the one they
    /// meant (restore, import preview, shares): Bitcoin of this network, Ethereum, Solana.
    public var confirmationChains: [Chain] {
        [self == .testnet ? .bitcoinTestnet : .bitcoin, .ethereum, .solana]
    }
}
