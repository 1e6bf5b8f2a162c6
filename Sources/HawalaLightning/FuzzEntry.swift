import Foundation

/// The fuzzer's entry point over the Lightning parsers (`make fuzz`, Sources/hawala-fuzz):
/// BOLT11 decoding, payment inputs and the LNURL-pay JSON checks. Public to the fuzzer and to
/// the seed-replay test only.
@_spi(Fuzzing) public enum LightningFuzzEntry {
    static let payURL = URL(string: "https://service.example/.well-known/lnurlp/alice")!

    /// Feeds one input; the first byte chooses the target. Never throws.
    public static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard let selector = data.first else { return }
        let input = Data(data.dropFirst())
        let text = String(decoding: input, as: UTF8.self)
        switch selector % 4 {
        case 0: _ = try? Bolt11Invoice(text)
        case 1: _ = try? PaymentInput.parse(text)
        case 2: _ = try? LNURLPayRequest.parse(input, from: payURL, identifier: "alice@service.example")
        default:
            // A callback answer against a fixed, valid pay request.
            let request = LNURLPayRequest(callback: URL(string: "https://service.example/cb")!, minSendableMsat: 1000, maxSendableMsat: 1_000_000,
                                          metadata: "[[\"text/plain\",\"x\"]]", description: "x", commentAllowed: 0, domain: "service.example",
                                          allowLoopbackHTTP: false)
            _ = try? request.invoice(from: input, amountMsat: 5000, network: .bitcoin)
        }
    }
}
