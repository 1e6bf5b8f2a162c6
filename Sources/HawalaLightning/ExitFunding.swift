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
    /// its last sync saw it) worth at least `needed`, and its signer.
    /// - Throws: `ExitError.exitNeedsFunding` when no coin is, or no node is set up.
    public static func source(_ needed: Sats, wallet: WalletSummary, store: WalletStore, keyring: Keyring) throws(ExitError) -> ExitFundingSource {
        let onChain: OnChainWallet
        let coin: OnChainCoin
        do {
            guard OnChainAccount.coins(of: wallet).contains(.bitcoin), try OnChainWallet.savedNode(wallet: wallet, coin: .bitcoin, store: store) != nil else {
                throw ExitError.exitNeedsFunding(fundingSat: needed)
            }
            onChain = try OnChainWallet.open(wallet, coin: .bitcoin, store: store)
            let fitting = try onChain.ledger().coins.filter { $0.confirmations > 0 && !$0.frozen && $0.place.kind == .nativeSegwit && $0.value >= needed }
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
        return ExitFundingSource(coins: [described]) { bytes in
            let keys = try store.secret(of: wallet, keyring: keyring).keys
            let signed = try onChain.signInputs(of: try PSBT(bytes: bytes), spending: [coin], keys: keys)
            return signed.psbt.bytes
        }
    }
}
