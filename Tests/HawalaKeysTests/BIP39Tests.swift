import Foundation
import Testing
@testable import HawalaCrypto
@testable import HawalaKeys
import HawalaTestSupport

@Suite("BIP39")
struct BIP39Tests {
    /// Trezor's vectors.json: every language, passphrase "TREZOR".
    @Test(arguments: Language.allCases)
    func trezorVectors(language: Language) throws {
        let all = try loadVectors("bip39-trezor", as: [String: [[String]]].self)
        let rows = try #require(all[language.rawValue.replacingOccurrences(of: "-", with: "_")])
        #expect(rows.count >= 20)
        for row in rows {
            let entropy = SecretBytes(unhex(row[0]))
            let fromEntropy = try Mnemonic(entropy: entropy, language: language)
            let parsed = try Mnemonic(text: row[1])
            #expect(parsed.language == language || Set([parsed.language, language]) == [.chineseSimplified, .chineseTraditional])
            #expect(fromEntropy.normalizedSentence() == SecretBytes(utf8: row[1].decomposedStringWithCompatibilityMapping))
            #expect(hex(parsed.entropy().unsafeCopy()) == row[0])
            #expect(hex(parsed.seed(passphrase: SecretBytes(utf8: "TREZOR")).unsafeCopy()) == row[2])
            #expect(try ExtendedPrivateKey(seed: parsed.seed(passphrase: SecretBytes(utf8: "TREZOR"))).serialized() == row[3])
        }
    }

    struct JapaneseVector: Decodable { let entropy, phrase, passphrase, seed, bip32_xprv: String }

    /// The Japanese vectors: ideographic spaces and a passphrase that NFKD changes.
    @Test func japaneseVectors() throws {
        let rows = try loadVectors("bip39-japanese", as: [JapaneseVector].self)
        #expect(rows.count == 24)
        for row in rows {
            let m = try Mnemonic(text: row.phrase)
            #expect(m.language == .japanese)
            #expect(m.phrase == row.phrase)  // shown with ideographic spaces, NFC
            #expect(hex(m.entropy().unsafeCopy()) == row.entropy)
            let seed = m.seed(passphrase: SecretBytes(utf8: row.passphrase))
            #expect(hex(seed.unsafeCopy()) == row.seed)
            #expect(try ExtendedPrivateKey(seed: seed).serialized() == row.bip32_xprv)
            // Plain spaces work as well as ideographic ones.
            #expect(try Mnemonic(text: row.phrase.replacingOccurrences(of: "\u{3000}", with: " ")) == m)
        }
    }

    @Test func wordListsAreTheOfficialOnes() {
        for language in Language.allCases {
            let list = Wordlist.of(language)
            #expect(list.words.count == 2048)
            #expect(Set(list.words).count == 2048)
            #expect(list.words.allSatisfy { $0 == $0.decomposedStringWithCompatibilityMapping })
        }
        #expect(Wordlist.of(.english).words.first == "abandon" && Wordlist.of(.english).words.last == "zoo")
        let english = Wordlist.of(.english).words.joined(separator: "\n") + "\n"
        #expect(hex(Hash.sha256(Array(english.utf8))) == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
    }

    @Test func generateEveryLengthAndLanguage() throws {
        for count in Mnemonic.wordCounts {
            for language in Language.allCases {
                let m = try Mnemonic.generate(wordCount: count, language: language)
                #expect(m.wordCount == count)
                #expect(try Mnemonic(text: m.phrase, language: language) == m)
            }
        }
        let a = try Mnemonic.generate(), b = try Mnemonic.generate()
        #expect(a != b)
        #expect(throws: MnemonicError.invalidWordCount(13)) { try Mnemonic.generate(wordCount: 13) }
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: MnemonicError.empty) { try Mnemonic(text: "  \n ") }
        #expect(throws: MnemonicError.invalidWordCount(11)) { try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about") }
        let typo = "abandon abandon abandn abandon abandon abandon abandon abandon abandon abandon abandon about"
        #expect(throws: MnemonicError.unknownWord(position: 3, language: .english, suggestions: ["abandon"])) { try Mnemonic(text: typo) }
        #expect(throws: MnemonicError.checksumMismatch(language: .english)) {
            try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon")
        }
        // English words with one Spanish word.
        let mixed = "abandon abandon ábaco abandon abandon abandon abandon abandon abandon abandon abandon about"
        #expect(throws: MnemonicError.mixedLanguages(language: .english, position: 3, other: .spanish)) { try Mnemonic(text: mixed) }
        #expect(throws: MnemonicError.notText) { try Mnemonic(phrase: SecretBytes([0xFF, 0xFE, 0x20, 0x80])) }
        #expect(throws: MnemonicError.tooLong) { try Mnemonic(phrase: SecretBytes([UInt8](repeating: 0x61, count: 10_000))) }
        // The message names the word by its place, never by what was typed (nearly a secret word).
        let message = MnemonicError.unknownWord(position: 3, language: .english, suggestions: ["abandon"]).description
        #expect(message == "word 3 is not in the English word list; did you mean: abandon")
    }

    @Test func lenientInputForPeople() throws {
        let reference = try Mnemonic(text: abandonAbout)
        // Upper case, extra white space, four-letter prefixes.
        #expect(try Mnemonic(text: "  ABANDON abandon\tabandon abandon abandon abandon abandon abandon abandon abandon abandon about \n") == reference)
        #expect(try Mnemonic(text: "aban aban aban aban aban aban aban aban aban aban aban abou") == reference)
        // A prefix that is not unique is not accepted.
        #expect(throws: MnemonicError.self) { try Mnemonic(text: "aba aba aba aba aba aba aba aba aba aba aba abou") }
        // Spanish without accents.
        let spanish = try Mnemonic(entropy: SecretBytes([UInt8](repeating: 0, count: 16)), language: .spanish)
        let stripped = spanish.words.map { Wordlist.fold($0.decomposedStringWithCompatibilityMapping) }.joined(separator: " ")
        #expect(try Mnemonic(text: stripped) == spanish)
        #expect(try Mnemonic(text: stripped).seed() == spanish.seed())
    }

    @Test func suggestions() {
        let english = Wordlist.of(.english)
        #expect(english.suggestions(forPrefix: "aban") == ["abandon"])
        #expect(english.suggestions(forPrefix: "zo") == ["zone", "zoo"])
        #expect(english.suggestions(forPrefix: "xyz").isEmpty)
        #expect(english.suggestions(forPrefix: "").isEmpty)
        #expect(english.closestWords(to: "abandn") == ["abandon"])
        #expect(Wordlist.of(.spanish).suggestions(forPrefix: "abac") == ["ábaco"])
        #expect(english.resolve("zoo") == 2047)
    }

    @Test func secretsDoNotPrint() throws {
        let m = try Mnemonic(text: abandonAbout)
        #expect("\(m)" == "<redacted>")
        var dumped = ""
        dump(m, to: &dumped)
        #expect(!dumped.contains("abandon"))
    }
}
