import Foundation
import HawalaCrypto
import HawalaKeys

/// The seed backup flow (seed 000) as a state machine with no I/O: why it matters → the words →
/// a quiz on 3–5 random positions → confirmation. A terminal or a SwiftUI view renders `state`
/// and sends events; randomness comes in so tests can fix the positions.
public struct SeedBackupFlow: Sendable {
    public enum State: Sendable, Equatable {
        /// Why the backup matters; next: the words, or back up later.
        case intro
        /// The words are shown, one per line, numbered from 1.
        case showingWords
        /// Asking for the word at `position` (1-based); `question` counts from 0.
        case quiz(question: Int, position: Int)
        /// The answer for `position` was wrong: answer it again (in place, the questions
        /// answered kept), or see the words again.
        case wrongAnswer(position: Int)
        /// Every answer was right: the person confirms they keep the words safe.
        case confirming
        /// Done: the wallet is backed up.
        case backedUp
        /// "Back up later": the wallet stays not backed up and reminders follow.
        case skipped
    }

    public enum Event: Sendable, Equatable {
        /// Move on (intro → words → quiz).
        case proceed
        /// Back up later.
        case skip
        case answer(String)
        /// Try the same question again.
        case retry
        /// Go back to the words; the quiz restarts with new positions.
        case showWordsAgain
        /// The final confirmation.
        case confirm
    }

    /// Why an event was refused.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The event does not belong to the current state (a front end's mistake).
        case notApplicable(Event, State)

        public var description: String {
            switch self {
            case let .notApplicable(event, state): "\(event) does not apply while \(state)"
            }
        }
    }

    public private(set) var state: State = .intro
    /// Why the last event was refused; nil after a taken one.
    public private(set) var problem: Problem?
    /// The quiz positions (1-based), in the order asked.
    public private(set) var positions: [Int]
    /// Wrong answers so far.
    public private(set) var mistakes = 0
    public var wordCount: Int { mnemonic.wordCount }

    private let mnemonic: Mnemonic
    private let random: @Sendable (Int) -> Int

    /// Where the flow begins: right after `create` at the intro; `verify-backup` at the quiz.
    public enum Start: Sendable { case intro, words, quiz }

    /// - Parameters:
    ///   - random: a uniform integer in `0..<bound` (the system CSPRNG by default).
    public init(mnemonic: Mnemonic, random: @escaping @Sendable (Int) -> Int = SeedBackupFlow.systemRandom, start: Start = .intro) {
        self.mnemonic = mnemonic
        self.random = random
        positions = SeedBackupFlow.pickPositions(wordCount: mnemonic.wordCount, random: random)
        switch start {
        case .intro: state = .intro
        case .words: state = .showingWords
        case .quiz: state = .quiz(question: 0, position: positions[0])
        }
    }

    /// libsodium's unbiased uniform integers from the operating system's CSPRNG.
    public static let systemRandom: @Sendable (Int) -> Int = { Int(SystemRandom.uniform(UInt32($0))) }

    /// 3–5 distinct positions, in random order.
    static func pickPositions(wordCount: Int, random: (Int) -> Int) -> [Int] {
        let count = 3 + random(3)
        var pool = Array(1...wordCount)
        var picked: [Int] = []
        for _ in 0..<count { picked.append(pool.remove(at: random(pool.count))) }
        return picked
    }

    /// The words to show in `showingWords` (NFC). Handle with care.
    public var words: [String] { mnemonic.words }

    /// Applies `event`; refuses events that don't belong to the current state.
    @discardableResult
    public mutating func send(_ event: Event) -> FlowStep<Problem> {
        problem = nil
        switch (state, event) {
        case (.intro, .proceed): state = .showingWords
        case (.intro, .skip), (.showingWords, .skip), (.quiz, .skip), (.wrongAnswer, .skip), (.confirming, .skip): state = .skipped
        case (.showingWords, .proceed): state = .quiz(question: 0, position: positions[0])
        case (.quiz(_, let position), .answer(let text)), (.wrongAnswer(let position), .answer(let text)):
            let question = positions.firstIndex(of: position) ?? 0
            if mnemonic.matches(text, at: position) {
                let next = question + 1
                state = next < positions.count ? .quiz(question: next, position: positions[next]) : .confirming
            } else {
                mistakes += 1
                state = .wrongAnswer(position: position)
            }
        case (.wrongAnswer(let position), .retry):
            let question = positions.firstIndex(of: position)!
            state = .quiz(question: question, position: position)
        case (.wrongAnswer, .showWordsAgain), (.quiz, .showWordsAgain):
            positions = SeedBackupFlow.pickPositions(wordCount: wordCount, random: random)
            state = .showingWords
        case (.confirming, .confirm): state = .backedUp
        default:
            problem = .notApplicable(event, state)
            return .refused(.notApplicable(event, state))
        }
        return .taken
    }
}
