import HawalaCrypto

/// Why an extended key or a derivation step was refused.
public enum ExtendedKeyError: Error, Equatable, CustomStringConvertible {
    case invalidEncoding(String)
    case invalidLength(Int)
    case unknownVersion(UInt32)
    case zeroDepthWithParentFingerprint
    case zeroDepthWithChildNumber
    case invalidPrivateKeyPrefix(UInt8)
    case invalidPublicKeyPrefix(UInt8)
    case invalidPrivateKey
    case invalidPublicKey
    case invalidSeedLength(Int)
    case hardenedFromPublic
    case tooDeep
    case unusableSeed
    case wrongKind(expectedPrivate: Bool)

    public var description: String {
        switch self {
        case .invalidEncoding(let why): "not an extended key: \(why)"
        case .invalidLength(let n): "extended key has \(n) bytes, expected 78"
        case .unknownVersion(let v): "unknown extended key version 0x\(String(v, radix: 16))"
        case .zeroDepthWithParentFingerprint: "depth 0 with a non-zero parent fingerprint"
        case .zeroDepthWithChildNumber: "depth 0 with a non-zero child number"
        case .invalidPrivateKeyPrefix(let b): "private key data must start with 0x00, found 0x\(String(b, radix: 16))"
        case .invalidPublicKeyPrefix(let b): "public key data must start with 0x02 or 0x03, found 0x\(String(b, radix: 16))"
        case .invalidPrivateKey: "private key is not in 1…n−1"
        case .invalidPublicKey: "public key is not a point on secp256k1"
        case .invalidSeedLength(let n): "seed must be 16 to 64 bytes, got \(n)"
        case .hardenedFromPublic: "hardened derivation needs the private key"
        case .tooDeep: "depth would exceed 255"
        case .unusableSeed: "this seed gives an invalid master key (probability below 2^-127)"
        case .wrongKind(let expectedPrivate): expectedPrivate ? "expected an extended private key" : "expected an extended public key"
        }
    }
}

/// Version bytes of extended keys: BIP32's xpub/tpub and SLIP-132's ypub/zpub/upub/vpub.
public struct ExtendedKeyVersion: Sendable, Hashable {
    /// The four-letter prefix: `xpub`, `zpub`, `tpub`…
    public let name: String
    public let publicVersion: UInt32
    public let privateVersion: UInt32
    /// Whether this is a test-network version.
    public let isTestnet: Bool

    public static let xpub = ExtendedKeyVersion(name: "xpub", publicVersion: 0x0488_B21E, privateVersion: 0x0488_ADE4, isTestnet: false)
    public static let ypub = ExtendedKeyVersion(name: "ypub", publicVersion: 0x049D_7CB2, privateVersion: 0x049D_7878, isTestnet: false)
    public static let zpub = ExtendedKeyVersion(name: "zpub", publicVersion: 0x04B2_4746, privateVersion: 0x04B2_430C, isTestnet: false)
    public static let tpub = ExtendedKeyVersion(name: "tpub", publicVersion: 0x0435_87CF, privateVersion: 0x0435_8394, isTestnet: true)
    public static let upub = ExtendedKeyVersion(name: "upub", publicVersion: 0x044A_5262, privateVersion: 0x044A_4E28, isTestnet: true)
    public static let vpub = ExtendedKeyVersion(name: "vpub", publicVersion: 0x045F_1CF6, privateVersion: 0x045F_18BC, isTestnet: true)

    /// Every version Hawala reads.
    public static let all: [ExtendedKeyVersion] = [.xpub, .ypub, .zpub, .tpub, .upub, .vpub]
}

/// A BIP32 extended private key on secp256k1.
public struct ExtendedPrivateKey: Sendable, CustomStringConvertible {
    /// The 32-byte private key, secret.
    public let privateKey: SecretBytes
    /// The chain code (secret too: with a child private key it reveals the parent).
    public let chainCode: SecretBytes
    public let depth: UInt8
    public let parentFingerprint: UInt32
    public let childNumber: ChildNumber

    /// The BIP32 master key of a seed: `HMAC-SHA512("Bitcoin seed", seed)`.
    /// - Throws: `ExtendedKeyError.invalidSeedLength` or `.unusableSeed`.
    public init(seed: SecretBytes) throws {
        guard (16...64).contains(seed.count) else { throw ExtendedKeyError.invalidSeedLength(seed.count) }
        let i = seed.withUnsafeBytes { Hash.hmacSHA512Secret(key: Array("Bitcoin seed".utf8), $0) }
        let key = i.slice(0..<32)
        guard key.withUnsafeBytes({ Secp256k1.isValidPrivateKey($0) }) else { throw ExtendedKeyError.unusableSeed }
        self.init(privateKey: key, chainCode: i.slice(32..<64), depth: 0, parentFingerprint: 0, childNumber: ChildNumber(rawValue: 0))
    }

    init(privateKey: SecretBytes, chainCode: SecretBytes, depth: UInt8, parentFingerprint: UInt32, childNumber: ChildNumber) {
        self.privateKey = privateKey
        self.chainCode = chainCode
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
    }

    /// The matching extended public key.
    public var publicKey: ExtendedPublicKey {
        // A valid private key always has a public key.
        let point = try! Secp256k1.PublicKey(privateKey: privateKey)
        return ExtendedPublicKey(key: point, chainCode: chainCode.unsafeCopy(), depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber)
    }

    /// The first four bytes of HASH160 of the public key, as a big-endian integer.
    public var fingerprint: UInt32 { publicKey.fingerprint }

    /// The child at `child` (CKDpriv).
    /// - Throws: `ExtendedKeyError.tooDeep`, or `Secp256k1.Error.invalidTweak` in the
    ///   2^-127 case where BIP32 says to use the next index.
    public func derive(_ child: ChildNumber) throws -> ExtendedPrivateKey {
        guard depth < 255 else { throw ExtendedKeyError.tooDeep }
        let parentPublic = try Secp256k1.PublicKey(privateKey: privateKey).compressed
        var data: [UInt8]
        if child.isHardened {
            data = [0] + privateKey.unsafeCopy()
        } else {
            data = parentPublic
        }
        let raw = child.rawValue
        data += [UInt8(raw >> 24), UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF)]
        defer { SecretBytes.wipe(&data) }
        let i = chainCode.withUnsafeBytes { Hash.hmacSHA512Secret(key: $0, data) }
        var tweak = i.slice(0..<32).unsafeCopy()
        defer { SecretBytes.wipe(&tweak) }
        let childKey = try Secp256k1.privateKey(privateKey, adding: tweak)
        let fp = Hash.hash160(parentPublic)
        return ExtendedPrivateKey(
            privateKey: childKey, chainCode: i.slice(32..<64), depth: depth + 1,
            parentFingerprint: UInt32(fp[0]) << 24 | UInt32(fp[1]) << 16 | UInt32(fp[2]) << 8 | UInt32(fp[3]),
            childNumber: child)
    }

    /// The descendant along `path` (relative to this key).
    public func derive(path: DerivationPath) throws -> ExtendedPrivateKey {
        try path.components.reduce(self) { try $0.derive($1) }
    }

    /// Base58Check serialization with the private version of `version` (xprv, zprv, tprv…).
    public func serialized(version: ExtendedKeyVersion = .xpub) -> String {
        var data = ExtendedKeyCoding.header(version.privateVersion, depth, parentFingerprint, childNumber.rawValue)
        data += chainCode.unsafeCopy()
        data += [0] + privateKey.unsafeCopy()
        defer { SecretBytes.wipe(&data) }
        return Base58.encodeCheck(data)
    }

    public var description: String { "<redacted>" }
}

/// A BIP32 extended public key on secp256k1.
public struct ExtendedPublicKey: Sendable, Equatable {
    public let key: Secp256k1.PublicKey
    public let chainCode: [UInt8]
    public let depth: UInt8
    public let parentFingerprint: UInt32
    public let childNumber: ChildNumber

    init(key: Secp256k1.PublicKey, chainCode: [UInt8], depth: UInt8, parentFingerprint: UInt32, childNumber: ChildNumber) {
        self.key = key
        self.compressedKey = key.compressed
        self.chainCode = chainCode
        self.chainMAC = Hash.KeyedHMACSHA512(key: chainCode)
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
    }

    /// The compressed public key, 33 bytes (kept: every child derivation hashes it).
    public let compressedKey: [UInt8]

    /// HMAC-SHA512 keyed with the chain code, prepared once for every child.
    private let chainMAC: Hash.KeyedHMACSHA512

    /// HASH160 of the compressed public key.
    public var identifier: [UInt8] { Hash.hash160(compressedKey) }

    /// The first four bytes of the identifier, big-endian.
    public var fingerprint: UInt32 {
        let id = identifier
        return UInt32(id[0]) << 24 | UInt32(id[1]) << 16 | UInt32(id[2]) << 8 | UInt32(id[3])
    }

    /// The non-hardened child at `index` (CKDpub).
    /// - Throws: `ExtendedKeyError.hardenedFromPublic`, `.tooDeep`, or `Secp256k1.Error.invalidTweak`.
    public func derive(_ child: ChildNumber) throws -> ExtendedPublicKey {
        guard !child.isHardened else { throw ExtendedKeyError.hardenedFromPublic }
        guard depth < 255 else { throw ExtendedKeyError.tooDeep }
        let parent = compressedKey
        let (tweak, childChain) = ckd(index: child.rawValue)
        let fp = Hash.hash160(parent)
        return ExtendedPublicKey(
            key: try key.adding(tweak: tweak), chainCode: childChain, depth: depth + 1,
            parentFingerprint: UInt32(fp[0]) << 24 | UInt32(fp[1]) << 16 | UInt32(fp[2]) << 8 | UInt32(fp[3]),
            childNumber: child)
    }

    /// Only the child's public key: the hot path of address generation (no fingerprint, no
    /// chain code kept).
    public func childKey(_ index: UInt32) throws -> Secp256k1.PublicKey {
        guard index < ChildNumber.hardenedOffset else { throw ExtendedKeyError.hardenedFromPublic }
        let (tweak, _) = ckd(index: index)
        return try key.adding(tweak: tweak)
    }

    /// CKDpub's HMAC: `HMAC-SHA512(chainCode, serP(parent) ‖ ser32(index))`, split in halves.
    private func ckd(index: UInt32) -> (tweak: [UInt8], chainCode: [UInt8]) {
        // 33 + 4 bytes on the stack: no allocation per child.
        var data: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        let i = withUnsafeMutableBytes(of: &data) { buffer in
            compressedKey.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 33) }
            buffer[33] = UInt8(index >> 24); buffer[34] = UInt8(index >> 16 & 0xFF)
            buffer[35] = UInt8(index >> 8 & 0xFF); buffer[36] = UInt8(index & 0xFF)
            return chainMAC.authenticationCode(UnsafeRawBufferPointer(rebasing: buffer[0..<37]))
        }
        return (Array(i[0..<32]), Array(i[32..<64]))
    }

    /// Base58Check serialization with the public version of `version` (xpub, zpub, tpub…).
    public func serialized(version: ExtendedKeyVersion = .xpub) -> String {
        var data = ExtendedKeyCoding.header(version.publicVersion, depth, parentFingerprint, childNumber.rawValue)
        data += chainCode
        data += compressedKey
        return Base58.encodeCheck(data)
    }

    public static func == (lhs: ExtendedPublicKey, rhs: ExtendedPublicKey) -> Bool {
        lhs.key == rhs.key && lhs.chainCode == rhs.chainCode && lhs.depth == rhs.depth
            && lhs.parentFingerprint == rhs.parentFingerprint && lhs.childNumber == rhs.childNumber
    }
}

/// A parsed extended key string: public or private, with its version.
public enum ExtendedKey: Sendable {
    case `public`(ExtendedPublicKey, ExtendedKeyVersion)
    case `private`(ExtendedPrivateKey, ExtendedKeyVersion)

    /// Parses an xpub/ypub/zpub/tpub/upub/vpub or the matching private form, with every check
    /// of BIP32 (including test vector 5's invalid keys).
    /// - Throws: `ExtendedKeyError`.
    public init(_ string: String) throws {
        let data: [UInt8]
        do { data = try Base58.decodeCheck(string) } catch let e as Base58.Error {
            throw ExtendedKeyError.invalidEncoding(e.description)
        }
        guard data.count == 78 else { throw ExtendedKeyError.invalidLength(data.count) }
        let version = UInt32(data[0]) << 24 | UInt32(data[1]) << 16 | UInt32(data[2]) << 8 | UInt32(data[3])
        let depth = data[4]
        let parent = UInt32(data[5]) << 24 | UInt32(data[6]) << 16 | UInt32(data[7]) << 8 | UInt32(data[8])
        let child = UInt32(data[9]) << 24 | UInt32(data[10]) << 16 | UInt32(data[11]) << 8 | UInt32(data[12])
        let chain = Array(data[13..<45])
        let keyData = Array(data[45..<78])
        if depth == 0 && parent != 0 { throw ExtendedKeyError.zeroDepthWithParentFingerprint }
        if depth == 0 && child != 0 { throw ExtendedKeyError.zeroDepthWithChildNumber }
        if let v = ExtendedKeyVersion.all.first(where: { $0.publicVersion == version }) {
            guard keyData[0] == 2 || keyData[0] == 3 else { throw ExtendedKeyError.invalidPublicKeyPrefix(keyData[0]) }
            guard let point = try? Secp256k1.PublicKey(sec1: keyData) else { throw ExtendedKeyError.invalidPublicKey }
            self = .public(ExtendedPublicKey(key: point, chainCode: chain, depth: depth, parentFingerprint: parent, childNumber: ChildNumber(rawValue: child)), v)
        } else if let v = ExtendedKeyVersion.all.first(where: { $0.privateVersion == version }) {
            guard keyData[0] == 0 else { throw ExtendedKeyError.invalidPrivateKeyPrefix(keyData[0]) }
            let secret = SecretBytes(keyData[1...])
            guard secret.withUnsafeBytes({ Secp256k1.isValidPrivateKey($0) }) else { throw ExtendedKeyError.invalidPrivateKey }
            self = .private(ExtendedPrivateKey(privateKey: secret, chainCode: SecretBytes(chain), depth: depth, parentFingerprint: parent, childNumber: ChildNumber(rawValue: child)), v)
        } else {
            throw ExtendedKeyError.unknownVersion(version)
        }
    }
}

enum ExtendedKeyCoding {
    static func header(_ version: UInt32, _ depth: UInt8, _ parent: UInt32, _ child: UInt32) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(78)
        for v in [version] { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        out.append(depth)
        for v in [parent, child] { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return out
    }
}
