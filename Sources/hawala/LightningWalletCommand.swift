import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaFormat
import HawalaLightning
import HawalaPaper
import HawalaWallet

// `hawala ln invoice|pay|balance|history|show|export|watch|config|devnet`: the wallet side of
// Lightning, through the wallet's payment backend (devnet here: see LightningSession).

/// Flushes stdout (a pipe buffers until exit otherwise).
func flushOutput() { fflush(nil) }

// MARK: - invoice

struct LightningInvoice: AsyncParsableCommand {
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
    @Option(help: "Amount in sat (2500, 2,500 or 2_500).", transform: SatsArgument.parse) var amount: Sats?
    @Flag(help: "No amount: the payer chooses.") var amountless = false
    @Option(help: "What the payment is for (shown to the payer).") var description: String = ""
    @Option(help: "Seconds until the invoice expires.") var expiry: UInt64 = Bolt11Invoice.defaultExpiry
    @Flag(name: .customLong("new"), help: "With --method bitcoin: a deposit address never given before.") var fresh = false
    @Flag(help: "Also draw the invoice as a QR code.") var qr = false
    @Flag(help: "Wait until the invoice is paid.") var wait = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: UInt64 = 3600
    @Flag(help: "JSON output: {invoice, paymentHash, amountMsat, description, expiresAt, backend}; with --wait, then the payment object on a second line.") var json = false

    func validate() throws {
        if fresh, method != .bitcoin { throw ValidationError("--new is for --method bitcoin") }
        if method != .bolt11 {
            guard amount == nil, !amountless, !wait else { throw ValidationError("--method \(method.rawValue) gives an address: no --amount, --amountless or --wait") }
            return
        }
        guard (amount != nil) != amountless else { throw ValidationError("give exactly one of --amount SATS or --amountless") }
        if let amount, amount == 0 { throw ValidationError("--amount must be at least 1 sat (or use --amountless)") }
        guard PaymentLimits.expiryRange.contains(expiry) else { throw ValidationError("--expiry must be between 1 and 31536000 seconds") }
        guard (1...86_400 * 7).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 604800 seconds") }
    }

    func run() async throws {
        try await options.open(signing: true).closing(run)
    }

    func run(_ session: LightningSession) async throws {
        if method != .bolt11 {
            let address = fresh ? ReceivingAddress(method: .bitcoin, address: try await session.backend.newDepositAddress(), backend: session.backend.name)
                : try await session.receivingAddress(method)
            if json {
                print(address.json.compact)
            } else {
                print(address.address)
                if qr { for line in TextQR.terminalLines(try TextQR.encode(address.address, caseInsensitive: false)) { print(line) } }
            }
            Output.error("on \(session.backendLabel)")
            return
        }
        let invoice = try await session.receive(ReceiveRequest(amountSats: amount, description: description, expirySeconds: expiry))
        let response = invoice.response
        if json {
            print(invoice.json.compact)
        } else {
            print(response.invoice)
            if qr { for line in TextQR.terminalLines(try TextQR.encode(response.invoice, caseInsensitive: true)) { print(line) } }
        }
        flushOutput()
        Output.error("on \(session.backendLabel); expires \(response.expiresAt.iso8601)")
        guard wait else { return }
        Output.error("waiting for the payment…")
        let payment: Payment
        do {
            payment = try await session.lightning.waitForPayment(paymentHash: response.paymentHash, timeout: .seconds(timeout))
        } catch LightningError.timeout {
            throw CLIError("not paid within \(timeout) s; the invoice stays valid until \(response.expiresAt.iso8601)")
        }
        if json { print(payment.json.compact) } else { print("received \(satsText(payment.amountMsat, .down)) (payment \(payment.id))") }
    }
}

// MARK: - pay

struct LightningPay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay", abstract: "Pay an invoice, a Lightning address, an LNURL, or a Bitcoin address on-chain (needs the wallet password).",
        discussion: """
            Shows the amount, the fee, the total, the description and the expiry, and asks before \
            paying unless --yes. The same idempotency key never pays twice; by default it is the \
            invoice's payment hash, so running the same command again returns the first result \
            (unless it failed: a failed payment paid nothing, so it is tried again). \
            A Bitcoin address (or a bitcoin: URI without a Lightning invoice) is paid on-chain, a \
            withdrawal: --amount SATS (the fee on top) or --all (the fee taken from it, nothing \
            stays); the preview shows the fee, the total and what stays at each speed, and \
            --speed (fast, medium, slow; medium by default) chooses. A withdrawal is sent once \
            broadcast (exit 0) and waits for confirmations in the history; it has no invoice to \
            key it, so running the command again sends again (unless --idempotency-key). \
            Exit codes: 0 paid, 1 failed or refused, 2 usage error, 3 still pending (not final: \
            check later with `hawala ln show ID`).
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: "A BOLT11 invoice, a bitcoin: URI, a Lightning address, an LNURL, or a Bitcoin address.") var input: String
    @Option(help: "Amount in sat (for an amountless invoice, a Lightning address, an LNURL or a Bitcoin address).", transform: SatsArgument.parse) var amount: Sats?
    @Flag(help: "Send the whole balance to a Bitcoin address, the fee taken from it.") var all = false
    @Option(help: "On-chain speed: fast, medium or slow (default medium).") var speed: OnChainSpeed?
    @Option(name: .customLong("max-fee"), help: "Refuse when the fee is above this many sat.", transform: SatsArgument.parse) var maxFee: Sats?
    @Option(help: "A comment for the payee (LNURL-pay services that accept one).") var comment: String?
    @Option(name: .customLong("idempotency-key"), help: "Pay at most once under this key (default: the invoice's payment hash).") var idempotencyKey: String?
    @Flag(help: "Pay without asking.") var yes = false
    @Flag(help: "JSON output of the final payment.") var json = false

    func run() async throws {
        let parsed: PaymentInput
        do { parsed = try PaymentInput.parse(input, allowLoopbackHTTP: options.allowsLoopbackHTTP()) } catch { throw CLIError(String(describing: error)) }
        let request = try SendRequest(input: parsed, amount: amount, everything: all, comment: comment, speed: speed, maxFee: maxFee,
                                      idempotencyKey: idempotencyKey)
        switch request.route {
        case let .onChain(address, amount, key): try await payOnChain(request, address: address, amount: amount, key: key)
        case .lightning(let comment): try await payLightning(parsed, comment: comment)
        }
    }

    func payLightning(_ parsed: PaymentInput, comment: String?) async throws {
        // A key already used answers with its payment, before any password or network.
        if idempotencyKey ?? parsed.defaultIdempotencyKey != nil {
            let store = try WalletSession.store(create: false)
            let summary = try store.wallet(named: options.wallet)
            if let earlier = try LightningWallet.earlier(for: parsed, key: idempotencyKey, store: store, walletID: summary.id) {
                Output.error(earlier.headline)
                return try report(earlier.payment, payeeMessage: nil)
            }
        }
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the payment; pass --yes to pay without asking", code: .usage) }
        try await options.open(signing: true, reachesLNURL: parsed.isLNURL).closing { try await pay(parsed, comment: comment, in: $0) }
    }

    func pay(_ parsed: PaymentInput, comment: String?, in session: LightningSession) async throws {
        async let warning = session.networkWarning()
        // Prepare: nothing is paid yet.
        let payment = try await session.prepare(parsed, text: input, amountSats: amount, comment: comment, maxFeeSats: maxFee)
        if let warning = await warning { Output.error("warning: \(warning)") }
        let preview = ["Pay on \(session.backendLabel)"] + alignedRows(payment.previewRows(rate: await session.configuredRate()))
        if yes {
            for line in preview { Output.error(line) }
        } else {
            let terminal = try Terminal.required("pass --yes")
            for line in preview { terminal.line(line) }
            guard try terminal.confirm("Pay \(SendFigures(amountMsat: payment.prepared.amountMsat, feeMsat: payment.prepared.feeMsat).total) in total?") else {
                throw CLIError("not paid")
            }
        }
        let paid = try await session.lightning.pay(payment, idempotencyKey: idempotencyKey)
        try report(paid, payeeMessage: payment.payeeMessage(after: paid))
    }

    /// A withdrawal to `address`: priced at each speed, confirmed, sent once.
    func payOnChain(_ request: SendRequest, address: String, amount chosen: OnChainAmount, key: String) async throws {
        if let key = request.chosenKey {
            let store = try WalletSession.store(create: false)
            if let earlier = try store.payment(walletID: try store.wallet(named: options.wallet).id, idempotencyKey: key) {
                Output.error(EarlierPayment(earlier).headline)
                return try reportOnChain(earlier)
            }
        }
        if !yes, Terminal.open() == nil { throw CLIError("no terminal to confirm the withdrawal; pass --yes to send without asking", code: .usage) }
        try await options.open(signing: true).closing { session in
            async let warning = session.networkWarning()
            let quote = try await session.lightning.prepareOnChain(address: address, amount: chosen)
            let speed = request.speed ?? quote.defaultSpeed
            if let warning = await warning { Output.error("warning: \(warning)") }
            let preview = ["Send on-chain on \(session.backendLabel) to \(address)"] + alignedRows(quote.previewRows())
            if yes || quote.option(speed)?.affordable != true || (maxFee.map { quote.option(speed)?.feeSat ?? 0 > $0 } ?? false) {
                for line in preview { Output.error(line) }
                _ = try quote.affordable(speed, maxFeeSats: maxFee)
            } else {
                let terminal = try Terminal.required("pass --yes")
                for line in preview { terminal.line(line) }
                guard try terminal.confirm(quote.confirmation(speed)) else { throw CLIError("not sent") }
            }
            try reportOnChain(try await session.lightning.sendOnChain(quote, speed: speed, idempotencyKey: key, maxFeeSats: maxFee))
        }
    }

    func reportOnChain(_ payment: Payment) throws {
        if json { payment.json.print() }
        switch payment.status {
        case .failed:
            throw CLIError("withdrawal failed: \(DisplayText.safe(payment.failureReason ?? "no reason given")) (payment \(payment.id))")
        case .pending where payment.details.txid == nil:
            Output.error("no answer from the network in time: the withdrawal may have gone out; it stays pending under its key (payment \(payment.id)) and a sync says what became of it")
            throw ExitCode(3)
        case .completed, .pending:
            let figures = SendFigures(amountMsat: payment.amountMsat, feeMsat: payment.feeMsat)
            guard !json else { return }
            print("sent \(figures.amount) (fee \(figures.fee)) to \(payment.details.address ?? "the address"); payment \(payment.id)"
                  + (payment.details.txid.map { ", transaction \($0)" } ?? ""))
            if payment.status == .pending { Output.error("waiting for confirmation: `hawala ln show \(payment.id)` shows how many it has") }
        }
    }

    /// Prints the final status; exit 1 when failed, 3 when still pending.
    func report(_ payment: Payment, payeeMessage: String?) throws {
        if json { payment.json.print() }
        switch payment.status {
        case .completed:
            let figures = SendFigures(amountMsat: payment.amountMsat, feeMsat: payment.feeMsat)
            if !json { print("paid \(figures.amount) (fee \(figures.fee)); payment \(payment.id), preimage \(payment.details.preimage ?? "?")") }
            if let payeeMessage { Output.error("message from the payee: \(payeeMessage)") }
        case .failed:
            throw CLIError("payment failed: \(DisplayText.safe(payment.failureReason ?? "no reason given")) (payment \(payment.id))")
        case .pending:
            Output.error("payment \(payment.id) is pending: not final, it may still settle; check with `hawala ln show \(payment.id)`")
            throw ExitCode(3)
        }
    }
}

// MARK: - balance, history, show

struct LightningBalance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance", abstract: "The Lightning balance (syncs the history first).",
        discussion: """
            With a fiat currency (--fiat, or `hawala ln config --fiat`) the value is shown too. When \
            the network does not answer within --sync-timeout seconds, the last synced balance is \
            printed with when it synced (exit 0); a wallet that never synced exits 1 (no balance is \
            known). JSON keys: balanceSats, balanceMsat, backend, nodeId, synced (false: the last \
            synced balance, with lastSyncedAt and offlineReason), and fiat {currency, value, btcPrice}.
            """)
    @OptionGroup var options: LightningOptions
    @Option(help: "Also show the value in this currency (rates from the backend, or the rates source set with `hawala ln config`).") var fiat: String?
    @Option(name: .customLong("sync-timeout"), help: "Seconds to wait for the network before showing the last synced balance.") var syncTimeout: Int = 10
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        guard (1...300).contains(syncTimeout) else { throw ValidationError("--sync-timeout must be between 1 and 300 seconds") }
    }

    func run() async throws {
        let balance: Balance
        let spec: BackendSpec
        do {
            (balance, spec) = try await options.open(signing: false).closing { session in
                async let warning = session.networkWarning()
                let balance = try await session.balance(currency: fiat, syncTimeout: .seconds(syncTimeout))
                if let warning = await warning { Output.error("warning: \(warning)") }
                return (balance, session.spec)
            }
        } catch {
            // The backend could not even be opened offline: what was last synced is still known.
            guard let offline = error as? LightningError, offline.isOffline else { throw error }
            let store = try WalletSession.store(create: false)
            let wallet = try store.wallet(named: options.wallet)
            guard let saved = try options.backend ?? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id) else { throw error }
            spec = try BackendSpec.parse(saved, home: store.home.directory)
            balance = try Balance.lastKnown(store: store, wallet: wallet, spec: spec, reason: Balance.offlineReason(offline))
        }
        if let problem = balance.fiatProblem, balance.offline == nil { Output.error("note: \(problem)") }
        if json { balance.json.print(); return }
        var line = "\(satsText(balance.info.balanceMsat, .down))"
        if let fiat = balance.fiat { line += " ≈ \(AmountText.fiat(fiat.value, currency: fiat.rate.currency))" }
        if let offline = balance.offline {
            let when = offline.lastSyncedAt.map { "last synced \($0.relative(now: Date(), timeZone: .current))" } ?? "last known"
            line += " (\(when); the \(offline.network) is not reachable now: \(offline.reason))"
        }
        print(line)
        Output.error("on \(spec.label)")
    }
}


enum HistoryType: String, ExpressibleByArgument, CaseIterable {
    case sent, received
    var kind: Payment.Kind { self == .sent ? .send : .receive }
}

struct LightningHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Payments, newest first (synced with the backend first when it answers).",
        discussion: "Brings the history up to date with the wallet's backend when it answers within --sync-timeout seconds, then reads the history kept on this machine (no password needed); offline it says when it last synced. Invoices not paid yet are pending receives, with their expiry (--status pending lists them). Only the current backend's network by default: --network all lists every network's. JSON: an array of payment objects (docs/reference.md).")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "Only sent or received payments.") var type: HistoryType?
    @Option(help: "Only payments in this status (pending, completed, failed).") var status: Payment.Status?
    @Option(help: "At most this many payments.") var limit: Int = 20
    @Option(help: "Skip this many payments first.") var offset: Int = 0
    @Option(name: .customLong("sync-timeout"), help: "Seconds to wait for the backend before reading the history kept here (0: don't sync).") var syncTimeout: Int = 10
    @Option(help: ArgumentHelp("Whose payments: current (the wallet's backend), all, or a network: spark:mainnet, spark:regtest, devnet, devnet:PATH.", valueName: "network"))
    var network: String?
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        guard (1...1_000_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000000") }
        guard offset >= 0 else { throw ValidationError("--offset can't be negative") }
        guard (0...300).contains(syncTimeout) else { throw ValidationError("--sync-timeout must be between 0 and 300 seconds") }
    }

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        if syncTimeout > 0 {
            switch await HistorySync.run(store: store, wallet: summary, timeout: .seconds(syncTimeout)) {
            case .offline(let reason, let last):
                Output.error("offline (\(reason)): the history as last synced\(last.map { " at " + $0.iso8601 } ?? ": never")")
            case .needsPassword(let last):
                Output.error("the history as last synced with Spark\(last.map { " at " + $0.iso8601 } ?? ": never") (`hawala ln balance` syncs it)")
            case .synced, .notAttempted:
                break
            }
        }
        let scope = try HistoryNetwork(parsing: network, home: store.home.directory)
        let shown = scope.filterValue(store: store, walletID: summary.id)
        let payments = try store.payments(walletID: summary.id, filter: PaymentFilter(type: type?.kind, status: status, network: shown, offset: offset, limit: limit))
        if json { JSONValue.array(payments.map(\.json)).print(); return }
        let others = HistoryNetwork.choices(store: store, walletID: summary.id).filter { $0.network != shown }
        if let shown, !others.isEmpty { Output.error("payments on \(HistoryNetwork.plainName(shown)); other networks: --network all") }
        if payments.isEmpty { Output.error("no payments"); return }
        var out = ""
        for p in payments { out += p.historyLine() + "\n" }
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
        var lines = ["payment \(p.id)"] + alignedRows(p.detailRows())
        switch p.retry(at: Date()) {
        case .payAgain(let to, let amount)?: lines.append("to try again: hawala ln pay \(to)" + (amount.map { " --amount \($0)" } ?? ""))
        case .askForANewInvoice?: lines.append("the invoice has expired: ask the payee for a new one to pay again")
        case nil: break
        }
        print(lines.joined(separator: "\n"))
    }
}

// MARK: - export, watch

struct LightningExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the history to a CSV or JSON file (columns in docs/reference.md).",
        discussion: "The current backend's payments by default (--network all for every network's). The file is written atomically and is not replaced unless --force.")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "csv or json.") var format: PaymentExport.Format
    @Option(help: "The file to write.") var out: String
    @Option(help: ArgumentHelp("Whose payments: current (the wallet's backend), all, or a network: spark:mainnet, spark:regtest, devnet, devnet:PATH.", valueName: "network"))
    var network: String?
    @Flag(help: "Replace the file if it exists.") var force = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let url = URL(fileURLWithPath: out)
        let showProgress = isatty(STDERR_FILENO) == 1
        let count: Int
        do {
            let scope = try HistoryNetwork(parsing: network, home: store.home.directory)
            count = try PaymentExport.write(format, store: store, walletID: summary.id,
                                            filter: PaymentFilter(network: scope.filterValue(store: store, walletID: summary.id)),
                                            to: url, replace: force) { written in
                if showProgress { FileHandle.standardError.write(Data("\rexporting… \(written / 1024) KiB".utf8)) }
            }
        } catch HawalaFileError.exists {
            throw CLIError("\(out) already exists; pass --force to replace it")
        }
        if showProgress { FileHandle.standardError.write(Data("\r".utf8)) }
        Output.error("exported \(count) payments to \(url.path)")
    }
}

struct LightningWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print payment events as they happen (until interrupted).",
        discussion: "One line per event on stdout: payments (each also recorded in the history) and on-chain deposits (seen, claimed, not claimed). With --json, one JSON object per line: event, payment, deposits.")
    @OptionGroup var options: LightningOptions
    @Option(help: "Stop after this many seconds (default: run until interrupted).") var timeout: UInt64?
    @Flag(help: "JSON lines.") var json = false

    func run() async throws {
        try await options.open(signing: false).closing { session in
            let events = session.lightning.watch(for: timeout.map { .seconds($0) })
            // Said once listening: what happens from now on is printed.
            Output.error("watching \(session.wallet.name) on \(session.backendLabel)…")
            for try await event in events {
                if json {
                    print(event.json.compact)
                } else if let payment = event.payment {
                    print("\(event.name) \(payment.historyLine())")
                } else if let headline = event.depositHeadline {
                    print("\(event.name) \(headline)")
                }
                flushOutput()
            }
        }
    }
}

// MARK: - config, devnet

struct LightningConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show or set the wallet's Lightning settings: backend, fiat currency, rates source.",
        discussion: """
            Backends: spark:mainnet (the Lightning network through the Breez Spark SDK, real \
            bitcoin; needs a Breez API key, free from https://breez.technology/request-api-key/, \
            saved sealed with --api-key-file), spark:regtest (Spark's test network, no key), and \
            devnet (test money on this machine, not the Lightning network: its ledger is \
            devnet/ledger.sqlite under the wallets' home; devnet:PATH for a ledger elsewhere).
            """)
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output: {backend, fiat, rates, nodeId, apiKey, maxClaimFee} (null when not set; apiKey is true when a key is saved, never the key).") var json = false
    @Option(help: ArgumentHelp("Payment backend to use: spark:mainnet, spark:regtest, devnet or devnet:PATH.", valueName: "spec")) var backend: String?
    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("File holding the Breez API key for the Spark network (\"-\" = standard input); saved sealed by the wallet password.", valueName: "path"))
    var apiKeyFile: String?
    @OptionGroup var password: PasswordOptions
    @Option(help: "Fiat currency for values in the history and balance (e.g. USD): rates from the backend unless a rates source is given.") var fiat: String?
    @Option(name: .customLong("rates-file"), help: "Offline rates table: one `CODE PRICE` a line, e.g. `USD 65000.00`.") var ratesFile: String?
    @Option(name: .customLong("rates-url"), help: "HTTPS URL answering [{\"coin\": \"USD\", \"value\": 65000.0}, …].") var ratesURL: String?
    @Flag(name: .customLong("no-fiat"), help: "Forget the fiat currency and the rates source (amounts in sat only).") var noFiat = false
    @Option(name: .customLong("max-claim-fee"), help: ArgumentHelp("The most a deposit's claim may cost: network (the recommended rate + 1 sat/vB, the default), network+N, N/vB (a rate) or N (sats).", valueName: "cap"))
    var maxClaimFee: String?

    func validate() throws {
        if ratesFile != nil && ratesURL != nil { throw ValidationError("give one of --rates-file or --rates-url") }
        if noFiat, fiat != nil || ratesFile != nil || ratesURL != nil { throw ValidationError("--no-fiat excludes --fiat, --rates-file and --rates-url") }
        try WalletSession.checkOneStdin(password.passwordFile, apiKeyFile)
    }

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        var change = LightningSettingsChange(backend: try backend.map { try BackendSpec.parse($0, home: store.home.directory) },
                                             fiat: try fiat.map { try LightningSettingsChange.currencyCode($0) },
                                             rates: try ratesFile.map(RatesSource.localFile) ?? ratesURL.map { try RatesSource.web($0) })
        change.apiKey = try apiKeyFile.map { try Input.readSecretFile($0, what: "API key") }
        change.clearFiat = noFiat
        change.maxClaimFee = try maxClaimFee.map { try ClaimFeePolicy(parsing: $0) }
        #if canImport(HawalaSpark)
        let sparkAvailable = true
        #else
        let sparkAvailable = false
        #endif
        let outcome = try await LightningSettings.apply(change, store: store, wallet: summary, sparkAvailable: sparkAvailable) {
            try WalletSession.unlock(store, file: password.passwordFile)
        }
        if let problem = outcome.ratesUnchecked { Output.error("warning: the rates source could not be checked now (\(problem))") }
        if let network = outcome.savedAPIKeyFor { Output.error("saved the Breez API key for spark:\(network.rawValue), sealed by the wallet password") }
        let settings = outcome.settings
        if json { settings.json.print(); return }
        for (label, value) in [("backend", settings.backend), ("fiat", settings.fiat), ("rates", settings.rates), ("node id", settings.nodeID),
                               ("claim fee cap", settings.maxClaimFee.description)] {
            print("\(label): \(value ?? "(not set)")")
        }
        if let hasKey = settings.hasAPIKey { print("api key: \(hasKey ? "saved (sealed)" : "(not set)")") }
    }
}

struct LightningDevnet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devnet", abstract: "Devnet only: test funds on the development network.",
        subcommands: [LightningDevnetFund.self, LightningDevnetServe.self, LightningDevnetL402.self, LightningDevnetVoucher.self, LightningDevnetLogin.self,
                      LightningDevnetDeposit.self, LightningDevnetMine.self, LightningDevnetFees.self])
}

struct LightningDevnetFund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fund", abstract: "Give this wallet test funds on devnet (needs the wallet password).")
    @OptionGroup var options: LightningOptions
    @Argument(help: "Amount in sat (100000, 100,000 or 100_000).", transform: SatsArgument.parse) var sats: Sats

    func validate() throws {
        do { try PaymentLimits.check(amount: sats) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let info = try await options.open(signing: true).closing { try await $0.fund(sats: sats) }
        print("devnet: funded \(AmountText.sats(sats)); balance \(satsText(info.balanceMsat, .down))")
    }
}

/// An amount of sats as typed on the command line, read as the app reads it ("2500", "2,500",
/// "2_500"; `AmountText.parseSats`).
enum SatsArgument {
    static func parse(_ text: String) throws -> Sats {
        do {
            return try AmountText.parseSats(text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
