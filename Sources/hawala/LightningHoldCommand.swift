import ArgumentParser
import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaText

// MARK: - settle, cancel (hold invoices)

struct LightningSettle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settle", abstract: "Take a payment held by a hold invoice (needs the wallet password).",
        discussion: """
            Give the payment hash of a hold invoice Hawala made (it kept the preimage), or the \
            preimage itself (- reads it from standard input, keeping it out of the process list). \
            The payment becomes yours and the payer gets the preimage as proof. Settling again \
            answers with the settled payment.
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: ArgumentHelp("The payment hash, or the preimage (64 hex digits; - for standard input).", valueName: "hash|preimage"))
    var reference: String
    @Flag(help: "JSON output: the payment object.") var json = false

    func run() async throws {
        try await options.open(signing: true).closing(run)
    }

    func run(_ session: LightningSession) async throws {
        let text = reference == "-" ? try Input.readFirstLine(limit: 256, what: "the preimage") : SecretBytes(Array(reference.utf8))
        let held = try HoldReference.read(text, knownHash: session.knowsPayment(hash:))
        let payment = try await session.settle(held)
        if json { print(payment.json.compact) } else { print("settled \(satsText(payment.amountMsat, .down)) (payment \(payment.id))") }
    }
}

struct LightningCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Give a payment held by a hold invoice back to its payer (needs the wallet password).",
        discussion: "Nothing is taken: the payer gets the amount and the fee back. Cancelling again answers with the cancelled payment.")
    @OptionGroup var options: LightningOptions
    @Argument(help: ArgumentHelp("The hold invoice's payment hash (64 hex digits).", valueName: "hash")) var paymentHash: String
    @Flag(help: "JSON output: the payment object.") var json = false

    func run() async throws {
        try await options.open(signing: true).closing(run)
    }

    func run(_ session: LightningSession) async throws {
        let payment = try await session.cancel(paymentHash: paymentHash)
        if json { print(payment.json.compact) } else { print("cancelled: \(satsText(payment.amountMsat, .down)) goes back to the payer (payment \(payment.id))") }
    }
}
