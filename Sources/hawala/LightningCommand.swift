import ArgumentParser
import Foundation
import HawalaText
import HawalaVault
import HawalaKeys
import HawalaLightning

/// `hawala ln …`: Lightning payments.
struct LightningCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ln",
        abstract: "Lightning: decode, receive, pay, balance, history and export.",
        discussion: """
            `ln decode` needs no wallet and fetches nothing. The other commands work through the \
            wallet's payment backend (`--backend SPEC`, or saved with `hawala ln config --backend \
            SPEC`): spark:mainnet (the Lightning network through the Breez Spark SDK, real bitcoin; \
            needs a Breez API key), spark:regtest (Spark's test network), or devnet:PATH (Hawala \
            wallets on this machine paying each other through a shared ledger file — a development \
            network, not the Lightning network). Commands that sign (invoice, pay, devnet fund), and \
            every Spark command that connects, unlock the wallet with a prompt or --password-file.
            """,
        subcommands: [
            LightningDecode.self, LightningInvoice.self, LightningSettle.self, LightningCancel.self, LightningPay.self, LightningBalance.self, LightningHistory.self,
            LightningShow.self, LightningExport.self, LightningWatch.self, LightningAddressCommand.self, LightningWithdraw.self, LightningDeposits.self, LightningExit.self, LightningAuth.self, LightningSignMessage.self, LightningVerifyMessage.self, LightningFetch.self, LightningSell.self, LightningConfig.self, LightningDevnet.self,
        ])
}

struct LightningDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a BOLT11 invoice, an LNURL, a Lightning address or a bitcoin: URI (parse only).",
        discussion: """
            An invoice's signature is always checked (against its n field, or by recovering the \
            payee's key); an invalid invoice exits 1 with the reason. Nothing is fetched: an LNURL \
            or a Lightning address is shown as the URL a payment would query.
            """)

    @Argument(help: "The invoice, LNURL, Lightning address or URI.") var input: String
    @Flag(help: "JSON output (keys in docs/reference.md).") var json = false

    func run() throws {
        let parsed = try PaymentInput.parse(input)
        if json { parsed.json.print(); return }
        for line in parsed.summaryLines { print(line) }
    }
}
