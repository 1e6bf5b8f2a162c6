import Foundation
import HawalaCrypto
import HawalaKeys

/// A BIP174 (version 0) partially signed transaction: what a watch-only wallet hands a signer
/// and the signer hands back — the file other wallets and Bitcoin Core's `decodepsbt` read.
/// Keys Hawala doesn't use are kept as they came.
public struct PSBT: Sendable, Equatable {
    /// One key-value pair of a map: the key's type and data, its value.
    public struct Pair: Sendable, Equatable {
        public var type: UInt8
        public var keyData: [UInt8]
        public var value: [UInt8]
    }

    /// A key's BIP32 origin: the master key's fingerprint and the path from it.
    public struct Origin: Sendable, Equatable {
        public let fingerprint: UInt32
        public let path: [UInt32]
    }

    public var transaction: Transaction
    public var global: [Pair]
    public var inputs: [[Pair]]
    public var outputs: [[Pair]]

    static let magic: [UInt8] = Array("psbt".utf8) + [0xFF]
    /// Larger files are refused unread.
    public static let maximumBytes = 16 * 1024 * 1024

    enum InputKey {
        static let nonWitnessUTXO: UInt8 = 0x00, witnessUTXO: UInt8 = 0x01, partialSignature: UInt8 = 0x02
        static let sighashType: UInt8 = 0x03, bip32Derivation: UInt8 = 0x06, finalScriptSig: UInt8 = 0x07, finalScriptWitness: UInt8 = 0x08
    }

    /// A PSBT for an unsigned transaction: each input with the output it spends (and the whole
    /// transaction that made it, which signers check the amount against), each key with its origin.
    public init(unsigned transaction: Transaction, spent: [(output: TxOutput, previous: Transaction?, key: [UInt8], origin: Origin)],
                outputOrigins: [Int: (key: [UInt8], origin: Origin)]) {
        var unsigned = transaction
        for i in unsigned.inputs.indices { unsigned.inputs[i].witness = []; unsigned.inputs[i].scriptSig = [] }
        self.transaction = unsigned
        global = [Pair(type: 0x00, keyData: [], value: unsigned.serialized(witness: false))]
        inputs = spent.map { entry in
            var map: [Pair] = []
            if let previous = entry.previous { map.append(Pair(type: InputKey.nonWitnessUTXO, keyData: [], value: previous.serialized(witness: false))) }
            map.append(Pair(type: InputKey.witnessUTXO, keyData: [], value: Self.serialize(entry.output)))
            map.append(Pair(type: InputKey.bip32Derivation, keyData: entry.key, value: Self.serialize(entry.origin)))
            return map
        }
        outputs = unsigned.outputs.indices.map { index in
            outputOrigins[index].map { [Pair(type: 0x02, keyData: $0.key, value: Self.serialize($0.origin))] } ?? []
        }
    }

    // MARK: Reading

    /// From a file's bytes: binary (`psbt\xff…`) or base64 text.
    public init(file: [UInt8]) throws(OnChainError) {
        guard file.count <= Self.maximumBytes else { throw .malformedTransaction("a PSBT file of \(file.count / 1024 / 1024) MiB is too large") }
        if file.starts(with: Self.magic) { try self.init(bytes: file); return }
        let text = String(decoding: file, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let decoded = Data(base64Encoded: text) else { throw .malformedTransaction("not a PSBT (neither binary nor base64)") }
        try self.init(bytes: [UInt8](decoded))
    }

    public init(bytes: [UInt8]) throws(OnChainError) {
        guard bytes.starts(with: Self.magic) else { throw .malformedTransaction("not a PSBT (it does not start with psbt\\xff)") }
        var reader = ByteReader(Array(bytes.dropFirst(5)))
        global = try Self.readMap(&reader)
        guard let unsignedPair = global.first(where: { $0.type == 0x00 && $0.keyData.isEmpty }) else {
            throw .malformedTransaction("a PSBT without its unsigned transaction (only version 0 is read)")
        }
        transaction = try Transaction(bytes: unsignedPair.value)
        guard transaction.inputs.allSatisfy({ $0.scriptSig.isEmpty && $0.witness.isEmpty }) else {
            throw .malformedTransaction("a PSBT's unsigned transaction has signatures")
        }
        var inputs: [[Pair]] = [], outputs: [[Pair]] = []
        for _ in transaction.inputs { inputs.append(try Self.readMap(&reader)) }
        for _ in transaction.outputs { outputs.append(try Self.readMap(&reader)) }
        guard reader.isAtEnd else { throw .malformedTransaction("\(reader.remaining) bytes after the PSBT's last map") }
        self.inputs = inputs
        self.outputs = outputs
    }

    private static func readMap(_ reader: inout ByteReader) throws(OnChainError) -> [Pair] {
        var pairs: [Pair] = []
        var keys = Set<[UInt8]>()
        while true {
            let key = try reader.varBytes()
            if key.isEmpty { return pairs }
            let value = try reader.varBytes()
            guard keys.insert(key).inserted else { throw .malformedTransaction("a PSBT with the same key twice in one map") }
            pairs.append(Pair(type: key[0], keyData: Array(key.dropFirst()), value: value))
        }
    }

    // MARK: Writing

    public var bytes: [UInt8] {
        var w = ByteWriter()
        w.bytes(Self.magic)
        for map in [global] + inputs + outputs {
            for pair in map {
                w.varBytes([pair.type] + pair.keyData)
                w.varBytes(pair.value)
            }
            w.byte(0x00)
        }
        return w.data
    }

    /// Base64, as Bitcoin Core's RPC and most wallets take it.
    public var base64: String { Data(bytes).base64EncodedString() }

    static func serialize(_ output: TxOutput) -> [UInt8] {
        var w = ByteWriter()
        w.uint64(output.value)
        w.varBytes(output.script)
        return w.data
    }

    static func serialize(_ origin: Origin) -> [UInt8] {
        var w = ByteWriter()
        w.bytes(withUnsafeBytes(of: origin.fingerprint.bigEndian) { Array($0) })
        for step in origin.path { w.uint32(step) }
        return w.data
    }

    // MARK: Inputs

    /// The output input `index` spends, from its witness UTXO.
    public func spentOutput(_ index: Int) throws(OnChainError) -> TxOutput {
        guard let pair = inputs[index].first(where: { $0.type == InputKey.witnessUTXO }) else {
            throw .unsupported("input \(index) of the PSBT does not say what it spends (no witness UTXO)")
        }
        var reader = ByteReader(pair.value)
        let output = TxOutput(value: try reader.uint64(), script: try reader.varBytes())
        guard output.value <= Transaction.maximumValue else { throw .malformedTransaction("input \(index) spends more than all the coins there are") }
        if let full = inputs[index].first(where: { $0.type == InputKey.nonWitnessUTXO }) {
            // The whole previous transaction, when given, must agree: its id is the outpoint's, its output this one.
            let previous = try Transaction(bytes: full.value)
            let prevout = transaction.inputs[index].prevout
            guard previous.txid == prevout.txid, previous.outputs.indices.contains(Int(prevout.vout)),
                  previous.outputs[Int(prevout.vout)] == output else {
                throw .malformedTransaction("input \(index)'s previous transaction does not match what it spends")
            }
        }
        return output
    }

    /// The keys of input `index` with their BIP32 origins.
    public func origins(ofInput index: Int) -> [(key: [UInt8], origin: Origin)] {
        inputs[index].filter { $0.type == InputKey.bip32Derivation }.compactMap { pair in
            guard pair.value.count >= 4, (pair.value.count - 4) % 4 == 0 else { return nil }
            let fingerprint = pair.value.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let path = stride(from: 4, to: pair.value.count, by: 4).map { i in
                pair.value[i..<i + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            }
            return (pair.keyData, Origin(fingerprint: fingerprint, path: path))
        }
    }

    /// Whether every input has its final witness or scriptSig.
    public var isFinalized: Bool {
        inputs.allSatisfy { map in map.contains { $0.type == InputKey.finalScriptWitness || $0.type == InputKey.finalScriptSig } }
    }

    /// Adds a partial signature (BIP174 signer).
    mutating func addSignature(input index: Int, key: [UInt8], signature: [UInt8]) {
        inputs[index].removeAll { $0.type == InputKey.partialSignature && $0.keyData == key }
        inputs[index].append(Pair(type: InputKey.partialSignature, keyData: key, value: signature))
    }

    /// BIP174's combiner: the same transaction's PSBTs merged, every pair of each.
    public func combined(with other: PSBT) throws(OnChainError) -> PSBT {
        guard other.transaction == transaction else { throw .unsupported("these PSBTs are of different transactions") }
        var result = self
        func merge(_ a: inout [Pair], _ b: [Pair]) {
            for pair in b where !a.contains(where: { $0.type == pair.type && $0.keyData == pair.keyData }) { a.append(pair) }
        }
        merge(&result.global, other.global)
        for i in result.inputs.indices { merge(&result.inputs[i], other.inputs[i]) }
        for i in result.outputs.indices { merge(&result.outputs[i], other.outputs[i]) }
        return result
    }

    /// BIP174's finalizer for P2WPKH inputs: a partial signature and its key become the final
    /// witness; what only signers need is dropped.
    public mutating func finalize() throws(OnChainError) {
        for index in inputs.indices where !inputs[index].contains(where: { $0.type == InputKey.finalScriptWitness }) {
            let output = try spentOutput(index)
            guard case .p2wpkh(let hash) = OutputScript(output.script) else {
                throw .unsupported("input \(index) is not P2WPKH: Hawala finalizes P2WPKH inputs only")
            }
            guard let signature = inputs[index].first(where: { $0.type == InputKey.partialSignature && Hash.hash160($0.keyData) == hash }) else {
                throw .unsupported("input \(index) is not signed yet")
            }
            var witness = ByteWriter()
            witness.varint(2)
            witness.varBytes(signature.value)
            witness.varBytes(signature.keyData)
            inputs[index] = inputs[index].filter { $0.type == InputKey.nonWitnessUTXO || $0.type == InputKey.witnessUTXO }
                + [Pair(type: InputKey.finalScriptWitness, keyData: [], value: witness.data)]
        }
    }

    /// The signed transaction of a finalized PSBT.
    public func extracted() throws(OnChainError) -> Transaction {
        guard isFinalized else { throw .unsupported("the PSBT is not signed and finalized yet") }
        var signed = transaction
        for index in inputs.indices {
            if let pair = inputs[index].first(where: { $0.type == InputKey.finalScriptWitness }) {
                var reader = ByteReader(pair.value)
                let count = try reader.varint()
                guard count <= UInt64(reader.remaining) else { throw .malformedTransaction("a final witness of \(count) items") }
                var items: [[UInt8]] = []
                for _ in 0..<count { items.append(try reader.varBytes()) }
                signed.inputs[index].witness = items
            }
            if let pair = inputs[index].first(where: { $0.type == InputKey.finalScriptSig }) { signed.inputs[index].scriptSig = pair.value }
        }
        return signed
    }

    /// The fee: what the inputs spend minus what the outputs pay.
    public func fee() throws(OnChainError) -> UInt64 {
        var spent: UInt64 = 0
        for index in inputs.indices {
            let (sum, overflow) = spent.addingReportingOverflow(try spentOutput(index).value)
            guard !overflow, sum <= Transaction.maximumValue else { throw .malformedTransaction("its inputs spend more than all the coins there are") }
            spent = sum
        }
        let paid = transaction.outputs.reduce(UInt64(0)) { $0 + $1.value }
        guard spent >= paid else { throw .malformedTransaction("its outputs pay more than its inputs spend") }
        return spent - paid
    }
}
