import Foundation

/// The ten official BIP39 languages.
public enum Language: String, CaseIterable, Sendable, Codable {
    case english, japanese, korean, spanish
    case chineseSimplified = "chinese-simplified"
    case chineseTraditional = "chinese-traditional"
    case french, italian, czech, portuguese

    /// The name shown to people, e.g. "English".
    public var displayName: String {
        switch self {
        case .english: "English"
        case .japanese: "Japanese"
        case .korean: "Korean"
        case .spanish: "Spanish"
        case .chineseSimplified: "Chinese (simplified)"
        case .chineseTraditional: "Chinese (traditional)"
        case .french: "French"
        case .italian: "Italian"
        case .czech: "Czech"
        case .portuguese: "Portuguese"
        }
    }

    /// Parses a command-line language name: `english`, `chinese-simplified`, `chinese_simplified`,
    /// or an ISO code (`en`, `ja`, `ko`, `es`, `zh-hans`, `zh-hant`, `fr`, `it`, `cs`, `pt`).
    public init?(name: String) {
        let key = name.lowercased().replacingOccurrences(of: "_", with: "-")
        if let language = Language(rawValue: key) { self = language; return }
        switch key {
        case "en": self = .english
        case "ja", "jp": self = .japanese
        case "ko": self = .korean
        case "es": self = .spanish
        case "zh-hans", "zh-cn", "chinese": self = .chineseSimplified
        case "zh-hant", "zh-tw": self = .chineseTraditional
        case "fr": self = .french
        case "it": self = .italian
        case "cs", "cz": self = .czech
        case "pt": self = .portuguese
        default: return nil
        }
    }

    /// The separator used when words are shown: Japanese uses the ideographic space.
    public var separator: String { self == .japanese ? "\u{3000}" : " " }

    /// Whether the first four letters identify a word (and unique prefixes are accepted).
    var acceptsPrefixes: Bool { self != .chineseSimplified && self != .chineseTraditional && self != .japanese && self != .korean }

    var fileName: String { rawValue.replacingOccurrences(of: "-", with: "_") }
}

/// One word list — BIP39's 2048 words of a language, or SLIP-39's 1024 English words — loaded
/// from the package's resources (see `Resources/wordlists/README.md` for their source) and
/// indexed by their NFKD form.
public final class Wordlist: Sendable {
    /// The language of this list.
    public let language: Language
    /// The words in list order, NFKD-normalized as published.
    public let words: [String]
    private let index: [String: Int]
    private let foldedIndex: [String: Int]
    private let sorted: [(key: [UInt8], index: Int)]

    private convenience init(language: Language) {
        self.init(resource: language.fileName, count: 2048, language: language)
    }

    private init(resource: String, count: Int, language: Language) {
        self.language = language
        guard let url = Bundle.module.url(forResource: resource, withExtension: "txt", subdirectory: "wordlists"),
              let text = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("word list \(resource).txt is missing from the package resources") }
        // The published lists are NFKD already (a test checks), so no normalization here.
        let list = text.split(whereSeparator: \.isNewline).map(String.init)
        precondition(list.count == count, "word list \(resource).txt must hold \(count) words")
        words = list
        var index = [String: Int](minimumCapacity: count)
        for (i, w) in list.enumerated() { index[w] = i }
        self.index = index
        // Accent-free forms (ábaco → abaco) are accepted when they name one word only.
        var folded = [String: Int]()
        var ambiguous = Set<String>()
        for (i, w) in list.enumerated() {
            let f = Wordlist.fold(w)
            guard f != w else { continue }
            if folded[f] != nil || index[f] != nil { ambiguous.insert(f) } else { folded[f] = i }
        }
        for a in ambiguous { folded[a] = nil }
        foldedIndex = folded
        sorted = list.enumerated().map { (Array($0.element.utf8), $0.offset) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }

    /// Removes combining marks from an NFKD string.
    static func fold(_ nfkd: String) -> String {
        String(String.UnicodeScalarView(nfkd.unicodeScalars.filter { !(0x300...0x36F).contains($0.value) }))
    }

    private static let lists: [Language: Wordlist] = {
        var all = [Language: Wordlist]()
        for l in Language.allCases { all[l] = Wordlist(language: l) }
        return all
    }()

    /// The word list of `language`.
    public static func of(_ language: Language) -> Wordlist { lists[language]! }

    /// SLIP-39's 1024 English words; each is identified by its first four letters.
    public static let slip39 = Wordlist(resource: "slip39", count: 1024, language: .english)

    /// The word at `index` in NFC, the form shown to people.
    public func displayWord(at index: Int) -> String { words[index].precomposedStringWithCanonicalMapping }

    /// The index (0…2047, or 0…1023 for SLIP-39) of an NFKD-normalized word, if it is in the list exactly.
    public func exactIndex(of word: String) -> Int? { index[word] }

    /// Resolves what a person typed — the exact word, the word without its accents, or a unique
    /// prefix of at least four letters — to the word's index.
    public func resolve(_ typed: String) -> Int? {
        if let i = index[typed] { return i }
        if let i = foldedIndex[typed] { return i }
        guard language.acceptsPrefixes, typed.unicodeScalars.count >= 4 else { return nil }
        let matches = prefixMatches(typed, limit: 2)
        return matches.count == 1 ? matches[0] : nil
    }

    private func prefixMatches(_ prefix: String, limit: Int) -> [Int] {
        let p = Array(prefix.utf8)
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].key.lexicographicallyPrecedes(p) { lo = mid + 1 } else { hi = mid }
        }
        var out = [Int]()
        var i = lo
        while i < sorted.count, sorted[i].key.starts(with: p), out.count < limit {
            out.append(sorted[i].index)
            i += 1
        }
        return out
    }

    /// Words starting with `prefix` (any normalization; case-insensitive), in alphabetical order,
    /// for autocomplete.
    public func suggestions(forPrefix prefix: String, limit: Int = 10) -> [String] {
        let p = prefix.lowercased().decomposedStringWithCompatibilityMapping
        guard !p.isEmpty else { return [] }
        var hits = prefixMatches(p, limit: limit)
        if hits.isEmpty {
            let folded = Wordlist.fold(p)
            let f = Array(folded.utf8)
            hits = sorted.filter { Array(Wordlist.fold(String(decoding: $0.key, as: UTF8.self)).utf8).starts(with: f) }
                .prefix(limit).map(\.index)
        }
        return hits.map(displayWord(at:))
    }

    /// The valid words closest to a mistyped one: prefix matches first, then words within two
    /// edits, at most `limit`.
    public func closestWords(to typed: String, limit: Int = 3) -> [String] {
        var result = suggestions(forPrefix: typed, limit: limit)
        guard result.count < limit else { return result }
        let target = Array(typed.unicodeScalars)
        var scored = [(Int, Int)]()
        for (i, w) in words.enumerated() {
            let d = Wordlist.editDistance(target, Array(w.unicodeScalars), cap: 2)
            if d <= 2 { scored.append((d, i)) }
        }
        scored.sort { $0 < $1 }
        for (_, i) in scored where result.count < limit && !result.contains(displayWord(at: i)) {
            result.append(displayWord(at: i))
        }
        return result
    }

    /// Levenshtein distance, giving up (returning cap + 1) once it exceeds `cap`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], cap: Int) -> Int {
        if abs(a.count - b.count) > cap { return cap + 1 }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            var rowMin = current[0]
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > cap { return cap + 1 }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
