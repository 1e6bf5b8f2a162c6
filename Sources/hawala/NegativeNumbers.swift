/// Negative numbers on the command line ("--amount -5", "fund -5"): the argument parser takes
/// "-5" for an option and would say the value is missing. No option of Hawala's is a dash and a
/// digit, so such an argument is a number, handed on where the parser reads it as a value (and
/// the option's own check then says it is negative).
enum NegativeNumbers {
    static func looksNegative(_ argument: String) -> Bool {
        argument.count > 1 && argument.first == "-" && argument.dropFirst().first.map { $0.isASCII && $0.isNumber } == true
    }

    /// `--option -5` becomes `--option=-5`; a lone `-5` (an argument, not an option's value)
    /// goes after `--`, where the parser reads only arguments.
    static func rewrite(_ arguments: [String]) -> [String] {
        var out: [String] = [], moved: [String] = []
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" {
                out += moved + Array(arguments[i...])
                return out
            }
            if argument.hasPrefix("--"), !argument.contains("="), i + 1 < arguments.count, looksNegative(arguments[i + 1]) {
                out.append(argument + "=" + arguments[i + 1])
                i += 2
                continue
            }
            if looksNegative(argument) { moved.append(argument) } else { out.append(argument) }
            i += 1
        }
        return moved.isEmpty ? out : out + ["--"] + moved
    }
}
