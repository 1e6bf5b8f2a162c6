import HawalaCrypto
import HawalaKeys
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
    /// The largest of them that can pay it alone (confirmed, not frozen, native SegWit).
    public let largestUsable: Sats?

    public init(needed: Sats, confirmed: Sats?, largestUsable: Sats? = nil) {
        self.needed = needed
        self.confirmed = confirmed
        self.largestUsable = largestUsable
    }

    /// Whether one coin covers what is needed: the exit's fee child spends a single coin.
    public var isEnough: Bool { largestUsable.map { $0 >= needed } ?? false }

    /// Coins that can pay an exit's fees alone: confirmed, not frozen, native SegWit.
    static func usable(_ coins: [OnChainCoin]) -> [OnChainCoin] {
        coins.filter { $0.confirmations > 0 && !$0.frozen && $0.place.kind == .nativeSegwit }
    }

    /// What the wallet's on-chain Bitcoin of the last sync says of `needed`.
    public static func of(_ needed: Sats, wallet: WalletSummary, store: WalletStore) -> ExitFunding {
        guard OnChainAccount.coins(of: wallet).contains(.bitcoin),
              (try? OnChainWallet.savedNode(wallet: wallet, coin: .bitcoin, store: store)) != nil,
              let ledger = try? OnChainWallet.open(wallet, coin: .bitcoin, store: store).ledger() else {
            return ExitFunding(needed: needed, confirmed: nil)
        }
        return ExitFunding(needed: needed, confirmed: ledger.confirmed, largestUsable: usable(ledger.coins).map(\.value).max() ?? .zero)
    }

    /// "one of your confirmed Bitcoin on-chain coins (20,000 sat) can pay it", or what is missing.
    public var words: String {
        guard let confirmed else { return "set up your Bitcoin node for this wallet to see which of your on-chain coins can pay it" }
        let largest = largestUsable ?? .zero
        if isEnough { return "one of your confirmed Bitcoin on-chain coins (\(AmountText.sats(largest))) can pay it" }
        if confirmed >= needed {
            return "no single coin of your confirmed Bitcoin (\(AmountText.sats(confirmed)) in all) can pay it: the largest that can holds \(AmountText.sats(largest)) (unfreeze one, or send yourself one coin of at least \(AmountText.sats(needed)))"
        }
        return "your Bitcoin on-chain coins (\(AmountText.sats(confirmed)) confirmed) are \(AmountText.sats(needed.minusOrZero(confirmed))) short of it"
    }

    /// `{neededSat, onChainSat, enough}` (`onChainSat` null without a node).
    public var json: JSONValue {
        .object([("neededSat", .amount(needed)), ("onChainSat", confirmed.map { .amount($0) } ?? .null), ("enough", .bool(isEnough))])
    }
}

/// The on-chain coin that pays an exit's fees, and the signing of its input in the exit's
/// fee child (a PSBT the backend builds).
public struct ExitFundingSource: Sendable {
    public struct Coin: Sendable, Equatable {
        public let txid: String
        public let vout: UInt32
        public let valueSat: Sats
        /// The compressed public key of its P2WPKH output, in hex.
        public let publicKeyHex: String
    }

    public let coins: [Coin]
    /// Signs and finalizes the inputs of the PSBT (its bytes) that spend `coins`.
    public let sign: @Sendable ([UInt8]) async throws -> [UInt8]

    public init(coins: [Coin], sign: @escaping @Sendable ([UInt8]) async throws -> [UInt8]) {
        self.coins = coins
        self.sign = sign
    }
}

extension ExitFunding {
    /// The smallest confirmed, unfrozen native SegWit coin of the wallet's on-chain Bitcoin (as
    /// its last sync saw it) worth at least `needed`, and its signer. The signer lets at most
    /// `needed` of the coin leave the wallet (the rest must come back to its own scripts or to
    /// `destination`, the exit's), then freezes the coin with a label: the fee child is
    /// broadcast later, and a payment meanwhile must not spend its coin.
    /// - Throws: `ExitError.exitNeedsFunding` when no coin is, or no node is set up.
    public static func source(_ needed: Sats, destination: String? = nil, wallet: WalletSummary, store: WalletStore,
                              keyring: Keyring) throws(ExitError) -> ExitFundingSource {
        let onChain: OnChainWallet
        let coin: OnChainCoin
        do {
            guard OnChainAccount.coins(of: wallet).contains(.bitcoin), try OnChainWallet.savedNode(wallet: wallet, coin: .bitcoin, store: store) != nil else {
                throw ExitError.exitNeedsFunding(fundingSat: needed)
            }
            onChain = try OnChainWallet.open(wallet, coin: .bitcoin, store: store)
            let fitting = usable(try onChain.ledger().coins).filter { $0.value >= needed }
            guard let smallest = fitting.min(by: { $0.value < $1.value }) else { throw ExitError.exitNeedsFunding(fundingSat: needed) }
            coin = smallest
        } catch let error as ExitError {
            throw error
        } catch {
            throw .lightning(LightningError(error, backend: "Hawala"))
        }
        let publicKey: [UInt8]
        do { publicKey = try onChain.account.publicKey(at: coin.place).compressed } catch { throw .lightning(LightningError(error, backend: "Hawala")) }
        let described = ExitFundingSource.Coin(txid: coin.outpoint.txid.description, vout: coin.outpoint.vout, valueSat: coin.value, publicKeyHex: hexString(publicKey))
        let exitScript = destination.flatMap { try? OutputScript.of(address: $0, on: onChain.account.network).bytes }
        return ExitFundingSource(coins: [described]) { bytes in
            let keys = try store.secret(of: wallet, keyring: keyring).keys
            let signed = try onChain.signInputs(of: try PSBT(bytes: bytes), spending: [coin], spendingAtMost: needed,
                                                alsoOwn: exitScript.map { [$0] } ?? [], keys: keys)
            try onChain.setFrozen(coin.outpoint, true)
            try onChain.setLabel(try WalletLabel(kind: .output, ref: "\(coin.outpoint)", label: "Pays a Spark exit's fees (frozen until its fee payment confirms)"))
            return signed.psbt.bytes
        }
    }
}
