import Foundation
import HawalaWallet

/// Which network's payments a history shows. By default the wallet's current network (its
/// saved backend): after switching from devnet to Spark, devnet's payments are not listed as
/// Spark's. Every face (`ln history`, `ln export`, the app's pages) asks this one rule.
public enum HistoryNetwork: Sendable, Equatable {
    /// The wallet's saved backend's network; every network when none is saved.
    case current
    /// Every network's payments.
    case all
    /// One network, as payments keep it (`Payment.network`: `devnet:PATH`, `spark:regtest`…).
    case named(String)

    /// Reads "current", "all", or a network (`spark:regtest`, `devnet:PATH`, `devnet` for the
    /// ledger under `home`); nil or empty is `current`.
    public init(parsing text: String?, home: URL) throws(BackendSpecError) {
        let text = (text ?? "").trimmingCharacters(in: .whitespaces)
        switch text {
        case "", "current": self = .current
        case "all": self = .all
        default:
            do { self = .named(try BackendSpec.parse(text, home: home).description) } catch {
                throw .unknownNetwork(text)
            }
        }
    }

    /// The `PaymentFilter.network` this scope means for `walletID`: nil lists every network.
    public func filterValue(store: WalletStore, walletID: String) -> String? {
        switch self {
        case .current: LightningWallet.currentNetwork(store: store, walletID: walletID)
        case .all: nil
        case .named(let network): network
        }
    }

    /// The networks a person may pick for `walletID`: the current one first, then every other
    /// network it has payments on, each with its plain name.
    public static func choices(store: WalletStore, walletID: String) -> [(network: String, name: String)] {
        var networks = (try? store.paymentNetworks(walletID: walletID)) ?? []
        if let current = LightningWallet.currentNetwork(store: store, walletID: walletID) {
            networks.removeAll { $0 == current }
            networks.insert(current, at: 0)
        }
        return networks.map { ($0, plainName($0)) }
    }

    /// A network in a few plain words ("Spark test network", "devnet ledger /path").
    public static func plainName(_ network: String) -> String {
        switch try? BackendSpec.parse(network) {
        case .spark(.mainnet)?: "Spark, real bitcoin"
        case .spark(.regtest)?: "Spark test network"
        case .devnet(let path)?: "devnet (ledger \(path))"
        case nil: network == "devnet" ? "devnet (ledger not known)" : network == "spark" ? "Spark (network not known)" : network
        }
    }
}
