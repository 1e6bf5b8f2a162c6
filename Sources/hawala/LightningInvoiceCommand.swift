import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

// MARK: - invoice

struct LightningInvoice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoice", abstract: "Create an invoice to receive a payment (needs the wallet password).",
        discussion: """
            Prints the BOLT11 invoice on stdout. --wait blocks until it is paid (or --timeout seconds \
            pass: exit 1, the invoice stays valid until it expires). On Spark, --method spark prints \
            the wallet's Spark address and --method bitcoin an on-chain deposit address instead.

            --hold makes a hold invoice: its payment is held, not yet yours, until             `hawala ln settle` takes it (the job delivered) or `hawala ln cancel` gives it back;             if neither comes before the invoice expires, it goes back to the payer. Hawala makes             and keeps the preimage, unless --payment-hash gives the hash of one you hold. With             --wait, it waits until the payment is held.
            """)
    @OptionGroup var options: LightningOptions
    @Option(help: ArgumentHelp("bolt11 (an invoice), spark (the Spark address) or bitcoin (an on-chain deposit address).", valueName: "method"))
    var method: ReceiveMethod = .bolt11
    @Option(help: "Amount in sat (2500, 2,500 or 2_500).", transform: SatsArgument.parse) var amount: Sats?
    @Flag(help: "No amount: the payer chooses.") var amountless = false
    @Option(help: "What the payment is for (shown to the payer).") var description: String = ""
    @Option(help: "Seconds until the invoice expires.") var expiry: UInt64 = Bolt11Invoice.defaultExpiry
    @Flag(name: .customLong("new"), help: "With --method bitcoin: a deposit address never given before.") var fresh = false
    @Flag(help: "A hold invoice: the payment waits for `hawala ln settle` or `hawala ln cancel`.") var hold = false
    @Option(name: .customLong("payment-hash"), help: ArgumentHelp("With --hold: the hash of a preimage you hold (64 hex digits).", valueName: "hash"))
    var paymentHash: String?
    @Flag(help: "Also draw the invoice as a QR code.") var qr = false
    @Flag(help: "Wait until the invoice is paid.") var wait = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: UInt64 = 3600
    @Flag(help: "JSON output: {invoice, paymentHash, amountMsat, description, expiresAt, backend}; with --wait, then the payment object on a second line.") var json = false

    func validate() throws {
        if fresh, method != .bitcoin { throw ValidationError("--new is for --method bitcoin") }
        if paymentHash != nil, !hold { throw ValidationError("--payment-hash is for --hold") }
        if hold, method != .bolt11 { throw ValidationError("--hold makes an invoice: it is for --method bolt11") }
        if method != .bolt11 {
            guard amount == nil, !amountless, !wait else { throw ValidationError("--method \(method.rawValue) gives an address: no --amount, --amountless or --wait") }
            return
        }
        guard (amount != nil) != amountless else { throw ValidationError("give exactly one of --amount SATS or --amountless") }
        if let amount, amount == 0 { throw ValidationError("--amount must be at least 1 sat (or use --amountless)") }
        guard PaymentLimits.expiryRange.contains(expiry) else { throw ValidationError("--expiry must be between 1 and 31536000 seconds") }
        guard PaymentLimits.expiryRange.contains(timeout) else { throw ValidationError("--timeout must be between 1 and 31536000 seconds") }
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
        let request = ReceiveRequest(amountSats: amount, description: description, expirySeconds: expiry)
        let invoice = hold ? try await session.receiveHeld(request, paymentHash: paymentHash) : try await session.receive(request)
        let response = invoice.response
        if json {
            print(invoice.json.compact)
        } else {
            print(response.invoice)
            if qr { for line in TextQR.terminalLines(try TextQR.encode(response.invoice, caseInsensitive: true)) { print(line) } }
        }
        flushOutput()
        Output.error("on \(session.backendLabel); expires \(response.expiresAt.iso8601)" + (hold ? "; a payment to it is held until settled or cancelled" : ""))
        guard wait else { return }
        Output.error("waiting for the payment…")
        let payment: Payment
        do {
            payment = try await session.lightning.waitForPayment(paymentHash: response.paymentHash, timeout: .seconds(timeout))
        } catch LightningError.timeout {
            throw CLIError("not paid within \(timeout) s; the invoice stays valid until \(response.expiresAt.iso8601)")
        }
        if json {
            print(payment.json.compact)
        } else if payment.isHeld, let until = payment.heldUntil {
            print("held \(satsText(payment.amountMsat, .down)) (payment \(payment.id))")
            Output.error("settle it with `hawala ln settle \(response.paymentHash)` or give it back with `hawala ln cancel \(response.paymentHash)` before \(until.iso8601)")
        } else {
            print("received \(satsText(payment.amountMsat, .down)) (payment \(payment.id))")
        }
    }
}
