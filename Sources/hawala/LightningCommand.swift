import HawalaFormat
import ArgumentParser
import Foundation
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
            LightningDecode.self, LightningInvoice.self, LightningPay.self, LightningBalance.self, LightningHistory.self,
            LightningShow.self, LightningExport.self, LightningWatch.self, LightningConfig.self, LightningDevnet.self,
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
    @Flag(help: "JSON output (keys in the README).") var json = false

    func run() throws {
        let parsed = try PaymentInput.parse(input)
        if json { parsed.json.print(); return }
        for line in LightningDecode.lines(parsed) { print(line) }
    }

    static func lines(_ input: PaymentInput) -> [String] {
        switch input {
        case .bolt11(let i):
            var out = ["Lightning invoice (\(i.network))"]
            out.append("  amount:          " + (i.amountMsat.map(amountText) ?? "any amount (the payer chooses)"))
            if let d = i.description { out.append("  description:     \(d)") }
            if let h = i.descriptionHash { out.append("  description hash: \(hexString(h))") }
            out.append("  payee:           \(hexString(i.payee))")
            out.append("  payment hash:    \(hexString(i.paymentHash))")
            let created = Date(timeIntervalSince1970: Double(i.timestamp))
            out.append("  created:         \(created.iso8601)")
            out.append("  expires:         \(i.expiresAt.iso8601)\(i.isExpired() ? " (expired)" : "")")
            out.append("  min final CLTV:  \(i.minFinalCltvExpiry) blocks")
            for f in i.fallbacks { out.append("  fallback:        \(f.address)") }
            for (n, route) in i.routeHints.enumerated() {
                out.append("  route hint \(n + 1):    " + route.map { "\(hexString($0.nodeID).prefix(16))… via \($0.shortChannelIDText)" }.joined(separator: " → "))
            }
            if !i.features.isEmpty { out.append("  features:        \(i.features.map(String.init).joined(separator: ", "))") }
            out.append("  signature:       valid")
            return out
        case .lnurl(let url): return ["LNURL: \(url.absoluteString)"]
        case let .lightningAddress(user, domain, url): return ["Lightning address \(user)@\(domain): \(url.absoluteString)"]
        case .bitcoinURI(let uri):
            var out = ["bitcoin: URI"]
            if !uri.address.isEmpty { out.append("  address:   \(uri.address) (\(uri.network?.rawValue ?? "?"))") }
            if let a = uri.amountSats { out.append("  amount:    \(a) sat") }
            if let l = uri.label { out.append("  label:     \(l)") }
            if let m = uri.message { out.append("  message:   \(m)") }
            if let i = uri.lightning { out.append("  lightning: invoice for \(i.amountMsat.map(amountText) ?? "any amount") (preferred)") }
            return out
        case let .bitcoinAddress(address, network): return ["Bitcoin address \(address) (\(network.rawValue))"]
        }
    }

    /// The one amount formatter, with the millisatoshis when they are not whole satoshis.
    static func amountText(_ msat: UInt64) -> String { satsText(msat) + (msat % 1000 == 0 ? "" : " (\(msat) msat)") }
}
