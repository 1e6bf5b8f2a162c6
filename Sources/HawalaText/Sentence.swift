extension String {
    /// A library message (lower case, no full stop: it reads inside a longer line) as a sentence
    /// of its own, for a page or a program: a capital first, a full stop last unless it already
    /// ends a sentence.
    public var sentence: String {
        guard !isEmpty else { return self }
        return capitalizedFirst + (hasSuffix(".") || hasSuffix("?") || hasSuffix("!") ? "" : ".")
    }

    /// The same text with a capital first letter.
    public var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
