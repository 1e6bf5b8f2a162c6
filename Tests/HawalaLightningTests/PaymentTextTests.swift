import Foundation
import HawalaLightning
import HawalaWallet
import Testing

@Suite("Payment text")
struct PaymentTextTests {
    let sent = Payment(id: "p1", type: .send, status: .failed, amountMsat: 2_500_000, feeMsat: 3_500,
                       timestamp: Date(timeIntervalSince1970: 1_795_000_000), backend: "devnet",
                       details: Payment.Details(description: "coffee\u{1B}[2J", paymentHash: "ab"), failureReason: "no route",
                       fiat: Payment.FiatValue(currency: "EUR", value: Decimal(string: "1.25")!))

    /// A line reads in whole sats (amount + fee = total); details are exact; payee text loses its
    /// control characters; absent fields have no row.
    @Test func historyLineAndDetails() {
        #expect(satsText(1_234_567, .down) == "1,234 sat" && satsText(1_234_567, .up) == "1,235 sat" && satsText(5_000, .up) == "5 sat")
        let line = sent.historyLine()
        #expect(line.contains("−2,504 sat (incl. 4 sat fee)  failed  p1") && line.contains("[no route]") && !line.contains("\u{1B}"))
        #expect(sent.signedAmountText == "−2,504 sat")
        let rows = sent.detailRows()
        #expect(rows.first { $0.label == "amount" }?.value == "2,500 sat" && rows.first { $0.label == "fee" }?.value == "3.5 sat")
        #expect(rows.map(\.label) == ["type", "status", "amount", "fee", "date", "backend", "fiat then", "description", "payment hash", "failure"])
        #expect(rows.first { $0.label == "fiat then" }?.value == "1.25 EUR")
        let unpaid = Payment(id: "r", type: .receive, status: .pending, amountMsat: 1_000, feeMsat: 0, timestamp: Date(timeIntervalSince1970: 0),
                             backend: "devnet", details: Payment.Details(invoice: "lnbcrt1"))
        #expect(unpaid.detailRows().first { $0.label == "status" }?.value == "pending (not final: it may still settle)")
    }

    @Test func alignedLabels() {
        #expect(alignedRows([("amount", "1 sat"), ("description", "x"), ("≈", "2 USD")]) ==
                ["  amount:      1 sat", "  description: x", "  ≈            2 USD"])
    }

    /// A decoded input's lines: a stranger's label and message lose their control characters;
    /// an amount that is not whole satoshis shows its millisatoshis.
    @Test func decodedInputLines() throws {
        let uri = try PaymentInput.parse("bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.001&label=a%1B%5B2Jb&message=hi")
        #expect(uri.summaryLines == ["bitcoin: URI", "  address:   bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu (mainnet)", "  amount:    100,000 sat",
                                     "  label:     a\u{FFFD}[2Jb", "  message:   hi"])
        #expect(exactSatsText(1_500) == "1.5 sat" && exactSatsText(2_000) == "2 sat" && exactSatsText(1_234_005) == "1,234.005 sat")
        #expect(try PaymentInput.parse("alice@example.com").summaryLines == ["Lightning address alice@example.com: https://example.com/.well-known/lnurlp/alice"])
    }
}
