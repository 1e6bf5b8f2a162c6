import Foundation
import HawalaCrypto
import HawalaText

/// A single private key brought in from elsewhere: WIF for Bitcoin and Litecoin, 64 hex digits
/// for the EVM chains, a base58 secret key for Solana (64-byte keypair as Phantom and the Solana
/// CLI export it, or the 32-byte seed).
public struct ImportedPrivateKey: Sendable, CustomStringConvertible {
    public let chain: Chain
    /// The 32-byte private key (for Solana, the Ed25519 seed). Secret.
    public let secret: SecretBytes
    /// The receiving address on `chain`.
    public let address: String
    /// Hex of the public key.
    public let publicKey: String
    /// False for an uncompressed key (WIF without the compression flag, `5…` on mainnet): it
    /// has a legacy P2PKH address of its 65-byte public key, and no SegWit address.
    public let compressed: Bool

    /// Errors naming what is wrong with the text, never echoing it.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case unsupportedChain(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .unsupportedChain(let c): "\(c) does not take imported keys here; supported: bitcoin (all kinds), bitcoin-testnet, litecoin, ethereum, bsc, polygon, solana"
            case .malformed(let why): why
            }
        }
    }

    /// The chains a private key can be imported on, in `Chain.all`'s order.
    public static let chains: [Chain] = Chain.all.filter {
        switch $0.addressFormat {
        case .p2wpkh, .p2tr, .p2shP2wpkh, .p2pkh, .ethereum, .solana: true
        default: false
        }
    }

    /// Parses `text` (surrounding whitespace ignored) as a private key for `chain`.
    public init(text: SecretBytes, chain: Chain) throws {
        guard let string = text.withUnsafeBytes({ String(validating: $0, as: UTF8.self) })?
            .trimmingCharacters(in: .whitespacesAndNewlines), !string.isEmpty else {
            throw Error.malformed("the key is empty or not text")
        }
        self.chain = chain
        switch chain.addressFormat {
        case .p2wpkh, .p2tr, .p2shP2wpkh, .p2pkh:
            let expected: UInt8 = chain.coinType == 2 ? 0xB0 : (chain.network == .testnet ? 0xEF : 0x80)
            guard var payload = try? Base58.decodeCheck(string) else {
                throw Error.malformed("not a WIF private key (Base58Check failed)")
            }
            defer { SecretBytes.wipe(&payload) }
            guard payload.count == 33 || payload.count == 34 else { throw Error.malformed("a WIF key is 33 or 34 bytes, not \(payload.count)") }
            guard payload[0] == expected else {
                throw Error.malformed(String(format: "WIF version 0x%02x is not %@'s (0x%02x)", payload[0], chain.name, expected))
            }
            if payload.count == 34 {
                guard payload[33] == 1 else { throw Error.malformed("a compressed WIF key ends with 0x01") }
                compressed = true
            } else {
                guard case .p2pkh = chain.addressFormat else {
                    throw Error.malformed("an uncompressed WIF key has only a legacy address: import it on bitcoin-legacy (P2PKH), not \(chain.name)")
                }
                compressed = false
            }
            secret = SecretBytes(payload[1..<33])
        case .ethereum:
            var hex = string.lowercased()
            if hex.hasPrefix("0x") { hex.removeFirst(2) }
            guard hex.count == 64, var bytes = bytes(fromHex: hex) else {
                throw Error.malformed("an EVM private key is 64 hex digits, optionally after 0x")
            }
            defer { SecretBytes.wipe(&bytes) }
            secret = SecretBytes(bytes)
            compressed = true
        case .solana:
            guard var bytes = try? Base58.decode(string) else { throw Error.malformed("not a base58 Solana secret key") }
            defer { SecretBytes.wipe(&bytes) }
            guard bytes.count == 64 || bytes.count == 32 else {
                throw Error.malformed("a Solana secret key is 64 bytes (keypair) or 32 (seed), not \(bytes.count)")
            }
            secret = SecretBytes(bytes[0..<32])
            compressed = true
            let pub = Ed25519.publicKey(seed: secret)
            if bytes.count == 64 && Array(bytes[32..<64]) != pub {
                throw Error.malformed("the keypair's public half does not match its secret half")
            }
            publicKey = hexString(pub)
            address = Address.solana(publicKey: pub)
            return
        default:
            throw Error.unsupportedChain(chain.name)
        }
        (publicKey, address) = try ImportedPrivateKey.addressOf(secp256k1: secret, chain: chain, compressed: compressed)
    }

    /// A key already parsed (from the store or a backup): 32 bytes for `chain`; `compressed`
    /// false only for a legacy P2PKH key imported uncompressed.
    public init(secret: SecretBytes, chain: Chain, compressed: Bool = true) throws {
        guard secret.count == 32 else { throw Error.malformed("a private key is 32 bytes, not \(secret.count)") }
        self.chain = chain
        self.secret = secret
        self.compressed = compressed
        if !compressed {
            guard case .p2pkh = chain.addressFormat else {
                throw Error.malformed("an uncompressed key has only a legacy address: it belongs on bitcoin-legacy (P2PKH), not \(chain.name)")
            }
        }
        switch chain.addressFormat {
        case .p2wpkh, .p2tr, .p2shP2wpkh, .p2pkh, .ethereum:
            (publicKey, address) = try ImportedPrivateKey.addressOf(secp256k1: secret, chain: chain, compressed: compressed)
        case .solana:
            let pub = Ed25519.publicKey(seed: secret)
            publicKey = hexString(pub)
            address = Address.solana(publicKey: pub)
        default:
            throw Error.unsupportedChain(chain.name)
        }
    }

    private static func addressOf(secp256k1 secret: SecretBytes, chain: Chain, compressed: Bool) throws -> (publicKey: String, address: String) {
        guard secret.withUnsafeBytes({ Secp256k1.isValidPrivateKey($0) }) else {
            throw Error.malformed("the key is zero or not below the secp256k1 order")
        }
        let key = try Secp256k1.PublicKey(privateKey: secret)
        if !compressed, case .p2pkh(let version) = chain.addressFormat {
            return (hexString(key.uncompressed), Address.legacyUncompressed(secp256k1: key, version: version))
        }
        return (hexString(key.compressed), try Address.encode(secp256k1: key, format: chain.addressFormat))
    }

    public var description: String { "ImportedPrivateKey(\(chain.name), \(address), <redacted>)" }
}
