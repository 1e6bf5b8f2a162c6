import HawalaCrypto
import HawalaKeys
import HawalaText

/// A coin's place: the transaction that made it and the output's index.
public struct OutPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The transaction id in its internal byte order (reversed from how it is written).
    public let hash: [UInt8]
    public let vout: UInt32

    public init(hash: [UInt8], vout: UInt32) {
        self.hash = hash
        self.vout = vout
    }

    /// From `TXID:VOUT` as people and nodes write it.
    public init(_ text: String) throws(OnChainError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let txid = Txid(String(parts[0])), let vout = UInt32(parts[1]) else {
            throw .unknown("coin \(OnChainError.short(text)): a coin is written TXID:OUTPUT, e.g. 4a5e…3b:0")
        }
        self.init(hash: txid.hash, vout: vout)
    }

    /// The transaction id as written.
    public var txid: Txid { Txid(hash: hash) }

    /// `TXID:VOUT`.
    public var description: String { "\(txid):\(vout)" }
}

/// A transaction id: double SHA-256 of the transaction without witnesses.
public struct Txid: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Internal byte order.
    public let hash: [UInt8]

    public init(hash: [UInt8]) { self.hash = hash }

    /// From the 64 hex digits as written (big-endian).
    public init?(_ hex: String) {
        guard hex.utf8.count == 64, let bytes = bytes(fromHex: hex) else { return nil }
        hash = bytes.reversed()
    }

    public var description: String { hexString(hash.reversed()) }
}

/// One input: the coin it spends, its unlocking script and witness.
public struct TxInput: Sendable, Hashable {
    public var prevout: OutPoint
    public var scriptSig: [UInt8]
    public var sequence: UInt32
    public var witness: [[UInt8]]

    public init(prevout: OutPoint, scriptSig: [UInt8] = [], sequence: UInt32, witness: [[UInt8]] = []) {
        self.prevout = prevout
        self.scriptSig = scriptSig
        self.sequence = sequence
        self.witness = witness
    }
}

/// One output: an amount in the chain's base unit and the script that locks it.
public struct TxOutput: Sendable, Hashable {
    public var value: UInt64
    public var script: [UInt8]

    public init(value: UInt64, script: [UInt8]) {
        self.value = value
        self.script = script
    }
}

/// A Bitcoin-family transaction, serialized as BIP144 writes it.
public struct Transaction: Sendable, Hashable {
    public var version: Int32
    public var inputs: [TxInput]
    public var outputs: [TxOutput]
    public var lockTime: UInt32

    public init(version: Int32 = 2, inputs: [TxInput], outputs: [TxOutput], lockTime: UInt32 = 0) {
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.lockTime = lockTime
    }

    /// The sequence that signals BIP125 replaceability (and leaves lock time on).
    public static let replaceableSequence: UInt32 = 0xFFFF_FFFD

    public var hasWitness: Bool { inputs.contains { !$0.witness.isEmpty } }

    /// The bytes as nodes relay them: with witnesses when any input has one.
    public func serialized(witness: Bool = true) -> [UInt8] {
        var w = ByteWriter()
        let withWitness = witness && hasWitness
        w.int32(version)
        if withWitness { w.bytes([0x00, 0x01]) }
        w.varint(UInt64(inputs.count))
        for input in inputs {
            w.bytes(input.prevout.hash)
            w.uint32(input.prevout.vout)
            w.varBytes(input.scriptSig)
            w.uint32(input.sequence)
        }
        w.varint(UInt64(outputs.count))
        for output in outputs {
            w.uint64(output.value)
            w.varBytes(output.script)
        }
        if withWitness {
            for input in inputs {
                w.varint(UInt64(input.witness.count))
                for item in input.witness { w.varBytes(item) }
            }
        }
        w.uint32(lockTime)
        return w.data
    }

    public var txid: Txid { Txid(hash: Hash.doubleSHA256(serialized(witness: false))) }

    /// The most any output, or all of a transaction's outputs together, can hold: Litecoin's
    /// 84 million coins (Bitcoin's 21 million is less). More is no valid transaction.
    public static let maximumValue: UInt64 = 84_000_000 * 100_000_000

    /// The weight of everything but the inputs and outputs: version, lock time, the counts (their
    /// compact sizes) and the segwit marker.
    public static func overheadWeight(inputs: Int, outputs: Int) -> Int {
        func compactSize(_ n: Int) -> Int { n < 0xFD ? 1 : n <= 0xFFFF ? 3 : 5 }
        return 4 * (4 + 4 + compactSize(inputs) + compactSize(outputs)) + 2
    }

    /// BIP141 weight: four times the bytes without witnesses, plus the witness bytes.
    public var weight: Int {
        let base = serialized(witness: false).count
        return base * 3 + serialized().count
    }

    /// Virtual size: weight / 4, rounded up — what fee rates are counted in.
    public var vsize: Int { (weight + 3) / 4 }

    /// Parses a whole transaction; bytes left over are an error.
    public init(bytes: [UInt8]) throws(OnChainError) {
        var reader = ByteReader(bytes)
        try self.init(reading: &reader)
        guard reader.isAtEnd else { throw .malformedTransaction("\(reader.remaining) bytes after its end") }
    }

    /// Parses one transaction from `reader` (a block holds several in a row).
    init(reading reader: inout ByteReader) throws(OnChainError) {
        version = Int32(bitPattern: try reader.uint32())
        var inputCount = try reader.varint()
        var segwit = false
        if inputCount == 0 {
            let flag = try reader.byte()
            guard flag == 0x01 else {
                throw .malformedTransaction(flag & 0x08 != 0 ? "MWEB transactions are not supported" : "unknown flag \(flag)")
            }
            segwit = true
            inputCount = try reader.varint()
        }
        // Each input is at least 41 bytes: a count past what is left is a lie, not an allocation.
        guard inputCount <= UInt64(reader.remaining / 41) else { throw .malformedTransaction("\(inputCount) inputs in \(reader.remaining) bytes") }
        var inputs: [TxInput] = []
        inputs.reserveCapacity(Int(inputCount))
        for _ in 0..<inputCount {
            let hash = try reader.bytes(32)
            let vout = try reader.uint32()
            let scriptSig = try reader.varBytes()
            let sequence = try reader.uint32()
            inputs.append(TxInput(prevout: OutPoint(hash: hash, vout: vout), scriptSig: scriptSig, sequence: sequence))
        }
        let outputCount = try reader.varint()
        guard outputCount <= UInt64(reader.remaining / 9) else { throw .malformedTransaction("\(outputCount) outputs in \(reader.remaining) bytes") }
        var outputs: [TxOutput] = []
        outputs.reserveCapacity(Int(outputCount))
        var total: UInt64 = 0
        for _ in 0..<outputCount {
            let output = TxOutput(value: try reader.uint64(), script: try reader.varBytes())
            total += min(output.value, Self.maximumValue + 1)
            guard output.value <= Self.maximumValue, total <= Self.maximumValue else {
                throw .malformedTransaction("its outputs hold more than all the coins there are")
            }
            outputs.append(output)
        }
        if segwit {
            for i in inputs.indices {
                let items = try reader.varint()
                guard items <= UInt64(reader.remaining) else { throw .malformedTransaction("a witness of \(items) items in \(reader.remaining) bytes") }
                for _ in 0..<items { inputs[i].witness.append(try reader.varBytes()) }
            }
        }
        lockTime = try reader.uint32()
        self.inputs = inputs
        self.outputs = outputs
    }
}

/// Little-endian writing, Bitcoin's compact sizes.
struct ByteWriter {
    var data: [UInt8] = []

    mutating func bytes(_ b: [UInt8]) { data += b }
    mutating func byte(_ b: UInt8) { data.append(b) }
    mutating func uint16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
    mutating func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
    mutating func int32(_ v: Int32) { uint32(UInt32(bitPattern: v)) }
    mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
    mutating func varint(_ v: UInt64) {
        switch v {
        case ..<0xFD: byte(UInt8(v))
        case ...0xFFFF: byte(0xFD); uint16(UInt16(v))
        case ...0xFFFF_FFFF: byte(0xFE); uint32(UInt32(v))
        default: byte(0xFF); uint64(v)
        }
    }
    mutating func varBytes(_ b: [UInt8]) { varint(UInt64(b.count)); bytes(b) }
}

/// Little-endian reading with bounds: running past the end is a typed error, never a trap.
struct ByteReader {
    private let data: [UInt8]
    private(set) var offset = 0

    init(_ data: [UInt8]) { self.data = data }

    var remaining: Int { data.count - offset }
    var isAtEnd: Bool { offset == data.count }

    mutating func bytes(_ count: Int) throws(OnChainError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw .malformedTransaction("it ends early") }
        defer { offset += count }
        return Array(data[offset..<offset + count])
    }
    mutating func byte() throws(OnChainError) -> UInt8 { try bytes(1)[0] }
    mutating func uint16() throws(OnChainError) -> UInt16 { UInt16(try littleEndian(2)) }
    mutating func uint32() throws(OnChainError) -> UInt32 { UInt32(try littleEndian(4)) }
    mutating func uint64() throws(OnChainError) -> UInt64 { try littleEndian(8) }
    private mutating func littleEndian(_ count: Int) throws(OnChainError) -> UInt64 {
        try bytes(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func varint() throws(OnChainError) -> UInt64 {
        switch try byte() {
        case 0xFD: UInt64(try uint16())
        case 0xFE: UInt64(try uint32())
        case 0xFF: try uint64()
        case let small: UInt64(small)
        }
    }
    mutating func varBytes() throws(OnChainError) -> [UInt8] {
        let count = try varint()
        guard count <= UInt64(remaining) else { throw .malformedTransaction("it ends early") }
        return try bytes(Int(count))
    }
}
