import Foundation
import HawalaCrypto

/// Why a mnemonic was refused. Each case carries what the person needs to fix it.
public enum MnemonicError: Error, Equatable, CustomStringConvertible {
    /// Nothing but white space was given.
    case empty
    /// The input is not valid UTF-8 text.
    case notText
    /// The input is far longer than any mnemonic.
    case tooLong
    /// BIP39 mnemonics have 12, 15, 18, 21 or 24 words.
    case invalidWordCount(Int)
    /// Entropy must be 16, 20, 24, 28 or 32 bytes.
    case invalidEntropyLength(Int)
    /// The word at `position` (1-based) is not in the list; `suggestions` are the closest words.
    /// Word `position` is in no word list (what was typed is not kept: a typo of a secret word
    /// is nearly the word).
    case unknownWord(position: Int, language: Language, suggestions: [String])
    /// Every word is valid but the last word's checksum bits do not match.
    case checksumMismatch(language: Language)
    /// The words come from two word lists: `position` (1-based) is the first word outside `language`.
    case mixedLanguages(language: Language, position: Int, other: Language)
    /// Not BIP39 but an Electrum seed phrase of this type (it derives other keys).
    case electrumSeed(ElectrumSeed)

    public var description: String {
        switch self {
        case .empty: return "no mnemonic given"
        case .notText: return "the mnemonic is not valid UTF-8 text"
        case .tooLong: return "the input is too long to be a mnemonic"
        case .invalidWordCount(let n):
            return "expected 12, 15, 18, 21 or 24 words, got \(n)"
        case .invalidEntropyLength(let n):
            return "entropy must be 16, 20, 24, 28 or 32 bytes, got \(n)"
        case let .unknownWord(position, language, suggestions):
            let hint = suggestions.isEmpty ? "" : "; did you mean: " + suggestions.joined(separator: ", ")
            return "word \(position) is not in the \(language.displayName) word list\(hint)"
        case .checksumMismatch(let language):
            return "checksum mismatch: every word is in the \(language.displayName) list, but the words are not a valid mnemonic (a word is wrong or out of order)"
        case let .mixedLanguages(language, position, other):
            return "words from two languages: word \(position) is \(other.displayName), the others \(language.displayName)"
        case .electrumSeed(let type):
            return "this is an Electrum seed (\(type)), not BIP39 — or a BIP39 phrase with a wrong word. Electrum derives its keys differently, so Hawala cannot restore an Electrum seed; restore it in Electrum"
        }
    }
}

/// A BIP39 mnemonic: validated words of one language, kept as a secret.
///
/// Create one with `generate(wordCount:language:)`, from entropy, or by validating what a
/// person typed with `init(phrase:language:)`. The words are stored NFKD-normalized and
/// prints as `<redacted>`.
public struct Mnemonic: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The valid word counts.
    public static let wordCounts = [12, 15, 18, 21, 24]
    /// The entropy lengths, in bytes, of those word counts.
    public static let entropyLengths = wordCounts.map { $0 * 4 / 3 }
    /// A bound on the text accepted as a mnemonic (longest real mnemonic is well under 1 KiB).
    static let maximumInputBytes = 4096

    /// The language of the words.
    public let language: Language
    /// Word indexes in the list (0…2047), secret.
    private let indexes: SecretBytes

    /// The number of words.
    public var wordCount: Int { indexes.count / 2 }

    private init(language: Language, indexes: [Int]) {
        self.language = language
        var raw = [UInt8]()
        raw.reserveCapacity(indexes.count * 2)
        for i in indexes { raw.append(UInt8(i >> 8)); raw.append(UInt8(i & 0xFF)) }
        self.indexes = SecretBytes(raw)
        SecretBytes.wipe(&raw)
    }

    private var indexList: [Int] {
        indexes.withUnsafeBytes { raw in stride(from: 0, to: raw.count, by: 2).map { Int(raw[$0]) << 8 | Int(raw[$0 + 1]) } }
    }

    /// A new mnemonic from the operating system's CSPRNG.
    /// - Parameters:
    ///   - wordCount: 12, 15, 18, 21 or 24.
    ///   - language: the word list.
    /// - Throws: `MnemonicError.invalidWordCount`.
    public static func generate(wordCount: Int = 12, language: Language = .english) throws -> Mnemonic {
        guard wordCounts.contains(wordCount) else { throw MnemonicError.invalidWordCount(wordCount) }
        return try Mnemonic(entropy: SystemRandom.secret(count: wordCount / 3 * 4), language: language)
    }

    /// The mnemonic that encodes `entropy` (16, 20, 24, 28 or 32 bytes).
    /// - Throws: `MnemonicError.invalidEntropyLength`.
    public init(entropy: SecretBytes, language: Language = .english) throws {
        guard [16, 20, 24, 28, 32].contains(entropy.count) else { throw MnemonicError.invalidEntropyLength(entropy.count) }
        var bits = entropy.unsafeCopy()
        defer { SecretBytes.wipe(&bits) }
        let checksumBits = entropy.count / 4
        let checksum = Hash.sha256(bits)[0]
        bits.append(checksum)
        let total = entropy.count * 8 + checksumBits
        var result = [Int]()
        for w in 0..<(total / 11) {
            var value = 0
            for b in 0..<11 {
                let bit = w * 11 + b
                value = value << 1 | Int((bits[bit / 8] >> (7 - UInt8(bit % 8))) & 1)
            }
            result.append(value)
        }
        self.init(language: language, indexes: result)
    }

    /// Validates a mnemonic typed or pasted by a person.
    ///
    /// The text is NFKD-normalized and lower-cased; words may be separated by any white space,
    /// including the ideographic space. A word may also be given without its accents, or as a
    /// unique prefix of four or more letters. Without `language`, the language is detected.
    /// - Throws: `MnemonicError` naming the first problem.
    public init(phrase: SecretBytes, language: Language? = nil) throws {
        guard phrase.count <= Mnemonic.maximumInputBytes else { throw MnemonicError.tooLong }
        let text: String? = phrase.withUnsafeBytes { String(validating: $0, as: UTF8.self) }
        guard let text else { throw MnemonicError.notText }
        try self.init(text: text, language: language)
    }

    /// Validates a mnemonic held in a `String` (tests, word-by-word entry).
    public init(text: String, language: Language? = nil) throws {
        let words = Mnemonic.split(text)
        guard !words.isEmpty else { throw MnemonicError.empty }
        guard Mnemonic.wordCounts.contains(words.count) else { throw MnemonicError.invalidWordCount(words.count) }
        let candidates = language.map { [$0] } ?? Language.allCases
        var lastError: MnemonicError?
        var best: (language: Language, matched: Int, firstMiss: Int)?
        for l in candidates {
            let list = Wordlist.of(l)
            var resolved = [Int]()
            var firstMiss = -1
            for (i, w) in words.enumerated() {
                if let index = list.resolve(w) { resolved.append(index) } else if firstMiss < 0 { firstMiss = i }
            }
            if firstMiss < 0 {
                if Mnemonic.checksumValid(resolved) {
                    self.init(language: l, indexes: resolved)
                    return
                }
                lastError = lastError ?? .checksumMismatch(language: l)
                continue
            }
            if best == nil || resolved.count > best!.matched { best = (l, resolved.count, firstMiss) }
        }
        if let lastError {
            if case .checksumMismatch(.english) = lastError, let electrum = ElectrumSeed.type(of: text) { throw MnemonicError.electrumSeed(electrum) }
            throw lastError
        }
        let guess = best!
        let word = words[guess.firstMiss]
        // A word valid in another language means mixed languages, not a typo.
        if language == nil, guess.matched > 0,
           let other = Language.allCases.first(where: { $0 != guess.language && Wordlist.of($0).exactIndex(of: word) != nil }) {
            throw MnemonicError.mixedLanguages(language: guess.language, position: guess.firstMiss + 1, other: other)
        }
        throw MnemonicError.unknownWord(
            position: guess.firstMiss + 1, language: guess.language,
            suggestions: Wordlist.of(guess.language).closestWords(to: word))
    }

    /// NFKD-normalizes, lower-cases and splits on white space (the ideographic space becomes a
    /// plain space under NFKD).
    static func split(_ text: String) -> [String] {
        text.decomposedStringWithCompatibilityMapping.lowercased()
            .split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    static func checksumValid(_ indexes: [Int]) -> Bool {
        let total = indexes.count * 11
        let checksumBits = total / 33
        let entropyBytes = (total - checksumBits) / 8
        var bits = [UInt8](repeating: 0, count: (total + 7) / 8)
        defer { SecretBytes.wipe(&bits) }
        for (w, value) in indexes.enumerated() {
            for b in 0..<11 where (value >> (10 - b)) & 1 == 1 {
                let bit = w * 11 + b
                bits[bit / 8] |= 1 << (7 - UInt8(bit % 8))
            }
        }
        let expected = Hash.sha256(bits[0..<entropyBytes])[0] >> (8 - UInt8(checksumBits))
        let actual = bits[entropyBytes] >> (8 - UInt8(checksumBits))
        return expected == actual
    }

    /// The entropy the words encode.
    public func entropy() -> SecretBytes {
        let list = indexList
        let total = list.count * 11
        let entropyBytes = (total - total / 33) / 8
        var bits = [UInt8](repeating: 0, count: (total + 7) / 8)
        defer { SecretBytes.wipe(&bits) }
        for (w, value) in list.enumerated() {
            for b in 0..<11 where (value >> (10 - b)) & 1 == 1 {
                let bit = w * 11 + b
                bits[bit / 8] |= 1 << (7 - UInt8(bit % 8))
            }
        }
        return SecretBytes(bits[0..<entropyBytes])
    }

    /// The words, NFC, as shown to people. Handle with care: `String`s cannot be wiped.
    public var words: [String] {
        let list = Wordlist.of(language)
        return indexList.map(list.displayWord(at:))
    }

    /// The words' indexes in the list (0…2047), as SeedQR encodes them. Handle with care.
    public var wordIndexes: [Int] { indexList }

    /// Whether `answer` names the word at `position` (1-based): the word itself in any
    /// normalization or case, or its unique four-letter prefix.
    public func matches(_ answer: String, at position: Int) -> Bool {
        guard position >= 1, position <= wordCount else { return false }
        let typed = answer.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().decomposedStringWithCompatibilityMapping
        guard let index = Wordlist.of(language).resolve(typed) else { return false }
        return index == indexList[position - 1]
    }

    /// The words joined with the language's separator (the ideographic space for Japanese),
    /// in NFC — the form to show or write down. Handle with care.
    public var phrase: String { words.joined(separator: language.separator) }

    /// The NFKD words joined by single spaces, as a secret (the form keys are derived from).
    public func normalizedWords() -> SecretBytes { normalizedSentence() }

    /// The NFKD sentence BIP39 hashes: words joined by single spaces.
    func normalizedSentence() -> SecretBytes {
        let list = Wordlist.of(language)
        return SecretBytes(utf8: indexList.map { list.words[$0] }.joined(separator: " "))
    }

    /// The 64-byte BIP39 seed: PBKDF2-HMAC-SHA512 over the NFKD sentence with salt
    /// `"mnemonic" ‖ NFKD(passphrase)`, 2048 rounds.
    /// - Parameter passphrase: the optional BIP39 passphrase, used exactly as given (leading and
    ///   trailing spaces count) after NFKD normalization.
    public func seed(passphrase: SecretBytes = SecretBytes([])) -> SecretBytes {
        var salt = Array("mnemonic".utf8) + Mnemonic.normalize(passphrase)
        defer { SecretBytes.wipe(&salt) }
        return Hash.pbkdf2SHA512(password: normalizedSentence(), salt: salt, rounds: 2048, outputByteCount: 64)
    }

    /// NFKD bytes of a UTF-8 secret (invalid UTF-8 is used as is).
    static func normalize(_ secret: SecretBytes) -> [UInt8] {
        secret.withUnsafeBytes { raw in
            guard !raw.isEmpty else { return [] }
            guard let text = String(validating: raw, as: UTF8.self) else { return Array(raw) }
            return Array(text.decomposedStringWithCompatibilityMapping.utf8)
        }
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: ["language": language, "wordCount": wordCount]) }
}

extension Mnemonic: Equatable {
    /// Constant-time comparison of the words.
    public static func == (lhs: Mnemonic, rhs: Mnemonic) -> Bool {
        lhs.language == rhs.language && lhs.indexes == rhs.indexes
    }
}
