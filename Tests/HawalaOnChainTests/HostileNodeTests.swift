import Foundation
import HawalaOnChain
import HawalaTestSupport
import Testing

/// A node that lies, drips, floods or hangs: every call ends in time with a typed error, and
/// nothing is saved.
enum HostileBehaviour: Sendable { case garbage, huge, drip, hang, wrongChain, notJSONRPC, expensiveFees }

@Suite struct HostileNodeTests {
    typealias Behaviour = HostileBehaviour

    /// One loopback server answering every connection the same way, on its own thread.
    final class Server: @unchecked Sendable {
        let fd: Int32
        let port: Int
        let behaviour: Behaviour

        /// Whether it speaks as an Electrum server (JSON lines on TCP) instead of a node's HTTP.
        let electrum: Bool

        init(_ behaviour: Behaviour, electrum: Bool = false) throws {
            self.behaviour = behaviour
            self.electrum = electrum
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            listen(fd, 16)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
            let thread = Thread { [self] in self.serve() }
            thread.start()
        }

        func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }

        private func serve() {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                Thread { [behaviour, electrum] in electrum ? Self.answerAsElectrum(client, behaviour) : Self.answer(client, behaviour) }.start()
            }
        }

        private static func send(_ client: Int32, _ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Foundation.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        private static func answer(_ client: Int32, _ behaviour: Behaviour) {
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = recv(client, &buffer, buffer.count, 0)
            switch behaviour {
            case .garbage:
                _ = send(client, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{not json!!")
            case .notJSONRPC:
                _ = send(client, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
            case .huge:
                // 100 MB announced and sent until the client hangs up.
                guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n") else { return }
                let chunk = String(repeating: "0", count: 65_536)
                for _ in 0..<1_600 { guard send(client, chunk) else { return } }
            case .drip:
                guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n") else { return }
                for _ in 0..<100_000 {
                    guard send(client, " ") else { return }
                    usleep(100_000)
                }
            case .hang:
                sleep(120)
            case .expensiveFees:
                break
            case .wrongChain:
                let body = #"[{"result":{"chain":"main","blocks":900000,"bestblockhash":"00"},"error":null,"id":0},{"result":{"subversion":"/LitecoinCore:0.21.2.1/"},"error":null,"id":1},{"result":"12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2","error":null,"id":2}]"#
                _ = send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
        }

        /// As an Electrum server: JSON lines after the client's first line.
        private static func answerAsElectrum(_ client: Int32, _ behaviour: Behaviour) {
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = recv(client, &buffer, buffer.count, 0)
            switch behaviour {
            case .garbage: _ = send(client, "{not json!!\n")
            case .notJSONRPC: _ = send(client, #"{"jsonrpc":"2.0","id":7,"result":[]}"# + "\n")
            case .huge:
                let chunk = String(repeating: "0", count: 65_536)
                for _ in 0..<1_600 { guard send(client, chunk) else { return } }
            case .drip:
                for _ in 0..<100_000 {
                    guard send(client, " ") else { return }
                    usleep(100_000)
                }
            case .hang:
                sleep(120)
            case .expensiveFees:
                // 0.05 per kB: 5,000 per vB, for every estimate.
                _ = send(client, #"{"jsonrpc":"2.0","id":0,"result":["ElectrumX 2.0.0","1.4"]}"# + "\n" + #"{"jsonrpc":"2.0","id":1,"result":0.05}"# + "\n")
            case .wrongChain:
                let header = String(repeating: "00", count: 80)
                _ = send(client, #"{"jsonrpc":"2.0","id":0,"result":["ElectrumX 2.0.0","1.4"]}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":1,"result":{"hex":"\#(header)","height":900000}}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":2,"result":{"genesis_hash":"12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2"}}"# + "\n")
            }
        }
    }

    @Test(arguments: [HostileBehaviour.garbage, .notJSONRPC, .huge, .drip, .hang])
    func everyElectrumCallIsBounded(_ behaviour: HostileBehaviour) async throws {
        let server = try Server(behaviour, electrum: true)
        defer { server.stop() }
        // Garbage, a stray answer and 100 MB end by what was read (10 s of slack: a loaded run under
        // the sanitizer is slow); a drip and a hang only by the 2 s deadline.
        let deadlineBound = behaviour == .drip || behaviour == .hang
        let client = try ElectrumClient(address: "127.0.0.1:\(server.port):t", timeout: deadlineBound ? .seconds(2) : .seconds(10), maximumBytes: 1024 * 1024)
        let error = try await #require(throws: OnChainError.self) { try await client.tip() }
        let location = "127.0.0.1:\(server.port):t"
        switch behaviour {
        case .garbage: #expect(error == .badAnswer("a line that is no JSON object"))
        case .notJSONRPC: #expect(error == .badAnswer("an answer to no call"))
        case .huge: #expect(error == .badAnswer("its answers are larger than 1 MiB"))
        case .drip, .hang: #expect(error == .nodeUnreachable(url: location, why: "it did not answer within 2 s"))
        case .wrongChain, .expensiveFees: break
        }
    }

    /// A server's fee estimate sets no more than `FeeRate.serverCeiling`, said so; a rate typed
    /// by the person is theirs.
    @Test func anElectrumServersFeeEstimateIsCapped() async throws {
        let server = try Server(.expensiveFees, electrum: true)
        defer { server.stop() }
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try .init(text: abandonAbout), passphrase: .init([]), name: "t", network: .testnet, keyring: keyring)
        // 15 s: a loaded run under the sanitizer once took over 5 s for this server's answers.
        let client = try ElectrumClient(address: "127.0.0.1:\(server.port):t", timeout: .seconds(15))
        let onChain = OnChainWallet(account: try OnChainAccount.of(wallet, coin: .litecoin, kind: .regtest, store: store),
                                    node: NodeSettings(kind: .electrum, location: client.location, auth: .none, chain: "regtest", gapLimit: 20),
                                    walletStore: store, source: client)
        let chosen = try await onChain.feeRate(for: .fast)
        #expect(try chosen.rate == FeeRate.serverCeiling && chosen.cappedFrom == FeeRate(5_000))
        #expect(chosen.note == "The server's estimate was 5,000 per vB: capped at 1,000 (type a rate to pay more).")
    }

    @Test func anElectrumServerOnAnotherNetworkIsNotSaved() async throws {
        let server = try Server(.wrongChain, electrum: true)
        defer { server.stop() }
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try .init(text: abandonAbout), passphrase: .init([]), name: "t", network: .testnet, keyring: keyring)
        let client = try ElectrumClient(address: "127.0.0.1:\(server.port):t", timeout: .seconds(10))
        let error = try await #require(throws: OnChainError.self) {
            try await OnChainWallet.connect(wallet: wallet, coin: .litecoin, source: client, node: {
                NodeSettings(kind: .electrum, location: client.location, auth: .none, chain: $0, gapLimit: 20)
            }, store: store)
        }
        #expect(error.description.contains("is on Litecoin, but this account is on Litecoin's test networks"), "\(error)")
        #expect(try OnChainWallet.savedNode(wallet: wallet, coin: .litecoin, store: store) == nil)
    }

    @Test(arguments: [HostileBehaviour.garbage, .notJSONRPC, .huge, .drip, .hang])
    func everyCallIsBounded(_ behaviour: HostileBehaviour) async throws {
        let server = try Server(behaviour)
        defer { server.stop() }
        let rpc = try CoreRPC(url: "http://127.0.0.1:\(server.port)", auth: .none, timeout: .seconds(2), maximumBytes: 1024 * 1024)
        // The errors prove the bounds: a drip (hours long) and a hang (two minutes, then a close)
        // end as "did not answer within 2 s" only by the deadline; 100 MB only by the cap. No
        // wall-clock bound here: in the parallel run a task can stall for minutes on its own.
        let error = try await #require(throws: OnChainError.self) { try await rpc.tip() }
        switch behaviour {
        case .garbage: #expect(error == .badAnswer("not JSON"))
        case .notJSONRPC: #expect(error == .badAnswer("a batch of 3 calls was not answered call for call"))
        case .huge: #expect(error == .badAnswer("its answer is larger than 1 MiB"))
        case .drip, .hang: #expect(error == .nodeUnreachable(url: "http://127.0.0.1:\(server.port)", why: "it did not answer within 2 s"))
        case .wrongChain, .expensiveFees: break
        }
    }

    @Test func aNodeOnAnotherNetworkIsNotSaved() async throws {
        let server = try Server(.wrongChain)
        defer { server.stop() }
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try .init(text: abandonAbout), passphrase: .init([]), name: "t", network: .testnet, keyring: keyring)
        let rpc = try CoreRPC(url: "http://127.0.0.1:\(server.port)", auth: .none, timeout: .seconds(2))
        let error = try await #require(throws: OnChainError.self) {
            try await OnChainWallet.connect(wallet: wallet, coin: .litecoin, source: rpc, node: {
                NodeSettings(kind: .core, location: rpc.url, auth: .none, chain: $0, gapLimit: 20)
            }, store: store)
        }
        #expect(error.description.contains("is on Litecoin, but this account is on Litecoin's test networks"))
        #expect(try OnChainWallet.savedNode(wallet: wallet, coin: .litecoin, store: store) == nil)
        // Credentials never go in the address.
        #expect(throws: OnChainError.self) { try CoreRPC(url: "http://user:secret@127.0.0.1:8332", auth: .none) }
        #expect(throws: OnChainError.self) { try CoreRPC(url: "ftp://127.0.0.1:8332", auth: .none) }
    }
}
