import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaWallet
import Testing
@testable import HawalaOnChain

/// The same words give the same descriptors and addresses as BDK (PyPI bdkpython, an independent
/// implementation; `scripts/gen_bdk_vectors.py`) on Bitcoin mainnet, testnet and regtest.
@Suite struct BDKPeerTests {
    struct Vector: Decodable {
        let mnemonic: String
        let network: String
        let receiveDescriptor: String
        let changeDescriptor: String
        let receive: [String: String]
        let change: [String: String]
    }

    static func vectors() throws -> [Vector] {
        struct File: Decodable { let vectors: [Vector] }
        let url = try #require(Bundle.module.url(forResource: "bdk", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors
    }

    @Test func descriptorsAndAddressesMatchBDK() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 15)
        let (store, keyring) = try newStore()
        for vector in vectors {
            let kind = try #require(OnChainNetwork.Kind(rawValue: vector.network))
            let network: Network = kind == .main ? .mainnet : .testnet
            let mnemonic = try Mnemonic(text: vector.mnemonic)
            let name = try store.existingWallet(mnemonic: mnemonic, passphrase: SecretBytes([]), network: network)
            let summary = try name.map { try store.wallet(named: $0) }
                ?? store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: nil, network: network, keyring: keyring)
            let account = try OnChainAccount.of(summary, coin: .bitcoin, kind: kind, store: store)
            #expect(try account.descriptor(.receive, fingerprint: summary.fingerprint) == vector.receiveDescriptor)
            #expect(try account.descriptor(.change, fingerprint: summary.fingerprint) == vector.changeDescriptor)
            for (keychain, addresses) in [(Keychain.receive, vector.receive), (.change, vector.change)] {
                for (index, address) in addresses {
                    #expect(try account.address(at: KeyPlace(keychain, UInt32(index)!)) == address, "\(vector.network) \(keychain) \(index)")
                }
            }
        }
    }
}
