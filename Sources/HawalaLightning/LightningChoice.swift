import Foundation
import HawalaKeys

/// The first-run choice of how a wallet reaches Lightning, as a person makes it: what each
/// option is, in plain words, and what it needs. The faces offer these three and turn the
/// answer into a `BackendSpec`; nobody types a configuration string.
public enum LightningChoice: String, Sendable, CaseIterable {
    /// Devnet: a ledger on this machine, test money, works offline.
    case devnet
    /// Spark's public test network: no real bitcoin, no API key.
    case sparkTest = "spark:regtest"
    /// The Lightning network through Spark: real bitcoin, a Breez API key.
    case sparkMainnet = "spark:mainnet"

    /// The offers for a build and a wallet: the Spark ones only when the SDK is in it, real
    /// bitcoin only for a mainnet wallet (`BackendSpec.check(for:wallet:)`).
    public static func offered(sparkAvailable: Bool, network: Network) -> [LightningChoice] {
        (sparkAvailable ? allCases : [.devnet]).filter { $0.isAllowed(for: network) }
    }

    /// Real bitcoin only by choice: a testnet wallet ("coins worth nothing") uses test money
    /// only — devnet or Spark's test network; Spark with real bitcoin needs a mainnet wallet.
    public func isAllowed(for network: Network) -> Bool { self != .sparkMainnet || network == .mainnet }

    public var title: String {
        switch self {
        case .devnet: "Lightning on this machine only (devnet: test money)"
        case .sparkTest: "Spark test network"
        case .sparkMainnet: "Spark (real bitcoin)"
        }
    }

    public var detail: String {
        switch self {
        case .devnet: "To try Hawala: payments between the wallets of this machine, with test money worth nothing. Works offline."
        case .sparkTest: "Spark's public test network: real Lightning software, test bitcoin worth nothing. Needs the internet."
        case .sparkMainnet: "The Lightning network with real bitcoin, through the Breez Spark SDK. Needs the internet and a Breez API key (free)."
        }
    }

    /// Only Spark with real bitcoin asks for a Breez API key.
    public var needsAPIKey: Bool { self == .sparkMainnet }

    /// The choice a saved backend was made from.
    public init(_ spec: BackendSpec) {
        switch spec {
        case .devnet: self = .devnet
        case .spark(.regtest): self = .sparkTest
        case .spark(.mainnet): self = .sparkMainnet
        }
    }

    /// The backend this choice means: devnet's ledger is `ledger` when one is given (a shared
    /// ledger elsewhere), else the default under `home`.
    public func spec(home: URL, ledger: String? = nil) throws -> BackendSpec {
        switch self {
        case .devnet:
            guard let ledger, !ledger.isEmpty else { return .devnet(path: BackendSpec.defaultDevnetLedger(home: home)) }
            guard ledger.hasPrefix("/") else { throw LightningError.devnetLedger(path: ledger, reason: "give its full path, starting with /") }
            return .devnet(path: URL(fileURLWithPath: ledger).standardizedFileURL.path)
        case .sparkTest: return .spark(.regtest)
        case .sparkMainnet: return .spark(.mainnet)
        }
    }
}

extension BackendSpec {
    /// `LightningChoice.isAllowed(for:)` for a backend: asked before a choice is saved (both
    /// faces), and when a session opens (a mismatch saved earlier, or given for one command).
    /// - Throws: `LightningSessionError.realBitcoinOnTestWallet`.
    public func check(for network: Network, wallet: String) throws(LightningSessionError) {
        guard LightningChoice(self).isAllowed(for: network) else { throw .realBitcoinOnTestWallet(wallet: wallet) }
    }
}
