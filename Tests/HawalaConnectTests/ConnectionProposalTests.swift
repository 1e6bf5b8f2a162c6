import Foundation
import HawalaConnect
import HawalaNostr
import HawalaText
import HawalaWallet
import Testing

@Suite("Connections by request (Nostr Wallet Auth)")
struct ConnectionProposalTests {
    let key = String(repeating: "ab", count: 32)

    @Test func aRequestIsReadAsAlbyHubWritesIt() throws {
        let request = try WalletAuthRequest("nostr+walletauth://\(key)?relay=wss%3A%2F%2Frelay.example.com&relay=wss%3A%2F%2Fr2.example.com&name=Job%20runner"
                                            + "&request_methods=pay_invoice%20get_balance%20make_invoice&max_amount=50000&budget_renewal=weekly&expires_at=1900000000"
                                            + "&return_to=app%3A%2F%2Fback")
        #expect(request.kind == .walletAuth(clientPublicKey: key) && request.relays == ["wss://relay.example.com", "wss://r2.example.com"])
        #expect(request.name == "Job runner" && request.methods == ["pay_invoice", "get_balance", "make_invoice"])
        #expect(request.maxAmountSats == 50_000 && request.budgetRenewal == "weekly" && request.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        let generic = try WalletAuthRequest("nostr+walletauth://connect?pubkey=\(key.uppercased())&name=x")
        #expect(generic.kind == .walletAuth(clientPublicKey: key))
        let mutiny = try WalletAuthRequest("nostr+walletauth://\(key)?relay=wss%3A%2F%2Fr&secret=00&required_commands=pay_invoice&optional_commands=list_transactions")
        #expect(mutiny.methods == ["pay_invoice", "list_transactions"])
        let link = try WalletAuthRequest("nostrnwc://connect?appname=Shop&callback=shop%3A%2F%2Fnwc")
        #expect(link.kind == .deepLink(callback: URL(string: "shop://nwc")) && link.name == "Shop")
        for bad in ["nostr+walletconnect://\(key)?relay=x&secret=y", "nostr+walletauth://short?relay=x", "https://example.com",
                    "nostr+walletauth://\(key)?max_amount=-5", String(repeating: "x", count: 9_000)] {
            #expect(throws: WalletAuthRequest.Problem.self, "\(bad.prefix(60))") { try WalletAuthRequest(bad) }
        }
    }

    /// What it asks may be lowered, never raised; methods not offered are named, never given.
    @Test func limitsMayOnlyBeLowered() throws {
        let proposal = try ConnectionProposal(try WalletAuthRequest(
            "nostr+walletauth://\(key)?relay=wss%3A%2F%2Fr&name=bot&request_methods=pay_invoice%20get_balance%20pay_keysend&max_amount=5000&budget_renewal=monthly&expires_at=1900000000"))
        #expect(proposal.permissions == [.pay, .balance] && proposal.unknownMethods == ["pay_keysend"] && proposal.budget == 5_000 && proposal.renewal == .monthly)
        let accepted = try proposal.accepted(budget: 3_000, maxPayment: 10_000, relays: ["wss://default"])
        #expect(accepted.clientPublicKey == key && accepted.budget == 3_000 && accepted.maxPayment == 3_000 && accepted.relays == ["wss://r"] && accepted.name == "bot")
        #expect(throws: ConnectionProposal.Refusal.raisesBudget(proposed: 5_000)) { try proposal.accepted(budget: 5_001, relays: []) }
        #expect(throws: ConnectionProposal.Refusal.addsPermission(.history)) { try proposal.accepted(permissions: [.pay, .history], relays: []) }
        #expect(throws: ConnectionProposal.Refusal.self) { try proposal.accepted(expiresAt: Date(timeIntervalSince1970: 2_000_000_000), relays: []) }
        // A lower amount renewed more often gives more: refused; less often is lower.
        #expect(throws: ConnectionProposal.Refusal.renewsSooner(.monthly)) { try proposal.accepted(budget: 3_000, renewal: .daily, relays: []) }
        #expect(try proposal.accepted(budget: 3_000, renewal: .yearly, relays: []).renewal == .yearly)
        // Nothing proposed: Hawala's defaults (10,000 sat a day), a name from its key.
        let bare = try ConnectionProposal(try WalletAuthRequest("nostr+walletauth://\(key)"))
        #expect(bare.budget == 10_000 && bare.renewal == .daily && bare.name == "program-abababab" && bare.permissions == [.pay, .receive, .balance])
        #expect(throws: ConnectionInput.Error.self) { try ConnectionProposal(try WalletAuthRequest("nostr+walletauth://\(key)?budget_renewal=hourly")) }
    }
}
