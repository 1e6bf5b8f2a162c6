import HawalaOnChain
import HawalaText
import HawalaWallet

/// Where an exit's funding could come from: the wallet's own Bitcoin coins, as its on-chain
/// account last saw them (`HawalaOnChain`), in words every face shows.
public struct ExitFunding: Sendable, Equatable {
    /// What the exit needs from an on-chain coin of the wallet's own, for its fees.
    public let needed: Sats
    /// The wallet's confirmed Bitcoin on-chain coins; nil when no node is set up for them.
    public let confirmed: Sats?

    /// Whether the wallet's confirmed Bitcoin coins cover what is needed.
    public var isEnough: Bool { confirmed.map { $0 >= needed } ?? false }

    /// What the wallet's on-chain Bitcoin of the last sync says of `needed`.
    public static func of(_ needed: Sats, wallet: WalletSummary, store: WalletStore) -> ExitFunding {
        guard OnChainAccount.coins(of: wallet).contains(.bitcoin),
              (try? OnChainWallet.savedNode(wallet: wallet, coin: .bitcoin, store: store)) != nil,
              let ledger = try? OnChainWallet.open(wallet, coin: .bitcoin, store: store).ledger() else {
            return ExitFunding(needed: needed, confirmed: nil)
        }
        return ExitFunding(needed: needed, confirmed: ledger.confirmed)
    }

    /// "your Bitcoin on-chain coins (12,000 sat confirmed) can pay it", or what is missing.
    public var words: String {
        guard let confirmed else { return "set up your Bitcoin node for this wallet to see which of your on-chain coins can pay it" }
        if isEnough { return "your Bitcoin on-chain coins (\(AmountText.sats(confirmed)) confirmed) can pay it" }
        return "your Bitcoin on-chain coins (\(AmountText.sats(confirmed)) confirmed) are \(AmountText.sats(needed.minusOrZero(confirmed))) short of it"
    }

    /// `{neededSat, onChainSat, enough}` (`onChainSat` null without a node).
    public var json: JSONValue {
        .object([("neededSat", .amount(needed)), ("onChainSat", confirmed.map { .amount($0) } ?? .null), ("enough", .bool(isEnough))])
    }
}
