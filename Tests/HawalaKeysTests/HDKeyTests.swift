import Foundation
import Testing
@testable import HawalaCrypto
@testable import HawalaKeys
import HawalaTestSupport

struct BIP32Vectors: Decodable {
    struct Valid: Decodable { let seed: String; let chain: [[String]] }
    let valid: [Valid]
    let invalid: [[String]]
}

@Suite("BIP32")
struct BIP32Tests {
    let vectors: BIP32Vectors
    init() throws { vectors = try loadVectors("bip32", as: BIP32Vectors.self) }

    @Test func vectors1to4() throws {
        #expect(vectors.valid.count == 4)
        for v in vectors.valid {
            let master = try ExtendedPrivateKey(seed: SecretBytes(unhex(v.seed)))
            for step in v.chain {
                let path = try DerivationPath(step[0])
                let key = try master.derive(path: path)
                #expect(key.serialized() == step[2], "\(step[0])")
                #expect(key.publicKey.serialized() == step[1], "\(step[0])")
                // Parsing gives back the same keys.
                guard case .private(let parsed, let version) = try ExtendedKey(step[2]) else { Issue.record("not private"); continue }
                #expect(version == .xpub && parsed.serialized() == step[2])
                guard case .public(let parsedPublic, _) = try ExtendedKey(step[1]) else { Issue.record("not public"); continue }
                #expect(parsedPublic == key.publicKey)
                // Public derivation agrees with private derivation for a non-hardened child.
                let child = try ChildNumber(7, hardened: false)
                #expect(try parsedPublic.derive(child) == key.derive(child).publicKey)
                #expect(throws: ExtendedKeyError.hardenedFromPublic) { try parsedPublic.derive(ChildNumber(0, hardened: true)) }
            }
        }
    }

    @Test func vector5InvalidKeys() {
        #expect(vectors.invalid.count == 16)
        for row in vectors.invalid {
            #expect(throws: ExtendedKeyError.self, "\(row[1])") { _ = try ExtendedKey(row[0]) }
        }
        #expect(throws: ExtendedKeyError.zeroDepthWithParentFingerprint) { _ = try ExtendedKey(vectors.invalid[6][0]) }
        #expect(throws: ExtendedKeyError.zeroDepthWithChildNumber) { _ = try ExtendedKey(vectors.invalid[8][0]) }
        #expect(throws: ExtendedKeyError.invalidPublicKeyPrefix(4)) { _ = try ExtendedKey(vectors.invalid[2][0]) }
        #expect(throws: ExtendedKeyError.invalidPrivateKey) { _ = try ExtendedKey(vectors.invalid[12][0]) }
        #expect(throws: ExtendedKeyError.invalidPublicKey) { _ = try ExtendedKey(vectors.invalid[14][0]) }
    }

    @Test func slip132Versions() throws {
        let m = try Mnemonic(text: abandonAbout)
        let master = try ExtendedPrivateKey(seed: m.seed())
        let account = try master.derive(path: DerivationPath("m/84'/0'/0'"))
        let zpub = account.publicKey.serialized(version: .zpub)
        #expect(zpub == "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs")
        #expect(account.serialized(version: .zpub) == "zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE")
        guard case .public(_, let version) = try ExtendedKey(zpub) else { Issue.record("zpub not parsed as public"); return }
        #expect(version == .zpub)
        #expect(master.fingerprint == 0x73C5_DA0A)
    }
}

@Suite("Derivation paths")
struct DerivationPathTests {
    @Test func parsesBothNotations() throws {
        let a = try DerivationPath("m/84'/0'/0'/0/5")
        let b = try DerivationPath("m/84h/0h/0h/0/5")
        #expect(a == b && a.components.count == 5 && a.description == "m/84'/0'/0'/0/5")
        #expect(a.format(hardenedMarker: "h") == "m/84h/0h/0h/0/5")
        #expect(try DerivationPath("m").components.isEmpty)
        #expect(try DerivationPath("m/2147483647'").components[0].rawValue == 0xFFFF_FFFF)
    }

    @Test func rejectsMalformed() {
        #expect(throws: DerivationPathError.empty) { try DerivationPath("") }
        #expect(throws: DerivationPathError.mustStartWithM("84'")) { try DerivationPath("84'/0'") }
        #expect(throws: DerivationPathError.emptyComponent(position: 2)) { try DerivationPath("m/84'//0") }
        #expect(throws: DerivationPathError.emptyComponent(position: 1)) { try DerivationPath("m/") }
        #expect(throws: DerivationPathError.invalidComponent("-1")) { try DerivationPath("m/-1") }
        #expect(throws: DerivationPathError.invalidComponent("1x")) { try DerivationPath("m/1x") }
        #expect(throws: DerivationPathError.invalidComponent("''")) { try DerivationPath("m/''") }
        #expect(throws: DerivationPathError.indexOutOfRange("2147483648")) { try DerivationPath("m/2147483648") }
        #expect(throws: DerivationPathError.indexOutOfRange("4294967296")) { try DerivationPath("m/4294967296'") }
        #expect(throws: DerivationPathError.invalidComponent("99999999999")) { try DerivationPath("m/99999999999") }
        #expect(throws: DerivationPathError.invalidComponent("+5")) { try DerivationPath("m/+5") }
        #expect(throws: DerivationPathError.self) { try DerivationPath("m/٣") }  // non-ASCII digit
    }

    /// BIP32's depth is one byte: a path of 255 steps is derived (its key says depth 255), one
    /// of 256 refused in words, never wrapped to depth 0.
    @Test func depthsUpTo255() throws {
        let deepest = try DerivationPath("m" + String(repeating: "/0", count: 255))
        #expect(deepest.components.count == 255)
        let master = try ExtendedPrivateKey(seed: SecretBytes(Array(repeating: 1, count: 32)))
        let key = try master.derive(path: deepest)
        #expect(key.depth == 255 && key.publicKey.depth == 255)
        #expect(throws: DerivationPathError.tooDeep(256)) { try DerivationPath("m" + String(repeating: "/0", count: 256)) }
        #expect(throws: ExtendedKeyError.tooDeep) { try key.derive(ChildNumber(rawValue: 0)) }
    }
}

struct SLIP10Vector: Decodable {
    struct Step: Decodable { let path, privateKey, chainCode, publicKey: String }
    let seed: String
    let steps: [Step]
}

@Suite("SLIP-10 Ed25519 and Cardano")
struct Ed25519KeyTests {
    @Test func slip10Vectors() throws {
        let vectors = try loadVectors("slip10-ed25519", as: [SLIP10Vector].self)
        #expect(vectors.count == 2)
        for v in vectors {
            let master = SLIP10Ed25519Key(seed: SecretBytes(unhex(v.seed)))
            for step in v.steps {
                let key = try master.derive(path: DerivationPath(step.path))
                #expect(hex(key.privateKey.unsafeCopy()) == step.privateKey, "\(step.path)")
                #expect(hex(key.chainCode.unsafeCopy()) == step.chainCode, "\(step.path)")
                #expect("00" + hex(key.publicKey) == step.publicKey, "\(step.path)")
            }
        }
        #expect(throws: SLIP10Error.nonHardened(1)) { try SLIP10Ed25519Key(seed: SecretBytes([1, 2, 3])).derive(ChildNumber(1, hardened: false)) }
    }

    struct CIP3Vector: Decodable { let mnemonic, passphrase, masterKey: String }

    @Test func icarusMasterKeys() throws {
        for v in try loadVectors("cip3-icarus", as: [CIP3Vector].self) {
            let m = try Mnemonic(text: v.mnemonic)
            let root = CardanoExtendedKey(icarusEntropy: m.entropy(), passphrase: SecretBytes(utf8: v.passphrase))
            #expect(hex(root.extendedKey.unsafeCopy() + root.chainCode.unsafeCopy()) == v.masterKey)
        }
    }

    @Test func solanaAndCardanoKnownAddresses() throws {
        let wallet = HDWallet(mnemonic: try Mnemonic(text: abandonAbout))
        // Phantom's first account for the "abandon … about" mnemonic.
        #expect(try wallet.addresses(chain: .solana)[0].address == "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk")
        #expect(try wallet.addresses(chain: .solana)[0].path == "m/44'/501'/0'/0'")
        let seedOnly = HDWallet(seed: try Mnemonic(text: abandonAbout).seed())
        #expect(throws: DerivationError.needsMnemonic(chain: "cardano")) { try seedOnly.addresses(chain: .cardano) }
        #expect(try seedOnly.addresses(chain: .bitcoin) == wallet.addresses(chain: .bitcoin))
    }
}
