/// A deposit that was not claimed, sent back out to an address: priced, not sent yet.
public struct DepositRefund: Sendable {
    /// How the fee is chosen: a rate typed, or one of the network's speeds.
    public enum Fee: Sendable, Equatable {
        case rate(satPerVbyte: UInt64)
        case speed(OnChainSpeed)

        /// The network's medium rate, when nothing was chosen.
        public static let `default` = Fee.speed(.medium)
    }

    public let deposit: Deposit
    public let address: String
    public let satPerVbyte: UInt64

    /// What a person confirms: the deposit, where it goes, the fee and what arrives.
    public var rows: [(label: String, value: String)] { deposit.refundRows(to: address, satPerVbyte: satPerVbyte) }
}

extension LightningSession {
    /// Prices the refund of the deposit at `outpoint` (TXID:VOUT) to `address`. Nothing is sent.
    /// - Throws: an outpoint that can't be read or is no deposit of this wallet; an address of
    ///   another network, or a rate outside `PaymentLimits.feeRates` (`.lightning`).
    public func prepareRefund(outpoint: String, to address: String, fee: DepositRefund.Fee = .default) async throws(DepositError) -> DepositRefund {
        let (txid, vout) = try Deposit.outpoint(outpoint)
        do {
            if case .rate(let rate) = fee { try PaymentLimits.check(feeRate: rate) }
            try backend.network.checkBitcoinAddress(address, backend: backend.name)
        } catch {
            throw .lightning(error)
        }
        return try await during {
            guard let deposit = try await backend.listDeposits().first(where: { $0.txid == txid && $0.vout == vout }) else {
                throw DepositError.unknownDeposit("\(txid):\(vout)")
            }
            let rate: UInt64
            switch fee {
            case .rate(let chosen): rate = chosen
            case .speed(let speed): rate = speed.rate(try await backend.recommendedFees())
            }
            return DepositRefund(deposit: deposit, address: address, satPerVbyte: rate)
        }
    }

    /// Sends the refund priced by `prepareRefund`.
    public func refund(_ refund: DepositRefund) async throws(DepositError) -> Deposit {
        try await during {
            try await backend.refundDeposit(txid: refund.deposit.txid, vout: refund.deposit.vout, to: refund.address, satPerVbyte: refund.satPerVbyte)
        }
    }

    private func during<T>(_ body: () async throws -> T) async throws(DepositError) -> T {
        do { return try await body() } catch { throw DepositError(error, backend: backend.name) }
    }
}
