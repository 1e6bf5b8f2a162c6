import HawalaCrypto
import HawalaKeys

/// Typing SLIP-39 shares one at a time, as a state machine with no I/O. Each share is checked
/// as it is entered; one with a wrong word is not typed again: its words are kept, the suspect
/// word is pointed out, and the person corrects one word at a time. A share that does not
/// belong with the earlier ones is refused at once. An empty entry ends the entry.
public struct ShareEntryFlow: Sendable {
    public enum State: Sendable, Equatable {
        /// Waiting for share `number` (1-based), or an empty entry to finish.
        case entering(number: Int)
        /// The typed share (of `wordCount` words, in `wordsBeingCorrected`) is refused for a
        /// reason a word may explain (`error`): correct a word (`suspect`, when known, is the
        /// likely one), give the whole share again, or drop it.
        case correcting(wordCount: Int, error: SLIP39Error, suspect: Int?)
        /// Done: combine `shares`.
        case finished
    }

    /// What a person types. Shares are secret: they arrive as `SecretBytes` (UTF-8) and are
    /// never kept as a `String`.
    public enum Event: Sendable, Equatable {
        /// A whole share, its words separated by spaces, tabs or commas; an empty text finishes.
        case share(SecretBytes)
        /// While correcting: the word at `position` (1-based) becomes `word`.
        case word(position: Int, SecretBytes)
        /// While correcting: drop this share and type it again.
        case again
    }

    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The share cannot be read (too short, an impossible length…): type it again.
        case invalidShare(SLIP39Error)
        /// It is a valid share, but of another secret or layout than the earlier ones.
        case notWithTheOthers(SLIP39Error)
        /// An empty entry before any share.
        case noShares
        case invalidPosition(Int, wordCount: Int)
        case notApplicable

        public var description: String {
            switch self {
            case .invalidShare(let error): "\(error) — type it again"
            case .notWithTheOthers(let error): "\(error) — this share was not added"
            case .noShares: "no shares entered"
            case let .invalidPosition(n, count): "there is no word \(n): choose a number from 1 to \(count)"
            case .notApplicable: "not possible at this step"
            }
        }
    }

    /// Where a group stands after a share was added to it.
    public struct Progress: Sendable, Equatable {
        /// 1-based.
        public let group: Int
        public let groupCount: Int
        /// Distinct shares of this group entered so far.
        public let have: Int
        public let memberThreshold: Int
        public let groupThreshold: Int
    }

    public private(set) var state = State.entering(number: 1)
    public private(set) var problem: Problem?
    /// The shares accepted so far.
    public private(set) var shares: [SLIP39Share] = []
    /// The group of the share accepted by the last event; nil when the last event added none.
    public private(set) var added: Progress?
    /// The share being corrected: its words, one after another, separated by spaces.
    private var pending = SecretBytes([])

    /// The words of the share being corrected, to show them (a terminal's own words).
    public var wordsBeingCorrected: [String] { ShareEntryFlow.words(pending) }

    public init() {}

    @discardableResult
    public mutating func send(_ event: Event) -> FlowStep<Problem> {
        problem = nil
        added = nil
        apply(event)
        return problem.map { .refused($0) } ?? .taken
    }

    private mutating func apply(_ event: Event) {
        switch (state, event) {
        case (.entering, .share(let text)) where ShareEntryFlow.words(text).isEmpty:
            if shares.isEmpty { problem = .noShares } else { state = .finished }
        case (.entering, .share(let text)), (.correcting, .share(let text)):
            check(text)
        case (.correcting(let count, _, _), .word(let position, let word)):
            guard (1...count).contains(position) else { problem = .invalidPosition(position, wordCount: count); return }
            var words = wordsBeingCorrected
            words[position - 1] = String(decoding: word.trimmingWhitespace().unsafeCopy(), as: UTF8.self)
            check(SecretBytes(utf8: words.joined(separator: " ")))
        case (.correcting, .again):
            state = .entering(number: shares.count + 1)
        default:
            problem = .notApplicable
        }
    }

    private mutating func check(_ text: SecretBytes) {
        let number = shares.count + 1
        let words = ShareEntryFlow.words(text)
        let share: SLIP39Share
        do {
            share = try SLIP39Share(mnemonic: words.joined(separator: " "), number: number)
            pending = SecretBytes([])
        } catch {
            switch error {
            case .unknownWord(_, let position, _):
                pending = SecretBytes(utf8: words.joined(separator: " "))
                state = .correcting(wordCount: words.count, error: error, suspect: position)
            case .invalidChecksum:
                pending = SecretBytes(utf8: words.joined(separator: " "))
                state = .correcting(wordCount: words.count, error: error, suspect: nil)
            default:
                state = .entering(number: number)
                problem = .invalidShare(error)
            }
            return
        }
        if let first = shares.first, let mismatch = ShareEntryFlow.mismatch(share, first) {
            state = .entering(number: number)
            problem = .notWithTheOthers(.mismatchedShares(mismatch))
            return
        }
        if let same = shares.first(where: { $0.groupIndex == share.groupIndex && $0.memberIndex == share.memberIndex }) {
            state = .entering(number: number)
            // The same share twice (pasted again with the others) is taken once; another share
            // with the same number can't be of this split.
            if same.value != share.value { problem = .notWithTheOthers(.duplicateMemberIndex(group: share.groupIndex + 1, member: share.memberIndex + 1)) }
            return
        }
        shares.append(share)
        let have = Set(shares.filter { $0.groupIndex == share.groupIndex }.map(\.memberIndex)).count
        added = Progress(group: share.groupIndex + 1, groupCount: share.groupCount, have: have,
                         memberThreshold: share.memberThreshold, groupThreshold: share.groupThreshold)
        state = .entering(number: number + 1)
    }

    /// What differs between two shares that must be of one split.
    static func mismatch(_ a: SLIP39Share, _ b: SLIP39Share) -> String? {
        if a.identifier != b.identifier { return "different identifiers (shares of another secret)" }
        if a.iterationExponent != b.iterationExponent || a.extendable != b.extendable { return "different parameters" }
        if a.groupThreshold != b.groupThreshold || a.groupCount != b.groupCount { return "different group layouts" }
        return nil
    }

    static func words(_ text: SecretBytes) -> [String] {
        text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0.isNewline }).map(String.init)
    }
}
