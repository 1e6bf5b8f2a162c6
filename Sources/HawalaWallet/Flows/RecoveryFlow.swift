import Foundation
import HawalaCrypto
import HawalaKeys

/// The recovery flow (seed 000, seed 004 M1.9–M1.10) as a state machine with no I/O: network →
/// number of words → each word checked as it is entered (or the whole phrase pasted) → checksum
/// → optional BIP39 passphrase → the first Bitcoin, Ethereum and Solana addresses, which the
/// person confirms against their records → done. Nothing is saved by the flow: the caller saves
/// the result of `.done`, and the store refuses to replace an existing wallet.
///
/// With `Purpose.recoveryPhrase` the same word entry reads a credential backup's recovery
/// phrase: a fixed number of words, no network, passphrase or addresses; done at the checksum.
public struct RecoveryFlow: Sendable {
    /// What the words are for.
    public enum Purpose: Sendable, Equatable {
        /// A wallet: network, any BIP39 length, the optional passphrase, addresses to confirm.
        case wallet
        /// A recovery phrase of exactly `wordCount` words, done once its checksum holds.
        case recoveryPhrase(wordCount: Int)
    }

    public enum State: Sendable, Equatable {
        case choosingNetwork
        case choosingWordCount
        /// Waiting for the word at `position` (1-based) of `wordCount`.
        case enteringWord(position: Int)
        /// All words entered but the checksum fails: a word is wrong. Edit one or start over.
        case checksumFailed
        /// Words valid; waiting for the optional BIP39 passphrase.
        case enteringPassphrase
        /// The addresses to compare with the person's records.
        case confirmingAddresses([DerivedAddress])
        /// The addresses did not match: correct one word, the passphrase or the network, or
        /// start over — the other words are kept.
        case reviewing
        /// Confirmed: save `result`.
        case done
        case cancelled
    }

    public enum Event: Sendable {
        case network(Network)
        case wordCount(Int)
        /// One typed word or prefix (UTF-8); a text with several words is taken as the whole
        /// phrase. Secret: it is never kept as a `String` or quoted in a problem.
        case word(SecretBytes)
        /// Go back one word.
        case back
        /// Re-enter the word at `position` (after a checksum failure, or while reviewing).
        case edit(position: Int)
        case passphrase(SecretBytes)
        case confirm
        /// The addresses don't match: review what was entered.
        case correct
        /// While reviewing: enter the BIP39 passphrase again.
        case editPassphrase
        /// Start over from the network.
        case reject
        case cancel
    }

    /// Why the last event was not taken; nil after an accepted one.
    /// Why the last event was not taken. A problem names a word by its position, never by
    /// what was typed (a typo of a secret word is nearly the word).
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// Word `position` is in no word list; the closest words of the list.
        case unknownWord(position: Int, suggestions: [String])
        case ambiguousPrefix(position: Int, candidates: [String])
        case wrongLanguage(position: Int, expected: Language)
        case invalidWordCount(Int)
        /// A recovery phrase of another length than its purpose's.
        case wrongLength(Int, expected: Int)
        case invalidPhrase(String)
        /// A word number outside 1…`wordCount`.
        case invalidPosition(Int, wordCount: Int)
        case notApplicable

        public var description: String {
            switch self {
            case let .unknownWord(n, s): "word \(n) is not in the word list" + (s.isEmpty ? "" : "; did you mean: \(s.joined(separator: ", "))")
            case let .ambiguousPrefix(n, c): "word \(n) could be: \(c.joined(separator: ", "))"
            case let .wrongLanguage(n, l): "word \(n) is not in the \(l.displayName) word list of the earlier words"
            case .invalidWordCount(let n): "a mnemonic has 12, 15, 18, 21 or 24 words, not \(n)"
            case let .wrongLength(n, expected): "a recovery phrase has \(expected) words, not \(n)"
            case .invalidPhrase(let why): why
            case let .invalidPosition(n, count): "there is no word \(n): choose a number from 1 to \(count)"
            case .notApplicable: "not possible at this step"
            }
        }
    }

    /// What a person should know before choosing the network.
    public static let networkWarning = "The network decides the addresses: restoring on the wrong network shows different addresses (the funds are not lost, but you won't see them)."

    public private(set) var state: State = .choosingNetwork
    public private(set) var problem: Problem?
    public private(set) var network: Network = .mainnet
    public private(set) var wordCount = 12
    /// The words accepted so far (their indexes in the word list, two bytes each).
    private var wordIndexes = SecretBytes([])
    public private(set) var language: Language?
    /// The words accepted so far (as in the word list), to show them.
    public var words: [String] {
        let list = Wordlist.of(language ?? .english)
        return wordIndexes.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: 2).map { list.words[Int(bytes[$0]) << 8 | Int(bytes[$0 + 1])] }
        }
    }
    /// The validated mnemonic and passphrase, once the words pass the checksum.
    public private(set) var mnemonic: Mnemonic?
    public private(set) var passphrase = SecretBytes([])

    public let purpose: Purpose

    public init(purpose: Purpose = .wallet) {
        self.purpose = purpose
        if case .recoveryPhrase(let count) = purpose {
            wordCount = count
            state = .enteringWord(position: 1)
        }
    }

    /// A wallet's recovery from a phrase known whole (a file, a paste): the network, the words
    /// and the passphrase sent in one go, so the flow stands at `.confirmingAddresses` — the
    /// first addresses still need the person's confirmation before anything is saved.
    public init(phrase mnemonic: Mnemonic, network: Network, passphrase: SecretBytes) {
        self.init()
        send(.network(network))
        send(.word(SecretBytes(utf8: mnemonic.phrase)))
        send(.passphrase(passphrase))
    }

    /// The state after a valid set of words.
    private var afterTheWords: State { purpose == .wallet ? .enteringPassphrase : .done }

    /// The chains whose first address is shown for confirmation.
    public var confirmationChains: [Chain] {
        network.confirmationChains
    }

    /// Applies `event`: taken (see `state`), or refused with the problem (also in `problem`).
    @discardableResult
    public mutating func send(_ event: Event) -> FlowStep<Problem> {
        problem = nil
        apply(event)
        return problem.map { .refused($0) } ?? .taken
    }

    private mutating func apply(_ event: Event) {
        switch (state, event) {
        case (_, .cancel): state = .cancelled
        case (.choosingNetwork, .network(let n)):
            network = n
            state = .choosingWordCount
        case (.choosingWordCount, .wordCount(let n)):
            guard Mnemonic.wordCounts.contains(n) else { problem = .invalidWordCount(n); return }
            wordCount = n
            wordIndexes = SecretBytes([])
            language = nil
            state = .enteringWord(position: 1)
        case (.choosingWordCount, .word(let text)) where RecoveryFlow.wordCount(text) > 1,
             (.enteringWord, .word(let text)) where RecoveryFlow.wordCount(text) > 1:
            acceptPhrase(text)
        case (.enteringWord(let position), .word(let text)):
            acceptWord(text, at: position)
        case (.enteringWord, .back) where editing != nil:
            // Back out of correcting one word: the words are as they were.
            editing = nil
            state = mnemonic == nil ? .checksumFailed : .reviewing
        case (.enteringWord(1), .back) where purpose != .wallet:
            problem = .notApplicable
        case (.enteringWord(let position), .back):
            if position > 1 {
                wordIndexes = wordIndexes.slice(0..<(wordIndexes.count - 2))
                state = .enteringWord(position: position - 1)
            } else {
                state = .choosingWordCount
            }
        case (.checksumFailed, .edit(let position)), (.reviewing, .edit(let position)):
            guard position >= 1, position <= enteredCount else { problem = .invalidPosition(position, wordCount: enteredCount); return }
            // Re-enter from `position`: the words after it are kept in place.
            editing = position
            state = .enteringWord(position: position)
        case (.enteringPassphrase, .passphrase(let secret)):
            passphrase = secret
            guard let mnemonic else { return }
            let keys = HDWallet(mnemonic: mnemonic, passphrase: secret)
            let addresses = confirmationChains.compactMap { try? keys.addresses(chain: $0, count: 1).first }
            state = .confirmingAddresses(addresses)
        case (.confirmingAddresses, .confirm): state = .done
        case (.confirmingAddresses, .correct): state = .reviewing
        case (.reviewing, .editPassphrase): state = .enteringPassphrase
        case (.reviewing, .network(let n)):
            network = n
            state = .enteringPassphrase
            send(.passphrase(passphrase))
        case (.confirmingAddresses, .reject), (.checksumFailed, .reject), (.reviewing, .reject):
            self = RecoveryFlow(purpose: purpose)
        default:
            problem = .notApplicable
        }
    }

    /// When re-entering one word after a checksum failure, its position.
    private var editing: Int?

    private mutating func acceptWord(_ typed: SecretBytes, at position: Int) {
        let text = RecoveryFlow.normalized(typed.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        guard !text.isEmpty else { problem = .unknownWord(position: position, suggestions: []); return }
        let candidates: [Language] = language.map { [$0] } ?? ([.english] + Language.allCases.filter { $0 != .english })
        for l in candidates {
            let list = Wordlist.of(l)
            if let index = list.resolve(text) {
                language = l
                let bytes = [UInt8(index >> 8), UInt8(index & 0xFF)]
                if let editing {
                    var indexes = wordIndexes.unsafeCopy()
                    defer { SecretBytes.wipe(&indexes) }
                    indexes.replaceSubrange((2 * editing - 2)..<(2 * editing), with: bytes)
                    wordIndexes = SecretBytes(indexes)
                    self.editing = nil
                    finishIfComplete(force: true)
                    return
                }
                wordIndexes = SecretBytes(wordIndexes.withUnsafeBytes { Array($0) } + bytes)
                finishIfComplete(force: false)
                if case .enteringWord = state { state = .enteringWord(position: position + 1) }
                return
            }
        }
        let list = Wordlist.of(language ?? .english)
        let prefixed = list.suggestions(forPrefix: text, limit: 6)
        let position = editing ?? position
        if prefixed.count > 1 {
            problem = .ambiguousPrefix(position: position, candidates: prefixed)
        } else if let language, Language.allCases.contains(where: { $0 != language && Wordlist.of($0).resolve(text) != nil }) {
            problem = .wrongLanguage(position: position, expected: language)
        } else {
            problem = .unknownWord(position: position, suggestions: prefixed.isEmpty ? list.closestWords(to: text) : prefixed)
        }
    }

    private var enteredCount: Int { wordIndexes.count / 2 }

    private mutating func finishIfComplete(force: Bool) {
        guard enteredCount == wordCount || force else { return }
        guard enteredCount == wordCount else { state = .enteringWord(position: enteredCount + 1); return }
        let language = self.language ?? .english
        do {
            mnemonic = try Mnemonic(text: words.joined(separator: " "), language: language)
            state = afterTheWords
        } catch {
            mnemonic = nil
            state = .checksumFailed
            if let error = error as? MnemonicError, case .electrumSeed = error { problem = .invalidPhrase(error.description) }
        }
    }

    private mutating func acceptPhrase(_ secret: SecretBytes) {
        let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        if case .recoveryPhrase(let expected) = purpose, RecoveryFlow.split(text).count != expected {
            problem = .wrongLength(RecoveryFlow.split(text).count, expected: expected)
            return
        }
        do {
            let m = try Mnemonic(text: text)
            mnemonic = m
            wordCount = m.wordCount
            language = m.language
            wordIndexes = RecoveryFlow.indexes(of: RecoveryFlow.split(text), in: m.language)
            state = afterTheWords
        } catch MnemonicError.checksumMismatch(let language) {
            // Every word is real, one is wrong: keep them all and let the person fix that one.
            let indexes = RecoveryFlow.indexes(of: RecoveryFlow.split(text), in: language)
            mnemonic = nil
            self.language = language
            wordCount = indexes.count / 2
            wordIndexes = indexes
            state = .checksumFailed
        } catch let error as MnemonicError {
            problem = .invalidPhrase(error.description)
        } catch {
            problem = .invalidPhrase("not a valid mnemonic")
        }
    }

    /// A typed word as the word lists hold them: trimmed, lower case, NFKD.
    static func normalized(_ typed: String) -> String {
        typed.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().decomposedStringWithCompatibilityMapping
    }

    static func split(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0.isWhitespace })
    }

    /// How many words `text` holds.
    static func wordCount(_ text: SecretBytes) -> Int {
        text.withUnsafeBytes { split(String(decoding: $0, as: UTF8.self)).count }
    }

    /// The word-list indexes of `words` (those in the list), two bytes each.
    static func indexes(of words: [Substring], in language: Language) -> SecretBytes {
        let list = Wordlist.of(language)
        var bytes: [UInt8] = []
        defer { SecretBytes.wipe(&bytes) }
        for word in words {
            if let index = list.resolve(normalized(String(word))) { bytes += [UInt8(index >> 8), UInt8(index & 0xFF)] }
        }
        return SecretBytes(bytes)
    }
}
