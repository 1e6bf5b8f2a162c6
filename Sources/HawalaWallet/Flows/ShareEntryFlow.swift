import HawalaKeys

/// Typing SLIP-39 shares one at a time, as a state machine with no I/O. Each share is checked
/// as it is entered; one with a wrong word is not typed again: its words are kept, the suspect
/// word is pointed out, and the person corrects one word at a time. A share that does not
/// belong with the earlier ones is refused at once. An empty entry ends the entry.
public struct ShareEntryFlow: Sendable {
    public enum State: Sendable, Equatable {
        /// Waiting for share `number` (1-based), or an empty entry to finish.
        case entering(number: Int)
        /// The typed share is refused for a reason a word may explain (`error`): correct a word
        /// (`suspect`, when known, is the likely one), give the whole share again, or drop it.
        case correcting(words: [String], error: SLIP39Error, suspect: Int?)
        /// Done: combine `shares`.
        case finished
    }

    public enum Event: Sendable, Equatable {
        /// A whole share, its words separated by spaces, tabs or commas; an empty text finishes.
        case share(String)
        /// While correcting: the word at `position` (1-based) becomes `word`.
        case word(position: Int, String)
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
            check(ShareEntryFlow.words(text))
        case (.correcting(var words, _, _), .word(let position, let word)):
            guard (1...words.count).contains(position) else { problem = .invalidPosition(position, wordCount: words.count); return }
            words[position - 1] = word.trimmingCharacters(in: .whitespaces)
            check(words)
        case (.correcting, .again):
            state = .entering(number: shares.count + 1)
        default:
            problem = .notApplicable
        }
    }

    private mutating func check(_ words: [String]) {
        let number = shares.count + 1
        let share: SLIP39Share
        do {
            share = try SLIP39Share(mnemonic: words.joined(separator: " "), number: number)
        } catch {
            switch error {
            case .unknownWord(_, let position, _, _): state = .correcting(words: words, error: error, suspect: position)
            case .invalidChecksum: state = .correcting(words: words, error: error, suspect: nil)
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

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0.isNewline }).map(String.init)
    }
}
