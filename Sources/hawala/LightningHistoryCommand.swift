import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

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
            switch await HistorySync.run(store: store, wallet: summary, backends: .linked, timeout: .seconds(syncTimeout)) {
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

    func validate() throws {
        if let timeout { guard PaymentLimits.expiryRange.contains(timeout) else { throw ValidationError("--timeout must be between 1 and 31536000 seconds (a year)") } }
    }

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
