import Foundation
import HawalaText
import Synchronization
import HawalaCrypto

/// One derived address, as `hawala derive --json` prints it.
public struct DerivedAddress: Sendable, Codable, Equatable {
    public let chain: String
    public let path: String
    public let address: String
    /// Hex of the public key: compressed SEC1 for secp256k1, 32 bytes for Ed25519.
    public let publicKey: String

    public init(chain: String, path: String, address: String, publicKey: String) {
        self.chain = chain
        self.path = path
        self.address = address
        self.publicKey = publicKey
    }
}

/// Errors from address derivation.
public enum DerivationError: Error, Equatable, CustomStringConvertible {
    /// Cardano keys come from the BIP39 entropy (CIP-3), which a seed-only wallet lacks.
    case needsMnemonic(chain: String)
    /// account/change/index outside 0…2³¹−1, or change not 0/1.
    case outOfRange(String)
    /// The account export applies to Bitcoin-family chains only.
    case notBitcoinFamily(String)

    public var description: String {
        switch self {
        case .needsMnemonic(let c): "\(c) keys are derived from the BIP39 words (CIP-3), which this wallet does not have"
        case .outOfRange(let why): why
        case .notBitcoinFamily(let c): "\(c) has no extended public key export; only Bitcoin-family chains do"
        }
    }
}

/// The keys of one wallet: a BIP39 mnemonic and passphrase (or a bare BIP32 seed, as SLIP-39
/// recovers), from which every chain's addresses are derived.
public final class HDWallet: Sendable {
    private let seed: SecretBytes
    /// Cardano's Icarus master key needs the entropy, not the seed.
    private let cardanoRoot: SecretBytes?
    private let cardanoChain: SecretBytes?

    /// A wallet from BIP39 words and an optional passphrase.
    public init(mnemonic: Mnemonic, passphrase: SecretBytes = SecretBytes([])) {
        seed = mnemonic.seed(passphrase: passphrase)
        let root = CardanoExtendedKey(icarusEntropy: mnemonic.entropy(), passphrase: HDWallet.nfkd(passphrase))
        cardanoRoot = root.extendedKey
        cardanoChain = root.chainCode
    }

    /// A wallet from a BIP32 seed alone (16–64 bytes). Cardano is unavailable.
    public init(seed: SecretBytes) {
        self.seed = seed
        cardanoRoot = nil
        cardanoChain = nil
    }

    private static func nfkd(_ secret: SecretBytes) -> SecretBytes {
        var bytes = Mnemonic.normalize(secret)
        defer { SecretBytes.wipe(&bytes) }
        return SecretBytes(bytes)
    }

    /// The secp256k1 private key at a BIP32 `path` from the seed (e.g. a Lightning node key).
    public func privateKey(at path: DerivationPath) throws -> SecretBytes {
        try masterKey().derive(path: path).privateKey
    }

    /// A stable identifier of this wallet's keys — HMAC-SHA256 keyed with the seed over `context`,
    /// 16 bytes — that reveals nothing about the seed. The same words and passphrase always give
    /// the same identifier.
    public func identifier(context: String) -> [UInt8] {
        Array(Hash.hmacSHA256(key: seed, Array(context.utf8)).prefix(16))
    }

    /// The BIP32 master key.
    public func masterKey() throws -> ExtendedPrivateKey { try ExtendedPrivateKey(seed: seed) }

    /// The fingerprint of the BIP32 master key (descriptors' key origin).
    public func masterFingerprint() throws -> UInt32 { try masterKey().fingerprint }

    /// Addresses `from ..< from + count` on (`account`, `change`) of `chain`, in index order.
    /// Large ranges are spread over every core.
    /// - Throws: `DerivationError`, `ExtendedKeyError`.
    public func addresses(chain: Chain, account: UInt32 = 0, change: UInt32 = 0, from: UInt32 = 0, count: Int = 1) throws -> [DerivedAddress] {
        guard count >= 0 else { throw DerivationError.outOfRange("count must not be negative") }
        guard account < ChildNumber.hardenedOffset else { throw DerivationError.outOfRange("account must be below 2147483648") }
        guard change <= 1 else { throw DerivationError.outOfRange("change must be 0 or 1") }
        guard UInt64(from) + UInt64(count) <= UInt64(ChildNumber.hardenedOffset) else {
            throw DerivationError.outOfRange("indexes must stay below 2147483648")
        }
        if count == 0 { return [] }
        let deriveOne: @Sendable (UInt32) throws -> DerivedAddress
        switch chain.curve {
        case .secp256k1:
            let accountKey = try masterKey().derive(path: try chain.accountPath(account: account))
            return try HDWallet.addresses(chain: chain, accountKey: accountKey.publicKey, account: account, change: change, from: from, count: count)
        case .ed25519:
            let base = try SLIP10Ed25519Key(seed: seed).derive(path: DerivationPath("m/44'/\(chain.coinType)'"))
            deriveOne = { index in
                let path = try chain.path(account: account, change: change, index: index)
                let key = try base.derive(ChildNumber(index, hardened: true)).derive(ChildNumber(0, hardened: true))
                let pub = key.publicKey
                return DerivedAddress(chain: chain.name, path: path.description, address: Address.solana(publicKey: pub), publicKey: hexString(pub))
            }
        case .ed25519Cardano:
            guard let cardanoRoot, let cardanoChain else { throw DerivationError.needsMnemonic(chain: chain.name) }
            let root = CardanoExtendedKey(restoring: cardanoRoot, chainCode: cardanoChain)
            let accountKey = root.derive(path: try chain.accountPath(account: account))
            let branch = accountKey.derive(try ChildNumber(change, hardened: false))
            let stake = accountKey.derive(try ChildNumber(2, hardened: false)).derive(try ChildNumber(0, hardened: false)).publicKey
            guard case .cardanoBase(let networkID) = chain.addressFormat else { preconditionFailure("Cardano chain without a Cardano format") }
            let prefix = try chain.path(account: account, change: change, index: 0).description.dropLast()
            deriveOne = { index in
                let pub = branch.derive(try ChildNumber(index, hardened: false)).publicKey
                return DerivedAddress(
                    chain: chain.name, path: prefix + String(index),
                    address: Address.cardanoBase(paymentKey: pub, stakeKey: stake, networkID: networkID),
                    publicKey: hexString(pub))
            }
        }
        return try Parallel.map(count: count) { try deriveOne(from + UInt32($0)) }
    }

    /// Addresses of a secp256k1 `chain` from the account extended public key alone (no secret):
    /// `from ..< from + count` on branch `change`, in index order, over every core.
    public static func addresses(chain: Chain, accountKey: ExtendedPublicKey, account: UInt32, change: UInt32, from: UInt32, count: Int) throws -> [DerivedAddress] {
        guard chain.curve == .secp256k1 else { throw DerivationError.outOfRange("\(chain.name) has no public derivation") }
        guard count >= 0, UInt64(from) + UInt64(count) <= UInt64(ChildNumber.hardenedOffset) else {
            throw DerivationError.outOfRange("indexes must stay below 2147483648")
        }
        let branch = try accountKey.derive(try ChildNumber(change, hardened: false))
        // The path text is built by appending the index: parsing a path per address is slow.
        let prefix = try chain.path(account: account, change: change, index: 0).description.dropLast()
        return try Parallel.map(count: count) { offset in
            let index = from + UInt32(offset)
            let key = try branch.childKey(index)
            let compressed = key.compressed
            return DerivedAddress(
                chain: chain.name, path: prefix + String(index),
                address: try Address.encode(secp256k1: key, compressed: compressed, format: chain.addressFormat),
                publicKey: hexString(compressed))
        }
    }

    /// The account extended public key (SLIP-132 version for the chain) and its BIP380 output
    /// descriptors with key origin and checksum, as Electrum, Sparrow and Bitcoin Core import.
    public func accountExport(chain: Chain, account: UInt32 = 0) throws -> AccountExport {
        guard account < ChildNumber.hardenedOffset else { throw DerivationError.outOfRange("account must be below 2147483648") }
        let master = try masterKey()
        let path = try chain.accountPath(account: account)
        return try AccountExport(chain: chain, path: path, accountKey: master.derive(path: path).publicKey,
                                 fingerprint: String(format: "%08x", master.fingerprint))
    }
}

/// A Bitcoin-family account for a watch-only wallet: its extended public key and output
/// descriptors (BIP380, with key origin and checksum), as `hawala xpub --json` and
/// `hawala wallet export-watch-only --json` print it. Holds nothing secret.
public struct AccountExport: Sendable, Codable, Equatable {
    public let chain: String
    public let path: String
    /// The account key in the chain's SLIP-132 form (zpub for BIP84, ypub for BIP49…).
    public let xpub: String
    /// The receive branch: `wpkh([fp/84h/0h/0h]xpub…/0/*)#checksum`.
    public let descriptor: String
    /// The master key fingerprint, 8 hex digits.
    public let fingerprint: String
    /// `[fingerprint/84h/0h/0h]`.
    public let keyOrigin: String
    /// The account key as plain xpub (tpub on testnet), as descriptors carry it.
    public let accountKey: String
    /// The change branch: `…/1/*)#checksum`.
    public let changeDescriptor: String
    /// Both branches in one (BIP389): `…/<0;1>/*)#checksum`.
    public let multipathDescriptor: String

    /// The export of the account at `path` whose public key is `accountKey`, under the master
    /// key with `fingerprint` (8 hex digits).
    public init(chain: Chain, path: DerivationPath, accountKey: ExtendedPublicKey, fingerprint: String) throws {
        guard let version = chain.accountKeyVersion, let template = chain.descriptorTemplate else {
            throw DerivationError.notBitcoinFamily(chain.name)
        }
        let plain = accountKey.serialized(version: version.isTestnet ? .tpub : .xpub)
        let origin = "[\(fingerprint)/\(path.format(hardenedMarker: "h").dropFirst(2))]"
        func descriptor(_ branch: String) -> String {
            Descriptor.withChecksum(template.replacingOccurrences(of: "KEY", with: origin + plain + "/" + branch + "/*"))
        }
        self.chain = chain.name
        self.path = path.description
        xpub = accountKey.serialized(version: version)
        self.descriptor = descriptor("0")
        self.fingerprint = fingerprint
        keyOrigin = origin
        self.accountKey = plain
        changeDescriptor = descriptor("1")
        multipathDescriptor = descriptor("<0;1>")
    }
}

/// Runs independent work over all cores, keeping results in order.
enum Parallel {
    /// Below this many items, threads cost more than they save.
    static let threshold = 64

    static func map<T: Sendable>(count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if count < threshold || cores < 2 { return try (0..<count).map(body) }
        let chunks = min(cores * 4, count)
        let results = ResultBox<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = count * chunk / chunks
            let end = count * (chunk + 1) / chunks
            do {
                var local = [T]()
                local.reserveCapacity(end - start)
                for i in start..<end { local.append(try body(i)) }
                results.store(local, at: start)
            } catch {
                results.fail(error)
            }
        }
        return try results.collect()
    }

    /// Collects chunk results from threads.
    private final class ResultBox<T: Sendable>: Sendable {
        private let state = Mutex<(parts: [(Int, [T])], error: (any Error)?)>(([], nil))
        let count: Int
        init(count: Int) { self.count = count }
        func store(_ part: [T], at start: Int) { state.withLock { $0.parts.append((start, part)) } }
        func fail(_ e: any Error) { state.withLock { if $0.error == nil { $0.error = e } } }
        func collect() throws -> [T] {
            let (parts, error) = state.withLock { ($0.parts, $0.error) }
            if let error { throw error }
            var out = [T]()
            out.reserveCapacity(count)
            for (_, part) in parts.sorted(by: { $0.0 < $1.0 }) { out += part }
            return out
        }
    }
}

extension HDWallet {
    /// The first receive address on each of `network.confirmationChains`, for a person to
    /// recognise the wallet; a chain that cannot be derived is left out.
    public func confirmationAddresses(network: Network) -> [(chain: Chain, address: String)] {
        network.confirmationChains.compactMap { chain in
            (try? addresses(chain: chain, count: 1).first).map { (chain, $0.address) }
        }
    }
}
