import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// A single private key from elsewhere — a paper wallet, another wallet's export — in WIF. Its
/// coins are swept into the wallet (one payment to its next address) rather than kept beside
/// the words: a key imported and kept would be a second secret to back up, and whoever else
/// holds it could spend what stays there. Held only while sweeping; never shown.
public struct SingleKey: Sendable, CustomStringConvertible {
    let privateKey: SecretBytes
    public let publicKey: Secp256k1.PublicKey
    /// Whether its addresses use the 33-byte key (every wallet since 2012) or the 65-byte one.
    public let compressed: Bool

    public var description: String { "<redacted>" }

    /// Reads `text` (WIF; surrounding whitespace ignored) as a key of `network`.
    /// - Throws: `OnChainError.unsupported` in words that never repeat the text.
    public init(wif text: SecretBytes, network: OnChainNetwork) throws(OnChainError) {
        var chars = text.withUnsafeBytes { Array($0) }
        defer { SecretBytes.wipe(&chars) }
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var trimmed = Array(chars.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed())
        defer { SecretBytes.wipe(&trimmed) }
        var payload: [UInt8]
        do { payload = try Base58.decodeCheck(ascii: trimmed) } catch {
            throw .unsupported("the key file holds no private key in WIF (a paper wallet's or another wallet's export, e.g. K…, L…, 5…, c…): nothing was swept")
        }
        defer { SecretBytes.wipe(&payload) }
        guard payload.count == 33 || (payload.count == 34 && payload[33] == 0x01) else {
            throw .unsupported("the key file holds no WIF private key (an extended key or the words are not swept here): nothing was swept")
        }
        guard payload[0] == network.wifVersion else {
            let its = [(UInt8(0x80), "Bitcoin"), (0xB0, "Litecoin"), (0xEF, "a test network")].first { $0.0 == payload[0] }?.1 ?? "another coin"
            throw .unsupported("this is a key of \(its); this account is on \(network): nothing was swept")
        }
        let key = SecretBytes(payload[1..<33])
        do { publicKey = try Secp256k1.PublicKey(privateKey: key) } catch { throw .unsupported("the key in the file is not a valid private key: nothing was swept") }
        privateKey = key
        compressed = payload.count == 34
    }

    /// The outputs the key locks: native SegWit, nested SegWit, legacy and Taproot for a
    /// compressed key; legacy alone for an uncompressed one (SegWit needs the 33-byte key).
    public func outputs() throws -> [(kind: ScriptKind, script: OutputScript)] {
        guard compressed else { return [(.legacy, .p2pkh(hash: Hash.hash160(publicKey.uncompressed)))] }
        return try ScriptKind.allCases.map { ($0, try $0.script(of: publicKey)) }
    }

    /// The largest weight of an input spending this key's output of `kind`.
    func inputWeight(_ kind: ScriptKind, script: OutputScript) -> Int {
        // The 65-byte key makes the scriptSig 32 bytes longer.
        kind == .legacy && !compressed ? (41 + 139) * 4 + 1 : script.inputWeight ?? 272
    }
}

/// A coin found at a swept key's address.
public struct SweptCoin: Sendable, Equatable {
    public let outpoint: OutPoint
    public let value: Sats
    public let script: [UInt8]
    public let kind: ScriptKind
    /// 0 while unconfirmed.
    public let confirmations: Int
}

/// Every coin of a single key, paid to the wallet's next address in one payment: what the
/// preview shows is what is signed.
public struct SweepPlan: Sendable {
    public let network: OnChainNetwork
    public let coins: [SweptCoin]
    /// The wallet's own next receive address.
    public let destination: String
    public let amount: Sats
    public let fee: Sats
    public let feeRate: FeeRate
    /// The largest the signed transaction can be; the fee was computed on it.
    public let vsize: Int
    let unsigned: Transaction

    /// The rows every face shows before sweeping.
    public func previewRows(_ text: (Sats) -> String) -> [(label: String, value: String)] {
        let confirmed = coins.filter { $0.confirmations > 0 }.count
        return [("Found", "\(coins.count) coin\(coins.count == 1 ? "" : "s") (\(confirmed) confirmed), \(text((try? Sats.sum(coins.map(\.value))) ?? .zero))"),
                ("To", "\(destination) (this wallet)"), ("Amount", text(amount)),
                ("Fee", "\(text(fee)) (\(feeRate.perVByte) per vB × \(vsize) vB)")]
            + (network.isTest ? [("Network", "\(network) (test coins)")] : [])
    }
}

extension OnChainWallet {
    /// The coins at `key`'s addresses: the node's scan of its coin set (confirmed coins), or
    /// an index server's histories (with what is in its mempool).
    public func coins(of key: SingleKey) async throws -> [SweptCoin] {
        let outputs = try key.outputs()
        let kinds = Dictionary(outputs.map { ($0.script.bytes, $0.kind) }, uniquingKeysWith: { a, _ in a })
        let tip = try await source.tip()
        guard tip.network == account.network else {
            throw OnChainError.nodeOnWrongNetwork(url: source.location, nodeSays: tip.networkWords, account: account.network.description)
        }
        if let index = source as? any HistorySource {
            let histories = try await index.histories(outputs.map(\.script.bytes))
            var heights: [Txid: Int?] = [:]
            for entry in histories.joined() { heights[entry.txid] = entry.height }
            let ids = Array(heights.keys)
            var transactions: [Transaction] = []
            for chunk in ids.chunked(Self.scriptsPerRound) {
                for (txid, raw) in zip(chunk, try await index.transactions(chunk)) {
                    let transaction = try Transaction(bytes: raw)
                    guard transaction.txid == txid else { throw OnChainError.badAnswer("it gave another transaction than the one asked for") }
                    transactions.append(transaction)
                }
            }
            let spent = Set(transactions.flatMap { $0.inputs.map(\.prevout) })
            return transactions.flatMap { transaction in
                transaction.outputs.enumerated().compactMap { vout, output -> SweptCoin? in
                    let outpoint = OutPoint(hash: transaction.txid.hash, vout: UInt32(vout))
                    guard let kind = kinds[output.script], !spent.contains(outpoint) else { return nil }
                    let height = heights[transaction.txid] ?? nil
                    return SweptCoin(outpoint: outpoint, value: Sats(clamping: output.value), script: output.script, kind: kind,
                                     confirmations: height.map { max(0, tip.height - $0 + 1) } ?? 0)
                }
            }
        }
        guard let node = source as? any BlockSource else { throw OnChainError.unsupported("\(source.location) can't be read: neither a node nor an index server") }
        // One raw() descriptor a script: every node since Bitcoin Core 0.17 reads them.
        let found = try await node.unspent(descriptors: outputs.map { Descriptor.withChecksum("raw(\(hexString($0.script.bytes)))") }, range: nil)
        return try found.map { coin throws(OnChainError) in
            guard let kind = kinds[coin.script], coin.value <= Transaction.maximumValue else {
                throw OnChainError.badAnswer("its scan gave a coin at a script that is not the key's")
            }
            return SweptCoin(outpoint: coin.outpoint, value: Sats(clamping: coin.value), script: coin.script, kind: kind,
                             confirmations: max(1, tip.height - coin.height + 1))
        }
    }

    /// Plans sweeping every coin of `key` to this wallet's next receive address at `feeRate`,
    /// the fee taken from them. Nothing is signed.
    /// - Throws: `OnChainError.unsupported` when the key holds nothing, `insufficientFunds`
    ///   when its coins don't cover the fee and a payment the network relays.
    public func planSweep(_ key: SingleKey, feeRate: FeeRate) async throws -> SweepPlan {
        let coins = try await coins(of: key)
        let unit = account.network.coin.baseUnit
        guard !coins.isEmpty else {
            throw OnChainError.unsupported("no coins at this key's addresses on \(account.network)" + (source is any HistorySource ? "" : " (a node's scan finds confirmed coins only)") + ": nothing was swept")
        }
        let destination = try nextReceiveAddress()
        let script = try OutputScript.of(address: destination.address, on: account.network)
        let outputs = Dictionary(try key.outputs().map { ($0.script.bytes, $0.script) }, uniquingKeysWith: { a, _ in a })
        let weight = Transaction.overheadWeight(inputs: coins.count, outputs: 1) + script.outputWeight
            + coins.reduce(0) { $0 + key.inputWeight($1.kind, script: outputs[$1.script] ?? .p2pkh(hash: [])) }
        let fee = feeRate.fee(weight: weight)
        let sum = try Sats.sum(coins.map(\.value))
        let dust = dustLimit(script)
        guard sum > fee, let amount = try? sum - fee, amount >= dust else {
            throw OnChainError.insufficientFunds(needed: (try? fee + dust) ?? Sats.supply, available: sum, unit: unit)
        }
        let transaction = Transaction(inputs: coins.map { TxInput(prevout: $0.outpoint, sequence: Transaction.replaceableSequence) },
                                      outputs: [TxOutput(value: amount.value, script: script.bytes)])
        return SweepPlan(network: account.network, coins: coins, destination: destination.address, amount: amount, fee: fee,
                         feeRate: feeRate, vsize: (weight + 3) / 4, unsigned: transaction)
    }

    /// Signs `plan` with `key` (each input as its kind asks), checks it is what the preview
    /// showed, and sends it; the payment is kept (it pays this wallet).
    public func sweep(_ plan: SweepPlan, key: SingleKey) async throws -> Txid {
        var transaction = plan.unsigned
        let spent = plan.coins.map { TxOutput(value: $0.value.value, script: $0.script) }
        let sighashes = (SegwitV0Sighash(transaction), try TaprootSighash(transaction, spent: spent), transaction)
        for (index, coin) in plan.coins.enumerated() {
            try InputSigning.sign(&transaction, input: index, kind: coin.kind, privateKey: key.privateKey, publicKey: key.publicKey,
                                  compressed: key.compressed, spent: spent[index], sighashes: sighashes)
        }
        let paid = try Sats.sum(transaction.outputs.map { Sats(clamping: $0.value) })
        guard (try Sats.sum(plan.coins.map(\.value)) - paid) == plan.fee, transaction.vsize <= plan.vsize else {
            throw OnChainError.unsupported("the signed transaction does not match its preview; nothing was sent")
        }
        return try await broadcast(transaction)
    }
}
