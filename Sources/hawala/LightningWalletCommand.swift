import ArgumentParser
import Foundation
import HawalaVault
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
#if canImport(HawalaSpark)
import HawalaSpark
#endif
import HawalaWallet

// `hawala ln invoice|pay|balance|history|show|export|watch|config|devnet`: the wallet side of
// Lightning, through the wallet's payment backend (devnet here: see LightningSession).

/// Options every wallet-side `ln` command takes.
struct LightningOptions: ParsableArguments {
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: ArgumentHelp("Payment backend: spark:mainnet, spark:regtest or devnet:PATH (default: the wallet's, see `hawala ln config`).", valueName: "spec"))
    var backend: String?
    @Option(name: .customLong("network-timeout"), help: ArgumentHelp("Seconds to wait for the payment network before giving up (Spark).", valueName: "seconds"))
    var networkTimeout: Int = 30
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (1...600).contains(networkTimeout) else { throw ValidationError("--network-timeout must be between 1 and 600 seconds") }
    }
}

/// A wallet, its backend and its history, opened for one command.
struct LightningSession {
    let store: WalletStore
    let wallet: WalletSummary
    let spec: BackendSpec
    let backend: any PaymentBackend
    let lightning: LightningWallet

    /// Opens the wallet's backend. `signing` unlocks the wallet (prompt or --password-file) to
    /// derive the node key; otherwise, on devnet, the node id saved by an earlier command is
    /// enough and the password is asked only the first time. Spark always needs the password:
    /// the SDK connects with the wallet's seed.
    static func open(_ options: LightningOptions, signing: Bool, lnurl: LNURLPayFlow? = nil) throws -> LightningSession {
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: options.wallet)
        let specText = try options.backend ?? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id)
        guard let specText else {
            throw CLIError("""
                no Lightning backend is set for wallet "\(wallet.name)": pass --backend spark:mainnet, --backend spark:regtest \
                (Spark's test network) or --backend devnet:PATH (a development network on this machine, not the Lightning \
                network), or save one with `hawala ln config --backend SPEC`
                """)
        }
        let spec = try BackendSpec.parse(specText)
        let fiat = try configuredFiat(store, wallet)
        let savedNode = try store.setting(LightningWallet.SettingKey.nodeID, walletID: wallet.id)
        let backend: any PaymentBackend
        var directory = store.home.directory
        var keyringUsed: Keyring?
        switch spec {
        case .devnet(let path):
            let devnet = try DevnetBackend(ledgerPath: path, rates: fiat?.provider, lnurl: lnurl)
            if !signing, let savedNode {
                devnet.attach(nodeID: savedNode)
                return LightningSession(store: store, wallet: wallet, spec: spec, backend: devnet,
                                        lightning: LightningWallet(store: store, wallet: wallet, backend: devnet, fiat: fiat))
            }
            backend = devnet
        case .spark(let network):
            #if canImport(HawalaSpark)
            let keyring = try WalletSession.unlock(store, file: options.password.passwordFile)
            keyringUsed = keyring
            let apiKey = try store.sealedSetting(LightningWallet.SettingKey.sparkAPIKey(network), keyring: keyring)
            backend = try SparkBackend(network: network, apiKey: apiKey, timeout: .seconds(options.networkTimeout), lnurl: lnurl,
                                       logFilter: SparkBackend.logFilter(logLevel.rawValue))
            directory = try SparkBackend.storageDirectory(home: store.home.directory, walletID: wallet.id, network: network)
            #else
            throw CLIError(sparkNotBuilt)
            #endif
        }
        let keyring = try keyringUsed ?? WalletSession.unlock(store, file: options.password.passwordFile)
        let secret = try store.secret(of: wallet, keyring: keyring)
        let request = ConnectRequest(secret: secret, storageDirectory: directory)
        do {
            try blocking { try await backend.connect(request) }
        } catch let error as LightningError {
            // The library says what is missing; the CLI says which option provides it.
            guard case .apiKeyRequired = error else { throw error }
            throw CLIError("\(error); save it with `hawala ln config --backend spark:mainnet --api-key-file PATH`")
        }
        let info = try blocking { try await backend.getInfo() }
        if info.nodeID != savedNode { try store.setSetting(LightningWallet.SettingKey.nodeID, to: info.nodeID, walletID: wallet.id) }
        return LightningSession(store: store, wallet: wallet, spec: spec, backend: backend,
                                lightning: LightningWallet(store: store, wallet: wallet, backend: backend, fiat: fiat))
    }

    /// Disconnects (Spark stops its background work and closes its storage).
    func close() {
        let backend = self.backend
        try? blocking { await backend.disconnect() }
    }

    /// The wallet's fiat currency and rates source, when configured.
    static func configuredFiat(_ store: WalletStore, _ wallet: WalletSummary, currency: String? = nil) throws -> (currency: String, provider: FiatRatesProvider)? {
        do {
            return try LightningWallet.fiat(store: store, wallet: wallet, currency: currency)
        } catch FiatSettingError.noRatesSource {
            throw CLIError("no fiat rates source is set: `hawala ln config --rates-file PATH` or `--rates-url URL`")
        }
    }

    /// Which backend, for the user: always says devnet is not the Lightning network.
    var backendLabel: String { spec.label }
}

/// What `--backend spark:…` answers in a build without the Spark SDK.
let sparkNotBuilt = "the spark backend is not available in this build: the Breez Spark SDK exists for Linux x86_64 (and Apple platforms) only"

/// Runs async library code from a synchronous command.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Carries a task's result back to the waiting thread (the semaphore orders the accesses).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// Flushes stdout (a pipe buffers until exit otherwise).
func flushOutput() { fflush(nil) }

/// Sats from msat for display: exact when not whole.
func satsText(_ msat: UInt64) -> String { PaymentExport.sats(msat) + " sat" }

extension Payment {
    /// The `--json` shape of a payment (`ln history`, `ln show`, `ln pay`).
    var json: JSONValue {
        .object([
            ("id", .string(id)), ("type", .string(PaymentExport.word(type))), ("status", .string(status.rawValue)),
            ("amountMsat", .int(Int(amountMsat))), ("feeMsat", .int(Int(feeMsat))),
            ("date", .string(PaymentExport.date(timestamp))), ("method", .string(method)), ("backend", .string(backend)),
            ("description", details.description.map { .string($0) } ?? .null),
            ("paymentHash", details.paymentHash.map { .string($0) } ?? .null),
            ("preimage", details.preimage.map { .string($0) } ?? .null),
            ("destination", details.destination.map { .string($0) } ?? .null),
            ("invoice", details.invoice.map { .string($0) } ?? .null),
            ("failureReason", failureReason.map { .string($0) } ?? .null),
            ("fiat", fiat.map { .object([("currency", .string($0.currency)), ("value", .string("\($0.value)"))]) } ?? .null),
        ])
    }

    /// One line of `ln history`.
    var line: String {
        let sign = type == .send ? "-" : "+"
        var text = "\(PaymentExport.date(timestamp))  \(sign)\(satsText(amountMsat))"
        if type == .send { text += " (fee \(satsText(feeMsat)))" }
        text += "  \(status.rawValue)  \(id)"
        if let d = details.description, !d.isEmpty { text += "  \(DisplayText.safe(String(d.prefix(60))))" }
        if let reason = failureReason { text += "  [\(DisplayText.safe(reason))]" }
        if let expiry = invoiceExpiry { text += expiry < Date() ? "  (invoice expired \(expiry.iso8601))" : "  (unpaid invoice, expires \(expiry.iso8601))" }
        return text
    }

}

// MARK: - invoice

struct LightningInvoice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoice", abstract: "Create an invoice to receive a payment (needs the wallet password).",
        discussion: """
            Prints the BOLT11 invoice on stdout. --wait blocks until it is paid (or --timeout seconds \
            pass: exit 1, the invoice stays valid until it expires). On Spark, --method spark prints \
            the wallet's Spark address and --method bitcoin an on-chain deposit address instead.
            """)
    @OptionGroup var options: LightningOptions
    @Option(help: ArgumentHelp("bolt11 (an invoice), spark (the Spark address) or bitcoin (an on-chain deposit address).", valueName: "method"))
    var method: ReceiveMethod = .bolt11
    @Option(help: "Amount in sat.") var amount: UInt64?
    @Flag(help: "No amount: the payer chooses.") var amountless = false
    @Option(help: "What the payment is for (shown to the payer).") var description: String = ""
    @Option(help: "Seconds until the invoice expires.") var expiry: UInt64 = Bolt11Invoice.defaultExpiry
    @Flag(help: "Also draw the invoice as a QR code.") var qr = false
    @Flag(help: "Wait until the invoice is paid.") var wait = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: UInt64 = 3600
    @Flag(help: "JSON output: {invoice, paymentHash, amountMsat, description, expiresAt, backend}; with --wait, then the payment object on a second line.") var json = false

    func validate() throws {
        if method != .bolt11 {
            guard amount == nil, !amountless, !wait else { throw ValidationError("--method \(method.rawValue) gives an address: no --amount, --amountless or --wait") }
            return
        }
        guard (amount != nil) != amountless else { throw ValidationError("give exactly one of --amount SATS or --amountless") }
        if let amount, amount == 0 { throw ValidationError("--amount must be at least 1 sat (or use --amountless)") }
        guard PaymentLimits.expiryRange.contains(expiry) else { throw ValidationError("--expiry must be between 1 and 31536000 seconds") }
        guard (1...86_400 * 7).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 604800 seconds") }
    }

    func run() throws {
        let session = try LightningSession.open(options, signing: true)
        defer { session.close() }
        let backend = session.backend
        if method != .bolt11 {
            let method = self.method
            let address = try blocking { try await backend.receiveAddress(method) }
            if json {
                print(JSONValue.object([("method", .string(method.rawValue)), ("address", .string(address)), ("backend", .string(backend.name))]).compact)
            } else {
                print(address)
                if qr { for line in TextQR.terminalLines(try TextQR.encode(address, caseInsensitive: false)) { print(line) } }
            }
            Output.error("on \(session.backendLabel)")
            return
        }
        let request = ReceiveRequest(amountSats: amount, description: description, expirySeconds: expiry)
        let response = try blocking { try await backend.receivePayment(request) }
        try session.lightning.recordInvoice(response, amountSats: amount, description: description)
        if json {
            print(JSONValue.object([
                ("invoice", .string(response.invoice)), ("paymentHash", .string(response.paymentHash)),
                ("amountMsat", amount.map { .int(Int($0) * 1000) } ?? .null), ("description", .string(description)),
                ("expiresAt", .string(response.expiresAt.iso8601)), ("backend", .string(session.backend.name)),
            ]).compact)
        } else {
            print(response.invoice)
        }
        if qr && !json { for line in TextQR.terminalLines(try TextQR.encode(response.invoice, caseInsensitive: true)) { print(line) } }
        flushOutput()
        Output.error("on \(session.backendLabel); expires \(response.expiresAt.iso8601)")
        guard wait else { return }
        Output.error("waiting for the payment…")
        let seconds = timeout
        let hash = response.paymentHash
        let lightning = session.lightning
        let payment: Payment
        do {
            payment = try blocking { try await lightning.waitForPayment(paymentHash: hash, timeout: .seconds(seconds)) }
        } catch LightningError.timeout {
            throw CLIError("not paid within \(seconds) s; the invoice stays valid until \(response.expiresAt.iso8601)")
        }
        if json { print(payment.json.compact) } else { print("received \(satsText(payment.amountMsat)) (payment \(payment.id))") }
    }
}

// MARK: - pay

struct LightningPay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay", abstract: "Pay an invoice, a Lightning address or an LNURL (needs the wallet password).",
        discussion: """
            Shows the amount, the fee, the total, the description and the expiry, and asks before \
            paying unless --yes. The same idempotency key never pays twice; by default it is the \
            invoice's payment hash, so running the same command again returns the first result. \
            Exit codes: 0 paid, 1 failed or refused, 2 usage error, 3 still pending (not final: \
            check later with `hawala ln show ID`).
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: "A BOLT11 invoice, a bitcoin: URI with a lightning= invoice, a Lightning address or an LNURL.") var input: String
    @Option(help: "Amount in sat (for an amountless invoice, a Lightning address or an LNURL).") var amount: UInt64?
    @Option(name: .customLong("max-fee"), help: "Refuse when the fee is above this many sat.") var maxFee: UInt64?
    @Option(help: "A comment for the payee (LNURL-pay services that accept one).") var comment: String?
    @Option(name: .customLong("idempotency-key"), help: "Pay at most once under this key (default: the invoice's payment hash).") var idempotencyKey: String?
    @Flag(help: "Pay without asking.") var yes = false
    @Flag(help: "JSON output of the final payment.") var json = false

    func validate() throws {
        if let key = idempotencyKey, key.isEmpty || key.utf8.count > 256 { throw ValidationError("--idempotency-key must be 1–256 bytes") }
        if let amount, amount == 0 { throw ValidationError("--amount must be at least 1 sat") }
    }

    func run() throws {
        let parsed: PaymentInput
        do { parsed = try PaymentInput.parse(input) } catch { throw CLIError(String(describing: error)) }
        if comment != nil && !parsed.isLNURL { throw CLIError("--comment is for Lightning addresses and LNURL-pay only", code: .usage) }
        // A key already used answers with its payment, before any password or network.
        if idempotencyKey ?? parsed.defaultIdempotencyKey != nil {
            let store = try WalletSession.store(create: false)
            let summary = try store.wallet(named: options.wallet)
            if let earlier = try LightningWallet.earlierPayment(for: parsed, key: idempotencyKey, store: store, walletID: summary.id) {
                Output.error("already paid under this idempotency key: nothing was sent again")
                return try report(earlier, successAction: nil)
            }
        }
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the payment; pass --yes to pay without asking", code: .usage) }
        let fetcher = parsed.isLNURL ? HTTPFetcher() : nil
        defer { if let fetcher { try? blocking { await fetcher.shutdown() } } }
        let lnurl = fetcher.map { LNURLPayFlow(fetcher: $0) }
        let session = try LightningSession.open(options, signing: true, lnurl: lnurl)
        defer { session.close() }
        let input = self.input, amount = self.amount, comment = self.comment, maxFee = self.maxFee
        let lightning = session.lightning

        // Prepare: nothing is paid yet.
        let payment = try blocking { try await lightning.prepare(parsed, text: input, amountSats: amount, comment: comment, maxFeeSats: maxFee, lnurl: lnurl) }
        let prepared = payment.prepared
        if let payRequest = payment.payRequest {
            Output.error("\(payRequest.domain) accepts \(satsText(payRequest.minSendableMsat))–\(satsText(payRequest.maxSendableMsat)): \(DisplayText.safe(payRequest.description))")
        }
        var preview = [
            "Pay on \(session.backendLabel)",
            "  amount:      \(satsText(prepared.amountMsat))",
            "  fee:         \(satsText(prepared.feeMsat))",
            "  total:       \(satsText(prepared.totalMsat))",
            "  description: \(prepared.description.flatMap { $0.isEmpty ? nil : DisplayText.safe($0) } ?? "(none)")",
            "  to:          \(hexString(prepared.invoice.payee))",
            "  expires:     \(prepared.expiresAt.iso8601)",
        ]
        if let (currency, provider) = try LightningSession.configuredFiat(session.store, session.wallet),
           let rate = try? blocking({ try await provider.rate(currency) }) {
            preview.insert("  ≈            \(rate.value(msat: prepared.totalMsat)) \(rate.currency) in total", at: 4)
        }
        if yes {
            for line in preview { Output.error(line) }
        } else {
            let terminal = try Terminal.required("pass --yes")
            for line in preview { terminal.line(line) }
            guard try terminal.confirm("Pay \(satsText(prepared.totalMsat)) in total?") else { throw CLIError("not paid") }
        }

        let key = idempotencyKey
        let paid = try blocking { try await lightning.pay(payment, idempotencyKey: key) }
        try report(paid, successAction: payment.successAction)
    }

    /// Prints the final status; exit 1 when failed, 3 when still pending.
    func report(_ payment: Payment, successAction: SuccessAction?) throws {
        if json { payment.json.print() }
        switch payment.status {
        case .completed:
            if !json { print("paid \(satsText(payment.amountMsat)) (fee \(satsText(payment.feeMsat))); payment \(payment.id), preimage \(payment.details.preimage ?? "?")") }
            if let successAction, let text = try? successAction.text(preimage: payment.details.preimage.flatMap { bytes(fromHex: $0) }) {
                Output.error("message from the payee: \(DisplayText.safe(text))")
            }
        case .failed:
            throw CLIError("payment failed: \(DisplayText.safe(payment.failureReason ?? "no reason given")) (payment \(payment.id))")
        case .pending:
            Output.error("payment \(payment.id) is pending: not final, it may still settle; check with `hawala ln show \(payment.id)`")
            throw ExitCode(3)
        }
    }
}

// MARK: - balance, history, show

struct LightningBalance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance", abstract: "The Lightning balance (syncs the history first).",
        discussion: "With a fiat currency (--fiat, or `hawala ln config --fiat`) the value is shown too. JSON keys: balanceSats, balanceMsat, backend, nodeId, and fiat {currency, value, btcPrice}.")
    @OptionGroup var options: LightningOptions
    @Option(help: "Also show the value in this currency (needs a rates source: `hawala ln config`).") var fiat: String?
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let session = try LightningSession.open(options, signing: false)
        defer { session.close() }
        let lightning = session.lightning, backend = session.backend
        let info = try blocking {
            try await lightning.sync()
            return try await backend.getInfo()
        }
        var fiatValue: (FiatRate, Decimal)?
        // Asked for (--fiat): a failure is an error. Configured: a failure is a note, the balance stands.
        if let (currency, provider) = try LightningSession.configuredFiat(session.store, session.wallet, currency: fiat?.uppercased()) {
            do {
                let rate = try blocking { try await provider.rate(currency) }
                fiatValue = (rate, rate.value(msat: info.balanceMsat))
            } catch where fiat == nil {
                Output.error("note: no \(currency) value: \(error)")
            }
        }
        if json {
            var fields: [(String, JSONValue)] = [
                ("balanceSats", .int(Int(info.balanceSats))), ("balanceMsat", .int(Int(info.balanceMsat))),
                ("backend", .string(session.backend.name)), ("nodeId", .string(info.nodeID)),
            ]
            if let (rate, value) = fiatValue {
                fields.append(("fiat", .object([("currency", .string(rate.currency)), ("value", .string("\(value)")), ("btcPrice", .string("\(rate.btcPrice)"))])))
            }
            JSONValue.object(fields).print()
            return
        }
        var line = "\(satsText(info.balanceMsat))"
        if let (rate, value) = fiatValue { line += " ≈ \(value) \(rate.currency)" }
        print(line)
        Output.error("on \(session.backendLabel)")
    }
}

extension Payment.Status: ExpressibleByArgument {}
extension ReceiveMethod: ExpressibleByArgument {}

enum HistoryType: String, ExpressibleByArgument, CaseIterable {
    case sent, received
    var kind: Payment.Kind { self == .sent ? .send : .receive }
}

struct LightningHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Payments, newest first (synced with the backend first when it answers).",
        discussion: "Brings the history up to date with the wallet's backend when it answers within --sync-timeout seconds, then reads the history kept on this machine (no password needed); offline it says when it last synced. Invoices not paid yet are pending receives, with their expiry (--status pending lists them). JSON: an array of payment objects (README).")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "Only sent or received payments.") var type: HistoryType?
    @Option(help: "Only payments in this status (pending, completed, failed).") var status: Payment.Status?
    @Option(help: "At most this many payments.") var limit: Int = 20
    @Option(help: "Skip this many payments first.") var offset: Int = 0
    @Option(name: .customLong("sync-timeout"), help: "Seconds to wait for the backend before reading the history kept here (0: don't sync).") var syncTimeout: Int = 10
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        guard (1...1_000_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000000") }
        guard offset >= 0 else { throw ValidationError("--offset can't be negative") }
        guard (0...300).contains(syncTimeout) else { throw ValidationError("--sync-timeout must be between 0 and 300 seconds") }
    }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        typealias Key = LightningWallet.SettingKey
        // Sync first when the wallet has a backend and its node is known (no password needed).
        // Spark connects with the wallet's seed, so without the password its history is read as
        // last synced (`ln balance` syncs it).
        let spec = try store.setting(Key.backend, walletID: summary.id).flatMap { try? BackendSpec.parse($0) }
        if syncTimeout > 0, case .devnet? = spec, try store.setting(Key.nodeID, walletID: summary.id) != nil {
            let timeout = Duration.seconds(syncTimeout)
            var offline: String?
            do {
                let lightning = try LightningSession.open(try LightningOptions.parse(["--wallet", summary.name]), signing: false).lightning
                if case .offline(let reason, _) = try blocking({ await lightning.sync(timeout: timeout) }) { offline = reason }
            } catch {
                offline = "\(error)"
            }
            if let offline {
                let last = LightningWallet.lastSyncedAt(store: store, walletID: summary.id)
                Output.error("offline (\(offline)): the history as last synced\(last.map { " at " + $0.iso8601 } ?? ": never")")
            }
        } else if case .spark? = spec {
            let last = LightningWallet.lastSyncedAt(store: store, walletID: summary.id)
            Output.error("the history as last synced with Spark\(last.map { " at " + $0.iso8601 } ?? ": never") (`hawala ln balance` syncs it)")
        }
        let payments = try store.payments(walletID: summary.id, filter: PaymentFilter(type: type?.kind, status: status, offset: offset, limit: limit))
        if json { JSONValue.array(payments.map(\.json)).print(); return }
        if payments.isEmpty { Output.error("no payments"); return }
        var out = ""
        for p in payments { out += p.line + "\n" }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}

struct LightningShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One payment: amounts, status, invoice, preimage.",
        discussion: "PAYMENT_ID may be the first characters of the id or of the payment hash.")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Argument(help: "The payment id (or a unique prefix of it or of the payment hash).") var paymentID: String
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        guard let p = try store.payment(walletID: summary.id, id: paymentID) else { throw CLIError("no payment \"\(paymentID)\" in wallet \"\(summary.name)\"") }
        if json { p.json.print(); return }
        var lines = [
            "payment \(p.id)",
            "  type:         \(PaymentExport.word(p.type))",
            "  status:       \(p.status.rawValue)\(p.status == .pending ? " (not final: it may still settle)" : "")",
            "  amount:       \(satsText(p.amountMsat))",
            "  fee:          \(satsText(p.feeMsat))",
            "  date:         \(PaymentExport.date(p.timestamp))",
            "  backend:      \(p.backend)",
        ]
        if let f = p.fiat { lines.append("  fiat then:    \(f.value) \(f.currency)") }
        if let expiry = p.invoiceExpiry { lines.append("  expires:      \(expiry.iso8601)\(expiry < Date() ? " (expired, not paid)" : " (not paid yet)")") }
        if let d = p.details.description { lines.append("  description:  \(DisplayText.safe(d))") }
        if let h = p.details.paymentHash { lines.append("  payment hash: \(h)") }
        if let x = p.details.preimage { lines.append("  preimage:     \(x)") }
        if let d = p.details.destination { lines.append("  node:         \(d)") }
        if let r = p.failureReason { lines.append("  failure:      \(DisplayText.safe(r))") }
        if let i = p.details.invoice { lines.append("  invoice:      \(i)") }
        print(lines.joined(separator: "\n"))
    }
}

// MARK: - export, watch

struct LightningExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the whole history to a CSV or JSON file (columns in the README).",
        discussion: "The file is written atomically and is not replaced unless --force.")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "csv or json.") var format: PaymentExport.Format
    @Option(help: "The file to write.") var out: String
    @Flag(help: "Replace the file if it exists.") var force = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let url = URL(fileURLWithPath: out)
        var count = 0
        let showProgress = isatty(STDERR_FILENO) == 1
        if !force, FileManager.default.fileExists(atPath: url.path) {
            throw CLIError("\(out) already exists; pass --force to replace it")
        }
        try AtomicFile.write(to: url, replace: force, produce: { fd, _ in
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            var written = 0
            count = try PaymentExport.write(format, store: store, walletID: summary.id) { data in
                try handle.write(contentsOf: data)
                written += data.count
                if showProgress { FileHandle.standardError.write(Data("\rexporting… \(written / 1024) KiB".utf8)) }
            }
        })
        if showProgress { FileHandle.standardError.write(Data("\r".utf8)) }
        Output.error("exported \(count) payments to \(url.path)")
    }
}

extension PaymentExport.Format: ExpressibleByArgument {}

struct LightningWatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print payment events as they happen (until interrupted).",
        discussion: "One line per event on stdout (with --json, one JSON object per line: event, payment); each is also recorded in the history.")
    @OptionGroup var options: LightningOptions
    @Option(help: "Stop after this many seconds (default: run until interrupted).") var timeout: UInt64?
    @Flag(help: "JSON lines.") var json = false

    func run() throws {
        let session = try LightningSession.open(options, signing: false)
        defer { session.close() }
        let lightning = session.lightning, backend = session.backend
        let json = self.json
        Output.error("watching \(session.wallet.name) on \(session.backendLabel)…")
        let seconds = timeout
        try blocking {
            let (events, continuation) = AsyncStream<PaymentEvent>.makeStream()
            let id = backend.addEventListener { continuation.yield($0) }
            defer { backend.removeEventListener(id) }
            try await lightning.sync()
            if let seconds {
                Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    continuation.finish()
                }
            }
            for await event in events {
                guard let payment = event.payment else { continue }
                try await lightning.record([payment])
                let name: String
                switch event {
                case .paymentSucceeded: name = "paymentSucceeded"
                case .paymentPending: name = "paymentPending"
                case .paymentFailed: name = "paymentFailed"
                case .synced: name = "synced"
                }
                if json {
                    print(JSONValue.object([("event", .string(name)), ("payment", payment.json)]).compact)
                } else {
                    print("\(name) \(payment.line)")
                }
                flushOutput()
            }
        }
    }
}

// MARK: - config, devnet

struct LightningConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show or set the wallet's Lightning settings: backend, fiat currency, rates source.",
        discussion: """
            Backends: spark:mainnet (the Lightning network through the Breez Spark SDK, real \
            bitcoin; needs a Breez API key, free from https://breez.technology/request-api-key/, \
            saved sealed with --api-key-file), spark:regtest (Spark's test network, no key), and \
            devnet:PATH (a development network on this machine, not the Lightning network).
            """)
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output: {backend, fiat, rates, nodeId, apiKey} (null when not set; apiKey is true when a key is saved, never the key).") var json = false
    @Option(help: ArgumentHelp("Payment backend to use: spark:mainnet, spark:regtest or devnet:PATH.", valueName: "spec")) var backend: String?
    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("File holding the Breez API key for the Spark network (\"-\" = standard input); saved sealed by the wallet password.", valueName: "path"))
    var apiKeyFile: String?
    @OptionGroup var password: PasswordOptions
    @Option(help: "Fiat currency for values in the history and balance (e.g. USD).") var fiat: String?
    @Option(name: .customLong("rates-file"), help: "Offline rates table: one `CODE PRICE` a line, e.g. `USD 65000.00`.") var ratesFile: String?
    @Option(name: .customLong("rates-url"), help: "HTTPS URL answering [{\"coin\": \"USD\", \"value\": 65000.0}, …].") var ratesURL: String?

    func validate() throws {
        if ratesFile != nil && ratesURL != nil { throw ValidationError("give one of --rates-file or --rates-url") }
        if let fiat, fiat.count != 3 || !fiat.allSatisfy({ $0.isASCII && $0.isLetter }) { throw ValidationError("--fiat takes a three-letter currency code") }
        if let ratesURL, URL(string: ratesURL)?.scheme?.lowercased() != "https" { throw ValidationError("--rates-url must be an https URL") }
        try WalletSession.checkOneStdin(password.passwordFile, apiKeyFile)
    }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        typealias Key = LightningWallet.SettingKey
        // Everything is checked before anything is saved.
        let spec = try backend.map { try BackendSpec.parse($0) }
        switch spec {
        case .devnet(let path)?: _ = try DevnetBackend(ledgerPath: path)  // reachable and a ledger
        case .spark?:
            #if !canImport(HawalaSpark)
            throw CLIError(sparkNotBuilt)
            #endif
        case nil: break
        }
        // The API key is per Spark network: the one given, or the wallet's.
        var apiKey: (SecretBytes, BackendSpec.SparkNetwork)?
        if let apiKeyFile {
            let target = try spec ?? store.setting(Key.backend, walletID: summary.id).map { try BackendSpec.parse($0) }
            guard case .spark(let network)? = target else {
                throw CLIError("an API key is for the spark backend: give --backend spark:mainnet (or spark:regtest) with it", code: .usage)
            }
            let key = try Input.readSecretFile(apiKeyFile, what: "API key")
            let text = key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= 4096, !text.contains(where: { $0.isNewline || $0.isWhitespace }) else {
                throw CLIError("the API key file must hold the key alone, on one line")
            }
            apiKey = (SecretBytes(utf8: text), network)
        }
        let newRates: RatesSource? = ratesFile.map { .file(path: URL(fileURLWithPath: $0).standardizedFileURL.path) } ?? ratesURL.flatMap(URL.init(string:)).map { .url($0) }
        let rates = try newRates ?? store.setting(Key.rates, walletID: summary.id).flatMap(RatesSource.init(saved:))
        let currency = try fiat?.uppercased() ?? (ratesFile ?? ratesURL != nil ? store.setting(Key.fiatCurrency, walletID: summary.id) : nil)
        if let currency, let rates {
            // The currency must be one the rates source knows.
            do {
                let provider = rates.provider()
                _ = try blocking { try await provider.rate(currency) }
            } catch FiatRatesError.unknownCurrency(let code) {
                throw CLIError("the rates source has no \(code) rate; nothing was changed")
            } catch let error as FiatRatesError {
                Output.error("warning: the rates source could not be checked now (\(error))")
            }
        }
        if let (key, network) = apiKey {
            let keyring = try WalletSession.unlock(store, file: password.passwordFile)
            try store.setSealedSetting(Key.sparkAPIKey(network), secret: key, keyring: keyring)
            Output.error("saved the Breez API key for spark:\(network.rawValue), sealed by the wallet password")
        }
        if let spec {
            if spec.description != (try store.setting(Key.backend, walletID: summary.id)) {
                try store.setSetting(Key.nodeID, to: nil, walletID: summary.id)
            }
            try store.setSetting(Key.backend, to: spec.description, walletID: summary.id)
        }
        if let newRates { try store.setSetting(Key.rates, to: newRates.saved, walletID: summary.id) }
        if let fiat { try store.setSetting(Key.fiatCurrency, to: fiat.uppercased(), walletID: summary.id) }
        let shown = [("backend", "backend", Key.backend), ("fiat", "fiat", Key.fiatCurrency), ("rates", "rates", Key.rates), ("node id", "nodeId", Key.nodeID)]
        // Whether a key is saved for the wallet's Spark network (never the key itself).
        var hasKey: Bool?
        if case .spark(let network)? = try store.setting(Key.backend, walletID: summary.id).flatMap({ try? BackendSpec.parse($0) }) {
            hasKey = try store.hasSealedSetting(Key.sparkAPIKey(network))
        }
        if json {
            var fields: [(String, JSONValue)] = try shown.map { ($0.1, try store.setting($0.2, walletID: summary.id).map { .string($0) } ?? .null) }
            fields.append(("apiKey", hasKey.map { .bool($0) } ?? .null))
            JSONValue.object(fields).print()
            return
        }
        for (label, _, key) in shown {
            print("\(label): \(try store.setting(key, walletID: summary.id) ?? "(not set)")")
        }
        if let hasKey { print("api key: \(hasKey ? "saved (sealed)" : "(not set)")") }
    }
}

struct LightningDevnet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devnet", abstract: "Devnet only: test funds on the development network.",
        subcommands: [LightningDevnetFund.self])
}

struct LightningDevnetFund: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fund", abstract: "Give this wallet test funds on devnet (needs the wallet password).")
    @OptionGroup var options: LightningOptions
    @Argument(help: "Amount in sat.") var sats: UInt64

    func validate() throws {
        guard (1...2_100_000_000_000_000).contains(sats) else { throw ValidationError("SATS must be between 1 and 2100000000000000") }
    }

    func run() throws {
        let session = try LightningSession.open(options, signing: true)
        defer { session.close() }
        guard let backend = session.backend as? DevnetBackend else { throw CLIError("test funds exist on devnet only; this wallet's backend is \(session.backendLabel)") }
        let lightning = session.lightning, sats = self.sats
        let info = try blocking {
            let payment = try await backend.fund(sats: sats)
            try await lightning.record([payment])
            return try await backend.getInfo()
        }
        print("devnet: funded \(sats) sat; balance \(satsText(info.balanceMsat))")
    }
}
