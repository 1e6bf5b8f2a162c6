/// Limits on text from outside, counted as the specs count them: Unicode scalars (what LUD-12's
/// `commentAllowed` and LUD-09's 144 characters mean to the wallets that send them) with bytes
/// capped too — never grapheme clusters, which a single one can hide thousands of scalars in.
public enum TextLimit {
    /// Whether `text` holds at most `scalars` Unicode scalars (and so at most 4 × `scalars`
    /// UTF-8 bytes), and at most `bytes` when given.
    public static func fits(_ text: String, scalars: Int, bytes: Int? = nil) -> Bool {
        guard text.utf8.count <= min(bytes ?? Int.max, scalars.multipliedReportingOverflow(by: 4).partialValue) else { return false }
        return text.unicodeScalars.count <= scalars
    }

    /// The start of `text`: at most `scalars` Unicode scalars, never splitting one (for a line
    /// that shows part of something long; a limit that refuses says so with `fits` instead).
    public static func prefix(_ text: String, scalars: Int) -> String {
        guard text.unicodeScalars.count > scalars else { return text }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: text.unicodeScalars.prefix(max(0, scalars)))
        return String(view)
    }
}
