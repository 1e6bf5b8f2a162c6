import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import Testing
@testable import HawalaOnChain

/// Transactions, BIP143 digests and signatures against BIP143's own examples.
@Suite struct TransactionTests {
    static var vectors: [String: [String: Any]] {
        let url = Bundle.module.url(forResource: "bip143", withExtension: "json", subdirectory: "Vectors")!
        let all = try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        return all.compactMapValues { $0 as? [String: Any] }
    }

    static func hex(_ vector: String, _ key: String) -> [UInt8] { bytes(fromHex: vectors[vector]![key] as! String)! }

    @Test func nativeP2WPKHDigestSignatureAndSignedBytes() throws {
        var transaction = try Transaction(bytes: Self.hex("nativeP2WPKH", "unsigned"))
        #expect(transaction.serialized() == Self.hex("nativeP2WPKH", "unsigned"))
        guard case .p2wpkh(let keyHash) = OutputScript(Self.hex("nativeP2WPKH", "scriptPubKey")) else { Issue.record("not P2WPKH"); return }
        let digest = SegwitV0Sighash(transaction).digest(input: 1, scriptCode: SegwitV0Sighash.p2wpkhScriptCode(keyHash: keyHash),
                                                         value: UInt64(Self.vectors["nativeP2WPKH"]!["value"] as! Int))
        #expect(digest == Self.hex("nativeP2WPKH", "sigHash"))
        // libsecp256k1's RFC 6979 nonce gives the BIP's signature byte for byte.
        let signature = try Secp256k1.signDER(digest: digest, privateKey: SecretBytes(Self.hex("nativeP2WPKH", "privateKey")))
        #expect(signature == Self.hex("nativeP2WPKH", "signature"))
        transaction.inputs[0].scriptSig = Self.hex("nativeP2WPKH", "input0ScriptSig")
        transaction.inputs[1].witness = [signature + [1], Self.hex("nativeP2WPKH", "publicKey")]
        #expect(transaction.serialized() == Self.hex("nativeP2WPKH", "signed"))
        #expect(try Transaction(bytes: Self.hex("nativeP2WPKH", "signed")) == transaction)
        // Without witnesses the txid is that of the unsigned form with the scriptSig.
        #expect(transaction.txid == Txid(hash: Hash.doubleSHA256(transaction.serialized(witness: false))))
    }

    @Test func p2shP2WPKHDigest() throws {
        let transaction = try Transaction(bytes: Self.hex("p2shP2WPKH", "unsigned"))
        let digest = SegwitV0Sighash(transaction).digest(input: 0, scriptCode: SegwitV0Sighash.p2wpkhScriptCode(keyHash: Self.hex("p2shP2WPKH", "keyHash")),
                                                         value: UInt64(Self.vectors["p2shP2WPKH"]!["value"] as! Int))
        #expect(digest == Self.hex("p2shP2WPKH", "sigHash"))
        let signed = try Transaction(bytes: Self.hex("p2shP2WPKH", "signed"))
        #expect(signed.serialized() == Self.hex("p2shP2WPKH", "signed"))
        #expect(signed.weight == signed.serialized(witness: false).count * 3 + signed.serialized().count)
    }

    @Test func truncatedAndLyingBytesAreRefusedNeverTrapped() throws {
        let signed = Self.hex("nativeP2WPKH", "signed")
        for length in [0, 1, 4, 5, 6, 40, 100, signed.count - 1] {
            #expect(throws: OnChainError.self) { try Transaction(bytes: Array(signed.prefix(length))) }
        }
        #expect(throws: OnChainError.self) { try Transaction(bytes: signed + [0]) }
        // An output of more coins than there are is no transaction (and no sum of it can overflow).
        var rich = try Transaction(bytes: Self.hex("nativeP2WPKH", "signed"))
        rich.outputs[0].value = Transaction.maximumValue + 1
        #expect(throws: OnChainError.malformedTransaction("its outputs hold more than all the coins there are")) { try Transaction(bytes: rich.serialized()) }
        rich.outputs[0].value = Transaction.maximumValue
        #expect(throws: OnChainError.self) { try Transaction(bytes: rich.serialized()) }
        // A count of 2^64 − 1 inputs in a few bytes is a lie, not an allocation.
        #expect(throws: OnChainError.self) { try Transaction(bytes: [1, 0, 0, 0, 0xFF] + Array(repeating: 0xFF, count: 8) + [0, 0, 0, 0]) }
        // An MWEB transaction (Litecoin's flag 8) is named, not misread.
        #expect(throws: OnChainError.malformedTransaction("MWEB transactions are not supported")) {
            try Transaction(bytes: [2, 0, 0, 0, 0, 8, 1])
        }
    }

    @Test func outpointsAndTxidsAsWritten() throws {
        let outpoint = try OutPoint("86a687f2bf1e8a6dade3d34e2d0a5f802eb5916e55316b9fd5a9a4b056cc657e:1")
        #expect(outpoint.description == "86a687f2bf1e8a6dade3d34e2d0a5f802eb5916e55316b9fd5a9a4b056cc657e:1")
        #expect(outpoint.hash.first == 0x7E)
        for bad in ["", "86a6:1", "86a687f2bf1e8a6dade3d34e2d0a5f802eb5916e55316b9fd5a9a4b056cc657e", "86a687f2bf1e8a6dade3d34e2d0a5f802eb5916e55316b9fd5a9a4b056cc657e:-1",
                    "86a687f2bf1e8a6dade3d34e2d0a5f802eb5916e55316b9fd5a9a4b056cc657e:4294967296"] {
            #expect(throws: OnChainError.self) { try OutPoint(bad) }
        }
    }
}

/// Addresses are checked against the account's network and coin before anything is built.
@Suite struct OutputScriptTests {
    let regtest = OnChainNetwork(coin: .litecoin, kind: .regtest)

    @Test func everyStandardTypeRoundTripsOnEveryNetwork() throws {
        let hash = Array(repeating: UInt8(7), count: 20), key = Array(repeating: UInt8(9), count: 32)
        for network in OnChainNetwork.all {
            for script in [OutputScript.p2pkh(hash: hash), .p2sh(hash: hash), .p2wpkh(hash: hash), .p2wsh(hash: key), .p2tr(key: key)] {
                #expect(try OutputScript.of(address: script.address(on: network), on: network) == script)
                #expect(OutputScript(script.bytes) == script)
            }
        }
    }

    @Test func anotherNetworksAddressIsRefusedInWords() throws {
        let hash = Array(repeating: UInt8(7), count: 20)
        let bitcoinTestnet = OutputScript.p2wpkh(hash: hash).address(on: OnChainNetwork(coin: .bitcoin, kind: .test))
        #expect(throws: OnChainError.wrongNetwork(address: bitcoinTestnet, itsNetwork: "Bitcoin testnet", account: "Litecoin regtest")) {
            try OutputScript.of(address: bitcoinTestnet, on: regtest)
        }
        let litecoinMain = OutputScript.p2wpkh(hash: hash).address(on: OnChainNetwork(coin: .litecoin, kind: .main))
        #expect(throws: OnChainError.wrongNetwork(address: litecoinMain, itsNetwork: "Litecoin", account: "Litecoin regtest")) {
            try OutputScript.of(address: litecoinMain, on: regtest)
        }
        let error = try #require(throws: OnChainError.self) { try OutputScript.of(address: litecoinMain, on: regtest) }
        #expect(error.description.contains("is a Litecoin address; this account is on Litecoin regtest: nothing was sent"))
        // Bitcoin's 3… and 2… addresses are Bitcoin's, never read as Litecoin's old P2SH form.
        for kind in [OnChainNetwork.Kind.main, .test] {
            let bitcoinP2SH = OutputScript.p2sh(hash: hash).address(on: OnChainNetwork(coin: .bitcoin, kind: kind))
            let refused = try #require(throws: OnChainError.self) { try OutputScript.of(address: bitcoinP2SH, on: OnChainNetwork(coin: .litecoin, kind: kind)) }
            #expect(refused.description.contains("is a Bitcoin"))
        }
        // A Litecoin mainnet P2SH address is no Bitcoin address either.
        let litecoinP2SH = OutputScript.p2sh(hash: hash).address(on: OnChainNetwork(coin: .litecoin, kind: .main))
        #expect(throws: OnChainError.self) { try OutputScript.of(address: litecoinP2SH, on: OnChainNetwork(coin: .bitcoin, kind: .main)) }
    }

    @Test func garbageIsNoAddress() {
        for text in ["", "hello", String(repeating: "q", count: 10_000), "rltc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "bc1q\u{0}", "🙂"] {
            #expect(throws: OnChainError.self) { try OutputScript.of(address: text, on: regtest) }
        }
        let error = try? #require(throws: OnChainError.self) { try OutputScript.of(address: String(repeating: "x", count: 10_000), on: regtest) }
        #expect((error?.description.unicodeScalars.count ?? 0) < 200)
    }
}
