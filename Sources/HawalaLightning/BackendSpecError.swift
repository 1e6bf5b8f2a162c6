/// A backend or a network named that Hawala doesn't know (`BackendSpec.parse`,
/// `HistoryNetwork(parsing:)`): a typing mistake, never a payment's outcome.
public enum BackendSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `spark:mainnet`, `spark:regtest`, `devnet` or `devnet:PATH`.
    case unknownBackend(String)
    /// Not `current`, `all` or a backend.
    case unknownNetwork(String)

    public var description: String {
        switch self {
        case .unknownBackend(let text) where text.hasPrefix("spark:"):
            "unknown Spark network \"\(text.dropFirst(6).prefix(40))\": spark:mainnet or spark:regtest"
        case .unknownBackend(let text):
            "unknown backend \"\(text.prefix(80))\": spark:mainnet, spark:regtest, devnet (test money on this machine, its ledger under the wallets' home) or devnet:PATH (a ledger elsewhere)"
        case .unknownNetwork(let text):
            "unknown network \"\(text.prefix(80))\": current, all, spark:mainnet, spark:regtest, devnet or devnet:PATH"
        }
    }
}
