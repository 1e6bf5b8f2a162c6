import Foundation
import HawalaText

/// The fuzzer's entry point over the Lightning parsers (`make fuzz`, Sources/hawala-fuzz):
/// BOLT11 decoding, payment inputs, the LNURL-pay JSON checks, and typed amounts run through a
/// payment's arithmetic (preview, fees, totals, fiat). Public to the fuzzer and to the
/// seed-replay test only.
@_spi(Fuzzing) public enum LightningFuzzEntry {
    static let payURL = URL(string: "https://service.example/.well-known/lnurlp/alice")!

    /// Feeds one input; the first byte chooses the target. Never throws.
    public static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard let selector = data.first else { return }
        let input = Data(data.dropFirst())
        let text = String(decoding: input, as: UTF8.self)
        switch selector % 8 {
        case 0: _ = try? Bolt11Invoice(text)
        case 1: _ = try? PaymentInput.parse(text)
        case 2: _ = try? LNURLPayRequest.parse(input, from: payURL, identifier: "alice@service.example")
        case 4...7: amounts(text)
        default:
            // A callback answer against a fixed, valid pay request.
            let request = LNURLPayRequest(callback: URL(string: "https://service.example/cb")!, minSendableMsat: 1000, maxSendableMsat: 1_000_000,
                                          metadata: "[[\"text/plain\",\"x\"]]", description: "x", commentAllowed: 0, domain: "service.example",
                                          allowLoopbackHTTP: false)
            _ = try? request.invoice(from: input, amountMsat: 5000, network: .bitcoin)
        }
    }

    /// "AMOUNT FEE RATE": an amount as a person types it, then a fee and a rate, through every
    /// piece of arithmetic a payment does before it is sent.
    static func amounts(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 2).map(String.init)
        guard let typed = parts.first else { return }
        // The same text in BTC too (a point for decimals), and shown back in both units.
        if let btc = try? AmountText.parse(typed, unit: .btc) { _ = AmountText.btc(btc) + AmountText.field(btc) }
        guard let sats = try? AmountText.parseSats(typed) else { return }
        let fee = parts.count > 1 ? (try? AmountText.parseSats(parts[1])) ?? .zero : .zero
        let rate = parts.count > 2 ? UInt64(parts[2]) ?? 1 : 1
        let msat = sats.msat
        _ = try? PrepareSendRequest.amountMsat(paying: amountless, amountSats: sats, network: .bitcoin, backendName: "fuzz", now: Date(timeIntervalSince1970: 1))
        _ = try? PaymentLimits.check(ReceiveRequest(amountSats: sats, description: ""))
        _ = try? msat.share(partsPerMillion: rate)
        _ = try? msat + fee.msat
        _ = SendFigures(amountMsat: msat, feeMsat: fee.msat)
        _ = FiatRate(currency: "USD", btcPrice: Decimal(rate)).text(msat: msat)
        let feeAtRate = (try? Sats.fee(satPerVbyte: rate, vbytes: OnChainQuote.withdrawalVbytes)) ?? .supply
        for amount in [OnChainAmount.sats(sats), .all] {
            let quote = OnChainQuote.price(address: "bc1q", amount: amount, balanceSat: fee, fees: [(.fast, feeAtRate), (.medium, fee), (.slow, sats)])
            _ = quote.previewRows()
            _ = quote.json.render()
            _ = try? quote.affordable(.medium, maxFeeSats: sats)
        }
        _ = ClaimFeePolicy.fixed(sats: sats).capSat(fees: RecommendedFees(fastest: rate, halfHour: rate, hour: rate, economy: rate, minimum: 1))
        _ = ClaimFeePolicy.network(leeway: rate).capSat(fees: RecommendedFees(fastest: rate, halfHour: rate, hour: rate, economy: rate, minimum: 1))
        let withdraw = LNURLWithdrawRequest(callback: URL(string: "https://service.example/w")!, k1: "k1", defaultDescription: "",
                                            minWithdrawableMsat: fee.msat, maxWithdrawableMsat: msat, domain: "service.example")
        _ = try? withdraw.amountSats(fee)
        _ = withdraw.remainderNote(sats: fee)
        _ = withdraw.summary
    }

    /// The spec's amountless mainnet invoice.
    static let amountless = try! Bolt11Invoice(
        "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dl"
        + "qnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql")
}
