import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaWallet
import Synchronization
import Testing

/// Debian's Litecoin Core on regtest in a temporary folder, on a loopback port with a cookie:
/// the real node the on-chain wallet is tested against (`make test` installs `litecoind`). Its
/// own wallet "w" is the counterparty that funds and receives; Hawala never uses it.
final class RegtestNode: @unchecked Sendable {
    static let binary = "/usr/lib/litecoin/litecoind"

    let directory: URL
    let port: Int
    let process: Process
    let rpc: CoreRPC
    private let stopped = Mutex(false)

    var url: String { "http://127.0.0.1:\(port)" }
    var cookie: String { directory.appendingPathComponent("regtest/.cookie").path }

    /// At most two nodes at once: a dozen starting together on two cores starve the rest of the
    /// parallel test run (a PostgreSQL test's connection then misses its 10 s).
    static let gate = NodeGate(slots: 2)

    init(extraArguments: [String] = []) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw NodeError("\(Self.binary) is missing: `make test-deps` installs Debian's litecoind")
        }
        directory = temporaryFolder("hawala-litecoind")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        // Through a shell that watches this process and a stop file: when the test stops it, or
        // this process ends even by a crash, the node is killed — no node outlives its test.
        // SIGKILL, as the test runner's threads block SIGTERM and a child inherits that mask.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let watch = "\"$0\" \"$@\" </dev/null & child=$!; "
            + "while kill -0 \(getpid()) 2>/dev/null && [ ! -e '\(directory.path)/stop' ]; do sleep 0.1; done; kill -9 $child; wait $child"
        process.arguments = ["-c", watch, Self.binary,
            "-regtest", "-datadir=\(directory.path)", "-rpcport=\(port)", "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1",
            "-listen=0", "-server", "-printtoconsole=0", "-fallbackfee=0.0001", "-mempoolreplacement=1", "-keypool=1",
            // MWEB stays off: on regtest it activates at block 432 and then no block can be mined without a peg-in.
            "-vbparams=mweb:4000000000:4000000001",
        ] + extraArguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        rpc = try CoreRPC(url: "http://127.0.0.1:\(port)", auth: .cookieFile(directory.appendingPathComponent("regtest/.cookie").path),
                          timeout: .seconds(30))
        // Every stored property is set: from here a throw runs deinit, whose stop() frees the slot.
        await Self.gate.enter()
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while true {
            if (try? await rpc.tip()) != nil { break }
            guard Date() < deadline, process.isRunning else { stop(); throw NodeError("litecoind did not start") }
            try await Task.sleep(for: .milliseconds(100))
        }
        _ = try await rpc.call("createwallet", ["w"])
    }

    deinit { stop() }

    /// Kills the node (its data is a test's) and waits until it is gone.
    func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        defer { Task { await Self.gate.leave() } }
        FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
        while process.isRunning { usleep(10_000) }
    }

    struct NodeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw NodeError("no free port") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: The counterparty

    /// Mines `count` blocks to the node's own wallet.
    @discardableResult
    func mine(_ count: Int) async throws -> [String] {
        let address = try await rpc.call("getnewaddress", ["", "bech32"]) as! String
        return try await rpc.call("generatetoaddress", [count, address]) as! [String]
    }

    /// Pays `litoshi` to `address` from the node's wallet; the txid.
    func pay(_ address: String, _ litoshi: UInt64) async throws -> String {
        try await rpc.call("sendtoaddress", [address, Double(litoshi) / 100_000_000]) as! String
    }

    func newAddress() async throws -> String { try await rpc.call("getnewaddress", ["", "bech32"]) as! String }

    /// What the node's wallet received at `address`, confirmed at least `confirmations` times.
    func received(_ address: String, confirmations: Int = 1) async throws -> UInt64 {
        let coins = try await rpc.call("getreceivedbyaddress", [address, confirmations]) as! Double
        return UInt64((coins * 100_000_000).rounded())
    }

    func mempool() async throws -> [String] { try await rpc.call("getrawmempool") as! [String] }
}

/// A store with the `abandonAbout` wallet on testnet (its Litecoin account on coin type 1) and
/// that wallet's on-chain account against `node`.
struct RegtestWallet {
    let store: WalletStore
    let keyring: Keyring
    let summary: WalletSummary
    let onChain: OnChainWallet

    init(node: RegtestNode, words: String = abandonAbout, gapLimit: Int = NodeSettings.defaultGapLimit, store existing: (WalletStore, Keyring)? = nil) async throws {
        let (store, keyring) = try existing ?? newStore()
        self.store = store
        self.keyring = keyring
        summary = try store.add(mnemonic: try Mnemonic(text: words), passphrase: SecretBytes([]), name: nil, network: .testnet, keyring: keyring)
        let summary = summary
        _ = try await OnChainWallet.connect(wallet: summary, coin: .litecoin, source: node.rpc, node: {
            NodeSettings(kind: .core, location: node.url, auth: .cookieFile(node.cookie), chain: $0, gapLimit: gapLimit)
        }, store: store)
        onChain = try OnChainWallet.open(summary, coin: .litecoin, store: store)
    }

    var keys: HDWallet { get throws { try store.secret(of: summary, keyring: keyring).keys } }

    /// Plans, signs and broadcasts a payment; the plan and the txid.
    func send(to address: String, _ amount: SendAmount, feeRate: UInt64 = 2) async throws -> (SendPlan, Txid, Transaction) {
        let plan = try onChain.plan(to: address, amount: amount, feeRate: try FeeRate(feeRate))
        let transaction = try onChain.sign(plan, keys: keys)
        return (plan, try await onChain.broadcast(transaction), transaction)
    }
}

/// A counting semaphore for tasks.
actor NodeGate {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(slots: Int) { free = slots }

    func enter() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
