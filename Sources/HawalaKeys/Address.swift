import HawalaCrypto
import HawalaText

/// Why an address was refused by `Address.validate`.
public enum AddressError: Error, Equatable, CustomStringConvertible {
    case empty
    case invalidEncoding(String)
    case wrongPrefix(String)
    case wrongVersion(UInt8)
    case wrongLength(Int)
    case badChecksum
    case wrongNetwork
    case unsupportedType(String)

    public var description: String {
        switch self {
        case .empty: "empty address"
        case .invalidEncoding(let why): why
        case .wrongPrefix(let why): why
        case .wrongVersion(let v): "unknown version byte 0x\(String(v, radix: 16))"
        case .wrongLength(let n): "wrong length (\(n) bytes of payload)"
        case .badChecksum: "checksum mismatch"
        case .wrongNetwork: "address is for another network"
        case .unsupportedType(let why): why
        }
    }
}

/// Address encoding and validation for every chain in `Chain.all`.
public enum Address {
    /// The address of a secp256k1 public key under `format` (all formats except Solana and Cardano).
    public static func encode(secp256k1 key: Secp256k1.PublicKey, format: AddressFormat) throws -> String {
        try encode(secp256k1: key, compressed: key.compressed, format: format)
    }

    /// As `encode(secp256k1:format:)`, with the key's compressed encoding already at hand
    /// (serializing costs a field inversion).
    static func encode(secp256k1 key: Secp256k1.PublicKey, compressed: [UInt8], format: AddressFormat) throws -> String {
        switch format {
        case .p2wpkh(let hrp):
            return Bech32.segwitAddress(hrp: hrp, version: 0, program: Hash.hash160(compressed))
        case .p2tr(let hrp):
            return Bech32.segwitAddress(hrp: hrp, version: 1, program: try key.taprootOutputKey())
        case .p2shP2wpkh(let version):
            let redeemScript: [UInt8] = [0x00, 0x14] + Hash.hash160(compressed)
            return Base58.encodeCheck([version] + Hash.hash160(redeemScript))
        case .p2pkh(let version):
            return Base58.encodeCheck([version] + Hash.hash160(compressed))
        case .ethereum:
            return ethereumAddress(Array(Keccak256.hash(Array(key.uncompressed.dropFirst())).suffix(20)))
        case .xrp:
            return Base58.encodeCheck([0x00] + Hash.hash160(compressed), alphabet: .ripple)
        case .cosmos(let hrp):
            return Bech32.encode(hrp: hrp, bytes: Hash.hash160(compressed))
        case .solana, .cardanoBase:
            preconditionFailure("\(format) is not a secp256k1 address format")
        }
    }

    /// The P2PKH address of a key's 65-byte uncompressed encoding: what keys from before
    /// compressed keys (WIF starting with 5 on mainnet) were paid to.
    public static func legacyUncompressed(secp256k1 key: Secp256k1.PublicKey, version: UInt8) -> String {
        Base58.encodeCheck([version] + Hash.hash160(key.uncompressed))
    }

    /// A Solana address: base58 of the Ed25519 public key.
    public static func solana(publicKey: [UInt8]) -> String { Base58.encode(publicKey) }

    /// A Cardano Shelley base address (header type 0: key hash payment, key hash stake).
    public static func cardanoBase(paymentKey: [UInt8], stakeKey: [UInt8], networkID: UInt8) -> String {
        let payload = [0x00 | networkID] + Sodium.blake2b(paymentKey, outputLength: 28) + Sodium.blake2b(stakeKey, outputLength: 28)
        return Bech32.encode(hrp: networkID == 1 ? "addr" : "addr_test", bytes: payload)
    }

    /// EIP-55: hex digits upper-cased where the matching nibble of Keccak-256(lower-case hex) ≥ 8.
    public static func ethereumAddress(_ bytes: [UInt8]) -> String {
        let hex = Array(hexString(bytes).utf8)
        let hash = Keccak256.hash(hex)
        var out = [UInt8]()
        for (i, c) in hex.enumerated() {
            let nibble = (hash[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 0x0F
            out.append(c >= 97 && nibble >= 8 ? c - 32 : c)
        }
        return "0x" + String(decoding: out, as: UTF8.self)
    }

    /// Checks that `address` is a valid receiving address on `chain`: encoding, checksum,
    /// prefix or version, network and length.
    /// - Throws: `AddressError` or the decoder's error, saying what is wrong.
    public static func validate(_ address: String, chain: Chain) throws {
        guard !address.isEmpty else { throw AddressError.empty }
        guard address.utf8.count <= 200, address.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw AddressError.invalidEncoding("contains characters no address has")
        }
        switch chain.addressFormat {
        case .p2wpkh(let hrp), .p2tr(let hrp):
            try validateBitcoinFamily(address, hrp: hrp, chain: chain)
        case .p2shP2wpkh, .p2pkh:
            try validateBitcoinFamily(address, hrp: "bc", chain: chain)
        case .ethereum:
            try validateEthereum(address)
        case .solana:
            let bytes: [UInt8]
            do { bytes = try Base58.decode(address) } catch { throw AddressError.invalidEncoding("\(error)") }
            guard bytes.count == 32 else { throw AddressError.wrongLength(bytes.count) }
        case .xrp:
            guard address.hasPrefix("r") else { throw AddressError.wrongPrefix("XRP addresses start with \"r\"") }
            let payload = try base58Check(address, alphabet: .ripple)
            guard payload.count == 21 else { throw AddressError.wrongLength(payload.count) }
            guard payload[0] == 0 else { throw AddressError.wrongVersion(payload[0]) }
        case .cosmos(let hrp):
            let bytes: [UInt8]
            do { bytes = try Bech32.decodeBytes(address, hrp: hrp) } catch { throw AddressError.invalidEncoding("\(error)") }
            guard bytes.count == 20 || bytes.count == 32 else { throw AddressError.wrongLength(bytes.count) }
        case .cardanoBase(let networkID):
            try validateCardano(address, networkID: networkID)
        }
    }

    private static func base58Check(_ address: String, alphabet: Base58.Alphabet) throws -> [UInt8] {
        do { return try Base58.decodeCheck(address, alphabet: alphabet) } catch Base58.Error.badChecksum {
            throw AddressError.badChecksum
        } catch { throw AddressError.invalidEncoding("\(error)") }
    }

    /// Bitcoin, Bitcoin testnet and Litecoin: any standard output type of that network.
    private static func validateBitcoinFamily(_ address: String, hrp: String, chain: Chain) throws {
        let versions: (p2pkh: UInt8, p2sh: [UInt8])
        switch hrp {
        case "bc": versions = (0x00, [0x05])
        case "tb": versions = (0x6F, [0xC4])
        case "ltc": versions = (0x30, [0x32, 0x05])
        default: versions = (0xFF, [])
        }
        if address.lowercased().hasPrefix(hrp + "1") {
            do { _ = try Bech32.decodeSegwitAddress(address, hrp: hrp) } catch { throw AddressError.invalidEncoding("\(error)") }
            return
        }
        if let sep = address.lowercased().lastIndex(of: "1"), address.count > 8,
           ["bc", "tb", "ltc", "tltc", "bcrt"].contains(String(address.lowercased()[..<sep])) {
            throw AddressError.wrongNetwork
        }
        let payload = try base58Check(address, alphabet: .bitcoin)
        guard payload.count == 21 else { throw AddressError.wrongLength(payload.count) }
        guard payload[0] == versions.p2pkh || versions.p2sh.contains(payload[0]) else {
            let known: [UInt8] = [0x00, 0x05, 0x6F, 0xC4, 0x30, 0x32]
            throw known.contains(payload[0]) ? AddressError.wrongNetwork : AddressError.wrongVersion(payload[0])
        }
    }

    private static func validateEthereum(_ address: String) throws {
        // EIP-55 writes "0x"; "0X" is no address format.
        guard address.hasPrefix("0x") else { throw AddressError.wrongPrefix("EVM addresses start with \"0x\"") }
        let hex = address.dropFirst(2)
        guard hex.count == 40 else { throw AddressError.wrongLength(hex.count / 2) }
        guard hex.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { throw AddressError.invalidEncoding("not hexadecimal") }
        let lower = hex.lowercased()
        let upper = hex.uppercased()
        if hex == lower || hex == upper { return }  // no checksum to check
        let bytes = stride(from: 0, to: 40, by: 2).map { i -> UInt8 in
            let start = lower.index(lower.startIndex, offsetBy: i)
            return UInt8(lower[start..<lower.index(start, offsetBy: 2)], radix: 16)!
        }
        guard ethereumAddress(bytes) == "0x" + hex else { throw AddressError.badChecksum }
    }

    private static func validateCardano(_ address: String, networkID: UInt8) throws {
        let hrp = networkID == 1 ? "addr" : "addr_test"
        if address.hasPrefix("Ae2") || address.hasPrefix("DdzFF") {
            throw AddressError.unsupportedType("Byron-era addresses are not supported; use a Shelley address (addr1…)")
        }
        let bytes: [UInt8]
        do { bytes = try Bech32.decodeBytes(address, hrp: hrp, limit: 1023) } catch { throw AddressError.invalidEncoding("\(error)") }
        guard let header = bytes.first else { throw AddressError.wrongLength(0) }
        guard header & 0x0F == networkID else { throw AddressError.wrongNetwork }
        switch header >> 4 {
        case 0...3: guard bytes.count == 57 else { throw AddressError.wrongLength(bytes.count) }
        case 4, 5: guard bytes.count >= 30 && bytes.count <= 57 else { throw AddressError.wrongLength(bytes.count) }
        case 6, 7: guard bytes.count == 29 else { throw AddressError.wrongLength(bytes.count) }
        default: throw AddressError.unsupportedType("not a Shelley payment address (header type \(header >> 4))")
        }
    }
}

/// Bytes of a hex string, or nil.
public func bytes(fromHex hex: String) -> [UInt8]? {
    let chars = Array(hex.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(chars.count / 2)
    for i in stride(from: 0, to: chars.count, by: 2) {
        guard let hi = hexValue(chars[i]), let lo = hexValue(chars[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
    }
    return out
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: c - 48
    case 97...102: c - 87
    case 65...70: c - 55
    default: nil
    }
}
