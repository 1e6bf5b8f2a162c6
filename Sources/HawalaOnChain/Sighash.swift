import HawalaCrypto

/// BIP143: the digest a segwit v0 input signs (SIGHASH_ALL), with the hashes shared by every
/// input computed once.
public struct SegwitV0Sighash: Sendable {
    private let transaction: Transaction
    private let hashPrevouts: [UInt8]
    private let hashSequence: [UInt8]
    private let hashOutputs: [UInt8]

    public static let sighashAll: UInt32 = 1

    public init(_ transaction: Transaction) {
        self.transaction = transaction
        var prevouts = ByteWriter(), sequences = ByteWriter(), outputs = ByteWriter()
        for input in transaction.inputs {
            prevouts.bytes(input.prevout.hash)
            prevouts.uint32(input.prevout.vout)
            sequences.uint32(input.sequence)
        }
        for output in transaction.outputs {
            outputs.uint64(output.value)
            outputs.varBytes(output.script)
        }
        hashPrevouts = Hash.doubleSHA256(prevouts.data)
        hashSequence = Hash.doubleSHA256(sequences.data)
        hashOutputs = Hash.doubleSHA256(outputs.data)
    }

    /// The digest input `index` signs, spending `value` locked by `scriptCode` (for P2WPKH:
    /// `OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG`).
    public func digest(input index: Int, scriptCode: [UInt8], value: UInt64) -> [UInt8] {
        let input = transaction.inputs[index]
        var w = ByteWriter()
        w.int32(transaction.version)
        w.bytes(hashPrevouts)
        w.bytes(hashSequence)
        w.bytes(input.prevout.hash)
        w.uint32(input.prevout.vout)
        w.varBytes(scriptCode)
        w.uint64(value)
        w.uint32(input.sequence)
        w.bytes(hashOutputs)
        w.uint32(transaction.lockTime)
        w.uint32(Self.sighashAll)
        return Hash.doubleSHA256(w.data)
    }

    /// The script code of a P2WPKH output with this key hash.
    public static func p2wpkhScriptCode(keyHash: [UInt8]) -> [UInt8] {
        OutputScript.p2pkh(hash: keyHash).bytes
    }
}

/// BIP341: the digest a taproot key-path input signs, SIGHASH_DEFAULT (or ALL), no annex. It
/// commits to every spent output's amount and script, so those are given for all inputs.
public struct TaprootSighash: Sendable {
    private let transaction: Transaction
    private let shaPrevouts: [UInt8]
    private let shaAmounts: [UInt8]
    private let shaScriptPubkeys: [UInt8]
    private let shaSequences: [UInt8]
    private let shaOutputs: [UInt8]

    /// `spent`: the output each input spends, in input order.
    public init(_ transaction: Transaction, spent: [TxOutput]) throws(OnChainError) {
        guard spent.count == transaction.inputs.count else {
            throw .unsupported("a taproot signature needs every spent output: \(spent.count) of \(transaction.inputs.count) given")
        }
        self.transaction = transaction
        var prevouts = ByteWriter(), amounts = ByteWriter(), scripts = ByteWriter(), sequences = ByteWriter(), outputs = ByteWriter()
        for (input, output) in zip(transaction.inputs, spent) {
            prevouts.bytes(input.prevout.hash)
            prevouts.uint32(input.prevout.vout)
            amounts.uint64(output.value)
            scripts.varBytes(output.script)
            sequences.uint32(input.sequence)
        }
        for output in transaction.outputs {
            outputs.uint64(output.value)
            outputs.varBytes(output.script)
        }
        shaPrevouts = Hash.sha256(prevouts.data)
        shaAmounts = Hash.sha256(amounts.data)
        shaScriptPubkeys = Hash.sha256(scripts.data)
        shaSequences = Hash.sha256(sequences.data)
        shaOutputs = Hash.sha256(outputs.data)
    }

    /// The hash types built: both sign every input and output.
    public enum HashType: UInt8, Sendable {
        /// The signature is 64 bytes (no sighash byte): what Hawala signs.
        case `default` = 0
        case all = 1
    }

    /// The digest input `index` signs.
    public func digest(input index: Int, hashType: HashType = .default) -> [UInt8] {
        var w = ByteWriter()
        w.bytes([0x00, hashType.rawValue])  // the epoch, then the hash type
        w.int32(transaction.version)
        w.uint32(transaction.lockTime)
        w.bytes(shaPrevouts)
        w.bytes(shaAmounts)
        w.bytes(shaScriptPubkeys)
        w.bytes(shaSequences)
        w.bytes(shaOutputs)
        w.bytes([0x00])  // spend type: key path, no annex
        w.uint32(UInt32(index))
        return Hash.tagged("TapSighash", w.data)
    }
}

/// The original sighash (SIGHASH_ALL) a P2PKH input signs: the transaction without witnesses,
/// the signed input's script slot holding the spent script and every other slot empty.
public enum LegacySighash {
    public static func digest(_ transaction: Transaction, input index: Int, spentScript: [UInt8]) -> [UInt8] {
        var copy = transaction
        for i in copy.inputs.indices {
            copy.inputs[i].scriptSig = i == index ? spentScript : []
            copy.inputs[i].witness = []
        }
        var w = ByteWriter()
        w.bytes(copy.serialized(witness: false))
        w.uint32(SegwitV0Sighash.sighashAll)
        return Hash.doubleSHA256(w.data)
    }
}
