import Foundation
import HawalaCrypto
import HawalaKeys
@testable import HawalaWallet
import Testing
import HawalaTestSupport

@Suite("SLIP-39 split, entry and recovery")
struct ShamirTests {
    func storeWithWallet() throws -> (WalletStore, WalletSummary, Keyring) {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let wallet = try store.add(mnemonic: Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        return (store, wallet, keyring)
    }

    /// A BIP39 wallet is split as its entropy: the text reads back, any two groups recover the
    /// same words, and the guard refuses recovering it into the store it came from.
    @Test func splitTextRecoversTheSameWords() throws {
        let (store, wallet, keyring) = try storeWithWallet()
        let groups = try ["2/3", "1/1", "3/5"].map(SLIP39.Group.init(parsing:))
        let split = try store.shamirSplit(wallet, groupThreshold: 2, groups: groups, passphrase: SecretBytes([]), keyring: keyring)
        #expect(split.secretKind == .bip39 && !split.bip39PassphraseLeftOut && !split.withPassphrase)
        #expect(split.shares.map(\.count) == [3, 1, 5])
        #expect(split.text.contains("any 2 of these 3 groups") && split.text.contains("fingerprint \(wallet.fingerprint)"))
        let parsed = try ShamirShares.parse(SecretBytes(utf8: split.text))
        #expect(parsed.count == 9)
        // Group 2 (its one share) and two shares of group 1.
        let subset = [parsed[3], parsed[0], parsed[2]]
        let readings = ShamirShares.readings(of: try SLIP39.combine(subset))
        #expect(readings.map(\.kind) == [.bip39, .seed])
        guard case .mnemonic(let words, _) = readings[0] else { Issue.record("not words"); return }
        #expect(words.phrase == abandonAbout)
        #expect(ShamirShares.firstAddress(of: readings[0], network: .mainnet) == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(ShamirShares.firstAddress(of: readings[1], network: .mainnet) != ShamirShares.firstAddress(of: readings[0], network: .mainnet))
        #expect(throws: WalletError.alreadyExists(name: "Main")) { try store.recover(readings[0], name: nil, network: .mainnet) { keyring } }
        // The seed reading is another wallet: saved, and backed up (its shares are in hand).
        let seedWallet = try store.recover(readings[1], name: "Trezor", network: .mainnet) { keyring }
        #expect(seedWallet.kind == .seed && seedWallet.backup.isBackedUp)
    }

    @Test func refusalsBeforeTheSecretIsOpened() throws {
        let (store, wallet, keyring) = try storeWithWallet()
        #expect(throws: SLIP39Error.self) { try SLIP39.Group(parsing: "2-3") }
        #expect(throws: SLIP39Error.self) { try SLIP39.Group(parsing: "2/3/4") }
        #expect(throws: SLIP39Error.self) {
            _ = try store.shamirSplit(wallet, groupThreshold: 2, groups: [SLIP39.Group(threshold: 2, count: 3)], passphrase: SecretBytes([]), keyring: keyring)
        }
        #expect(throws: SLIP39Error.invalidPassphrase) {
            _ = try store.shamirSplit(wallet, groupThreshold: 1, groups: [SLIP39.Group(threshold: 1, count: 1)], passphrase: SecretBytes(utf8: "café"), keyring: keyring)
        }
        #expect(throws: ShamirTextError.noShares) { _ = try ShamirShares.parse(SecretBytes(utf8: "# only comments\n\n")) }
        // An 18-byte secret cannot be BIP39 entropy: only the seed reading.
        #expect(ShamirShares.readings(of: SecretBytes(Array(repeating: 7, count: 18))).map(\.kind) == [.seed])
    }

    /// Typed shares: a wrong word is corrected in place, an unreadable share is typed again, a
    /// share of another secret is refused, and an empty entry ends (never before the first).
    @Test func shareEntry() throws {
        let masterSecret = SecretBytes(Array(0..<16))
        let shares = try SLIP39.split(masterSecret: masterSecret, groupThreshold: 1, groups: [SLIP39.Group(threshold: 2, count: 3)])[0]
        let other = try SLIP39.split(masterSecret: masterSecret, groupThreshold: 1, groups: [SLIP39.Group(threshold: 2, count: 3)])[0]
        var flow = ShareEntryFlow()
        #expect(flow.send(.share(SecretBytes(utf8: "  "))) == .refused(.noShares))
        var words = shares[0].words
        let right = words[3]
        words[3] = "zzzz"
        #expect(flow.send(.share(SecretBytes(utf8: words.joined(separator: " ")))) == .taken)
        guard case .correcting(_, .unknownWord, let suspect) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(suspect == 4)
        #expect(flow.send(.word(position: 99, SecretBytes(utf8: "x"))) == .refused(.invalidPosition(99, wordCount: words.count)))
        #expect(flow.send(.word(position: 4, SecretBytes(utf8: right))) == .taken)
        #expect(flow.state == .entering(number: 2))
        #expect(flow.added == ShareEntryFlow.Progress(group: 1, groupCount: 1, have: 1, memberThreshold: 2, groupThreshold: 1))
        // Two words swapped: the checksum fails, no suspect; "again" drops it.
        var swapped = shares[1].words
        swapped.swapAt(5, 6)
        flow.send(.share(SecretBytes(utf8: swapped.joined(separator: ","))))
        guard case .correcting(_, .invalidChecksum, nil) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(flow.send(.again) == .taken && flow.state == .entering(number: 2))
        guard case .refused(.invalidShare(.tooShort)) = flow.send(.share(SecretBytes(utf8: "academic acid"))) else { Issue.record("short share taken"); return }
        guard case .refused(.notWithTheOthers) = flow.send(.share(SecretBytes(utf8: other[1].phrase))) else { Issue.record("a share of another split taken"); return }
        #expect(flow.send(.share(SecretBytes(utf8: shares[2].phrase))) == .taken && flow.added?.have == 2)
        #expect(flow.send(.share(SecretBytes(utf8: ""))) == .taken && flow.state == .finished)
        #expect(try SLIP39.combine(flow.shares) == masterSecret)
    }

    /// The credential phrase is the recovery flow's word entry with a fixed length: no network,
    /// passphrase or addresses; done at the checksum; another length is refused.
    @Test func recoveryPhrasePurpose() throws {
        let phrase = try Mnemonic.generate(wordCount: 24)
        var flow = RecoveryFlow(purpose: .recoveryPhrase(wordCount: 24))
        #expect(flow.state == .enteringWord(position: 1))
        #expect(flow.send(.back) == .refused(.notApplicable))
        #expect(flow.send(.word(SecretBytes(utf8: abandonAbout))) == .refused(.wrongLength(12, expected: 24)))
        for word in phrase.words { flow.send(.word(SecretBytes(utf8: word))) }
        #expect(flow.state == .done && flow.mnemonic?.phrase == phrase.phrase)
        var pasted = RecoveryFlow(purpose: .recoveryPhrase(wordCount: 24))
        #expect(pasted.send(.word(SecretBytes(utf8: phrase.phrase))) == .taken && pasted.state == .done)
    }
}

extension SLIP39Share {
    var phrase: String { words.joined(separator: " ") }
}
