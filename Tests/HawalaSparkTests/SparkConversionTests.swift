import BreezSdkSpark
import Foundation
import HawalaCrypto
import HawalaLightning
@testable import HawalaSpark
import HawalaText
import Testing

/// Seed 003's own unit tests, without the network: the SDK's values built here and run through
/// what turns them into Hawala's — the fee a person confirms, the amounts a history and a
/// connection's budget count, the events, the errors. Every case of the SDK's payment-method,
/// status and event enums; amounts in sats and past 64 bits; token payments never shown as bitcoin.
@Suite("Spark conversions, offline")
struct SparkConversionTests {
    static let htlc = SparkHtlcDetails(paymentHash: String(repeating: "ab", count: 32), preimage: String(repeating: "cd", count: 32), expiryTime: 1_800_000_000,
                                       status: .preimageShared)

    static func payment(method: PaymentMethod, details: PaymentDetails?, type: PaymentType = .send, status: PaymentStatus = .completed,
                        amount: String = "1200", fees: String = "3") -> BreezSdkSpark.Payment {
        BreezSdkSpark.Payment(id: "p1", paymentType: type, status: status, amount: amount, fees: fees, timestamp: 1_790_000_000, method: method,
                              details: details, conversionDetails: nil)
    }

    static let token = TokenMetadata(identifier: "btkn1xyz", issuerPublicKey: "02aa", name: "Some Dollar", ticker: "USDX", decimals: 6,
                                     maxSupply: "1000000000000", isFreezable: false)

    @Test func paymentsOfEveryMethodAndStatus() {
        let lightning = PaymentDetails.lightning(description: "job 6", invoice: "lnbc12u1…", destinationPubkey: "02bb", htlcDetails: Self.htlc,
                                                 lnurlPayInfo: nil, lnurlWithdrawInfo: nil, lnurlReceiveMetadata: nil, conversionInfo: nil)
        let cases: [(PaymentMethod, PaymentDetails?, String, Msat, Msat)] = [
            (.lightning, lightning, "lightning", 1_200_000, 3_000),
            (.spark, .spark(invoiceDetails: nil, htlcDetails: Self.htlc, conversionInfo: nil), "spark", 1_200_000, 3_000),
            (.deposit, .deposit(txId: "tx1", vout: 2), Payment.onChainMethod, 1_200_000, 3_000),
            (.withdraw, .withdraw(txId: "tx2"), Payment.onChainMethod, 1_200_000, 3_000),
            (.token, .token(metadata: Self.token, txHash: "tx3", txType: .transfer, invoiceDetails: nil, conversionInfo: nil), "token", .zero, .zero),
            (.unknown, nil, "unknown", 1_200_000, 3_000),
        ]
        for (method, details, name, amount, fee) in cases {
            for (status, expected) in [(PaymentStatus.completed, Payment.Status.completed), (.pending, .pending), (.failed, .failed)] {
                let p = Payment(spark: Self.payment(method: method, details: details, status: status), backend: "spark")
                #expect(p.method == name && p.status == expected && p.amountMsat == amount && p.feeMsat == fee, "\(method) \(status): \(p)")
                #expect((p.failureReason != nil) == (status == .failed))
            }
        }
        let paid = Payment(spark: Self.payment(method: .lightning, details: lightning), backend: "spark")
        #expect(paid.details.description == "job 6" && paid.details.paymentHash == Self.htlc.paymentHash && paid.details.preimage == Self.htlc.preimage)
        #expect(paid.details.destination == "02bb" && paid.type == .send && paid.timestamp == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(Payment(spark: Self.payment(method: .lightning, details: lightning, type: .receive), backend: "spark").type == .receive)
        let deposit = Payment(spark: Self.payment(method: .deposit, details: .deposit(txId: "tx1", vout: 2)), backend: "spark")
        #expect(deposit.details.txid == "tx1" && deposit.details.description == "on-chain deposit, output 2" && deposit.isOnChain)
        // A token payment says what it is, in its own units; it never counts as sats.
        let token = Payment(spark: Self.payment(method: .token, details: .token(metadata: Self.token, txHash: "tx3", txType: .transfer, invoiceDetails: nil,
                                                                                  conversionInfo: nil), amount: "5000000"), backend: "spark")
        #expect(token.details.description == "a token payment, not bitcoin: 5000000 base units of USDX" && token.amountMsat == .zero)
        #expect(Payment(spark: Self.payment(method: .token, details: nil), backend: "spark").details.description == "a token payment, not bitcoin")
    }

    /// The SDK's amounts are u128 as text: sats to msat exactly; past the supply, the supply
    /// (shown, never paid from); not a number, zero.
    @Test func amounts() {
        #expect(Payment.msat(sats: "0") == .zero && Payment.msat(sats: "1") == 1_000 && Payment.msat(sats: "2100000000000000") == Msat.supply)
        #expect(Payment.msat(sats: "18446744073709551616") == Msat.supply && Payment.msat(sats: "340282366920938463463374607431768211455") == Msat.supply)
        #expect(Payment.msat(sats: "") == .zero && Payment.msat(sats: "-5") == .zero && Payment.msat(sats: "1e3") == .zero)
    }

    static func invoice() throws -> HawalaLightning.Bolt11Invoice {
        let key = SecretBytes((1...32).map { UInt8($0) })
        let fields = HawalaLightning.Bolt11Invoice.fields(paymentHash: Hash.sha256(Array("x".utf8)), paymentSecret: Array(repeating: 7, count: 32),
                                                          description: "job", descriptionHash: nil, expiry: 600, features: [8, 14])
        return try HawalaLightning.Bolt11Invoice(try HawalaLightning.Bolt11Invoice.encode(network: .bitcoin, amountMsat: 1_200_000, timestamp: 1_790_000_000,
                                                                                          fields: fields, privateKey: key))
    }

    static func prepared(_ invoice: HawalaLightning.Bolt11Invoice, amount: String = "1200", lightningFee: UInt64 = 4,
                         token: String? = nil) -> PrepareSendPaymentResponse {
        let details = Bolt11InvoiceDetails(amountMsat: 1_200_000, description: "job", descriptionHash: nil, expiry: 600,
                                           invoice: BreezSdkSpark.Bolt11Invoice(bolt11: invoice.text, source: PaymentRequestSource(bip21Uri: nil, bip353Address: nil)),
                                           minFinalCltvExpiryDelta: 18, network: .bitcoin, payeePubkey: "02bb", paymentHash: "ab", paymentSecret: "07",
                                           routingHints: [], timestamp: 1_790_000_000)
        return PrepareSendPaymentResponse(paymentMethod: .bolt11Invoice(invoiceDetails: details, sparkTransferFeeSats: 0, lightningFeeSats: lightningFee),
                                          amount: amount, tokenIdentifier: token, conversionEstimate: nil, feePolicy: .feesExcluded)
    }

    /// The fee a person confirms and a budget reserves: the SDK's Lightning fee, in msat; an
    /// amount other than the one asked, a token, or a fee past the supply refused.
    @Test func preparationFigures() throws {
        let invoice = try Self.invoice()
        let ok = try SparkBackend.prepared(Self.prepared(invoice), invoice: invoice, amountMsat: 1_200_000)
        let total = try ok.totalMsat()
        #expect(ok.amountMsat == 1_200_000 && ok.feeMsat == 4_000 && total == 1_204_000)
        #expect(try SparkBackend.prepared(Self.prepared(invoice, lightningFee: 0), invoice: invoice, amountMsat: 1_200_000).feeMsat == .zero)
        for bad in [Self.prepared(invoice, amount: "1300"), Self.prepared(invoice, amount: "18446744073709551616"), Self.prepared(invoice, token: "btkn1xyz"),
                    Self.prepared(invoice, lightningFee: UInt64.max)] {
            #expect(throws: LightningError.self) { try SparkBackend.prepared(bad, invoice: invoice, amountMsat: 1_200_000) }
        }
    }

    @Test func events() {
        let p = Self.payment(method: .lightning, details: nil)
        func name(_ e: PaymentEvent?) -> String {
            switch e {
            case .synced?: "synced"
            case .paymentSucceeded(let p)?: "succeeded \(p.amountMsat)"
            case .paymentPending?: "pending"
            case .paymentFailed?: "failed"
            case .newDeposits(let d)?: "new \(d.count)"
            case .claimedDeposits(let d)?: "claimed \(d.count)"
            case .unclaimedDeposits(let d)?: "unclaimed \(d.count)"
            case .exitStateChanged?: "exit"
            case nil: "none"
            }
        }
        let deposit = DepositInfo(txid: "tx", vout: 0, amountSats: 5_000, isMature: true, refundTx: nil, refundTxId: nil, refundState: nil,
                                  claimError: nil, instantClaimStatus: nil, maxClaimFee: nil)
        #expect(name(SparkBackend.event(.synced, backend: "spark")) == "synced")
        #expect(name(SparkBackend.event(.paymentSucceeded(payment: p), backend: "spark")) == "succeeded 1200000")
        #expect(name(SparkBackend.event(.paymentPending(payment: p), backend: "spark")) == "pending")
        #expect(name(SparkBackend.event(.paymentFailed(payment: p), backend: "spark")) == "failed")
        #expect(name(SparkBackend.event(.newDeposits(newDeposits: [deposit, deposit]), backend: "spark")) == "new 2")
        #expect(name(SparkBackend.event(.claimedDeposits(claimedDeposits: [deposit]), backend: "spark")) == "claimed 1")
        #expect(name(SparkBackend.event(.unclaimedDeposits(unclaimedDeposits: []), backend: "spark")) == "unclaimed 0")
        #expect(name(SparkBackend.event(.paymentMetadataUpdated(payment: p), backend: "spark")) == "none")
        #expect(name(SparkBackend.event(.lightningAddressChanged(lightningAddress: nil), backend: "spark")) == "none")
    }

    /// The SDK's errors in Hawala's words: the network unreachable, a refusal with its reason
    /// on one line, storage; never a Rust or Swift name.
    @Test func errors() {
        func said(_ error: SdkError) -> String { "\(SparkErrors.map(error))" }
        if case LightningError.unreachable? = SparkErrors.map(SdkError.NetworkError("dns error: no such host")) as? LightningError {} else { Issue.record("network") }
        if case LightningError.unreachable(_, let reason)? = SparkErrors.map(SdkError.SparkError("status: Unavailable, transport error: connection refused")) as? LightningError {
            #expect(reason == "connection refused")
        } else { Issue.record("a transport failure is the network") }
        #expect(said(.InsufficientFunds(tokenIdentifier: nil)).contains("insufficient balance"))
        #expect(said(.InvalidInput("amount too small\nat line 3")) == LightningError.refused(by: "Spark", reason: "amount too small").description)
        #expect(said(.LnurlError("the service said no")).contains("the LNURL service"))
        if case LightningError.backendUnavailable? = SparkErrors.map(SdkError.StorageError("disk full")) as? LightningError {} else { Issue.record("storage") }
        #expect(said(.Generic(String(repeating: "x", count: 500))).count < 400, "one line, bounded")
        #expect("\(SparkErrors.map(CancellationError()))".contains("CancellationError"), "not the SDK's: passed through")
    }
}
