import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// How much to send: an amount, or everything spendable (the fee taken from it).
public enum SendAmount: Sendable, Equatable {
    case exact(Sats)
    case all
}

/// A fee rate and where it came from, for the preview.
public struct ChosenFeeRate: Sendable, Equatable {
    public let rate: FeeRate
    /// The speed asked for, nil for a rate typed by the person.
    public let speed: Speed?
    /// False when the node had no estimate and its lowest relay rate is used.
    public let estimated: Bool
    /// An index server's estimate above `FeeRate.serverCeiling`, capped to it (nil: none).
    public var cappedFrom: FeeRate?

    /// A rate the person typed.
    public init(typed rate: FeeRate) {
        self.init(rate: rate, speed: nil, estimated: true)
    }

    init(rate: FeeRate, speed: Speed?, estimated: Bool) {
        self.rate = rate
        self.speed = speed
        self.estimated = estimated
    }
}

/// A payment worked out and not yet signed: everything the preview shows comes from here, and
/// the signed transaction pays exactly this fee.
public struct SendPlan: Sendable, Equatable {
    public let network: OnChainNetwork
    /// The address paid (for a fee bump, the original payment's; for CPFP, the wallet's own).
    public let recipient: String
    public let recipientScript: OutputScript
    /// What the recipient gets (for CPFP, what comes back to the wallet).
    public let amount: Sats
    public let fee: Sats
    public let feeRate: FeeRate
    /// The change and the key it goes to, nil when there is none.
    public let change: Sats?
    public let changePlace: KeyPlace?
    public let inputs: [OnChainCoin]
    /// The outputs in their order (the change's place among them is random).
    public let outputs: [TxOutput]
    /// The largest the signed transaction can be; the fee was computed on it.
    public let vsize: Int
    /// The payment this one replaces (a fee bump), if any.
    public var replaces: Txid? = nil
    /// The unconfirmed payment this one pays for (CPFP), if any.
    public var speedsUp: Txid? = nil
    /// For a fee bump: what the payee got before (more than `amount` when the fee came out of the payment).
    public var payeeBefore: Sats? = nil
    /// The rate asked for, when a replacement had to pay more than it (BIP125's rule 4).
    public var raisedFrom: FeeRate? = nil

    package init(network: OnChainNetwork, recipient: String, recipientScript: OutputScript, amount: Sats, fee: Sats, feeRate: FeeRate,
                 change: Sats?, changePlace: KeyPlace?, inputs: [OnChainCoin], outputs: [TxOutput], vsize: Int) {
        self.network = network
        self.recipient = recipient
        self.recipientScript = recipientScript
        self.amount = amount
        self.fee = fee
        self.feeRate = feeRate
        self.change = change
        self.changePlace = changePlace
        self.inputs = inputs
        self.outputs = outputs
        self.vsize = vsize
    }

    /// What leaves the wallet: the amount and the fee.
    public var total: Sats { (try? amount + fee) ?? Sats.supply }
}

extension OnChainWallet {
    /// The rate for `speed`: the node's estimate, or its lowest relay rate when it has none.
    /// An index server's figures are capped at `FeeRate.serverCeiling`: a server is anyone's,
    /// and its estimate alone must not set a fee a person's own node never would.
    public func feeRate(for speed: Speed) async throws(OnChainError) -> ChosenFeeRate {
        let server = source is any HistorySource
        if let estimate = try await source.estimateFee(blocks: speed.blocks(on: account.network.coin)) {
            var chosen = ChosenFeeRate(rate: server ? min(estimate, FeeRate.serverCeiling) : estimate, speed: speed, estimated: true)
            if server, estimate > FeeRate.serverCeiling { chosen.cappedFrom = estimate }
            return chosen
        }
        let relay = try await source.relayFee()
        return ChosenFeeRate(rate: server ? min(relay, FeeRate.serverCeiling) : relay, speed: speed, estimated: false)
    }

    /// The smallest output the network relays to `script` (Bitcoin Core's dust rule: what
    /// spending it would cost at the dust relay rate).
    public func dustLimit(_ script: OutputScript) -> Sats {
        let spend = switch script {
        case .p2wpkh, .p2wsh, .p2tr: 67  // 32 + 4 + 1 + 107 / 4 + 4
        default: 148
        }
        return Sats(clamping: UInt64(script.outputWeight / 4 + spend) * account.network.dustRelayFeeRate)
    }

    /// Works out a payment: checks the address against the account's network, chooses coins
    /// (of the accounts of `kinds`; all when nil), computes the fee once and the change. Nothing
    /// is signed.
    public func plan(to address: String, amount: SendAmount, feeRate: FeeRate, kinds: Set<ScriptKind>? = nil) throws -> SendPlan {
        let recipient = try OutputScript.of(address: address, on: account.network)
        let ledger = try ledger()
        do {
            return try plan(to: recipient, amount: amount, feeRate: feeRate, ledger: ledger, kinds: kinds)
        } catch OnChainError.insufficientFunds(let needed, let available, let unit) {
            // Frozen coins are named: "not enough" while they sit there would read as money gone.
            let frozen = (try? Sats.sum(ledger.coins.filter(\.frozen).map(\.value))) ?? .zero
            guard frozen > .zero else { throw OnChainError.insufficientFunds(needed: needed, available: available, unit: unit) }
            throw OnChainError.insufficientUnfrozen(needed: needed, available: available, frozen: frozen, unit: unit)
        }
    }

    private func plan(to recipient: OutputScript, amount: SendAmount, feeRate: FeeRate, ledger: Ledger, kinds: Set<ScriptKind>?) throws -> SendPlan {
        let unit = account.network.coin.baseUnit
        let coins = ledger.spendable.filter { kinds?.contains($0.place.kind) ?? true }
        let dust = dustLimit(recipient)
        // The input count's own size assumes the most coins the payment could take.
        let overhead = Transaction.overheadWeight(inputs: coins.count, outputs: 2)
        switch amount {
        case .all:
            guard !coins.isEmpty else { throw OnChainError.insufficientFunds(needed: dust, available: .zero, unit: unit) }
            let weight = overhead + recipient.outputWeight + coins.reduce(0) { $0 + (OutputScript($1.script)?.inputWeight ?? 272) }
            let fee = feeRate.fee(weight: weight)
            let sum = try Sats.sum(coins.map(\.value))
            guard sum > fee, let sending = try? sum - fee, sending >= dust else {
                throw OnChainError.insufficientFunds(needed: (try? fee + dust) ?? Sats.supply, available: sum, unit: unit)
            }
            return SendPlan(network: account.network, recipient: recipient.address(on: account.network), recipientScript: recipient,
                            amount: sending, fee: fee, feeRate: feeRate, change: nil, changePlace: nil, inputs: coins,
                            outputs: [TxOutput(value: sending.value, script: recipient.bytes)], vsize: (weight + 3) / 4)
        case .exact(let value):
            guard value >= dust else { throw OnChainError.dust(amount: value, minimum: dust, unit: unit) }
            let changePlace = KeyPlace(.change, try nextChangeIndex())
            let changeScript = try account.script(at: changePlace)
            let selector = try CoinSelection(
                baseWeight: overhead + recipient.outputWeight, target: value, feeRate: feeRate,
                longTermFeeRate: try FeeRate(min(feeRate.perVByte, 10)), changeOutputWeight: changeScript.outputWeight,
                changeSpendWeight: changeScript.inputWeight ?? 272, dust: dustLimit(changeScript))
            let selectable = { (coins: [OnChainCoin]) in
                coins.map { SelectableCoin(outpoint: $0.outpoint, value: $0.value, inputWeight: OutputScript($0.script)?.inputWeight ?? 272) }
            }
            // Confirmed coins first, as Bitcoin Core does: a payment on unconfirmed change waits
            // for its parent (and a bump of the parent could not replace it). Unconfirmed change
            // only when the confirmed coins can't pay.
            let confirmed = coins.filter { $0.confirmations > 0 }
            let selection = try (confirmed.count < coins.count ? try? selector.select(from: selectable(confirmed), unit: unit) : nil)
                ?? selector.select(from: selectable(coins), unit: unit)
            let chosen = Set(selection.coins.map(\.outpoint))
            var outputs = [TxOutput(value: value.value, script: recipient.bytes)]
            if let change = selection.change {
                // The change's place among the outputs is random: it says nothing of which output is the payment.
                outputs.insert(TxOutput(value: change.value, script: changeScript.bytes), at: Int.random(in: 0...1))
            }
            return SendPlan(network: account.network, recipient: recipient.address(on: account.network), recipientScript: recipient,
                            amount: value, fee: selection.fee, feeRate: feeRate, change: selection.change,
                            changePlace: selection.change == nil ? nil : changePlace,
                            inputs: coins.filter { chosen.contains($0.outpoint) }, outputs: outputs, vsize: (selection.weight + 3) / 4)
        }
    }

    /// The change index after the last used one.
    func nextChangeIndex() throws -> UInt32 {
        try watchedScripts().lastUsed(.change).map { $0 + 1 } ?? 0
    }
 
    /// Signs `plan` with the wallet's keys (`OnChainAccount.signed`).
    public func sign(_ plan: SendPlan, keys: HDWallet) throws -> Transaction { try account.signed(plan, keys: keys) }

    /// The transaction of `plan` before signing.
    func unsigned(_ plan: SendPlan) -> Transaction { plan.unsigned }

    /// Sends a signed transaction and keeps it (unconfirmed) so balances follow at once.
    /// A replacement takes the place of the payment it replaces at once.
    public func broadcast(_ transaction: Transaction, replacing original: Txid? = nil) async throws -> Txid {
        let sent: Result<Txid, OnChainError>
        do { sent = .success(try await source.broadcast(transaction.serialized())) } catch { sent = .failure(error) }
        if original == nil, case .failure(.nodeRefused(let why)) = sent, Self.spentElsewhere.contains(where: { why.contains($0) }) {
            // Not a replacement of ours: a coin it spends went to another payment first (an
            // earlier PSBT of the same coins, a payment from elsewhere).
            throw OnChainError.unsupported("a coin it spends is already spent by another payment (an earlier one, or another PSBT of the same coins); nothing was sent — sync, then make it again")
        }
        let txid = try sent.get()
        try store.record(StoredTransaction(transaction: transaction, height: nil, blockHash: nil, seenAt: Date().timeIntervalSince1970),
                         replacing: original)
        return txid
    }
}

extension OnChainWallet {
    /// What Bitcoin Core and Litecoin Core say of a transaction whose coins another spent first.
    static let spentElsewhere = ["rejecting replacement", "txn-mempool-conflict", "bad-txns-inputs-missingorspent", "missing-inputs", "missingorspent"]
}

extension SendPlan {
    /// The transaction before signing: every input replaceable (BIP125).
    public var unsigned: Transaction {
        Transaction(inputs: inputs.map { TxInput(prevout: $0.outpoint, sequence: Transaction.replaceableSequence) }, outputs: outputs)
    }
}

extension OnChainAccount {
    /// Signs `plan` with the wallet's keys, replaceable (BIP125): BIP143 for native and nested
    /// SegWit, BIP341 key path for Taproot, the original sighash for legacy (all SIGHASH_ALL or
    /// DEFAULT). Checks each key against the coin it spends and that the fee is the plan's.
    public func signed(_ plan: SendPlan, keys: HDWallet) throws -> Transaction {
        var transaction = plan.unsigned
        let spent = plan.inputs.map { TxOutput(value: $0.value.value, script: $0.script) }
        let segwit = SegwitV0Sighash(transaction)
        let taproot = try TaprootSighash(transaction, spent: spent)
        let unsigned = transaction
        // Each account's keychains once, not the whole path for every input.
        let master = try keys.masterKey()
        var keychains: [WatchedScripts.Lane: ExtendedPrivateKey] = [:]
        for (i, coin) in plan.inputs.enumerated() {
            let lane = WatchedScripts.Lane(kind: coin.place.kind, keychain: coin.place.keychain)
            if keychains[lane] == nil {
                keychains[lane] = try master.derive(path: try branch(lane.kind).path).derive(ChildNumber(lane.keychain.rawValue, hardened: false))
            }
            let privateKey = try keychains[lane]!.derive(ChildNumber(coin.place.index, hardened: false)).privateKey
            let publicKey = try Secp256k1.PublicKey(privateKey: privateKey)
            guard try coin.place.kind.script(of: publicKey).bytes == coin.script else {
                throw OnChainError.unsupported("coin \(coin.outpoint) is not locked to this wallet's key at \(try path(of: coin.place))")
            }
            try InputSigning.sign(&transaction, input: i, kind: coin.place.kind, privateKey: privateKey, publicKey: publicKey,
                                  spent: spent[i], sighashes: (segwit, taproot, unsigned))
        }
        let paid = try Sats.sum(transaction.outputs.map { Sats(clamping: $0.value) }), inputs = try Sats.sum(plan.inputs.map(\.value))
        guard inputs >= paid, (try inputs - paid) == plan.fee, transaction.vsize <= plan.vsize else {
            throw OnChainError.unsupported("the signed transaction does not match its preview; nothing was sent")
        }
        return transaction
    }
}

/// The one place an input is signed, for each kind of output a key locks.
enum InputSigning {
    /// Signs input `index` of `transaction` (spending `spent`, locked by `kind` to `publicKey`):
    /// BIP143 for native and nested SegWit, BIP341 key path for Taproot, the original sighash
    /// for legacy — with the 33-byte key unless `compressed` is false (legacy only).
    static func sign(_ transaction: inout Transaction, input index: Int, kind: ScriptKind, privateKey: SecretBytes, publicKey: Secp256k1.PublicKey,
                     compressed: Bool = true, spent: TxOutput, sighashes: (segwit: SegwitV0Sighash, taproot: TaprootSighash, unsigned: Transaction)) throws {
        switch kind {
        case .nativeSegwit, .nestedSegwit:
            let scriptCode = SegwitV0Sighash.p2wpkhScriptCode(keyHash: Hash.hash160(publicKey.compressed))
            let signature = try Secp256k1.signDER(digest: sighashes.segwit.digest(input: index, scriptCode: scriptCode, value: spent.value), privateKey: privateKey)
            transaction.inputs[index].witness = [signature + [UInt8(SegwitV0Sighash.sighashAll)], publicKey.compressed]
            if kind == .nestedSegwit { transaction.inputs[index].scriptSig = Script.push(ScriptKind.nestedProgram(of: publicKey)) }
        case .taproot:
            transaction.inputs[index].witness = [try Schnorr.signTaprootKeyPath(sighashes.taproot.digest(input: index), internalPrivateKey: privateKey)]
        case .legacy:
            let digest = LegacySighash.digest(sighashes.unsigned, input: index, spentScript: spent.script)
            let signature = try Secp256k1.signDER(digest: digest, privateKey: privateKey)
            transaction.inputs[index].scriptSig = Script.push(signature + [UInt8(SegwitV0Sighash.sighashAll)])
                + Script.push(compressed ? publicKey.compressed : publicKey.uncompressed)
        }
    }
}

/// Script pushes, for the unlocking scripts Hawala writes.
enum Script {
    /// A push of `data` (under 76 bytes: a signature, a key, a program).
    static func push(_ data: [UInt8]) -> [UInt8] { [UInt8(data.count)] + data }
}
