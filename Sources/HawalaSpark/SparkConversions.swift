import BreezSdkSpark
import Foundation
import HawalaLightning
import HawalaText
import HawalaWallet

/// The SDK's errors as Hawala's typed Lightning errors: one line each, no Swift or Rust names.
enum SparkErrors {
    static let network = "Spark network"

    static func map(_ error: Error) -> Error {
        guard let error = error as? SdkError else { return error }
        switch error {
        case .NetworkError(let why), .ChainServiceError(let why):
            return LightningError.unreachable(network: network, reason: oneLine(why))
        case .InsufficientFunds:
            return LightningError.refused(by: "Spark", reason: "insufficient balance for the amount and the fee")
        case .InvalidInput(let why):
            return LightningError.refused(by: "Spark", reason: oneLine(why))
        case .LnurlError(let why):
            return LightningError.refused(by: "the LNURL service", reason: oneLine(why))
        case .StorageError(let why):
            return LightningError.backendUnavailable("Spark's storage on this machine: \(oneLine(why))")
        case .SparkError(let why), .Generic(let why), .Signer(let why), .InvalidUuid(let why):
            if let reason = connectionFailure(why) { return LightningError.unreachable(network: network, reason: reason) }
            return LightningError.refused(by: "Spark", reason: oneLine(why))
        default:
            return LightningError.refused(by: "Spark", reason: oneLine(firstText(in: error) ?? "the request was refused"))
        }
    }

    /// For the calls that read the wallet's state (sync, info): the SDK's storage read before
    /// the first sync has no rows yet — a wallet not synced (offline), not a damaged disk.
    /// Elsewhere "no rows" means a record that does not exist, and keeps its words.
    static func readingState(_ error: Error) -> Error {
        if case LightningError.backendUnavailable(let why) = error, why.lowercased().contains("no rows") {
            return LightningError.notSyncedYet(network: network, reason: "nothing synced on this machine yet")
        }
        return error
    }

    /// The SDK reports a failed connection to Spark's operators inside other errors; what a
    /// person needs to know is that the network could not be reached, and the last cause.
    static func connectionFailure(_ text: String) -> String? {
        let lower = text.lowercased()
        let markers = ["transport error", "connection error", "dns error", "connection refused", "timed out", "status: unavailable", "error sending request"]
        guard markers.contains(where: lower.contains) else { return nil }
        for cause in ["dns error", "connection refused", "timed out"] where lower.contains(cause) { return cause }
        return "connection failed"
    }

    /// The first text carried by an error's associated values (their own description).
    private static func firstText(in value: Any) -> String? {
        for child in Mirror(reflecting: value).children {
            if let text = child.value as? String { return text }
            if let text = firstText(in: child.value) { return text }
        }
        return nil
    }

    private static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}

extension HawalaLightning.Payment {
    /// A payment the SDK reports, as Hawala records it. Amounts in the SDK are whole sats.
    init(spark p: BreezSdkSpark.Payment, backend: String) {
        var details = HawalaLightning.Payment.Details()
        var heldUntil: Date?
        var status = HawalaLightning.Payment.Status(spark: p.status)
        switch p.details {
        case let .lightning(description, invoice, destinationPubkey, htlcDetails, payInfo, _, receiveMetadata, _)?:
            // A comment: the payer's, received at the Lightning address; or ours, sent (LUD-12).
            details = HawalaLightning.Payment.Details(invoice: invoice, description: description, paymentHash: htlcDetails.paymentHash,
                                      preimage: htlcDetails.preimage, destination: destinationPubkey,
                                      comment: receiveMetadata?.senderComment ?? payInfo?.comment)
            // A payment to a HODL invoice: held until its preimage is released, returned at expiry.
            if p.paymentType == .receive {
                switch htlcDetails.status {
                case .waitingForPreimage where status == .pending: heldUntil = Date(timeIntervalSince1970: TimeInterval(htlcDetails.expiryTime))
                case .returned: status = .failed
                default: break
                }
            }
        case let .spark(_, htlcDetails, _)?:
            details.paymentHash = htlcDetails?.paymentHash
            details.preimage = htlcDetails?.preimage
        case let .withdraw(txId)?:
            details.description = "on-chain withdrawal"
            details.txid = txId
        case let .deposit(txId, vout)?:
            details.description = "on-chain deposit, output \(vout)"
            details.txid = txId
        case let .token(metadata, txHash, _, _, _)?:
            details.description = "a token payment, not bitcoin: \(p.amount.prefix(40)) base units of \(DisplayText.safe(String(metadata.ticker.prefix(16))))"
            details.txid = txHash
        case nil:
            break
        }
        // A token's amount is in the token's units, not sats: never shown or counted as bitcoin.
        let isToken: Bool = if case .token = p.method { true } else if case .token? = p.details { true } else { false }
        if isToken, details.description == nil { details.description = "a token payment, not bitcoin" }
        let method: String = switch p.method {
        case .lightning: "lightning"
        case .spark: "spark"
        case .token: "token"
        case .deposit, .withdraw: HawalaLightning.Payment.onChainMethod
        case .unknown: "unknown"
        }
        self.init(
            id: p.id, type: p.paymentType == .send ? .send : .receive,
            status: status,
            amountMsat: isToken ? .zero : HawalaLightning.Payment.msat(sats: p.amount), feeMsat: isToken ? .zero : HawalaLightning.Payment.msat(sats: p.fees),
            timestamp: Date(timeIntervalSince1970: TimeInterval(p.timestamp)), method: method, backend: backend, details: details,
            failureReason: status == .failed ? "the Spark network reported the payment failed" : nil, heldUntil: heldUntil)
    }

    /// Msat from the SDK's decimal sats (a u128 as text); 0 when not a number, the supply when
    /// above it (a figure only shown: no amount Hawala pays comes from here).
    static func msat(sats text: String) -> Msat {
        guard let sats = UInt64(text) else { return text.allSatisfy(\.isNumber) && !text.isEmpty ? .supply : .zero }
        return Sats(clamping: sats).msat
    }
}

extension HawalaLightning.Payment.Status {
    init(spark status: PaymentStatus) {
        switch status {
        case .completed: self = .completed
        case .pending: self = .pending
        case .failed: self = .failed
        }
    }
}
