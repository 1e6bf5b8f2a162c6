import ArgumentParser

/// A command line naming a command Hawala doesn't have is a usage error (exit 2) — also with
/// `--help`, where the argument parser would print the nearest command's help and exit 0, so a
/// script's typo looked like success.
enum UnknownCommand {
    /// The words of `arguments` that name commands, checked against the command tree from
    /// `root`; the unknown one and the command it was looked for under.
    static func find(in arguments: [String], root: ParsableCommand.Type) -> (word: String, parent: String)? {
        var command = root
        var path = [root._commandName]
        var words = arguments.prefix { !$0.hasPrefix("-") }[...]
        if words.first == "help" { words = words.dropFirst() }  // `hawala help ln pay`
        for word in words {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }  // the rest are the command's arguments
            guard let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else {
                return (word, path.joined(separator: " "))
            }
            command = next
            path.append(next._commandName)
        }
        return nil
    }
}
