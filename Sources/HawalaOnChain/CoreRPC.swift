import AsyncHTTPClient
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import NIOCore

/// How Hawala logs in to a node's RPC: its cookie file, or a file holding `user:password` —
/// read when needed, never taken from the command line.
public enum NodeAuth: Sendable, Hashable, Codable {
    case cookieFile(String)
    case authFile(String)
    /// An Electrum server's TLS certificate as first seen (SHA-256, hex): only it is trusted.
    case pinnedCertificate(String)
    case none

    /// The path of the file holding the credentials, if any.
    public var path: String? {
        switch self {
        case .cookieFile(let path), .authFile(let path): path
        case .pinnedCertificate, .none: nil
        }
    }

    /// `user:password`, read from the file (its first line) into secret memory.
    func credentials() throws(OnChainError) -> SecretBytes? {
        guard let path else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .credentials("cannot read \(path) (a node writes its cookie file when it starts: is it running, and is this its data folder?)")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4097), data.count <= 4096 else {
            throw .credentials("\(path) is not a cookie or user:password line")
        }
        var bytes = [UInt8](data)
        defer { SecretBytes.wipe(&bytes) }
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
        guard line.contains(UInt8(ascii: ":")) else {
            throw .credentials("\(path) is not a cookie or user:password line")
        }
        return SecretBytes(Array(line))
    }
}

/// Bitcoin Core's (or Litecoin Core's) JSON-RPC over HTTP, bounded: one deadline for each whole
/// exchange, a size cap on each answer, no redirects. No node wallet is used.
public final class CoreRPC: BlockSource {
    public static let defaultTimeout: Duration = .seconds(30)
    /// Four blocks of 4 MB, written in hex, fit.
    public static let defaultMaximumBytes = 40 * 1024 * 1024
    /// Blocks fetched in one exchange.
    static let blocksPerCall = 4

    public let url: String
    private let auth: NodeAuth
    private let client: HTTPClient
    private let timeout: Duration
    private let maximumBytes: Int

    public var location: String { url }

    /// - Throws: `OnChainError.nodeUnreachable` when `url` is no http(s) URL.
    public init(url: String, auth: NodeAuth, timeout: Duration = CoreRPC.defaultTimeout,
                maximumBytes: Int = CoreRPC.defaultMaximumBytes) throws(OnChainError) {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil,
              parsed.user == nil, parsed.password == nil else {
            // Never repeat what was typed: it may hold a password.
            let shown = URL(string: url).flatMap { $0.user != nil || $0.password != nil ? "\($0.scheme ?? "http")://…@\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" : nil }
            throw .nodeUnreachable(url: shown ?? String(url.prefix(100)), why: "a node's address is http://HOST:PORT (credentials go in a file, never in the address)")
        }
        self.url = url
        self.auth = auth
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // Each exchange has its own deadline (below); reads may wait as long as the longest of them.
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(Int64(max(timeout, Self.scanTimeout).components.seconds)))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit { try? client.syncShutdown() }

    // MARK: ChainSource

    public func tip() async throws(OnChainError) -> ChainTip {
        let answers = try await batch([("getblockchaininfo", []), ("getnetworkinfo", []), ("getblockhash", [0])])
        guard let object = answers[0] as? [String: Any], let chain = object["chain"] as? String,
              let height = object["blocks"] as? Int, let hash = object["bestblockhash"] as? String else {
            throw .badAnswer("getblockchaininfo has no chain, height or best block")
        }
        // Both nodes call their test chain "regtest": the genesis block tells the coin, else the software's name.
        let software = (answers[1] as? [String: Any])?["subversion"] as? String ?? ""
        let coin = (answers[2] as? String).flatMap { Self.genesisCoins[$0] } ?? (software.lowercased().contains("litecoin") ? .litecoin : .bitcoin)
        return ChainTip(coin: coin, chain: chain, height: height, hash: hash)
    }

    /// The genesis blocks of the networks whose hashes are known here (Bitcoin main and regtest,
    /// Litecoin main and regtest).
    static let genesisCoins: [String: Coin] = [
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f": .bitcoin,
        "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206": .bitcoin,
        "12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2": .litecoin,
        "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9": .litecoin,
    ]

    public func blockHashes(_ heights: [Int]) async throws(OnChainError) -> [String] {
        var hashes: [String] = []
        for result in try await batch(heights.map { ("getblockhash", [$0]) }) {
            guard let hash = result as? String else { throw .badAnswer("getblockhash gave no hash") }
            hashes.append(hash)
        }
        return hashes
    }

    public func blocks(_ hashes: [String]) async throws(OnChainError) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        for start in stride(from: 0, to: hashes.count, by: Self.blocksPerCall) {
            let slice = hashes[start..<min(hashes.count, start + Self.blocksPerCall)]
            for result in try await batch(slice.map { ("getblock", [$0, 0]) }) {
                guard let hex = result as? String, let raw = bytes(fromHex: hex) else { throw .badAnswer("getblock gave no block") }
                blocks.append(raw)
            }
        }
        return blocks
    }

    public func mempool() async throws(OnChainError) -> [Txid] {
        guard let ids = try await call("getrawmempool") as? [String] else { throw .badAnswer("getrawmempool gave no list") }
        return ids.compactMap(Txid.init)
    }

    public func mempoolTransactions(_ ids: [Txid]) async throws(OnChainError) -> [[UInt8]?] {
        try await batch(ids.map { ("getrawtransaction", [$0.description]) }, allowErrors: true).map { result in
            (result as? String).flatMap { bytes(fromHex: $0) }
        }
    }

    public func mempoolEntry(_ txid: Txid) async throws(OnChainError) -> (fee: Sats, vsize: Int)? {
        let answer = try await batch([("getmempoolentry", [txid.description])], allowErrors: true)
        guard let entry = answer.first as? [String: Any] else { return nil }
        guard let vsize = entry["ancestorsize"] as? Int, let fees = entry["fees"] as? [String: Any], let ancestor = fees["ancestor"] as? Double,
              ancestor >= 0, ancestor < 84_000_000, vsize > 0 else { throw .badAnswer("getmempoolentry has no fee or size") }
        return (Sats(clamping: UInt64((ancestor * 100_000_000).rounded())), vsize)
    }

    public func broadcast(_ transaction: [UInt8]) async throws(OnChainError) -> Txid {
        guard let id = try await call("sendrawtransaction", [hexString(transaction)]) as? String, let txid = Txid(id) else {
            throw .badAnswer("sendrawtransaction gave no transaction id")
        }
        return txid
    }

    public func estimateFee(blocks: Int) async throws(OnChainError) -> FeeRate? {
        guard let answer = try await call("estimatesmartfee", [blocks]) as? [String: Any],
              let perKilobyte = answer["feerate"] as? Double else { return nil }
        return try? FeeRate(Self.perVByte(perKilobyte))
    }

    public func relayFee() async throws(OnChainError) -> FeeRate {
        guard let info = try await call("getnetworkinfo") as? [String: Any], let relay = info["relayfee"] as? Double else {
            throw .badAnswer("getnetworkinfo has no relay fee")
        }
        return (try? FeeRate(max(1, Self.perVByte(relay)))) ?? (try! FeeRate(1))
    }

    public func unspent(descriptors: [String], range: Int?) async throws(OnChainError) -> [ScannedCoin] {
        let objects: [[String: Any]] = descriptors.map { descriptor in range.map { ["desc": descriptor, "range": $0] } ?? ["desc": descriptor] }
        let answer = try await exchange(["jsonrpc": "1.0", "id": 0, "method": "scantxoutset", "params": ["start", objects]], timeout: Self.scanTimeout)
        guard let object = answer as? [String: Any] else { throw .badAnswer("scantxoutset answered no JSON object") }
        if let error = object["error"] as? [String: Any] {
            throw .nodeRefused((error["message"] as? String).map { String($0.prefix(300)) } ?? "scantxoutset failed")
        }
        guard let result = object["result"] as? [String: Any], result["success"] as? Bool == true, let unspents = result["unspents"] as? [[String: Any]] else {
            throw .badAnswer("scantxoutset found no coin list")
        }
        return try unspents.map { coin throws(OnChainError) in
            guard let id = coin["txid"] as? String, let txid = Txid(id), let vout = coin["vout"] as? Int, (0...Int(UInt32.max)).contains(vout),
                  let height = coin["height"] as? Int, height >= 0, let descriptor = coin["desc"] as? String,
                  let amount = coin["amount"] as? Double, amount >= 0, amount <= 84_000_000,
                  let scriptHex = coin["scriptPubKey"] as? String, let script = bytes(fromHex: scriptHex) else {
                throw .badAnswer("scantxoutset gave a coin without its place, value or script")
            }
            return ScannedCoin(outpoint: OutPoint(hash: txid.hash, vout: UInt32(vout)), height: height, descriptor: descriptor,
                               value: UInt64((amount * 100_000_000).rounded()), script: script)
        }
    }

    public func transactions(_ ids: [(txid: Txid, block: String)]) async throws(OnChainError) -> [[UInt8]] {
        try await batch(ids.map { ("getrawtransaction", [$0.txid.description, false, $0.block]) }).map { result throws(OnChainError) in
            guard let hex = result as? String, let raw = bytes(fromHex: hex) else { throw .badAnswer("getrawtransaction gave no transaction") }
            return raw
        }
    }

    /// A connection's failure in a person's words (the library's own text stays out of sight).
    static func words(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return "nothing answers there (is the node running, and is this its RPC port?)"
        }
        if text.lowercased().contains("ssl") || text.contains("TLS") || text.contains("handshake") {
            return "the secure connection failed (a node's RPC is usually plain http://)"
        }
        if text.contains("Connect timeout") || text.contains("connectTimeout") { return "it did not accept a connection within 5 s" }
        return String(text.prefix { $0 != "\n" }.prefix(160))
    }

    /// How long the node may take to scan its coin set (`scantxoutset`: minutes on mainnet).
    public static let scanTimeout: Duration = .seconds(1_200)

    /// Whether the node's mempool would accept `transaction`, and why not.
    public func testAccept(_ transaction: [UInt8]) async throws(OnChainError) -> (allowed: Bool, reason: String?) {
        guard let results = try await call("testmempoolaccept", [[hexString(transaction)]]) as? [[String: Any]], let first = results.first else {
            throw .badAnswer("testmempoolaccept gave no result")
        }
        return (first["allowed"] as? Bool ?? false, first["reject-reason"] as? String)
    }

    /// Coins per kilobyte (the node's unit) to base units per virtual byte, rounded up.
    static func perVByte(_ coinsPerKilobyte: Double) -> UInt64 {
        guard coinsPerKilobyte.isFinite, coinsPerKilobyte > 0, coinsPerKilobyte < 1 else { return 0 }
        // Base units per kilobyte first (whole numbers in the node's answer), then up to a whole unit per vbyte.
        let perKilobyte = UInt64((coinsPerKilobyte * 100_000_000).rounded())
        return (perKilobyte + 999) / 1000
    }

    // MARK: JSON-RPC

    /// One call's result.
    public func call(_ method: String, _ params: [Any] = []) async throws(OnChainError) -> Any? {
        let answer = try await exchange(["jsonrpc": "1.0", "id": 0, "method": method, "params": params])
        guard let object = answer as? [String: Any] else { throw .badAnswer("\(method) answered no JSON object") }
        if let error = object["error"] as? [String: Any] {
            throw .nodeRefused((error["message"] as? String).map { String($0.prefix(300)) } ?? "error \(error["code"] ?? "")")
        }
        return object["result"]
    }

    /// Several calls in one exchange; their results in order. With `allowErrors`, a call the node
    /// refused gives nil instead of failing all.
    func batch(_ calls: [(String, [Any])], allowErrors: Bool = false) async throws(OnChainError) -> [Any?] {
        guard !calls.isEmpty else { return [] }
        let requests: [[String: Any]] = calls.enumerated().map { ["jsonrpc": "1.0", "id": $0.offset, "method": $0.element.0, "params": $0.element.1] }
        guard let answers = try await exchange(requests) as? [[String: Any]], answers.count == calls.count else {
            throw .badAnswer("a batch of \(calls.count) calls was not answered call for call")
        }
        var results = [Any?](repeating: nil, count: calls.count)
        for answer in answers {
            guard let id = answer["id"] as? Int, results.indices.contains(id) else { throw .badAnswer("an answer to no call") }
            if let error = answer["error"] as? [String: Any], !allowErrors {
                throw .nodeRefused((error["message"] as? String).map { String($0.prefix(300)) } ?? "error")
            }
            results[id] = answer["result"]
        }
        return results
    }

    private func exchange(_ body: Any, timeout: Duration? = nil) async throws(OnChainError) -> Any {
        guard let payload = try? JSONSerialization.data(withJSONObject: body) else { throw .badAnswer("cannot write the request") }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let credentials = try auth.credentials() {
            request.headers.add(name: "Authorization", value: "Basic " + credentials.withUnsafeBytes { Data($0).base64EncodedString() })
        }
        request.body = .bytes(ByteBuffer(bytes: payload))
        let (client, maximumBytes, prepared, url, timeout) = (self.client, self.maximumBytes, request, self.url, timeout ?? self.timeout)
        let data: Data
        do {
            data = try await withThrowingTaskGroup(of: Data?.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, deadline: .now() + .seconds(Int64(timeout.components.seconds) + 1))
                    // Bitcoin Core answers refused calls with HTTP 500 and a JSON error; 401 is a wrong login.
                    if response.status == .unauthorized { throw OnChainError.nodeUnreachable(url: url, why: "it refused the login (check the cookie or credentials file)") }
                    guard response.status == .ok || response.status == .internalServerError || response.status == .notFound else {
                        throw OnChainError.nodeUnreachable(url: url, why: "it answered HTTP \(response.status.code)")
                    }
                    return Data(try await response.body.collect(upTo: maximumBytes).readableBytesView)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let data = first else {
                    throw OnChainError.nodeUnreachable(url: url, why: "it did not answer within \(timeout.components.seconds) s")
                }
                return data
            }
        } catch let error as OnChainError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .badAnswer("its answer is larger than \(maximumBytes / 1024 / 1024) MiB")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .nodeUnreachable(url: url, why: "it did not answer within \(timeout.components.seconds) s")
        } catch {
            throw .nodeUnreachable(url: url, why: Self.words(error))
        }
        guard let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw .badAnswer("not JSON")
        }
        return json
    }
}
