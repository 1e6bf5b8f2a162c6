import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
#if canImport(HawalaSpark)
import HawalaSpark
#endif

/// Seed 003's speed figures (its "Success Metrics"), measured as the app meets them.
enum SeedFigures {
    static let password = SecretBytes(utf8: "benchmark password")
    static let runs = 20

    static func run() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-seed-figures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ledger = dir.appendingPathComponent("ledger.sqlite").path
        let (alice, aliceWallet) = try wallet(in: dir.appendingPathComponent("alice"),
                                              words: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", ledger: ledger)
        let (bob, bobWallet) = try wallet(in: dir.appendingPathComponent("bob"),
                                          words: "legal winner thank year wave sausage worth useful legal winner thank yellow", ledger: ledger)

        // The reference: Argon2id alone with the store's parameters, the bulk of an unlock.
        let parameters = try alice.unlock(password: password).parameters
        let kdf = try median((0..<5).map { _ in
            try seconds { _ = try Sodium.argon2id(password: password, salt: parameters.salt, opsLimit: parameters.passes, memLimitBytes: parameters.memoryKiB * 1024) }
        })
        print(row("reference: Argon2id alone (\(parameters.memoryKiB / 1024) MiB, \(parameters.passes) passes)", kdf))

        // Initialization: the wallet unlocked and its backend open to sign, as a session starts.
        var opened: [Double] = []
        for _ in 0..<5 {
            opened.append(try await seconds {
                let keyring = try alice.unlock(password: password)
                let session = try await LightningSession.open(store: alice, wallet: aliceWallet, signing: true, backends: .devnet) { keyring }
                _ = try await session.backend.getInfo()
                await session.close()
            })
        }
        print(row("devnet: wallet initialization (unlock + connect + node info), median of 5", median(opened), target: 2))

        let payer = try await LightningSession.open(store: alice, wallet: aliceWallet, signing: true, backends: .devnet) { try alice.unlock(password: password) }
        let payee = try await LightningSession.open(store: bob, wallet: bobWallet, signing: true, backends: .devnet) { try bob.unlock(password: password) }
        defer { Task { await payer.close(); await payee.close() } }
        guard let devnet = payer.backend as? DevnetBackend else { throw SeedFiguresError("the payer is not on devnet") }
        _ = try await devnet.fund(sats: 10_000_000)
        var previews: [Double] = [], payments: [Double] = []
        var sampleInvoice = ""
        for i in 0..<runs {
            let invoice = try await payee.backend.receivePayment(ReceiveRequest(amountSats: Sats(clamping: UInt64(1_000 + i)), description: "seed figure \(i)")).invoice
            sampleInvoice = invoice
            var prepared: PreparedPayment?
            previews.append(try await seconds {
                let input = try await payer.backend.parse(invoice)
                prepared = try await payer.prepare(input, text: invoice, amountSats: nil, comment: nil, maxFeeSats: nil)
            })
            guard let prepared else { throw SeedFiguresError("nothing prepared") }
            var status = Payment.Status.pending
            payments.append(try await seconds { status = try await payer.lightning.pay(prepared, idempotencyKey: nil).status })
            guard status == .completed else { throw SeedFiguresError("payment \(i) ended \(status)") }
        }
        print(row("devnet: payment preview (parse + prepare), median of \(runs)", median(previews), target: 1) + "  p95 " + ms(percentile95(previews)))
        print(row("devnet: payment execution, average of \(runs)", payments.reduce(0, +) / Double(runs), target: 5) + "  max " + ms(payments.max() ?? 0))

        await spark(invoice: sampleInvoice, home: dir)
    }

    /// Spark regtest with no network: what answers (connecting the SDK, parsing) and what can't.
    static func spark(invoice: String, home: URL) async {
        #if canImport(HawalaSpark)
        do {
            let backend = try SparkBackend(network: .regtest, apiKey: nil, timeout: .seconds(3), lnurl: nil, logFilter: "error")
            let secret = WalletSecret.mnemonic(try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"),
                                               passphrase: SecretBytes([]))
            let storage = home.appendingPathComponent("spark")
            try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
            let connect = try await seconds { try await backend.connect(ConnectRequest(secret: secret, storageDirectory: storage)) }
            print(row("spark regtest, offline: initialization (SDK connect)", connect, target: 2))
            var parsed: PaymentInput?
            let parse = try await seconds { parsed = try await backend.parse(invoice) }
            print(row("spark regtest, offline: parsing an invoice", parse, target: 1))
            let started = Date()
            do {
                _ = try await backend.prepareSendPayment(PrepareSendRequest(input: invoice))
                print(row("spark regtest, offline: payment preview", Date().timeIntervalSince(started), target: 1))
            } catch {
                print(String(format: "%-70@ %@", "spark regtest, offline: payment preview" as NSString,
                             "needs the network (\(error), after \(ms(Date().timeIntervalSince(started))))" as NSString))
            }
            _ = parsed
            await backend.disconnect()
        } catch {
            print("spark regtest, offline: \(error)")
        }
        #else
        print("spark: not in this build (no Breez SDK wheel for this machine)")
        #endif
    }

    /// A wallet home with one wallet at the store's real KDF cost, on the devnet ledger.
    static func wallet(in directory: URL, words: String, ledger: String) throws -> (WalletStore, WalletSummary) {
        let store = try WalletStore(home: WalletHome(directory: directory), create: true)
        let keyring = try store.newKeyring(password: password)
        let wallet = try store.add(mnemonic: try Mnemonic(text: words), passphrase: SecretBytes([]), name: "Bench", network: .testnet, keyring: keyring)
        try store.setSetting(LightningWallet.SettingKey.backend, to: "devnet:" + ledger, walletID: wallet.id)
        return (store, wallet)
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    static func percentile95(_ values: [Double]) -> Double { values.sorted()[max(0, Int((Double(values.count) * 0.95).rounded(.up)) - 1)] }
    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    static func row(_ label: String, _ seconds: Double, target: Double? = nil) -> String {
        let verdict = target.map { seconds < $0 ? "  (target < \(Int($0)) s ✓)" : "  (target < \(Int($0)) s ✗)" } ?? ""
        return String(format: "%-70@ %10@", label as NSString, ms(seconds) as NSString) + verdict
    }
}

struct SeedFiguresError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
