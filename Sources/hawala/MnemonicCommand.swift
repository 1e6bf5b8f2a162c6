import ArgumentParser
import HawalaKeys

struct MnemonicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mnemonic",
        abstract: "Generate, validate and complete BIP39 mnemonics.",
        subcommands: [Generate.self, Validate.self, Suggest.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new mnemonic from the system's random number generator.",
            discussion: "Anyone who sees these words controls the funds: run it where nobody is watching and write the words down.")

        @Option(help: "Number of words: 12, 15, 18, 21 or 24.")
        var words: Int = 12

        @Option(help: "Word list language (english, japanese, korean, spanish, chinese-simplified, chinese-traditional, french, italian, czech, portuguese).")
        var language: Language = .english

        func validate() throws {
            guard Mnemonic.wordCounts.contains(words) else {
                throw ValidationError("--words must be 12, 15, 18, 21 or 24")
            }
        }

        func run() throws {
            let mnemonic = try Mnemonic.generate(wordCount: words, language: language)
            print(mnemonic.phrase)
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a mnemonic read from standard input (first line).",
            discussion: "Prints \"valid (<language>, <N> words)\" and exits 0, or names the problem on stderr and exits 1.")

        @Option(help: "Expect this language instead of detecting it.")
        var language: Language?

        func run() throws {
            let phrase = try Input.readMnemonic()
            do {
                let mnemonic = try Mnemonic(phrase: phrase, language: language)
                print("valid (\(mnemonic.language.displayName), \(mnemonic.wordCount) words)")
            } catch let e as MnemonicError {
                throw CLIError(e.description)
            }
        }
    }

    struct Suggest: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the words that start with a prefix, one a line.")

        @Argument(help: "The beginning of a word.")
        var prefix: String

        @Option(help: "Word list language.")
        var language: Language = .english

        func run() throws {
            let words = Wordlist.of(language).suggestions(forPrefix: prefix, limit: 2048)
            guard !words.isEmpty else { throw CLIError("no \(language.displayName) word starts with \"\(prefix.prefix(40))\"") }
            print(words.joined(separator: "\n"))
        }
    }
}
