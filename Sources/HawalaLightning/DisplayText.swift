/// Text from an invoice or a payee (descriptions, LNURL metadata, success messages) is chosen
/// by a stranger. Before it is shown, control characters (which can rewrite a terminal's screen,
/// e.g. hide the amount line) and bidirectional overrides (which reorder what is read) become
/// U+FFFD, as the Breez SDK's parser does. The stored text is kept as it came.
public enum DisplayText {
    public static func safe(_ text: String) -> String { safe(text, keepingLines: false) }

    /// `safe`, keeping line breaks: for messages of several lines made of others' text.
    public static func safeLines(_ text: String) -> String { safe(text, keepingLines: true) }

    private static func safe(_ text: String, keepingLines: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let control = scalar.properties.generalCategory == .control && !(keepingLines && v == 0x0A)
            let bidi = (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
            out.append(control || bidi ? "\u{FFFD}" : scalar)
        }
        return String(out)
    }
}
