import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An Electrum server (ElectrumX, Fulcrum, electrs): the Electrum protocol's JSON-RPC, one
/// message a line, over TCP or TLS. Each exchange is one connection with one deadline for all of
/// it and a cap on all it reads. A TLS server's certificate is pinned at first use, as Electrum
/// does (servers' certificates are mostly self-signed): a changed one is refused.
public final class ElectrumClient: HistorySource {
    public enum Transport: String, Sendable { case tcp = "t", tls = "s" }

    public static let defaultTimeout: Duration = .seconds(30)
    /// A hundred histories or transactions, in hex, fit.
    public static let defaultMaximumBytes = 40 * 1024 * 1024

    public let host: String
    public let port: Int
    public let transport: Transport
    private let pinned: String?
    private let timeout: Duration
    private let maximumBytes: Int
    private let seen = Mutex<String?>(nil)
    /// Whether a certificate other than the pinned one was refused (the words say so then).
    private let pinRefused = Mutex(false)
    /// This exchange's connection was made, and the server showed a certificate: a TLS exchange
    /// that failed between the two met no TLS server (the words say so, whatever NIO threw).
    private let connected = Mutex(false)
    private let certificateShown = Mutex(false)

    /// `HOST:PORT:t` or `HOST:PORT:s` (TLS, also without the letter).
    public var location: String { "\(host):\(port):\(transport.rawValue)" }

    /// The SHA-256 of the certificate the server showed (hex), once a TLS exchange began.
    public var seenCertificate: String? { seen.withLock { $0 } }

    /// `address`: `HOST:PORT[:t|s]` (TLS when no letter); `pinnedCertificate`: the SHA-256 of
    /// the certificate saved with the server, nil at first use.
    /// - Throws: `OnChainError.nodeUnreachable` for an address that doesn't read.
    public init(address: String, pinnedCertificate: String? = nil, timeout: Duration = ElectrumClient.defaultTimeout,
                maximumBytes: Int = ElectrumClient.defaultMaximumBytes) throws(OnChainError) {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let shown = String(address.prefix(100))
        guard (2...3).contains(parts.count), !parts[0].isEmpty, parts[0].utf8.count <= 253,
              parts[0].unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-.".unicodeScalars.contains($0)) }),
              let port = Int(parts[1]), (1...65_535).contains(port) else {
            throw .nodeUnreachable(url: shown, why: "an Electrum server is written HOST:PORT:s (TLS) or HOST:PORT:t (plain TCP), e.g. electrum.example.org:50002:s")
        }
        guard parts.count == 2 || Transport(rawValue: parts[2]) != nil else {
            throw .nodeUnreachable(url: shown, why: "the letter after the port is s (TLS) or t (plain TCP), not \(OnChainError.short(parts[2]))")
        }
        host = parts[0]
        self.port = port
        transport = parts.count == 3 ? Transport(rawValue: parts[2])! : .tls
        pinned = pinnedCertificate
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    // MARK: ChainSource

    public func tip() async throws(OnChainError) -> ChainTip {
        let answers = try await exchange([("blockchain.headers.subscribe", []), ("server.features", [])])
        guard let header = answers[0] as? [String: Any], let height = header["height"] as? Int, height >= 0,
              let hex = header["hex"] as? String, let raw = bytes(fromHex: hex), raw.count == 80 else {
            throw .badAnswer("blockchain.headers.subscribe gave no header")
        }
        guard let features = answers[1] as? [String: Any], let genesis = features["genesis_hash"] as? String,
              let network = Self.genesisNetworks[genesis] else {
            throw .badAnswer("server.features names no genesis block of a network Hawala knows")
        }
        return ChainTip(coin: network.coin, chain: network.kind.rawValue, height: height, hash: hexString(Hash.doubleSHA256(raw).reversed()))
    }

    /// The networks whose genesis blocks are known here (what an Electrum server's features name).
    static let genesisNetworks: [String: OnChainNetwork] = [
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f": OnChainNetwork(coin: .bitcoin, kind: .main),
        "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943": OnChainNetwork(coin: .bitcoin, kind: .test),
        "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6": OnChainNetwork(coin: .bitcoin, kind: .signet),
        "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206": OnChainNetwork(coin: .bitcoin, kind: .regtest),
        "12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2": OnChainNetwork(coin: .litecoin, kind: .main),
        "4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0": OnChainNetwork(coin: .litecoin, kind: .test),
        "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9": OnChainNetwork(coin: .litecoin, kind: .regtest),
    ]

    /// The transaction's own fee and size (an index server tells no ancestors: a child of a
    /// payment whose own parent is unconfirmed lifts it alone).
    public func mempoolEntry(_ txid: Txid) async throws(OnChainError) -> (fee: Sats, vsize: Int)? {
        guard let raw = try await transactionsAllowingMissing([txid]).first, let raw, let transaction = try? Transaction(bytes: raw) else { return nil }
        let verbose = try await exchange([("blockchain.transaction.get", [txid.description, true])], allowErrors: true)
        if let object = verbose.first as? [String: Any], (object["confirmations"] as? Int ?? 0) > 0 { return nil }
        let parents = try await transactions(Array(Set(transaction.inputs.map(\.prevout.txid))))
        var byID: [Txid: Transaction] = [:]
        for raw in parents { if let parent = try? Transaction(bytes: raw) { byID[parent.txid] = parent } }
        var values: [Sats] = []
        for input in transaction.inputs {
            guard let parent = byID[input.prevout.txid], parent.outputs.indices.contains(Int(input.prevout.vout)) else { return nil }
            values.append(Sats(clamping: parent.outputs[Int(input.prevout.vout)].value))
        }
        // Checked sums: a server's transactions may claim any amounts.
        guard let spent = try? Sats.sum(values), let paid = try? Sats.sum(transaction.outputs.map { Sats(clamping: $0.value) }),
              let fee = try? spent - paid else {
            throw .badAnswer("a transaction whose amounts don't add up")
        }
        return (fee, transaction.vsize)
    }

    public func broadcast(_ transaction: [UInt8]) async throws(OnChainError) -> Txid {
        guard let id = try await exchange([("blockchain.transaction.broadcast", [hexString(transaction)])])[0] as? String, let txid = Txid(id) else {
            throw .badAnswer("blockchain.transaction.broadcast gave no transaction id")
        }
        return txid
    }

    public func estimateFee(blocks: Int) async throws(OnChainError) -> FeeRate? {
        guard let perKilobyte = try await exchange([("blockchain.estimatefee", [blocks])])[0] as? Double, perKilobyte > 0 else { return nil }
        return try? FeeRate(CoreRPC.perVByte(perKilobyte))
    }

    public func relayFee() async throws(OnChainError) -> FeeRate {
        guard let relay = try await exchange([("blockchain.relayfee", [])])[0] as? Double, relay >= 0 else {
            throw .badAnswer("blockchain.relayfee gave no rate")
        }
        return (try? FeeRate(max(1, CoreRPC.perVByte(relay)))) ?? (try! FeeRate(1))
    }

    // MARK: HistorySource

    public func histories(_ scripts: [[UInt8]]) async throws(OnChainError) -> [[HistoryEntry]] {
        let calls = scripts.map { ("blockchain.scripthash.get_history", [hexString(Hash.sha256($0).reversed())] as [Any]) }
        return try await exchange(calls).map { answer throws(OnChainError) in
            guard let entries = answer as? [[String: Any]] else { throw .badAnswer("a script's history is no list") }
            return try entries.map { entry throws(OnChainError) in
                guard let id = entry["tx_hash"] as? String, let txid = Txid(id), let height = entry["height"] as? Int else {
                    throw .badAnswer("a history entry has no transaction or height")
                }
                // 0: in the mempool; -1: in the mempool with an unconfirmed parent.
                return HistoryEntry(txid: txid, height: height > 0 ? height : nil)
            }
        }
    }

    public func transactions(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]] {
        try await transactionsAllowingMissing(ids).map { raw throws(OnChainError) in
            guard let raw else { throw .badAnswer("blockchain.transaction.get gave no transaction") }
            return raw
        }
    }

    private func transactionsAllowingMissing(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]?] {
        try await exchange(ids.map { ("blockchain.transaction.get", [$0.description]) }, allowErrors: true).map { ($0 as? String).flatMap { bytes(fromHex: $0) } }
    }

    // MARK: The exchange

    /// Sends `server.version` and `calls` on one connection, pipelined, and reads every answer:
    /// their results in order (nil for a call the server refused, with `allowErrors`).
    func exchange(_ calls: [(String, [Any])], allowErrors: Bool = false) async throws(OnChainError) -> [Any?] {
        guard !calls.isEmpty else { return [] }
        pinRefused.withLock { $0 = false }
        connected.withLock { $0 = false }
        certificateShown.withLock { $0 = false }
        var request = Data()
        let all: [(String, [Any])] = [("server.version", ["Hawala", "1.4"])] + calls
        for (id, call) in all.enumerated() {
            guard let line = try? JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": call.0, "params": call.1]) else {
                throw .badAnswer("cannot write the request")
            }
            request.append(line)
            request.append(0x0A)
        }
        let lines: [Data]
        let (timeout, location, expected, body) = (self.timeout, self.location, all.count, request)
        do {
            lines = try await withThrowingTaskGroup(of: [Data]?.self) { group in
                group.addTask { try await self.converse(body, expecting: expected) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let lines = first else {
                    throw OnChainError.nodeUnreachable(url: location, why: "it did not answer within \(timeout.components.seconds) s")
                }
                return lines
            }
        } catch let error as OnChainError {
            throw error
        } catch {
            if pinRefused.withLock({ $0 }) {
                throw .nodeUnreachable(url: location, why: "its TLS certificate is not the one saved with it (it changed, or another server answers there): if you expect that, save the server again")
            }
            if transport == .tls, connected.withLock({ $0 }), !certificateShown.withLock({ $0 }) {
                throw .nodeUnreachable(url: location, why: Self.notTLS)
            }
            throw .nodeUnreachable(url: location, why: Self.words(error))
        }
        var results = [Any?](repeating: nil, count: all.count)
        var answered = Set<Int>()
        for line in lines {
            guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else { throw .badAnswer("a line that is no JSON object") }
            // A notification (no id) is no answer.
            guard let id = object["id"] as? Int else { continue }
            guard results.indices.contains(id), answered.insert(id).inserted else { throw .badAnswer("an answer to no call") }
            if let error = object["error"], !(error is NSNull) {
                let message = (error as? [String: Any])?["message"] as? String ?? "\(error)"
                if id == 0 { throw .nodeRefused("it speaks no protocol version Hawala does (1.4): \(String(message.prefix(200)))") }
                if !allowErrors { throw .nodeRefused(String(message.prefix(300))) }
                continue
            }
            results[id] = object["result"]
        }
        return Array(results.dropFirst())
    }

    /// One connection: writes `request`, reads lines until `count` answers (lines with an id)
    /// came, never more than the cap in all.
    private func converse(_ request: Data, expecting count: Int) async throws -> [Data] {
        let (pinned, transport, host, maximumBytes) = (self.pinned, self.transport, self.host, self.maximumBytes)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if transport == .tls {
                        var configuration = TLSConfiguration.makeClientConfiguration()
                        configuration.certificateVerification = .noHostnameVerification
                        let handler = try NIOSSLClientHandler(context: try NIOSSLContext(configuration: configuration), serverHostname: nil,
                                                              customVerificationCallback: { certificates, promise in
                            guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else { return promise.succeed(.failed) }
                            let fingerprint = hexString(Hash.sha256(der))
                            self.seen.withLock { $0 = fingerprint }
                            self.certificateShown.withLock { $0 = true }
                            let accepted = pinned == nil || pinned == fingerprint
                            if !accepted { self.pinRefused.withLock { $0 = true } }
                            promise.succeed(accepted ? .certificateVerified : .failed)
                        })
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        connected.withLock { $0 = true }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var pending: [UInt8] = []
            var lines: [Data] = []
            var total = 0
            var answers = 0
            for try await chunk in inbound {
                total += chunk.readableBytes
                guard total <= maximumBytes else { throw OnChainError.badAnswer("its answers are larger than \(maximumBytes / 1024 / 1024) MiB") }
                // Copied whole, and split only when a line ended in it: a long line costs its bytes once.
                let ended = chunk.withUnsafeReadableBytes { $0.count > 0 && memchr($0.baseAddress!, 0x0A, $0.count) != nil }
                chunk.withUnsafeReadableBytes { pending.append(contentsOf: $0) }
                guard ended else { continue }
                var start = pending.startIndex
                defer { pending.removeSubrange(..<start) }
                while let end = pending[start...].firstIndex(of: 0x0A) {
                    let line = Data(pending[start..<end])
                    start = end + 1
                    guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) else { continue }
                    guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
                        throw OnChainError.badAnswer("a line that is no JSON object")
                    }
                    lines.append(line)
                    // A notification (no id) is no answer.
                    guard let id = object["id"] as? Int else { continue }
                    guard (0..<count).contains(id) else { throw OnChainError.badAnswer("an answer to no call") }
                    answers += 1
                }
                if answers >= count { return lines }
            }
            throw OnChainError.nodeUnreachable(url: self.location, why: "it closed the connection before answering every call")
        }
    }

    static let notTLS = "its TLS failed (is it a TLS port? a plain TCP port is written HOST:PORT:t)"

    /// A connection's failure in a person's words.
    static func words(_ error: any Error) -> String {
        if error is NIOSSLError || error is BoringSSLError { return notTLS }
        if let connect = error as? NIOConnectionError { return connect.dnsAAAAError != nil || connect.dnsAError != nil ? "its name does not resolve" : "it refused the connection" }
        if error is ChannelError { return "the connection failed" }
        let text = "\(error)"
        if text.contains("connectTimeout") { return "it did not accept a connection within 5 s" }
        if text.contains("refused") || text.contains("ECONNREFUSED") { return "it refused the connection" }
        return "the connection failed"
    }
}
