import Foundation
import HawalaCrypto
import HawalaText
import HawalaWallet

/// The payment backends a front end links, handed to `LightningSession.open`: the Spark SDK
/// (HawalaSpark) and the development network (HawalaDevnet) are modules of their own that depend
/// on this one, never the other way round.
public struct BackendOpeners: Sendable {
    public var spark: SparkOpener?
    public var devnet: DevnetOpener?

    /// `devnet` has no default: a front end says whether it links the development network.
    public init(spark: SparkOpener? = nil, devnet: DevnetOpener?) {
        self.spark = spark
        self.devnet = devnet
    }
}

/// Makes Spark backends (`SparkOpener.sdk` in HawalaSpark); without one, Spark is not in the build.
public struct SparkOpener: Sendable {
    /// The backend for a network, its API key (mainnet needs one), the network timeout and the
    /// LNURL flow it pays through.
    public let makeBackend: @Sendable (BackendSpec.SparkNetwork, SecretBytes?, Duration, LNURLPayFlow?) throws -> any PaymentBackend
    /// Where a wallet's Spark state lives under the wallet home.
    public let storageDirectory: @Sendable (_ home: URL, _ walletID: String, BackendSpec.SparkNetwork) throws -> URL

    public init(makeBackend: @escaping @Sendable (BackendSpec.SparkNetwork, SecretBytes?, Duration, LNURLPayFlow?) throws -> any PaymentBackend,
                storageDirectory: @escaping @Sendable (_ home: URL, _ walletID: String, BackendSpec.SparkNetwork) throws -> URL) {
        self.makeBackend = makeBackend
        self.storageDirectory = storageDirectory
    }
}

/// Makes devnet backends (`DevnetOpener.ledger` in HawalaDevnet).
public struct DevnetOpener: Sendable {
    /// The backend on the ledger at a path, with the wallet's own rates source (nil: the
    /// ledger's test table) and the LNURL flow it pays through. Opening checks the ledger.
    public let makeBackend: @Sendable (_ ledgerPath: String, _ rates: (any FiatRatesProvider)?, LNURLPayFlow?) throws -> any WatchableBackend

    public init(makeBackend: @escaping @Sendable (_ ledgerPath: String, _ rates: (any FiatRatesProvider)?, LNURLPayFlow?) throws -> any WatchableBackend) {
        self.makeBackend = makeBackend
    }
}

/// A backend that can follow a node by its id alone, without its key (devnet): balance, history
/// and events work, paying and invoicing need `connect`.
public protocol WatchableBackend: PaymentBackend {
    func attach(nodeID: String)
}

/// A backend that mints test money (devnet).
public protocol TestFundedBackend: PaymentBackend {
    /// Credits this node with `sats` and returns the received payment.
    func fund(sats: Sats) async throws -> Payment
}
