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
