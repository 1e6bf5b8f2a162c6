import HawalaCrypto
import HawalaKeys
import HawalaText

/// What a PSBT pays, in the words a signer is shown before signing.
public struct PSBTSummary: Sendable, Equatable {
    public struct Payment: Sendable, Equatable {
        public let address: String
        public let amount: Sats
        /// Whether the output comes back to this wallet (change).
        public let toSelf: Bool
    }
    public let payments: [Payment]
    public let fee: Sats
    /// Inputs this wallet can sign, of all.
    public let signable: Int
    public let inputs: Int

    /// The rows every face shows.
    public func rows(unit: String) -> [(label: String, value: String)] {
        payments.map { ($0.toSelf ? "Change" : "To", "\($0.address)  \(AmountText.grouped($0.amount)) \(unit)") }
            + [("Fee", "\(AmountText.grouped(fee)) \(unit)"), ("Signs", "\(signable) of \(inputs) input\(inputs == 1 ? "" : "s")")]
    }
}

extension OnChainWallet {
    /// A payment planned for a PSBT: paid from native SegWit coins only (what a PSBT carries).
    public func psbtPlan(to address: String, amount: SendAmount, feeRate: FeeRate) throws -> SendPlan {
        do {
            return try plan(to: address, amount: amount, feeRate: feeRate, kinds: [.nativeSegwit])
        } catch let error as OnChainError {
            let left = try ledger().spendable.filter { $0.place.kind != .nativeSegwit }
            switch error {
            case .insufficientFunds, .insufficientUnfrozen: break
            default: throw error
            }
            guard !left.isEmpty else { throw error }
            let kinds = Array(Set(left.map(\.place.kind.displayName))).sorted().joined(separator: ", ")
            throw OnChainError.unsupported("\(error); a PSBT carries native SegWit coins only, and \(AmountText.grouped(try Sats.sum(left.map(\.value)))) \(account.network.coin.baseUnit) more are in \(kinds) coins: send from this wallet instead")
        }
    }

    /// The PSBT of a planned payment: for another signer (a hardware wallet, the wallet with
    /// the keys), with every input's spent output and key origin. Needs no secret.
    public func psbt(for plan: SendPlan, fingerprint: String) throws -> PSBT {
        guard let master = UInt32(fingerprint, radix: 16) else { throw OnChainError.unsupported("the wallet has no key fingerprint") }
        if let other = plan.inputs.first(where: { $0.place.kind != .nativeSegwit }) {
            throw OnChainError.unsupported("a PSBT spends native SegWit coins only for now, and this payment spends \(other.place.kind.displayName) coin \(other.outpoint): send it from this wallet, or freeze that coin")
        }
        let ledger = try ledger()
        let transaction = unsigned(plan)
        let spent = try plan.inputs.map { coin -> (output: TxOutput, previous: Transaction?, key: [UInt8], origin: PSBT.Origin) in
            guard let output = ledger.output(coin.outpoint) else { throw OnChainError.unknown("coin \(coin.outpoint)") }
            let previous = ledger.transactions.first { $0.txid == coin.outpoint.txid }?.transaction
            return (output, previous, try account.publicKey(at: coin.place).compressed, try origin(of: coin.place, master: master))
        }
        var changes: [Int: (key: [UInt8], origin: PSBT.Origin)] = [:]
        if let place = plan.changePlace, let script = try? account.script(at: place).bytes,
           let index = plan.outputs.firstIndex(where: { $0.script == script }) {
            changes[index] = (try account.publicKey(at: place).compressed, try origin(of: place, master: master))
        }
        return PSBT(unsigned: transaction, spent: spent, outputOrigins: changes)
    }

    private func origin(of place: KeyPlace, master: UInt32) throws -> PSBT.Origin {
        PSBT.Origin(fingerprint: master, path: try account.path(of: place).components.map(\.rawValue))
    }

    /// What `psbt` pays and how many of its inputs this account can sign.
    public func summary(of psbt: PSBT, fingerprint: String) throws -> PSBTSummary {
        let watched = try watchedScripts()
        let master = UInt32(fingerprint, radix: 16)
        let payments = psbt.transaction.outputs.map { output in
            PSBTSummary.Payment(address: OutputScript(output.script)?.address(on: account.network) ?? "a non-standard script",
                                amount: Sats(clamping: output.value), toSelf: watched.place(of: output.script) != nil)
        }
        let signable = psbt.inputs.indices.filter { index in
            psbt.origins(ofInput: index).contains { $0.origin.fingerprint == master ? true : ownPlace($0.key, $0.origin, master: master ?? 0) != nil }
        }.count
        return PSBTSummary(payments: payments, fee: Sats(clamping: try psbt.fee()), signable: signable, inputs: psbt.inputs.count)
    }

    /// Where `key` sits in this account when `origin` names this wallet (its fingerprint, or 0
    /// — no fingerprint, as a watch-only wallet made from a bare key writes — when the key at
    /// the path is this account's): this account's path, a keychain, an index; never any path a
    /// file names.
    func ownPlace(_ key: [UInt8], _ origin: PSBT.Origin, master: UInt32) -> KeyPlace? {
        guard origin.fingerprint == master || origin.fingerprint == 0 else { return nil }
        guard let place = account.place(ofPath: origin.path), place.kind == .nativeSegwit else { return nil }
        if origin.fingerprint == 0, (try? account.publicKey(at: place).compressed) != key { return nil }
        return place
    }

    /// Signs every input of `psbt` whose key this wallet holds (BIP143, SIGHASH_ALL), after
    /// checking each key against the output it spends; finalizes when all are signed.
    public func sign(_ psbt: PSBT, keys: HDWallet) throws -> (psbt: PSBT, signed: Int) {
        let master = try keys.masterFingerprint()
        let ledger = try ledger()
        var result = psbt
        let sighash = SegwitV0Sighash(psbt.transaction)
        var signed = 0
        for index in psbt.inputs.indices {
            for (key, origin) in psbt.origins(ofInput: index) {
                guard let place = ownPlace(key, origin, master: master) else { continue }
                let output = try psbt.spentOutput(index)
                guard case .p2wpkh(let hash) = OutputScript(output.script), hash == Hash.hash160(key) else { continue }
                // The amount signed for is checked against the whole previous transaction (when the file has
                // it, `spentOutput` did) or the wallet's own record of the coin: a file can't lie about it.
                let prevout = psbt.transaction.inputs[index].prevout
                guard psbt.inputs[index].contains(where: { $0.type == PSBT.InputKey.nonWitnessUTXO }) || ledger.output(prevout) == output else {
                    throw OnChainError.unsupported("input \(index) spends a coin this wallet doesn't know and the file doesn't prove (sync first): nothing was signed")
                }
                guard try account.publicKey(at: place).compressed == key else {
                    throw OnChainError.unsupported("input \(index)'s key is not the wallet's key at its path: nothing was signed")
                }
                let privateKey = try keys.privateKey(at: try account.path(of: place))
                let digest = sighash.digest(input: index, scriptCode: SegwitV0Sighash.p2wpkhScriptCode(keyHash: hash), value: output.value)
                result.addSignature(input: index, key: key, signature: try Secp256k1.signDER(digest: digest, privateKey: privateKey) + [UInt8(SegwitV0Sighash.sighashAll)])
                signed += 1
            }
        }
        guard signed > 0 else { throw OnChainError.unsupported("this wallet holds none of the keys this PSBT needs: nothing was signed") }
        if (try? result.finalized()) != nil { try result.finalize() }
        return (result, signed)
    }

    /// Broadcasts a finalized PSBT's transaction and keeps it.
    public func broadcast(_ psbt: PSBT) async throws -> Txid {
        try await broadcast(try psbt.extracted())
    }
}

extension PSBT {
    /// A finalized copy, or the reason it can't be.
    func finalized() throws(OnChainError) -> PSBT {
        var copy = self
        try copy.finalize()
        return copy
    }
}

extension OnChainWallet {
    /// Signs and finalizes the inputs of another program's `psbt` (a Spark exit's fee child)
    /// that spend `coins` of this wallet: native SegWit only, BIP143 SIGHASH_ALL, each amount
    /// from the wallet's own record (a witness UTXO the file gives must agree with it). The other
    /// inputs are left as they came. Returns how many were signed.
    ///
    /// At most `spendingAtMost` of the coins' value may leave the wallet: what the outputs pay
    /// back to its own scripts (or to `alsoOwn`) is counted as kept; a PSBT that would take more
    /// is refused unsigned.
    /// - Throws: `OnChainError.unsupported` when none of `coins` is spent, one isn't this
    ///   wallet's native SegWit coin, or more would leave than allowed.
    public func signInputs(of psbt: PSBT, spending coins: [OnChainCoin], spendingAtMost limit: Sats, alsoOwn: [[UInt8]] = [],
                           keys: HDWallet) throws -> (psbt: PSBT, signed: Int) {
        let ledger = try ledger()
        let watched = try watchedScripts()
        let spentHere = try Sats.sum(coins.filter { coin in psbt.transaction.inputs.contains { $0.prevout == coin.outpoint } }.map(\.value))
        let kept = try Sats.sum(psbt.transaction.outputs.filter { watched.place(of: $0.script) != nil || alsoOwn.contains($0.script) }.map { Sats(clamping: $0.value) })
        guard spentHere.minusOrZero(kept) <= limit else {
            throw OnChainError.unsupported("this PSBT would take \(AmountText.grouped(spentHere.minusOrZero(kept))) \(account.network.coin.baseUnit) of the wallet's coins, more than the \(AmountText.grouped(limit)) it may: nothing was signed")
        }
        var result = psbt
        let sighash = SegwitV0Sighash(psbt.transaction)
        var signed = 0
        for (index, input) in psbt.transaction.inputs.enumerated() {
            guard let coin = coins.first(where: { $0.outpoint == input.prevout }) else { continue }
            guard coin.place.kind == .nativeSegwit, let output = ledger.output(coin.outpoint), output.script == coin.script, output.value == coin.value.value else {
                throw OnChainError.unsupported("coin \(coin.outpoint) is not a native SegWit coin this wallet holds: nothing was signed")
            }
            if psbt.inputs[index].contains(where: { $0.type == PSBT.InputKey.witnessUTXO }) {
                guard try psbt.spentOutput(index) == output else {
                    throw OnChainError.unsupported("input \(index) says it spends another amount or script than coin \(coin.outpoint): nothing was signed")
                }
            }
            let privateKey = try keys.privateKey(at: try account.path(of: coin.place))
            let publicKey = try Secp256k1.PublicKey(privateKey: privateKey).compressed
            guard case .p2wpkh(let hash) = OutputScript(output.script), hash == Hash.hash160(publicKey) else {
                throw OnChainError.unsupported("coin \(coin.outpoint) is not locked to this wallet's key at its place: nothing was signed")
            }
            let digest = sighash.digest(input: index, scriptCode: SegwitV0Sighash.p2wpkhScriptCode(keyHash: hash), value: output.value)
            let signature = try Secp256k1.signDER(digest: digest, privateKey: privateKey) + [UInt8(SegwitV0Sighash.sighashAll)]
            var witness = ByteWriter()
            witness.varint(2)
            witness.varBytes(signature)
            witness.varBytes(publicKey)
            result.inputs[index] = result.inputs[index].filter { $0.type == PSBT.InputKey.nonWitnessUTXO }
                + [PSBT.Pair(type: PSBT.InputKey.witnessUTXO, keyData: [], value: PSBT.serialize(output)),
                   PSBT.Pair(type: PSBT.InputKey.finalScriptWitness, keyData: [], value: witness.data)]
            signed += 1
        }
        guard signed > 0 else { throw OnChainError.unsupported("the PSBT spends none of the coins it was to spend: nothing was signed") }
        return (result, signed)
    }
}
