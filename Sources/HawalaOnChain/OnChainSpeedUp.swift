import HawalaText

extension OnChainWallet {
    /// The rate nodes add per virtual byte before they accept a replacement (Bitcoin Core's and
    /// Litecoin Core's `-incrementalrelayfee` default: 1 base unit per vB).
    static let incrementalRelayRate: UInt64 = 1

    /// A replacement of the wallet's own unconfirmed payment (BIP125): the same inputs, a
    /// higher fee at `feeRate`, the change reduced (the payee gets the same; a payment without
    /// change — everything sent — gives the fee from the payment itself).
    public func planBump(_ txid: Txid, feeRate: FeeRate) throws -> SendPlan {
        let ledger = try ledger()
        let watched = try watchedScripts()
        guard let original = ledger.transactions.first(where: { $0.txid == txid }) else { throw OnChainError.unknown("payment \(txid)") }
        guard original.height == nil else { throw OnChainError.unsupported("payment \(txid) is already confirmed: nothing to speed up") }
        guard let payment = ledger.payments.first(where: { $0.txid == txid }), payment.isOwn else {
            throw OnChainError.unsupported("payment \(txid) was not made by this wallet: its sender can replace it; this wallet can pay for it with a child (CPFP)")
        }
        guard payment.replaceable else { throw OnChainError.unsupported("payment \(txid) did not signal replace-by-fee: pay for it with a child (CPFP)") }
        // A replacement would cancel every payment that spends the original's outputs.
        if let child = ledger.transactions.first(where: { $0.transaction.inputs.contains { $0.prevout.txid == txid } }) {
            throw OnChainError.unsupported("payment \(child.txid) spends payment \(txid)'s change: replacing it would cancel that payment; speed up \(child.txid) instead (a child pays for its parent)")
        }
        let inputs = try original.transaction.inputs.map { input -> OnChainCoin in
            guard let output = ledger.output(input.prevout), let place = watched.place(of: output.script) else {
                throw OnChainError.unknown("coin \(input.prevout) that payment \(txid) spends")
            }
            return OnChainCoin(outpoint: input.prevout, value: Sats(clamping: output.value), place: place, script: output.script,
                               confirmations: 0, fromSelf: true, frozen: false)
        }
        let oldFee = payment.fee
        // The largest size it can be once signed, at most: the original's outputs with the same inputs.
        var outputs = original.transaction.outputs
        let weight = Transaction.overheadWeight(inputs: inputs.count, outputs: outputs.count) + inputs.reduce(0) { $0 + (OutputScript($1.script)?.inputWeight ?? 272) }
            + outputs.reduce(0) { $0 + 4 * (8 + 1 + $1.script.count) }
        let vsize = (weight + 3) / 4
        let wanted = feeRate.fee(weight: weight)
        let minimum = Sats(clamping: oldFee.value + UInt64(vsize) * Self.incrementalRelayRate)
        let newFee = max(wanted, minimum)
        let extra = newFee.value - oldFee.value
        // The change pays: an output to the change keychain, else the only output.
        let changeIndex = outputs.firstIndex { watched.place(of: $0.script)?.keychain == .change }
            ?? (outputs.count == 1 ? 0 : nil)
        guard let index = changeIndex else {
            throw OnChainError.unsupported("payment \(txid) has no change to take a higher fee from: pay for it with a child (CPFP)")
        }
        let script = OutputScript(outputs[index].script) ?? .p2wpkh(hash: [])
        let dust = dustLimit(script)
        guard outputs[index].value >= extra, outputs[index].value - extra >= dust.value else {
            throw OnChainError.insufficientFunds(needed: Sats(clamping: extra + dust.value), available: Sats(clamping: outputs[index].value),
                                                 unit: account.network.coin.baseUnit)
        }
        outputs[index].value -= extra
        let recipientOutput = outputs.first { watched.place(of: $0.script)?.keychain != .change } ?? outputs[index]
        let recipientScript = OutputScript(recipientOutput.script) ?? script
        var plan = SendPlan(network: account.network, recipient: recipientScript.address(on: account.network), recipientScript: recipientScript,
                            amount: Sats(clamping: recipientOutput.value), fee: newFee,
                            // The rate paid: raised past the one asked when a replacement must pay more.
                            feeRate: newFee > wanted ? (try? FeeRate((newFee.value + UInt64(vsize) - 1) / UInt64(vsize))) ?? feeRate : feeRate,
                            change: changeIndex.flatMap { outputs.count > 1 ? Sats(clamping: outputs[$0].value) : nil },
                            changePlace: watched.place(of: outputs[index].script), inputs: inputs, outputs: outputs, vsize: vsize)
        plan.replaces = txid
        plan.raisedFrom = newFee > wanted ? feeRate : nil
        plan.payeeBefore = Sats(clamping: original.transaction.outputs.first { watched.place(of: $0.script)?.keychain != .change }?.value ?? recipientOutput.value)
        return plan
    }

    /// A child that spends one of the wallet's coins made by an unconfirmed payment — incoming,
    /// or its own change — back to the wallet, with a fee that brings parent and child together
    /// to `feeRate` (CPFP).
    public func planChildPays(for txid: Txid, feeRate: FeeRate) async throws -> SendPlan {
        let ledger = try ledger()
        guard let parent = ledger.transactions.first(where: { $0.txid == txid }) else { throw OnChainError.unknown("payment \(txid)") }
        guard parent.height == nil else { throw OnChainError.unsupported("payment \(txid) is already confirmed: nothing to speed up") }
        guard let coin = ledger.coins.filter({ $0.outpoint.txid == txid && !$0.frozen }).max(by: { $0.value < $1.value }) else {
            throw OnChainError.unsupported("payment \(txid) left this wallet no coin to pay a child from")
        }
        guard let entry = try await source.mempoolEntry(txid) else {
            throw OnChainError.unsupported("payment \(txid) is not in the node's mempool (sync, then try again)")
        }
        let place = KeyPlace(.change, try nextChangeIndex())
        let script = try account.script(at: place)
        let childWeight = Transaction.overheadWeight(inputs: 1, outputs: 1) + (OutputScript(coin.script)?.inputWeight ?? 272) + script.outputWeight
        let childVsize = (childWeight + 3) / 4
        let together = feeRate.fee(weight: (entry.vsize + childVsize) * 4)
        let childFee = max(together.minusOrZero(entry.fee), feeRate.fee(weight: childWeight))
        let dust = dustLimit(script)
        guard coin.value.value >= childFee.value + dust.value else {
            throw OnChainError.insufficientFunds(needed: Sats(clamping: childFee.value + dust.value), available: coin.value, unit: account.network.coin.baseUnit)
        }
        let back = Sats(clamping: coin.value.value - childFee.value)
        var plan = SendPlan(network: account.network, recipient: script.address(on: account.network), recipientScript: script, amount: back,
                            fee: childFee, feeRate: feeRate, change: nil, changePlace: place, inputs: [coin],
                            outputs: [TxOutput(value: back.value, script: script.bytes)], vsize: childVsize)
        plan.speedsUp = txid
        return plan
    }
}
