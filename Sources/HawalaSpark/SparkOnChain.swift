import BreezSdkSpark
import Foundation
import HawalaCrypto
import HawalaLightning
import HawalaText
import HawalaWallet

// Withdrawals to a Bitcoin address and the unilateral exit, through the SDK.

extension SparkBackend {
    // MARK: Withdrawals

    /// The SDK's `prepareSendPayment` with the address: its fee quote for each speed. Sending
    /// everything asks the SDK to take the fee from the amount (`feesIncluded`).
    public func prepareOnChainSend(address: String, amount: OnChainAmount) async throws -> OnChainQuote {
        let balance = try await getInfo().balanceSats
        let sats: Sats
        switch amount {
        case .sats(let n): sats = n
        case .all: sats = balance
        }
        let request = PrepareSendPaymentRequest(paymentRequest: .input(input: address), amount: String(sats.value),
                                                feePolicy: amount == .all ? .feesIncluded : .feesExcluded)
        let response = try await call { try await $0.prepareSendPayment(request: request) }
        guard case let .bitcoinAddress(_, quote) = response.paymentMethod else {
            throw LightningError.refused(by: "Spark", reason: "it prepared something other than an on-chain payment for this address")
        }
        func fee(_ q: SendOnchainSpeedFeeQuote) -> Sats { (try? Sats(clamping: q.userFeeSat) + Sats(clamping: q.l1BroadcastFeeSat)) ?? .supply }
        return OnChainQuote.price(address: address, amount: amount, balanceSat: balance,
                                  fees: [(.fast, fee(quote.speedFast)), (.medium, fee(quote.speedMedium)), (.slow, fee(quote.speedSlow))],
                                  backendQuote: response)
    }

    public func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String) async throws -> HawalaLightning.Payment {
        _ = try quote.affordable(speed)
        guard let prepared = quote.backendQuote as? PrepareSendPaymentResponse else { throw LightningError.unsupported(backend: name, .preparedElsewhere) }
        let sdkSpeed: OnchainConfirmationSpeed = switch speed {
        case .fast: .fast
        case .medium: .medium
        case .slow: .slow
        }
        let request = SendPaymentRequest(prepareResponse: prepared, options: .bitcoinAddress(confirmationSpeed: sdkSpeed),
                                         idempotencyKey: SparkBackend.uuid(idempotencyKey))
        var payment = HawalaLightning.Payment(spark: try await call { try await $0.sendPayment(request: request) }.payment, backend: name)
        payment.idempotencyKey = idempotencyKey
        if payment.details.address == nil { payment.details.address = quote.address }
        return payment
    }

    // MARK: The way out

    /// The SDK's `exportUnilateralExitState`, with the balance it covers.
    public func exportExitState() async throws -> ExitSnapshot? {
        let exported = try await call { try await $0.exportUnilateralExitState() }
        // The balance it covers is known only once synced (offline, the stored one may be stale).
        let synced = state.withLock { $0.syncedAt != nil }
        let balance = synced ? try? await getInfo().balanceSats : nil
        return ExitSnapshot(state: HawalaCrypto.SecretBytes(Array(exported.exitState.utf8)), valueSat: balance, leafCount: nil)
    }

    public func importExitState(_ state: HawalaCrypto.SecretBytes) async throws {
        guard let text = state.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw ExitError.invalidExitState("not a Spark exit state")
        }
        _ = try await call { try await $0.importUnilateralExitState(request: ImportUnilateralExitStateRequest(exitState: text)) }
    }

    /// The SDK's `prepareRecoverFunds` for every leaf, funded (when a CPFP child needs it) by a
    /// P2WPKH output.
    public func prepareExit(satPerVbyte: UInt64, destination: String) async throws -> ExitPlan {
        let request = PrepareRecoverFundsRequest(feeRateSatPerVbyte: satPerVbyte, fundingKind: .p2wpkh, destination: destination, selection: .all)
        let quote = try await call { try await $0.prepareRecoverFunds(request: request) }
        return ExitPlan(
            leaves: quote.leaves.map { ExitPlan.Leaf(id: $0.leafId, valueSat: Sats(clamping: $0.valueSats), method: $0.method == .cooperative ? "cooperative" : "unilateral") },
            skipped: quote.skipped.map { ExitPlan.Skipped(id: $0.leafId, reason: SparkBackend.words($0.reason)) },
            recoverableSat: Sats(clamping: quote.recoverableValueSats), feeSat: Sats(clamping: quote.totalFeeSats),
            fundingSat: Sats(clamping: quote.funding?.singleUtxoSats ?? 0),
            satPerVbyte: satPerVbyte, destination: destination, backendPlan: quote)
    }

    /// The SDK's `recoverFunds`: every transaction in broadcast order (not broadcast). The
    /// fee child of a unilateral exit spends `funding`'s P2WPKH coin, signed by Hawala's
    /// on-chain engine through the SDK's `CpfpSigner`.
    /// - Throws: `ExitError.exitNeedsFunding` when the plan needs funding and none is given.
    public func runExit(_ plan: ExitPlan, funding: ExitFundingSource?) async throws -> [ExitTransaction] {
        guard let quote = plan.backendPlan as? PrepareRecoverFundsResponse else { throw LightningError.unsupported(backend: name, .preparedElsewhere) }
        guard plan.fundingSat == 0 || funding != nil else { throw ExitError.exitNeedsFunding(fundingSat: plan.fundingSat) }
        let inputs = funding?.coins.map { CpfpInput.p2wpkh(txid: $0.txid, vout: $0.vout, valueSats: $0.valueSat.value, pubkey: $0.publicKeyHex) } ?? []
        let signer = funding.map { SparkFundingSigner(source: $0) }
        let recovery = try await call { try await $0.recoverFunds(request: RecoverFundsRequest(prepared: quote, fundingInputs: inputs), signer: signer) }
        return recovery.transactions.map { tx in
            ExitTransaction(kind: SparkBackend.words(tx.kind), txid: tx.txid, hex: tx.txHex, waitBlocks: tx.csvTimelockBlocks)
        }
    }

    static func words(_ reason: SkippedLeafReason) -> String {
        switch reason {
        case .feeExceedsValue: "worth less than its exit fee"
        case .fundsNotFound: "its funds were not found on-chain"
        case .unverified: "its exit data could not be verified"
        case .notRecoverable(let message): "not recoverable: \(DisplayText.safe(message))"
        }
    }

    static func words(_ kind: RecoveryTxKind) -> String {
        switch kind {
        case .cooperative: "cooperative"
        case .fanOut: "fan-out"
        case .node: "node"
        case .refund: "refund"
        case .sweep: "sweep"
        }
    }
}

/// The SDK's signer of an exit's fee child: Hawala's on-chain engine signs the input that
/// spends the wallet's own coin.
final class SparkFundingSigner: CpfpSigner {
    let source: ExitFundingSource
    init(source: ExitFundingSource) { self.source = source }
    func signPsbt(psbtBytes: Data) async throws -> Data { Data(try await source.sign([UInt8](psbtBytes))) }
}
