import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

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
            --speed (fast, medium, slow) chooses; by default medium, or the fastest the balance covers \
            when it does not cover medium. A withdrawal is sent once \
            broadcast (exit 0) and waits for confirmations in the history; it has no invoice to \
            key it, so running the command again sends again (unless --idempotency-key). \
            Exit codes: 0 paid, 1 failed or refused, 2 usage error, 3 still pending (not final: \
            check later with `hawala ln show ID`).
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: "A BOLT11 invoice, a bitcoin: URI, a Lightning address, an LNURL, or a Bitcoin address.") var input: String
    @Option(help: "Amount in sat (for an amountless invoice, a Lightning address, an LNURL or a Bitcoin address).", transform: SatsArgument.parse) var amount: Sats?
    @Flag(help: "Send the whole balance to a Bitcoin address, the fee taken from it.") var all = false
    @Option(help: "On-chain speed: fast, medium or slow (default: medium, or the fastest the balance covers).") var speed: OnChainSpeed?
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
