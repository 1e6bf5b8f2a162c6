import HawalaKeys
import HawalaTestSupport
import Testing

/// What a watch-only wallet is made from: every form `hawala wallet export-watch-only` prints
/// reads back to the same account key, and what isn't a native segwit account key is refused.
@Suite struct WatchOnlyKeyTests {
    let export: AccountExport

    init() throws {
        let keys = HDWallet(mnemonic: try Mnemonic(text: abandonAbout))
        export = try keys.accountExport(chain: Chain.bitcoinTestnet)
    }

    @Test func everyExportedFormReadsBack() throws {
        for descriptor in [export.descriptor, export.changeDescriptor, export.multipathDescriptor,
                           String(export.multipathDescriptor.prefix { $0 != "#" })] {
            let key = try WatchOnlyKey(descriptor: "  " + descriptor + "\n")
            #expect(key.accountKey.serialized(version: .tpub) == export.accountKey && key.isTestnet)
            #expect(key.origin?.fingerprint == 0x73c5_da0a && key.origin?.path.description == "m/84'/1'/0'")
        }
        let withOrigin = try WatchOnlyKey(key: export.keyOrigin + export.xpub)
        #expect(withOrigin.accountKey.serialized(version: .tpub) == export.accountKey && withOrigin.origin?.fingerprint == 0x73c5_da0a)
        let bare = try WatchOnlyKey(key: export.xpub)
        #expect(bare.origin == nil && bare.isTestnet && bare.accountKey.serialized(version: .tpub) == export.accountKey)
    }

    @Test func whatIsNoWatchOnlyKeyIsRefused() throws {
        let body = String(export.multipathDescriptor.prefix { $0 != "#" })
        let changed = String(export.multipathDescriptor.dropLast()) + (export.multipathDescriptor.hasSuffix("q") ? "p" : "q")
        #expect(throws: WatchOnlyKeyError.badChecksum) { try WatchOnlyKey(descriptor: changed) }
        #expect(throws: WatchOnlyKeyError.unsupportedScript("taproot (tr)")) { try WatchOnlyKey(descriptor: body.replacingOccurrences(of: "wpkh(", with: "tr(")) }
        #expect(throws: WatchOnlyKeyError.unsupportedScript("nested segwit (sh(wpkh))")) { try WatchOnlyKey(descriptor: "sh(" + body + ")") }
        #expect(throws: WatchOnlyKeyError.notADescriptor) { try WatchOnlyKey(descriptor: export.accountKey) }
        #expect(throws: WatchOnlyKeyError.unsupportedDerivation("/2/*")) { try WatchOnlyKey(key: export.accountKey + "/2/*") }
        #expect(throws: WatchOnlyKeyError.badOrigin) { try WatchOnlyKey(key: "[73c5da0a/84h/1h]" + export.accountKey) }
        #expect(throws: WatchOnlyKeyError.badOrigin) { try WatchOnlyKey(key: "[73c5da0/84h/1h/0h]" + export.accountKey) }
        #expect(throws: WatchOnlyKeyError.tooLong) { try WatchOnlyKey(key: String(repeating: "x", count: 1_001)) }
        // BIP32 test vector 1's master private key: refused as a secret, never kept.
        let tprv = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
        #expect(throws: WatchOnlyKeyError.privateKey) { try WatchOnlyKey(key: tprv) }
        #expect(throws: WatchOnlyKeyError.privateKey) { try WatchOnlyKey(descriptor: "wpkh(\(tprv)/0/*)") }
        #expect(!WatchOnlyKeyError.privateKey.description.contains("xprv9"))
    }
}
