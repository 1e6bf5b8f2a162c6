import Foundation

/// The ranked word lists of the password estimator (Resources/password-dictionary.txt, written
/// by scripts/gen_password_dictionary.py from PyPI's zxcvbn): leaked passwords, English words,
/// film and TV words, surnames and first names, each most frequent first. A word's rank is its
/// best position in any list.
struct PasswordDictionary: Sendable {
    enum List: String, Sendable, Equatable {
        case passwords, words
    }

    struct Entry: Sendable {
        let rank: Int32
        let list: List
    }

    private let entries: [String: Entry]

    func entry(_ word: String) -> Entry? { entries[word] }

    /// Loaded once, on first use. A build without the resource estimates without words (and
    /// so more leniently); the tests make sure it is there.
    static let shared = PasswordDictionary()

    private init() {
        var entries: [String: Entry] = [:]
        guard let url = Bundle.module.url(forResource: "password-dictionary", withExtension: "txt"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            self.entries = [:]
            return
        }
        var list = List.passwords
        var rank: Int32 = 0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                list = line == "@passwords" ? .passwords : .words
                rank = 0
                continue
            }
            rank += 1
            let word = String(line)
            if let existing = entries[word], existing.rank <= rank { continue }
            entries[word] = Entry(rank: rank, list: list)
        }
        self.entries = entries
    }

    var count: Int { entries.count }
}

/// A keyboard as zxcvbn models it: each key's neighbours in six directions (left, up-left,
/// up-right, right, down-right, down-left), the shifted symbol on the same key.
struct Keyboard: Sendable {
    /// Rows as printed, each offset half a key from the one above (a leading space aligns them).
    static let qwerty = Keyboard(
        rows: ["`1234567890-=", " qwertyuiop[]\\", " asdfghjkl;'", " zxcvbnm,./"],
        shiftedRows: ["~!@#$%^&*()_+", " QWERTYUIOP{}|", " ASDFGHJKL:\"", " ZXCVBNM<>?"])

    private let position: [Character: (row: Int, column: Int, shifted: Bool)]
    private let grid: [[Character?]]
    let keyCount: Int
    let averageDegree: Double

    init(rows: [String], shiftedRows: [String]) {
        var position: [Character: (Int, Int, Bool)] = [:]
        var grid: [[Character?]] = []
        for (r, row) in rows.enumerated() {
            let keys = Array(row), shifted = Array(shiftedRows[r])
            grid.append(keys.map { $0 == " " ? nil : $0 })
            for (c, key) in keys.enumerated() where key != " " {
                position[key] = (r, c, false)
                position[shifted[c]] = (r, c, true)
            }
        }
        self.position = position
        self.grid = grid
        keyCount = position.count
        var degrees = 0
        for (_, p) in position {
            degrees += Keyboard.neighbours(row: p.0, column: p.1).filter { grid.indices.contains($0.0) && grid[$0.0].indices.contains($0.1) && grid[$0.0][$0.1] != nil }.count
        }
        averageDegree = Double(degrees) / Double(max(1, position.count))
    }

    /// The six neighbouring places, in direction order.
    private static func neighbours(row r: Int, column c: Int) -> [(Int, Int)] {
        [(r, c - 1), (r - 1, c), (r - 1, c + 1), (r, c + 1), (r + 1, c), (r + 1, c - 1)]
    }

    func isShifted(_ c: Character) -> Bool { position[c]?.shifted ?? false }

    /// The direction (0–5) from one key to a neighbouring key, or nil when they aren't neighbours.
    func direction(from a: Character, to b: Character) -> Int? {
        guard let p = position[a], let q = position[b] else { return nil }
        return Keyboard.neighbours(row: p.row, column: p.column).firstIndex { $0 == (q.row, q.column) }
    }
}
