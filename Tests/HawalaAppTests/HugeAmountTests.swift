import Foundation
@testable import HawalaApp
import HawalaDevnet
import HawalaLightning
import HawalaTestSupport
import HawalaText
import Testing

/// Issue 39, item 1: one request once took the whole app down (an amount whose fee overflowed).
/// Every amount and number a form takes, at the largest values people or scripts type, is
/// refused in words on the page — and the process answers the next request.
extension AppSecurityTests {
    /// 2^53, 2^63−1, 2^64−1, 2^64, the supply + 1 sat, 21,000,000 BTC, a huge amount the ledger
    /// can't pay, a negative one, an exponent.
    static let hugeNumbers = ["9007199254740992", "9,007,199,254,740,992", "9223372036854775807", "18446744073709551615",
                              "18446744073709551616", "2099999997690001", "2100000000000000", "-5", "1e30"]
    /// The same as BTC in a bitcoin: link.
    static let hugeCoins = ["90071992547.40992", "92233720368.54775807", "21000000.00000001", "20999999.97690001", "99999999"]

    @Test func noAmountTakesTheAppDown() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            let ledger = temporaryFolder("devnet").appendingPathComponent("ledger").path
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            #expect(try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "100,000"]).status == 200)
            let served = try await InProcessLNURLServer(ledger: ledger)
            defer { served.stop() }
            try served.announce()
            let voucher = try DevnetVouchers.issue(ledgerPath: ledger, sats: 3_000)
            let other = try await OtherNode(ledger: ledger).session()
            let anyAmount = try await other.receive(ReceiveRequest(amountSats: nil)).response.invoice
            await other.close()
            let address = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

            for value in Self.hugeNumbers {
                let forms: [(path: String, fields: [String: String])] = [
                    ("/lightning/send", ["input": anyAmount, "amount": value]),
                    ("/lightning/send", ["input": address, "amount": value]),
                    ("/lightning/invoice", ["amount": value, "description": "huge"]),
                    ("/lightning/fund", ["amount": value]),
                    ("/lightning/withdraw", ["lnurl": voucher, "amount": value]),
                    ("/lightning/settings", ["maxClaimFee": value]),
                    ("/lightning/exit/review", ["feeRate": value]),
                    ("/settings/lock", ["minutes": value]),
                ]
                for (path, fields) in forms {
                    let answer = try await browser.send(.post, path, form: fields.merging(["csrf": csrf]) { $1 })
                    #expect((400..<500).contains(answer.status), "\(path) \(value): \(answer.status)")
                    #expect(answer.body.contains("role=\"alert\""), "\(path) \(value): the refusal is said on the page")
                    #expect(try await browser.send(.get, "/").status == 200, "the app still answers after \(path) \(value)")
                }
            }
            for coins in Self.hugeCoins {
                let answer = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "bitcoin:\(address)?amount=\(coins)"])
                #expect((400..<500).contains(answer.status), "bitcoin: amount \(coins): \(answer.status)")
                #expect(try await browser.send(.get, "/").status == 200)
            }
            // An amount that can be, but not from this balance: said by the amount, nothing paid.
            let large = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": anyAmount, "amount": "99,999,999,999,999"])
            #expect(large.status == 400 && large.body.contains("send-amount-problem") && large.body.contains("100,000 sat available"), "\(large.body.suffix(1500))")
            let withdrawal = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": "bitcoin:\(address)?amount=20999999.9769"])
            #expect(withdrawal.status == 200 && !withdrawal.body.contains("type=\"radio\" name=\"speed\" value=\"medium\" checked"),
                    "every speed shown as not possible: \(withdrawal.body.suffix(2000))")
            // Nothing was paid, sent, funded or made.
            let home = try await browser.send(.get, "/")
            #expect(home.body.contains(#"id="balance">100,000 sat<"#), "\(home.body.suffix(1200))")
        }
    }
}
