import HawalaCrypto
import HawalaKeys
import Testing
@testable import HawalaWallet
import HawalaTestSupport

/// A deterministic stand-in for the CSPRNG: always the first choice.
let firstChoice: @Sendable (Int) -> Int = { _ in 0 }

@Suite("Seed backup flow")
struct SeedBackupFlowTests {
    let mnemonic = try! Mnemonic(text: abandonAbout)

    @Test func happyPath() throws {
        var flow = SeedBackupFlow(mnemonic: mnemonic, random: firstChoice)
        #expect(flow.state == .intro)
        flow.send(.proceed)
        #expect(flow.state == .showingWords && flow.words.count == 12)
        // random always 0: 3 questions, positions 1, 2, 3.
        #expect(flow.positions == [1, 2, 3])
        flow.send(.proceed)
        #expect(flow.state == .quiz(question: 0, position: 1))
        flow.send(.answer("abandon"))
        flow.send(.answer("ABAN"))  // a unique four-letter prefix, any case
        flow.send(.answer(" abandon "))
        #expect(flow.state == .confirming)
        flow.send(.confirm)
        #expect(flow.state == .backedUp && flow.mistakes == 0)
    }

    @Test func wrongAnswerRetryAndBack() throws {
        var flow = SeedBackupFlow(mnemonic: mnemonic, random: firstChoice, start: .words)
        flow.send(.proceed)
        flow.send(.answer("about"))  // word 1 is "abandon"
        #expect(flow.state == .wrongAnswer(position: 1) && flow.mistakes == 1)
        flow.send(.retry)
        #expect(flow.state == .quiz(question: 0, position: 1))
        flow.send(.answer("zoo"))
        flow.send(.showWordsAgain)
        #expect(flow.state == .showingWords)
        #expect(flow.send(.confirm) == .refused(.notApplicable(.confirm, .showingWords)))
        #expect(flow.state == .showingWords && flow.problem != nil)
        #expect(flow.send(.proceed) == .taken && flow.problem == nil)
    }

    /// "Later" at the final confirmation leaves the wallet not backed up; it is never an error.
    @Test func laterAtTheConfirmation() throws {
        var flow = SeedBackupFlow(mnemonic: mnemonic, random: firstChoice, start: .quiz)
        for _ in 0..<3 { flow.send(.answer("abandon")) }
        #expect(flow.state == .confirming)
        flow.send(.skip)
        #expect(flow.state == .skipped)
    }

    @Test func skipIsAllowedFromEveryStepBeforeTheEnd() throws {
        for steps in 0...2 {
            var flow = SeedBackupFlow(mnemonic: mnemonic, random: firstChoice)
            for _ in 0..<steps { flow.send(.proceed) }
            flow.send(.skip)
            #expect(flow.state == .skipped)
        }
    }

    @Test func positionsAreDistinctAndVary() {
        var seen = Set<[Int]>()
        for _ in 0..<50 {
            let flow = SeedBackupFlow(mnemonic: mnemonic)
            #expect((3...5).contains(flow.positions.count))
            #expect(Set(flow.positions).count == flow.positions.count)
            #expect(flow.positions.allSatisfy { (1...12).contains($0) })
            seen.insert(flow.positions)
        }
        #expect(seen.count > 10, "the quiz must differ between runs")
    }

    @Test func verifyStartsAtTheQuiz() throws {
        var flow = SeedBackupFlow(mnemonic: mnemonic, random: firstChoice, start: .quiz)
        #expect(flow.state == .quiz(question: 0, position: 1))
        for _ in 0..<3 { flow.send(.answer("abandon")) }
        flow.send(.confirm)
        #expect(flow.state == .backedUp)
    }

    @Test func lastWordOfA24WordMnemonicCanBeAsked() throws {
        let m = try Mnemonic.generate(wordCount: 24)
        let flow = SeedBackupFlow(mnemonic: m, random: { $0 - 1 })  // always the last choice
        #expect(flow.positions == [24, 23, 22, 21, 20])
    }
}

@Suite("Recovery flow")
struct RecoveryFlowTests {
    @Test func wordByWordWithPrefixesAndSuggestions() throws {
        var flow = RecoveryFlow()
        #expect(flow.state == .choosingNetwork)
        flow.send(.network(.mainnet))
        flow.send(.wordCount(13))
        #expect(flow.problem == .invalidWordCount(13) && flow.state == .choosingWordCount)
        flow.send(.wordCount(12))
        #expect(flow.state == .enteringWord(position: 1))
        flow.send(.word(SecretBytes(utf8: "aban")))
        #expect(flow.state == .enteringWord(position: 2) && flow.words == ["abandon"])
        flow.send(.word(SecretBytes(utf8: "ab")))  // ambiguous
        if case .ambiguousPrefix(_, let candidates)? = flow.problem { #expect(candidates.contains("abandon") && candidates.contains("ability")) } else { Issue.record("\(String(describing: flow.problem))") }
        flow.send(.word(SecretBytes(utf8: "abandn")))
        if case .unknownWord(let position, let suggestions)? = flow.problem { #expect(position == 2 && suggestions.contains("abandon")) } else { Issue.record("\(String(describing: flow.problem))") }
        // A problem names the word by its place, never by what was typed (nearly a secret word).
        #expect(flow.problem?.description.contains("abandn") == false)
        #expect(flow.state == .enteringWord(position: 2))
        flow.send(.word(SecretBytes(utf8: "zoo")))
        flow.send(.back)
        #expect(flow.state == .enteringWord(position: 2) && flow.words == ["abandon"])
        for _ in 2...11 { flow.send(.word(SecretBytes(utf8: "abandon"))) }
        flow.send(.word(SecretBytes(utf8: "about")))
        #expect(flow.state == .enteringPassphrase)
        flow.send(.passphrase(SecretBytes([])))
        guard case .confirmingAddresses(let addresses) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(addresses.map(\.address) == [
            "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
            "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
            "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
        ])
        flow.send(.confirm)
        #expect(try flow.state == .done && flow.mnemonic == Mnemonic(text: abandonAbout))
    }

    @Test func aWholePhraseStopsAtTheAddressesWithItsPassphrase() throws {
        var flow = RecoveryFlow(phrase: try Mnemonic(text: abandonAbout), network: .mainnet, passphrase: SecretBytes(utf8: "TREZOR"))
        guard case .confirmingAddresses(let addresses) = flow.state else { Issue.record("\(flow.state)"); return }
        // The same addresses as the words typed one by one with the same passphrase, and the
        // passphrase counts: not the plain phrase's.
        var typed = RecoveryFlow()
        typed.send(.network(.mainnet))
        typed.send(.wordCount(12))
        for word in abandonAbout.split(separator: " ") { typed.send(.word(SecretBytes(utf8: String(word)))) }
        typed.send(.passphrase(SecretBytes(utf8: "TREZOR")))
        #expect(typed.state == .confirmingAddresses(addresses))
        #expect(addresses.first?.chain == "bitcoin" && addresses.first?.address != "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        flow.send(.confirm)
        #expect(flow.state == .done && flow.passphrase == SecretBytes(utf8: "TREZOR"))
    }

    @Test func checksumFailureThenEdit() {
        var flow = RecoveryFlow()
        flow.send(.network(.testnet))
        flow.send(.wordCount(12))
        for _ in 1...12 { flow.send(.word(SecretBytes(utf8: "abandon"))) }
        #expect(flow.state == .checksumFailed)
        flow.send(.edit(position: 12))
        #expect(flow.state == .enteringWord(position: 12))
        flow.send(.word(SecretBytes(utf8: "about")))
        #expect(flow.state == .enteringPassphrase)
        flow.send(.passphrase(SecretBytes([])))
        guard case .confirmingAddresses(let addresses) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(addresses.first?.chain == "bitcoin-testnet" && addresses.first?.address.hasPrefix("tb1q") == true)
        flow.send(.reject)
        #expect(flow.state == .choosingNetwork && flow.mnemonic == nil)
    }

    @Test func pastedPhraseAndLanguages() throws {
        var flow = RecoveryFlow()
        flow.send(.network(.mainnet))
        flow.send(.word(SecretBytes(utf8: abandonAbout)))  // pasted at the word-count step
        #expect(flow.state == .enteringPassphrase && flow.wordCount == 12)

        var bad = RecoveryFlow()
        bad.send(.network(.mainnet))
        bad.send(.wordCount(12))
        bad.send(.word(SecretBytes(utf8: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon")))
        // A pasted phrase that fails its checksum keeps its words, to correct one of them.
        #expect(bad.state == .checksumFailed && bad.words.count == 12 && bad.problem == nil)
        bad.send(.edit(position: 13))
        #expect(bad.problem == .invalidPosition(13, wordCount: 12) && bad.state == .checksumFailed)
        bad.send(.edit(position: 12))
        bad.send(.word(SecretBytes(utf8: "abou")))
        #expect(try bad.state == .enteringPassphrase && bad.mnemonic == Mnemonic(text: abandonAbout))

        // A pasted phrase with a word outside the list is refused with the word's place named
        // (never what was typed).
        var unknown = RecoveryFlow()
        unknown.send(.network(.mainnet))
        unknown.send(.word(SecretBytes(utf8: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abuot")))
        if case .invalidPhrase(let why)? = unknown.problem { #expect(why.contains("word 12") && !why.contains("abuot")) } else { Issue.record("\(String(describing: unknown.problem))") }
        #expect(unknown.state == .choosingWordCount)

        // Spanish first word fixes the language; an English-only word then is named as such.
        var spanish = RecoveryFlow()
        spanish.send(.network(.mainnet))
        spanish.send(.wordCount(12))
        spanish.send(.word(SecretBytes(utf8: "ábaco")))
        #expect(spanish.language == .spanish)
        spanish.send(.word(SecretBytes(utf8: "about")))
        #expect(spanish.problem == .wrongLanguage(position: 2, expected: .spanish))
    }

    /// "Do they match? n" keeps the words: correct one, the passphrase or the network.
    @Test func addressesThatDoNotMatchAreCorrectedNotRetyped() throws {
        var flow = RecoveryFlow()
        flow.send(.network(.testnet))
        flow.send(.word(SecretBytes(utf8: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon")))
        flow.send(.edit(position: 12))
        flow.send(.word(SecretBytes(utf8: "about")))
        flow.send(.passphrase(SecretBytes(utf8: "TREZOR")))
        flow.send(.correct)
        #expect(flow.state == .reviewing && flow.words.count == 12)
        // The network, kept words and passphrase: new addresses at once.
        flow.send(.network(.mainnet))
        guard case .confirmingAddresses(let withPassphrase) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(withPassphrase[0].chain == "bitcoin" && withPassphrase[0].address != "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        flow.send(.correct)
        flow.send(.editPassphrase)
        #expect(flow.state == .enteringPassphrase)
        flow.send(.passphrase(SecretBytes([])))
        guard case .confirmingAddresses(let plain) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(plain[0].address == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        // One word corrected while reviewing: an invalid checksum goes back to the word list;
        // "<" while correcting leaves the words as they were.
        flow.send(.correct)
        flow.send(.edit(position: 12))
        flow.send(.back)
        #expect(flow.state == .reviewing && flow.words.last == "about")
        flow.send(.edit(position: 12))
        flow.send(.word(SecretBytes(utf8: "abandon")))
        #expect(flow.state == .checksumFailed && flow.mnemonic == nil)
        flow.send(.edit(position: 12))
        flow.send(.word(SecretBytes(utf8: "about")))
        #expect(flow.state == .enteringPassphrase)
        flow.send(.reject)  // not applicable here: nothing changes
        #expect(flow.problem == .notApplicable && flow.state == .enteringPassphrase)
    }

    @Test func passphraseChangesTheAddresses() {
        var flow = RecoveryFlow()
        flow.send(.network(.mainnet))
        flow.send(.word(SecretBytes(utf8: abandonAbout)))
        flow.send(.passphrase(SecretBytes(utf8: "TREZOR")))
        guard case .confirmingAddresses(let addresses) = flow.state else { Issue.record("\(flow.state)"); return }
        #expect(addresses[0].address != "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        flow.send(.cancel)
        #expect(flow.state == .cancelled)
    }
}
