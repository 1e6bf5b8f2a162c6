import Foundation
import HawalaCrypto

/// How hard a password is to guess, estimated the way zxcvbn does (Wheeler, USENIX
/// Security 2016): the password is split into the pieces an attacker would try first — common
/// passwords, words and names (also reversed, capitalised or in l33t), keyboard walks, repeats,
/// sequences, years and dates — and the cheapest split gives the number of guesses. Cross-checked
/// against PyPI's zxcvbn in the tests.
public struct PasswordStrength: Sendable, Equatable {
    /// log2 of the estimated guesses.
    public let bits: Int
    /// The most guessable kind of piece the estimate found, when it found any.
    public let weakness: Weakness?

    public var rating: String { bits < 60 ? "weak" : bits < 80 ? "fair" : "strong" }

    /// Shortest backup password accepted.
    public static var minimumLength: Int { PasswordUse.backup.minimumLength }
    /// Weakest estimate accepted for a backup password.
    public static var minimumBits: Int { PasswordUse.backup.minimumBits }

    /// Why a password is easier to guess than its length suggests (never quoting it).
    public enum Weakness: Sendable, Equatable, CustomStringConvertible {
        case commonPassword
        case commonWord
        case keyboardPattern
        case repeats
        case sequence
        case yearOrDate

        public var description: String {
            switch self {
            case .commonPassword: "it is or contains a common password"
            case .commonWord: "it is built from common words or names"
            case .keyboardPattern: "it follows a keyboard pattern"
            case .repeats: "it repeats characters or a group of characters"
            case .sequence: "it contains a sequence such as abc or 123"
            case .yearOrDate: "it contains a year or a date"
            }
        }
    }

    public init(_ password: String, now: Date = Date()) {
        let estimate = PasswordEstimator(password, referenceYear: Calendar(identifier: .gregorian).component(.year, from: now)).estimate()
        bits = Int(log2(max(1, estimate.guesses)))
        // The kind of piece that covers most of the password (ties: the more guessable kind).
        weakness = estimate.sequence.compactMap { m in m.weakness.map { (kind: $0.kind, rank: $0.rank, length: m.j - m.i + 1) } }
            .min { ($1.length, $0.rank) < ($0.length, $1.rank) }.map(\.kind)
    }

    /// Checks a new password for `use`: its strength when accepted. One estimator for every
    /// password a person chooses, with a bar for each use.
    /// - Throws: `PasswordRefusal` saying why not.
    public static func check(_ password: SecretBytes, for use: PasswordUse = .backup) throws(PasswordRefusal) -> PasswordStrength {
        guard let text = password.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else { throw .notText(use) }
        // Characters as Unicode scalars: a letter with accents typed as several is several.
        guard text.unicodeScalars.count >= use.minimumLength else { throw .tooShort(use, minimum: use.minimumLength) }
        let strength = PasswordStrength(text)
        guard strength.bits >= use.minimumBits else { throw .tooEasy(use, bits: strength.bits, minimum: use.minimumBits, weakness: strength.weakness) }
        return strength
    }
}

extension PasswordStrength {
    /// What a strength meter says while a new password is typed: whether `check` would take
    /// it, its rating, and why not in the words a refusal uses.
    public struct Meter: Sendable, Equatable {
        public let acceptable: Bool
        /// "weak", "fair" or "strong".
        public let rating: String
        public let words: String
    }

    public static func meter(_ password: SecretBytes, for use: PasswordUse) -> Meter {
        do {
            let strength = try check(password, for: use)
            return Meter(acceptable: true, rating: strength.rating, words: "Strength: \(strength.rating). Good enough for \(use.noun).")
        } catch {
            let text = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            let rating = PasswordStrength(text).rating
            return Meter(acceptable: false, rating: rating, words: "Not yet: " + error.description + ".")
        }
    }
}

/// What a password protects, and so how hard it must be to guess (decision 0011). A backup
/// password guards a file that leaves the machine — to a vault, a USB stick, a cloud — where it
/// can be attacked offline for ever. A wallet password guards the wallets on this machine: an
/// attacker first needs the file, and each guess costs an Argon2id run of 64 MiB. So the
/// wallet's bar is lower — zxcvbn's "safely unguessable" (10^8 guesses, about 26 bits: moderate
/// protection against an offline slow hash) —, but it is a bar: common passwords are refused.
public enum PasswordUse: Sendable, Equatable {
    case wallet
    case backup

    public var minimumLength: Int { self == .wallet ? 8 : 10 }
    /// The weakest estimate accepted, in bits.
    public var minimumBits: Int { self == .wallet ? 26 : 60 }

    var noun: String { self == .wallet ? "the wallet password" : "the backup password" }
}

/// Why a new password is refused (never quoting it).
public enum PasswordRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case notText(PasswordUse)
    case tooShort(PasswordUse, minimum: Int)
    case tooEasy(PasswordUse, bits: Int, minimum: Int, weakness: PasswordStrength.Weakness?)

    public var description: String {
        switch self {
        case .notText(let use): "\(use.noun) is not valid UTF-8 text"
        case let .tooShort(use, minimum): "\(use.noun) must have at least \(minimum) characters"
        case let .tooEasy(use, _, _, weakness):
            "\(use.noun) is too easy to guess: \(weakness?.description ?? "it is short for what it protects"); use four or more random words, or a longer passphrase"
        }
    }
}

/// One recognised piece `i...j` of a password and the guesses it costs an attacker.
struct PasswordMatch {
    enum Pattern: Equatable {
        case dictionary(list: PasswordDictionary.List)
        case spatial, repeats, sequence, year, date, bruteforce
    }
    let i: Int
    let j: Int
    let pattern: Pattern
    let guesses: Double

    var weakness: (kind: PasswordStrength.Weakness, rank: Int)? {
        switch pattern {
        case .dictionary(let list): list == .passwords ? (.commonPassword, 0) : (.commonWord, 5)
        case .spatial: (.keyboardPattern, 1)
        case .repeats: (.repeats, 2)
        case .sequence: (.sequence, 3)
        case .year, .date: (.yearOrDate, 4)
        case .bruteforce: nil
        }
    }
}

/// zxcvbn's estimate: every match of every kind, then the split of the whole password into
/// matches (and brute-forced gaps) with the fewest guesses.
struct PasswordEstimator {
    /// Guesses before a split into one more piece starts to pay (zxcvbn's constant).
    static let minimumGuessesBeforeGrowingSequence = 10_000.0
    /// Longer passwords are estimated on their first characters; the rest is brute force.
    static let analysedLength = 100

    let characters: [Character]
    let lower: [Character]
    let referenceYear: Int

    init(_ password: String, referenceYear: Int) {
        characters = Array(password.prefix(PasswordEstimator.analysedLength))
        lower = characters.map { c in
            let l = String(c).lowercased()
            return l.count == 1 ? Character(l) : c
        }
        self.referenceYear = referenceYear
    }

    func estimate() -> (guesses: Double, sequence: [PasswordMatch]) {
        let n = characters.count
        guard n > 0 else { return (1, []) }
        var byEnd = [[PasswordMatch]](repeating: [], count: n)
        for m in matches() { byEnd[m.j].append(m) }

        // optimal[k][l]: the best split of 0...k into l pieces (product of guesses, the last piece).
        struct Best { var product: Double; var total: Double; var match: PasswordMatch }
        var optimal = [[Int: Best]](repeating: [:], count: n)

        func update(_ m: PasswordMatch, _ l: Int) {
            var product = piece(m)
            if l > 1 { product *= optimal[m.i - 1][l - 1]!.product }
            let total = factorial(l) * product + pow(PasswordEstimator.minimumGuessesBeforeGrowingSequence, Double(l - 1))
            for (other, best) in optimal[m.j] where other <= l && best.total <= total { return }
            optimal[m.j][l] = Best(product: product, total: total, match: m)
        }

        for k in 0..<n {
            for m in byEnd[k] {
                if m.i > 0 {
                    for l in optimal[m.i - 1].keys { update(m, l + 1) }
                } else {
                    update(m, 1)
                }
            }
            update(bruteforce(0, k), 1)
            for i in 1...max(1, k) where i <= k {
                let m = bruteforce(i, k)
                for (l, best) in optimal[i - 1] where best.match.pattern != .bruteforce { update(m, l + 1) }
            }
        }
        // Unwind the best split of the whole password.
        guard let (length, best) = optimal[n - 1].min(by: { $0.value.total < $1.value.total }) else { return (pow(10, Double(n)), []) }
        var sequence: [PasswordMatch] = []
        var k = n - 1, l = length
        while k >= 0, l > 0, let step = optimal[k][l] {
            sequence.insert(step.match, at: 0)
            k = step.match.i - 1
            l -= 1
        }
        return (best.total, sequence)
    }

    /// A match's guesses, never below zxcvbn's floor for a piece of a longer password.
    private func piece(_ m: PasswordMatch) -> Double {
        let length = m.j - m.i + 1
        guard length < characters.count else { return max(1, m.guesses) }
        return max(m.guesses, length == 1 ? 10 : 50)
    }

    private func bruteforce(_ i: Int, _ j: Int) -> PasswordMatch {
        let length = j - i + 1
        let guesses = max(pow(10, Double(length)), length == 1 ? 11 : 51)
        return PasswordMatch(i: i, j: j, pattern: .bruteforce, guesses: guesses)
    }

    private func factorial(_ l: Int) -> Double { (1...max(1, l)).reduce(1.0) { $0 * Double($1) } }

    func matches() -> [PasswordMatch] {
        dictionaryMatches() + l33tMatches() + spatialMatches() + repeatMatches() + sequenceMatches() + yearAndDateMatches()
    }

    // MARK: Words

    static let longestWord = 32

    func dictionaryMatches() -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let dictionary = PasswordDictionary.shared
        let n = lower.count
        for i in 0..<n {
            for j in i..<min(n, i + PasswordEstimator.longestWord) {
                let token = String(lower[i...j])
                let original = characters[i...j]
                if let entry = dictionary.entry(token) {
                    found.append(PasswordMatch(i: i, j: j, pattern: .dictionary(list: entry.list),
                                               guesses: Double(entry.rank) * uppercaseVariations(original)))
                }
                if j > i, let entry = dictionary.entry(String(token.reversed())) {
                    found.append(PasswordMatch(i: i, j: j, pattern: .dictionary(list: entry.list),
                                               guesses: Double(entry.rank) * uppercaseVariations(original) * 2))
                }
            }
        }
        return found
    }

    /// zxcvbn's capitalisation factor: all lower 1; first, last or all upper 2; otherwise the
    /// ways to place that many capitals.
    func uppercaseVariations(_ token: ArraySlice<Character>) -> Double {
        let word = Array(token)
        let uppers = word.filter(\.isUppercase).count
        let lowers = word.filter(\.isLowercase).count
        if uppers == 0 { return 1 }
        if lowers == 0 || (uppers == 1 && (word.first!.isUppercase || word.last!.isUppercase)) { return 2 }
        return (1...min(uppers, lowers)).reduce(0.0) { $0 + choose(uppers + lowers, $1) }
    }

    /// Substitutions people make for letters (zxcvbn's table).
    static let l33t: [Character: [Character]] = [
        "4": ["a"], "@": ["a"], "8": ["b"], "(": ["c"], "{": ["c"], "[": ["c"], "<": ["c"], "3": ["e"],
        "6": ["g"], "9": ["g"], "1": ["i", "l"], "!": ["i"], "|": ["i", "l"], "7": ["l", "t"], "0": ["o"],
        "$": ["s"], "5": ["s"], "+": ["t"], "%": ["x"], "2": ["z"],
    ]

    func l33tMatches() -> [PasswordMatch] {
        let present = Array(Set(lower.filter { PasswordEstimator.l33t[$0] != nil })).sorted()
        guard !present.isEmpty else { return [] }
        // Every way to read the substitutions present (each symbol stands for one letter), at most 16.
        var readings: [[Character: Character]] = [[:]]
        for symbol in present {
            readings = readings.flatMap { r in PasswordEstimator.l33t[symbol]!.map { r.merging([symbol: $0]) { a, _ in a } } }
            if readings.count > 16 { readings = Array(readings.prefix(16)) }
        }
        var found: [PasswordMatch] = []
        let dictionary = PasswordDictionary.shared
        let n = lower.count
        for reading in readings {
            let plain = lower.map { reading[$0] ?? $0 }
            for i in 0..<n {
                for j in i..<min(n, i + PasswordEstimator.longestWord) where j > i {
                    let subbed = (i...j).filter { reading[lower[$0]] != nil }
                    guard !subbed.isEmpty, let entry = dictionary.entry(String(plain[i...j])) else { continue }
                    // Each symbol used: how many of its letter's places it takes.
                    var variations = 1.0
                    for symbol in Set(subbed.map { lower[$0] }) {
                        let s = (i...j).filter { lower[$0] == symbol }.count
                        let u = (i...j).filter { lower[$0] == reading[symbol]! }.count
                        variations *= u == 0 ? 2 : (1...min(u, s)).reduce(0.0) { $0 + choose(u + s, $1) }
                    }
                    found.append(PasswordMatch(i: i, j: j, pattern: .dictionary(list: entry.list),
                                               guesses: Double(entry.rank) * uppercaseVariations(characters[i...j]) * variations))
                }
            }
        }
        return found
    }

    // MARK: Keyboard walks

    func spatialMatches() -> [PasswordMatch] {
        let keyboard = Keyboard.qwerty
        var found: [PasswordMatch] = []
        var i = 0
        let n = characters.count
        while i < n - 2 {
            var j = i
            var turns = 0
            var lastDirection: Int?
            var shifted = keyboard.isShifted(characters[i]) ? 1 : 0
            while j + 1 < n, let direction = keyboard.direction(from: characters[j], to: characters[j + 1]) {
                if direction != lastDirection { turns += 1; lastDirection = direction }
                if keyboard.isShifted(characters[j + 1]) { shifted += 1 }
                j += 1
            }
            if j - i >= 2 {
                found.append(PasswordMatch(i: i, j: j, pattern: .spatial, guesses: spatialGuesses(length: j - i + 1, turns: turns, shifted: shifted, keyboard: keyboard)))
            }
            i = j > i ? j : i + 1
        }
        return found
    }

    func spatialGuesses(length: Int, turns: Int, shifted: Int, keyboard: Keyboard) -> Double {
        let s = Double(keyboard.keyCount), d = keyboard.averageDegree
        var guesses = 0.0
        for i in 2...length {
            for j in 1...min(turns, i - 1) {
                guesses += choose(i - 1, j - 1) * s * pow(d, Double(j))
            }
        }
        let unshifted = length - shifted
        if shifted > 0 {
            guesses *= unshifted == 0 ? 2 : (1...min(shifted, unshifted)).reduce(0.0) { $0 + choose(shifted + unshifted, $1) }
        }
        return guesses
    }

    // MARK: Repeats and sequences

    func repeatMatches() -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let n = characters.count
        var i = 0
        while i < n - 1 {
            // The base that repeats over the longest stretch from i (the shortest such base).
            var best: (base: Int, count: Int)?
            for base in 1...((n - i) / 2) {
                var count = 1
                while i + (count + 1) * base <= n, characters[(i + count * base)..<(i + (count + 1) * base)] == characters[i..<(i + base)] { count += 1 }
                if count >= 2, base * count > (best.map { $0.base * $0.count } ?? 0) { best = (base, count) }
            }
            guard let best else { i += 1; continue }
            let base = String(characters[i..<(i + best.base)])
            let baseGuesses = PasswordEstimator(base, referenceYear: referenceYear).estimate().guesses
            found.append(PasswordMatch(i: i, j: i + best.base * best.count - 1, pattern: .repeats, guesses: baseGuesses * Double(best.count)))
            i += best.base * best.count
        }
        return found
    }

    func sequenceMatches() -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let scalars = characters.map { $0.unicodeScalars.first!.value }
        let n = scalars.count
        var i = 0
        while i < n - 2 {
            let delta = Int(scalars[i + 1]) - Int(scalars[i])
            var j = i + 1
            while j + 1 < n, Int(scalars[j + 1]) - Int(scalars[j]) == delta { j += 1 }
            if delta != 0, abs(delta) <= 5, j - i >= 2 {
                let first = characters[i]
                var base: Double = "aAzZ019".contains(first) ? 4 : first.isNumber ? 10 : 26
                if delta < 0 { base *= 2 }
                found.append(PasswordMatch(i: i, j: j, pattern: .sequence, guesses: base * Double(j - i + 1)))
                i = j
            } else {
                i += 1
            }
        }
        return found
    }

    // MARK: Years and dates

    func yearAndDateMatches() -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let n = characters.count
        func number(_ i: Int, _ j: Int) -> Int? {
            guard j < n, characters[i...j].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(String(characters[i...j]))
        }
        func yearSpace(_ year: Int) -> Double { Double(max(abs(year - referenceYear), 20)) }
        // Years 1900–2099.
        for i in 0..<max(0, n - 3) {
            if let year = number(i, i + 3), (1900...2099).contains(year) {
                found.append(PasswordMatch(i: i, j: i + 3, pattern: .year, guesses: yearSpace(year)))
            }
        }
        // Dates of 6 or 8 digits (day, month, year in any common order), and with separators.
        func dateGuesses(_ digits: String, separated: Bool) -> Double? {
            let d = digits.map { Int(String($0))! }
            func value(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + d[$1] } }
            var years: [Int] = []
            let orders: [(day: Range<Int>, month: Range<Int>, year: Range<Int>)] = d.count == 8
                ? [(0..<2, 2..<4, 4..<8), (2..<4, 0..<2, 4..<8), (6..<8, 4..<6, 0..<4)]
                : [(0..<2, 2..<4, 4..<6), (2..<4, 0..<2, 4..<6), (4..<6, 2..<4, 0..<2)]
            for o in orders {
                let day = value(o.day), month = value(o.month)
                var year = value(o.year)
                if o.year.count == 2 { year += year > 50 ? 1900 : 2000 }
                if (1...31).contains(day), (1...12).contains(month), (1000...2050).contains(year) { years.append(year) }
            }
            guard let year = years.min(by: { abs($0 - referenceYear) < abs($1 - referenceYear) }) else { return nil }
            return yearSpace(year) * 365 * (separated ? 4 : 1)
        }
        for i in 0..<n {
            for length in [6, 8] where i + length <= n {
                if number(i, i + length - 1) != nil, let g = dateGuesses(String(characters[i..<(i + length)]), separated: false) {
                    found.append(PasswordMatch(i: i, j: i + length - 1, pattern: .date, guesses: g))
                }
            }
            // d/m/yyyy, dd-mm-yy, yyyy.mm.dd…
            for length in 6...10 where i + length <= n {
                let token = characters[i..<(i + length)]
                let separators = token.filter { !($0.isASCII && $0.isNumber) }
                guard separators.count == 2, Set(separators).count == 1, let sep = separators.first, " /\\_.-".contains(sep) else { continue }
                let parts: [String] = token.split(separator: sep, omittingEmptySubsequences: false).map { String($0) }
                guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 }) else { continue }
                let last: String = parts[2].count == 4 ? parts[2] : pad(parts[2])
                let padded: String = parts[0].count == 4
                    ? parts[0] + pad(parts[1]) + pad(parts[2])
                    : pad(parts[0]) + pad(parts[1]) + last
                if [6, 8].contains(padded.count), let g = dateGuesses(padded, separated: true) {
                    found.append(PasswordMatch(i: i, j: i + length - 1, pattern: .date, guesses: g))
                }
            }
        }
        return found
    }

    private func pad(_ part: String) -> String { part.count == 1 ? "0" + part : part }
}

/// n choose k, as a Double (the counts here overflow integers).
func choose(_ n: Int, _ k: Int) -> Double {
    guard k >= 0, k <= n else { return 0 }
    var r = 1.0
    for i in 0..<min(k, n - k) { r = r * Double(n - i) / Double(i + 1) }
    return r
}
