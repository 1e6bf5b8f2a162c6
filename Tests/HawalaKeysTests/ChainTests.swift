import Foundation
import Testing
@testable import HawalaCrypto
@testable import HawalaKeys
import HawalaTestSupport

struct BIPExamples: Decodable {
    struct B84: Decodable { let zpub: String; let addresses: [[String]] }
    struct B86: Decodable { let xpub: String; let addresses: [[String]] }
    struct B49: Decodable { let upub, path, publicKey, testnetAddress: String }
    let mnemonic: String
    let bip84: B84
    let bip86: B86
    let bip49: B49
}

@Suite("Chains and addresses")
struct ChainTests {
    let wallet: HDWallet
    init() throws { wallet = HDWallet(mnemonic: try Mnemonic(text: abandonAbout)) }

    @Test func bipExamples() throws {
        let ex = try loadVectors("bip-address-examples", as: BIPExamples.self)
        for row in ex.bip84.addresses {
            let parts = try DerivationPath(row[0]).components
            let got = try wallet.addresses(chain: .bitcoin, change: parts[3].index, from: parts[4].index)[0]
            #expect(got.path == row[0] && got.publicKey == row[1] && got.address == row[2])
        }
        #expect(try wallet.accountExport(chain: .bitcoin).xpub == ex.bip84.zpub)
        for row in ex.bip86.addresses {
            let parts = try DerivationPath(row[0]).components
            let got = try wallet.addresses(chain: .bitcoinTaproot, change: parts[3].index, from: parts[4].index)[0]
            #expect(got.address == row[3])
            let key = try Secp256k1.PublicKey(sec1: unhex(got.publicKey))
            #expect(hex(Array(key.compressed.dropFirst())) == row[1])  // internal key
            #expect(hex(try key.taprootOutputKey()) == row[2])
        }
        #expect(try wallet.accountExport(chain: .bitcoinTaproot).xpub == ex.bip86.xpub)
        // BIP49's published vector is on testnet: derive it with the chain table's nested-SegWit encoder.
        let master = try wallet.masterKey()
        let key = try master.derive(path: DerivationPath(ex.bip49.path)).publicKey
        #expect(hex(key.compressedKey) == ex.bip49.publicKey)
        #expect(try Address.encode(secp256k1: key.key, format: .p2shP2wpkh(version: 0xC4)) == ex.bip49.testnetAddress)
        #expect(try master.derive(path: DerivationPath("m/49'/1'/0'")).publicKey.serialized(version: .upub) == ex.bip49.upub)
    }

    @Test func eip55() throws {
        for address in try loadVectors("eip55", as: [String].self) {
            let bytes = unhex(String(address.dropFirst(2)).lowercased())
            let expected = address.dropFirst(2).lowercased() == address.dropFirst(2) || address.dropFirst(2).uppercased() == address.dropFirst(2)
                ? nil : address
            if let expected { #expect(Address.ethereumAddress(bytes) == expected) }
            try Address.validate(address, chain: .ethereum)
        }
        #expect(throws: AddressError.badChecksum) { try Address.validate("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", chain: .ethereum) }
    }

    @Test func everyChainHasARowAndValidatesItsOwnAddresses() throws {
        #expect(Chain.all.count == 13)
        #expect(Set(Chain.all.map(\.name)).count == 13)
        for chain in Chain.all {
            let addresses = try wallet.addresses(chain: chain, account: 1, change: 1, from: 3, count: 3)
            #expect(addresses.count == 3)
            for a in addresses { try Address.validate(a.address, chain: chain) }
            #expect(Chain.named(chain.name) == chain)
        }
        let first = try wallet.addresses(chain: .ethereum)[0]
        #expect(first.address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(try wallet.addresses(chain: .bsc)[0].address == first.address)
    }

    @Test func validationRefusesWhatIsWrong() {
        let cases: [(String, Chain)] = [
            ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv", .bitcoin),          // checksum
            ("tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl", .bitcoin),          // other network
            ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", .bitcoinTestnet),   // other network
            ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", .litecoin),
            ("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabB", .bitcoinLegacy),            // checksum
            ("LZJvLSP5SGKcFS13MHgdrVhpFUbEMB5XVC", .bitcoin),                  // Litecoin on Bitcoin
            ("0x9858EfFD232B4033E47d90003D41EC34EcaEda9", .ethereum),          // short
            ("9858EfFD232B4033E47d90003D41EC34EcaEda94", .ethereum),           // no 0x
            ("0x9858EfFD232B4033E47d90003D41EC34EcaEda9G", .ethereum),
            ("0X9858EfFD232B4033E47d90003D41EC34EcaEda94", .ethereum),          // EIP-55 writes 0x
            ("0X9858EFFD232B4033E47D90003D41EC34ECAEDA94", .ethereum),
            ("0x9858EfFD232B4033E47d90003D41EC34EcaEda9\u{FF14}", .ethereum),   // a fullwidth digit
            ("HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3D", .solana),             // too short
            ("HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpq0", .solana),         // '0' not base58
            ("rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v4", .xrp),
            ("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA", .xrp),
            ("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal5", .cosmos),
            ("osmo19rl4cm2hmr8afy4kldpxz3fka4jguq0a5l8m3c", .cosmos),
            ("addr1qy8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mq4afdhw", .cardano),
            ("DdzFFzCqrhsjZHKn8Y9Txr4B9PaEtYcYp8TGa4gQTfJfjvuNLqvB8hPG35WRgK4FjcSYhgK7b2H24jLMeqmPoS3YhJq6bjStsx4BZVnN", .cardano),
            ("", .bitcoin),
            ("bc1 q", .bitcoin),
        ]
        for (address, chain) in cases {
            #expect(throws: (any Error).self, "\(address) on \(chain.name)") { try Address.validate(address, chain: chain) }
        }
    }

    @Test func rangesAreChecked() throws {
        #expect(throws: DerivationError.self) { try wallet.addresses(chain: .bitcoin, change: 2) }
        #expect(throws: DerivationError.self) { try wallet.addresses(chain: .bitcoin, account: 0x8000_0000) }
        #expect(throws: DerivationError.self) { try wallet.addresses(chain: .bitcoin, from: 0x7FFF_FFFF, count: 2) }
        #expect(throws: DerivationError.notBitcoinFamily("ethereum")) { try wallet.accountExport(chain: .ethereum) }
        // Both branches, one by one and in one BIP389 descriptor; checksums from PyPI's embit.
        let export = try wallet.accountExport(chain: .bitcoin)
        let key = "[73c5da0a/84h/0h/0h]xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V"
        #expect(export.keyOrigin == "[73c5da0a/84h/0h/0h]" && key.hasSuffix(export.accountKey))
        #expect(export.descriptor == "wpkh(\(key)/0/*)#afwvtk2s")
        #expect(export.changeDescriptor == "wpkh(\(key)/1/*)#vatdkr6g")
        #expect(export.multipathDescriptor == "wpkh(\(key)/<0;1>/*)#qf45pmyh")
    }

    @Test func parallelDerivationKeepsOrder() throws {
        let many = try wallet.addresses(chain: .bitcoin, from: 10, count: 300)
        #expect(many.count == 300)
        for (i, a) in many.enumerated() { #expect(a.path == "m/84'/0'/0'/0/\(10 + i)") }
        let one = try wallet.addresses(chain: .bitcoin, from: 250, count: 1)[0]
        #expect(many[240] == one)
    }

    @Test func descriptorChecksums() {
        #expect(Descriptor.withChecksum("raw(deadbeef)") == "raw(deadbeef)#89f8spxm")
        #expect(Descriptor.checksum("raw(é)") == nil)
    }
}

struct CrossVectors: Decodable {
    struct Vector: Decodable {
        let language, mnemonic, entropy, passphrase, seed: String
        let addresses: [DerivedAddress]
        let accounts: [Account]
    }
    /// The fields of `AccountExport` the vectors carry.
    struct Account: Decodable { let chain, path, xpub, descriptor, fingerprint: String }
    let vectors: [Vector]
}

@Suite("Cross-implementation vectors (PyPI mnemonic, bip-utils, embit)")
struct CrossImplementationTests {
    @Test func everyLanguageLengthAndChain() throws {
        let file = try loadVectors("cross-implementation", as: CrossVectors.self)
        #expect(file.vectors.count == 100)
        #expect(Set(file.vectors.map(\.language)).count == 10)
        #expect(Set(file.vectors.flatMap { $0.addresses.map(\.chain) }) == Set(Chain.all.map(\.name)))
        for v in file.vectors {
            let m = try Mnemonic(text: v.mnemonic)
            #expect(hex(m.entropy().unsafeCopy()) == v.entropy)
            let passphrase = SecretBytes(utf8: v.passphrase)
            #expect(hex(m.seed(passphrase: passphrase).unsafeCopy()) == v.seed, "seed of a \(v.language) mnemonic")
            let wallet = HDWallet(mnemonic: m, passphrase: passphrase)
            for expected in v.addresses {
                let chain = try #require(Chain.named(expected.chain))
                let parts = try DerivationPath(expected.path).components
                let got: DerivedAddress
                if chain == .solana {
                    got = try wallet.addresses(chain: chain, from: parts[2].index)[0]
                } else {
                    got = try wallet.addresses(chain: chain, account: parts[2].index, change: parts[3].index, from: parts[4].index)[0]
                }
                #expect(got == expected, "\(expected.chain) \(expected.path) (\(v.language), passphrase \(v.passphrase.isEmpty ? "none" : "set"))")
            }
            for expected in v.accounts {
                let chain = try #require(Chain.named(expected.chain))
                let account = try DerivationPath(expected.path).components[2].index
                let got = try wallet.accountExport(chain: chain, account: account)
                #expect([got.chain, got.path, got.xpub, got.descriptor, got.fingerprint] == [expected.chain, expected.path, expected.xpub, expected.descriptor, expected.fingerprint])
            }
        }
    }
}
