/// Why a Lightning address name can't be had, or isn't there (LUD-16).
public enum LightningAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not 1 to 64 of a-z, 0-9, -, _ and . (dots only between other characters).
    case invalidName(String)
    /// Another wallet holds this name.
    case taken(String)
    /// The wallet has no Lightning address.
    case noAddress

    public var description: String {
        switch self {
        case .invalidName(let text): "\"\(text.prefix(80))\" can't be a Lightning address name: use 1 to 64 of a-z, 0-9, -, _ and ."
        case .taken(let name): "the name \"\(name.prefix(80))\" is taken: choose another"
        case .noAddress: "this wallet has no Lightning address yet"
        }
    }
}
