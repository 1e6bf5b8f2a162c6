import Foundation
@testable import HawalaConnect
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import MCP
import Testing

@Suite("The MCP wallet's tools, called directly (no client, no transport), on devnet")
struct MCPWalletTests {
    func text(_ result: CallTool.Result) -> String {
        result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined()
    }

    /// Each tool within its connection's rules: the balance, an invoice made and looked up (by
    /// hash and by invoice), a payment within the budget, one over it refused with nothing paid,
    /// a tool the connection may not use refused, the list of its own payments.
    @Test func toolsWithinTheConnectionsRules() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(permissions: [.pay, .receive, .balance], budget: 5_000)
        let wallet = MCPWallet(session: pair.session, keyring: pair.keyring, connection: connection, confirmAbove: nil)
        let server = Server(name: "hawala", version: "test")

        let balance = await wallet.call("get_balance", [:], server: server)
        #expect(balance.isError != true && text(balance).contains("sat"), "\(text(balance))")

        let made = await wallet.call("make_invoice", ["amount_sats": .int(1_200), "description": .string("job 7")], server: server)
        guard case .object(let invoice)? = made.structuredContent, let bolt11 = invoice["invoice"]?.stringValue, let hash = invoice["payment_hash"]?.stringValue else {
            Issue.record("no invoice: \(text(made))")
            return
        }
        #expect(invoice["amount_sats"] == .int(1_200))
        for lookup in [["payment_hash": Value.string(hash.uppercased())], ["invoice": .string(bolt11)]] {
            let found = await wallet.call("lookup_invoice", lookup, server: server)
            #expect(found.isError != true && found.structuredContent.map { "\($0)" }?.contains(hash) == true, "\(text(found))")
        }
        let missing = await wallet.call("lookup_invoice", ["payment_hash": .string(String(repeating: "0", count: 64))], server: server)
        #expect(missing.isError == true && text(missing).lowercased().contains("no invoice or payment"))

        // A description above the library's 639 bytes: the library's words (bytes, not characters).
        let long = await wallet.call("make_invoice", ["amount_sats": .int(10), "description": .string(String(repeating: "é", count: 320))], server: server)
        #expect(long.isError == true && text(long).contains("639 bytes"), "\(text(long))")

        let payable = try await pair.invoice(1_000)
        let paid = await wallet.call("pay_invoice", ["invoice": .string(payable)], server: server)
        #expect(paid.isError != true && text(paid).hasPrefix("Paid 1,000 sat"), "\(text(paid))")
        let over = await wallet.call("pay_invoice", ["invoice": .string(try await pair.invoice(4_500))], server: server)
        #expect(over.isError == true && text(over).contains("budget"), "\(text(over))")
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1, "nothing paid over the budget")

        // Its own payments only (no history permission), newest first; the limit's bounds are the library's.
        let listed = await wallet.call("list_payments", ["limit": .int(500)], server: server)
        #expect(listed.isError != true, "\(text(listed))")
        let refused = await wallet.call("list_payments", ["limit": .int(0)], server: server)
        #expect(refused.isError == true && text(refused).contains("from 1 to 100"), "\(text(refused))")

        // Revoked: the next call is refused, nothing paid.
        try pair.store.revokeConnection(connection)
        let after = await wallet.call("pay_invoice", ["invoice": .string(try await pair.invoice(10))], server: server)
        #expect(after.isError == true)
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).count == 1)
    }
}
