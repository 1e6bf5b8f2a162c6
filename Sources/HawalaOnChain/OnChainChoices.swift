import Foundation
import HawalaKeys
import HawalaText
import HawalaWallet

/// How a person chooses a fee: a speed the node prices, or a rate they type.
public enum FeeChoice: Sendable, Equatable {
    /// The node's estimate for confirmation in about this time.
    case speed(Speed)
    /// Base units per virtual byte, checked against `FeeRate.allowed`.
    case custom(UInt64)

    /// A rate as typed in a form ("12", "1,000"): a whole number, its bound checked when it is used.
    public init(typedRate text: String) throws(OnChainError) {
        guard let rate = UInt64(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")) else {
            throw .unsupported("a fee rate is a whole number from 1 to 10,000 per virtual byte")
        }
        self = .custom(rate)
    }
}

extension ChosenFeeRate {
    /// What the rate means, the same on every face: the time it aims at, or that the node had
    /// no estimate (nil for a rate the person typed).
    public var note: String? {
        guard let speed else { return nil }
        if let cappedFrom {
            return "The server's estimate was \(AmountText.grouped(cappedFrom.perVByte)) per vB: capped at \(AmountText.grouped(rate.perVByte)) (type a rate to pay more)."
        }
        return estimated ? "Aims to confirm in \(speed.words)." : "The node has no fee estimate yet: this pays its lowest relay rate."
    }
}

extension SendPlan {
    /// What a person should know before this plan is signed, beyond its rows.
    public var notes: [String] {
        var notes: [String] = []
        let unit = network.coin.baseUnit
        if let replaced = replaces {
            notes.append("Replaces payment \(replaced).")
            if let before = payeeBefore, before != amount {
                notes.append("It has no change: the payee gets \(AmountText.grouped(amount)) \(unit) instead of \(AmountText.grouped(before)) \(unit).")
            }
            if network.coin == .litecoin { notes.append("Litecoin's nodes may not relay a replacement: a child payment (CPFP) is the surer way.") }
        }
        if let asked = raisedFrom {
            notes.append("The rate is \(feeRate.perVByte) per vB, not \(asked.perVByte): a replacement must pay more than the payment it replaces.")
        }
        if let parent = speedsUp { notes.append("Pays for payment \(parent) with a child back to this wallet.") }
        if speedsUp == nil, fee > amount {
            notes.append("The fee (\(AmountText.grouped(fee)) \(unit)) is more than the amount sent (\(AmountText.grouped(amount)) \(unit)).")
        }
        return notes
    }
}

extension OnChainWallet {
    /// The rate `choice` names: the node's price for a speed, or a typed rate within bounds.
    public func feeRate(_ choice: FeeChoice) async throws(OnChainError) -> ChosenFeeRate {
        switch choice {
        case .speed(let speed): try await feeRate(for: speed)
        case .custom(let rate): ChosenFeeRate(typed: try FeeRate(rate))
        }
    }

    /// A stuck payment sped up the surer way for its chain: on Bitcoin a replacement (BIP125)
    /// when the payment is the wallet's own and may be replaced, else a child paying for it; on
    /// Litecoin, whose nodes may not relay replacements, a child first.
    public func planSpeedUp(_ txid: Txid, feeRate: FeeRate) async throws -> SendPlan {
        let childFirst = account.network.coin == .litecoin
        do {
            return childFirst ? try await planChildPays(for: txid, feeRate: feeRate) : try planBump(txid, feeRate: feeRate)
        } catch let first {
            do {
                return childFirst ? try planBump(txid, feeRate: feeRate) : try await planChildPays(for: txid, feeRate: feeRate)
            } catch {
                throw first
            }
        }
    }

    /// The chains of `wallet` that have a node saved, in `Coin`'s order.
    public static func chainsWithNode(wallet: WalletSummary, store: WalletStore) throws -> [Coin] {
        try Coin.allCases.filter { try savedNode(wallet: wallet, coin: $0, store: store) != nil }
    }

    /// The account of `wallet` whose history has payment `txid`: `coin`'s, or the one among the
    /// chains with a node that has it.
    public static func holding(_ txid: Txid, wallet: WalletSummary, coin: Coin?, store: WalletStore) throws -> OnChainWallet {
        for coin in try coin.map { [$0] } ?? chainsWithNode(wallet: wallet, store: store) {
            let account = try open(wallet, coin: coin, store: store)
            if try account.ledger().transactions.contains(where: { $0.txid == txid }) { return account }
        }
        throw OnChainError.unknown("payment \(txid) in its on-chain history (sync first?)")
    }
}

extension Coin {
    /// "BTC", "LTC".
    public var ticker: String { self == .bitcoin ? "BTC" : "LTC" }

    /// An amount of this coin as a person reads it in `AmountText.unit`: "1,500,000 sat" /
    /// "1,500,000 litoshi", or "0.015 BTC" / "0.015 LTC".
    public func text(_ amount: Sats) -> String {
        AmountText.unit == .btc ? String(AmountText.btc(amount).dropLast(3)) + ticker : AmountText.grouped(amount) + " " + baseUnit
    }

    /// An amount of this coin as a person types it: base units ("2,500", "2500 litoshi") or
    /// whole coins with a point ("0.001 LTC"), in `unit` unless the text names one.
    public func parseAmount(_ typed: String, unit: AmountUnit) throws(OnChainError) -> Sats {
        var text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        let other: Coin = self == .bitcoin ? .litecoin : .bitcoin
        for name in [other.ticker, other.baseUnit] where text.lowercased().hasSuffix(name.lowercased()) {
            throw .unsupported("that amount is in \(name): this is \(displayName), counted in \(ticker) or \(baseUnit)")
        }
        for (name, standard) in [(ticker, "BTC"), (baseUnit, "sat")] where text.lowercased().hasSuffix(name.lowercased()) {
            text = String(text.dropLast(name.count)) + standard
            break
        }
        do { return try AmountText.parse(text, unit: unit) } catch { throw .amountInput(error) }
    }
}

extension OnChainWallet {
    /// A watch-only wallet of `coin` from a descriptor or an extended public key (the text's
    /// network decides the wallet's): it syncs, shows balances and creates PSBTs; the wallet
    /// with the keys signs them.
    @discardableResult
    public static func importWatchOnly(_ key: WatchOnlyKey, coin: Coin, name: String, store: WalletStore, keyring: Keyring) throws -> WalletSummary {
        let chain = OnChainAccount.chain(of: coin, in: key.isTestnet ? .testnet : .mainnet)
        return try store.addWatchOnly(key, chain: chain, name: name, keyring: keyring)
    }
}
