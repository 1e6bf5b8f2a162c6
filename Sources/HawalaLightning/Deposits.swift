import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// Bitcoin sent on-chain to the wallet's deposit address, on its way into Lightning: it waits
/// for confirmations, then is claimed (an on-chain transaction whose fee the wallet pays, under
/// its `ClaimFeePolicy`), or stays unclaimed with the reason, or is sent elsewhere (refunded).
public struct Deposit: Sendable, Equatable, JSONRepresentable {
    /// Why a deposit was not claimed.
    public enum NotClaimed: Sendable, Equatable {
        /// Claiming costs `requiredSat`, more than the policy allows (`capSat`).
        case feeAboveCap(requiredSat: Sats, capSat: Sats?)
        /// Too small to be worth its claim (its fee would eat it).
        case belowDust
        case other(String)
    }

    public enum State: Sendable, Equatable {
        case waiting(confirmations: Int, needed: Int)
        case claimable
        case claimed(feeSat: Sats)
        case notClaimed(NotClaimed)
        case refunded(txid: String)
    }

    public let txid: String
    public let vout: UInt32
    public let amountSat: Sats
    public let state: State

    public init(txid: String, vout: UInt32, amountSat: Sats, state: State) {
        self.txid = txid
        self.vout = vout
        self.amountSat = amountSat
        self.state = state
    }

    /// txid:vout.
    public var outpoint: String { "\(txid):\(vout)" }

    /// The state in plain words.
    public var stateText: String {
        switch state {
        case let .waiting(confirmations, needed): "waiting for confirmations (\(confirmations) of \(needed))"
        case .claimable: "confirmed, to be claimed"
        case .claimed(let fee): "claimed (fee \(AmountText.sats(fee)))"
        case .notClaimed(.feeAboveCap(let required, let cap)):
            "not claimed: claiming costs \(AmountText.sats(required))" + (cap.map { ", above your cap of \(AmountText.sats($0))" } ?? ", above your cap")
        case .notClaimed(.belowDust): "not claimed: too small to be worth its claim fee"
        case .notClaimed(.other(let why)): "not claimed: \(DisplayText.safe(why))"
        case .refunded(let txid): "sent elsewhere (transaction \(txid.prefix(16))…)"
        }
    }

    /// `{txid, vout, amountSat, state, confirmations?, needed?, claimFeeSat?, reason?,
    /// requiredFeeSat?, capSat?, refundTxid?}`; state: waiting, claimable, claimed,
    /// notClaimed or refunded.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("txid", .string(txid)), ("vout", .int(Int(vout))), ("amountSat", .amount(amountSat))]
        switch state {
        case let .waiting(confirmations, needed):
            fields += [("state", .string("waiting")), ("confirmations", .int(confirmations)), ("needed", .int(needed))]
        case .claimable: fields.append(("state", .string("claimable")))
        case .claimed(let fee): fields += [("state", .string("claimed")), ("claimFeeSat", .amount(fee))]
        case .notClaimed(let why):
            fields.append(("state", .string("notClaimed")))
            switch why {
            case let .feeAboveCap(required, cap):
                fields += [("reason", .string("feeAboveCap")), ("requiredFeeSat", .amount(required)), ("capSat", cap.map { .amount($0) } ?? .null)]
            case .belowDust: fields.append(("reason", .string("belowDust")))
            case .other(let text): fields += [("reason", .string("other")), ("detail", .string(text))]
            }
        case .refunded(let refund): fields += [("state", .string("refunded")), ("refundTxid", .string(refund))]
        }
        return .object(fields)
    }

    /// What sending this deposit to `address` at `satPerVbyte` costs and leaves, as a person
    /// reads it before saying yes.
    public func refundRows(to address: String, satPerVbyte: UInt64) -> [(label: String, value: String)] {
        let fee = try? Sats.fee(satPerVbyte: satPerVbyte, vbytes: ClaimFeePolicy.claimVbytes)
        let arrives = fee.flatMap { try? amountSat - $0 }
        return [("deposit", "\(AmountText.sats(amountSat)) (\(stateText))"), ("to", address),
                ("fee", fee.map { "about \(AmountText.sats($0)) (\(satPerVbyte) sat/vB)" } ?? "more than the deposit (\(satPerVbyte) sat/vB)"),
                ("arrives", arrives.flatMap { $0 > .zero ? "about \(AmountText.sats($0))" : nil } ?? "nothing: the fee is larger")]
    }

    /// Reads "TXID:VOUT" (a 64-hex-digit transaction id).
    public static func outpoint(_ text: String) throws(DepositError) -> (txid: String, vout: UInt32) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":")
        guard parts.count == 2, parts[0].count == 64, bytes(fromHex: String(parts[0])) != nil, let vout = UInt32(parts[1]) else {
            throw .invalidOutpoint(text)
        }
        return (parts[0].lowercased(), vout)
    }
}

/// The most a deposit's claim may cost. The default follows the network: its recommended
/// rate plus a margin (a fixed 1 sat/vB cap strands deposits whenever fees rise).
public enum ClaimFeePolicy: Sendable, Equatable, CustomStringConvertible {
    /// The network's recommended (half-hour) rate plus `leeway` sat/vB.
    case network(leeway: UInt64)
    /// At most this many sat/vB.
    case rate(satPerVbyte: UInt64)
    /// At most this many sats in all.
    case fixed(sats: Sats)

    public static let `default` = ClaimFeePolicy.network(leeway: 1)
    /// The size of a claim transaction, for a rate cap in sats.
    public static let claimVbytes: UInt64 = 150

    /// Reads `network` (`network+N` for another margin), `N/vB` (or `N sat/vB`: a rate), or
    /// `N` (sats in all).
    public init(parsing text: String) throws(DepositError) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "")
        if t == "network" { self = .default; return }
        if t.hasPrefix("network+"), let leeway = UInt64(t.dropFirst("network+".count)), leeway <= 1000 { self = .network(leeway: leeway); return }
        for suffix in ["sat/vb", "/vb"] where t.hasSuffix(suffix) {
            if let rate = UInt64(t.dropLast(suffix.count)), PaymentLimits.feeRates.contains(rate) { self = .rate(satPerVbyte: rate); return }
        }
        if let sats = try? AmountText.parseSats(t), sats <= 100_000_000 as Sats { self = .fixed(sats: sats); return }
        throw .invalidClaimFeePolicy(text)
    }

    /// As a wallet setting keeps it.
    public var saved: String {
        switch self {
        case .network(let leeway): "network+\(leeway)"
        case .rate(let rate): "\(rate)/vB"
        case .fixed(let sats): "\(sats)"
        }
    }

    public var description: String {
        switch self {
        case .network(let leeway): "the network's recommended rate + \(leeway) sat/vB"
        case .rate(let rate): "at most \(rate) sat/vB"
        case .fixed(let sats): "at most \(AmountText.sats(sats))"
        }
    }

    /// The most a claim of `vbytes` may cost at the network's `fees`.
    public func capSat(fees: RecommendedFees, vbytes: UInt64 = ClaimFeePolicy.claimVbytes) -> Sats {
        // Saturating: an absurd rate from a server caps at all the bitcoin there is, never a crash.
        func times(_ rate: UInt64) -> Sats { (try? Sats.fee(satPerVbyte: rate, vbytes: vbytes)) ?? .supply }
        switch self {
        case .network(let leeway):
            let (rate, overflow) = fees.halfHour.addingReportingOverflow(leeway)
            return overflow ? .supply : times(rate)
        case .rate(let rate): return times(rate)
        case .fixed(let sats): return sats
        }
    }
}

extension Sats {
    /// The fee of `vbytes` at `satPerVbyte`.
    /// - Throws: `AmountError.aboveSupply` for a rate no transaction could pay.
    public static func fee(satPerVbyte: UInt64, vbytes: UInt64) throws(AmountError) -> Sats {
        let (product, overflow) = satPerVbyte.multipliedReportingOverflow(by: vbytes)
        guard !overflow else { throw .aboveSupply }
        return try Sats(product)
    }
}

/// How fast an on-chain transaction should confirm: the rate it pays.
public enum OnChainSpeed: String, Sendable, CaseIterable {
    case fast, medium, slow

    public func rate(_ fees: RecommendedFees) -> UInt64 {
        switch self {
        case .fast: fees.fastest
        case .medium: fees.halfHour
        case .slow: fees.hour
        }
    }
}

extension LightningNetwork {
    /// Checks `address` is a Bitcoin address of this network (bech32/bech32m segwit, or
    /// base58 on mainnet and testnet); `backend` names the network as the person chose it
    /// (devnet's regtest is "devnet", not "regtest").
    public func checkBitcoinAddress(_ address: String, backend: String = "") throws(LightningError) {
        let text = address.trimmingCharacters(in: .whitespaces)
        switch self {
        case .regtest:
            // SegWit with its own prefix; base58 with testnet's version bytes (as Bitcoin Core).
            guard (try? Bech32.decodeSegwitAddress(text, hrp: "bcrt")) != nil
                || (!text.lowercased().hasPrefix("tb1") && (try? Address.validate(text, chain: .bitcoinTestnet)) != nil) else {
                throw .wrongAddress(text, network: self, backendName: backend)
            }
        case .bitcoin:
            guard (try? Address.validate(text, chain: .bitcoin)) != nil else { throw .wrongAddress(text, network: self, backendName: backend) }
        case .testnet, .signet:
            guard (try? Address.validate(text, chain: .bitcoinTestnet)) != nil else { throw .wrongAddress(text, network: self, backendName: backend) }
        case .simnet:
            throw .wrongAddress(text, network: self, backendName: backend)
        }
    }
}
