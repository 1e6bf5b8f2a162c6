import Foundation
import HawalaCrypto

/// The standard output types Hawala pays to and reads, from their scriptPubKey.
public enum OutputScript: Sendable, Hashable {
    case p2pkh(hash: [UInt8])
    case p2sh(hash: [UInt8])
    case p2wpkh(hash: [UInt8])
    case p2wsh(hash: [UInt8])
    case p2tr(key: [UInt8])

    /// The scriptPubKey's bytes.
    public var bytes: [UInt8] {
        switch self {
        case .p2pkh(let hash): [0x76, 0xA9, 0x14] + hash + [0x88, 0xAC]
        case .p2sh(let hash): [0xA9, 0x14] + hash + [0x87]
        case .p2wpkh(let hash): [0x00, 0x14] + hash
        case .p2wsh(let hash): [0x00, 0x20] + hash
        case .p2tr(let key): [0x51, 0x20] + key
        }
    }

    /// The type of a scriptPubKey, or nil for anything non-standard.
    public init?(_ script: [UInt8]) {
        switch (script.count, script.first) {
        case (25, 0x76) where script[1] == 0xA9 && script[2] == 0x14 && script[23] == 0x88 && script[24] == 0xAC:
            self = .p2pkh(hash: Array(script[3..<23]))
        case (23, 0xA9) where script[1] == 0x14 && script[22] == 0x87: self = .p2sh(hash: Array(script[2..<22]))
        case (22, 0x00) where script[1] == 0x14: self = .p2wpkh(hash: Array(script[2...]))
        case (34, 0x00) where script[1] == 0x20: self = .p2wsh(hash: Array(script[2...]))
        case (34, 0x51) where script[1] == 0x20: self = .p2tr(key: Array(script[2...]))
        default: return nil
        }
    }

    /// The output's weight in a transaction: value, script length, script, four units a byte.
    public var outputWeight: Int { 4 * (8 + 1 + bytes.count) }

    /// The largest weight of an input spending this type with one key (a 72-byte signature with
    /// its sighash byte at most), for fee estimates; nil for scripts Hawala can't spend.
    public var inputWeight: Int? {
        switch self {
        case .p2wpkh: 41 * 4 + 108  // outpoint, empty scriptSig, sequence; witness 1 + 1+72 + 1+33
        case .p2tr: 41 * 4 + 66  // witness 1 + 1+64
        case .p2sh: (41 + 23) * 4 + 108  // the scriptSig pushes the 22-byte P2WPKH program
        // scriptSig 1+72 + 1+33; beside SegWit inputs it also has an empty witness (one unit)
        case .p2pkh: (41 + 107) * 4 + 1
        case .p2wsh: nil
        }
    }

    /// The address of this output on `network`.
    public func address(on network: OnChainNetwork) -> String {
        switch self {
        case .p2pkh(let hash): Base58.encodeCheck([network.p2pkhVersion] + hash)
        case .p2sh(let hash): Base58.encodeCheck([network.p2shVersions[0]] + hash)
        case .p2wpkh(let hash), .p2wsh(let hash): Bech32.segwitAddress(hrp: network.hrp, version: 0, program: hash)
        case .p2tr(let key): Bech32.segwitAddress(hrp: network.hrp, version: 1, program: key)
        }
    }

    /// The output an address pays to, checked against `network`: an address of another network or
    /// chain is refused in words that name where it belongs.
    public static func of(address text: String, on network: OnChainNetwork) throws(OnChainError) -> OutputScript {
        let address = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw .notAnAddress(text, why: "it is empty") }
        guard address.utf8.count <= 100, address.unicodeScalars.allSatisfy({ $0.isASCII }) else {
            throw .notAnAddress(text, why: "it has characters no address has")
        }
        if let script = decode(address, on: network) { return script }
        if let other = OnChainNetwork.all.first(where: { $0 != network && decode(address, on: $0) != nil }) {
            throw .wrongNetwork(address: address, itsNetwork: other.description, account: network.description)
        }
        throw .notAnAddress(text, why: whyNot(address))
    }

    private static func decode(_ address: String, on network: OnChainNetwork) -> OutputScript? {
        if address.lowercased().hasPrefix(network.hrp + "1") {
            guard let (version, program) = try? Bech32.decodeSegwitAddress(address, hrp: network.hrp) else { return nil }
            switch (version, program.count) {
            case (0, 20): return .p2wpkh(hash: program)
            case (0, 32): return .p2wsh(hash: program)
            case (1, 32): return .p2tr(key: program)
            default: return nil  // future witness versions: Hawala doesn't pay what it can't check
            }
        }
        guard let payload = try? Base58.decodeCheck(address), payload.count == 21 else { return nil }
        if payload[0] == network.p2pkhVersion { return .p2pkh(hash: Array(payload[1...])) }
        if network.p2shVersions.contains(payload[0]) { return .p2sh(hash: Array(payload[1...])) }
        return nil
    }

    private static func whyNot(_ address: String) -> String {
        if let sep = address.lastIndex(of: "1"), address.lowercased() == address || address.uppercased() == address {
            do { _ = try Bech32.decode(address) } catch { return "\(error)" }
            return "prefix \(address[..<sep]) is no Bitcoin or Litecoin network's"
        }
        do { _ = try Base58.decodeCheck(address) } catch { return "\(error)" }
        return "an unknown address type"
    }
}
