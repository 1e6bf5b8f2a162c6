import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

// The way out that needs no operator: a Spark wallet's funds are leaves the operators co-sign;
// with its exit state (kept sealed in the wallet, and in its backups) and the words, the wallet
// can put them on-chain alone. Without the state, a wallet whose operators vanish cannot exit.

/// A backend's exit state as of now.
public struct ExitSnapshot: Sendable {
    public let state: SecretBytes
    /// The value it covers, when the backend says.
    public let valueSat: Sats?
    public let leafCount: Int?
    public init(state: SecretBytes, valueSat: Sats?, leafCount: Int?) {
        self.state = state
        self.valueSat = valueSat
        self.leafCount = leafCount
    }
}

/// How a planned exit recovers funds: per leaf, and in all.
public struct ExitPlan: Sendable, JSONRepresentable {
    public struct Leaf: Sendable, Equatable {
        public let id: String
        public let valueSat: Sats
        /// How it is recovered ("unilateral", "cooperative", …, as the backend names it).
        public let method: String
        public init(id: String, valueSat: Sats, method: String) {
            self.id = id
            self.valueSat = valueSat
            self.method = method
        }
    }

    public struct Skipped: Sendable, Equatable {
        public let id: String
        public let reason: String
        public init(id: String, reason: String) {
            self.id = id
            self.reason = reason
        }
    }

    public let leaves: [Leaf]
    public let skipped: [Skipped]
    public let recoverableSat: Sats
    public let feeSat: Sats
    /// What must come from an on-chain UTXO of the wallet's own to pay the exit's fees (CPFP);
    /// 0 when the leaves pay their own way.
    public let fundingSat: Sats
    public let satPerVbyte: UInt64
    public let destination: String
    /// The backend's own plan, handed back to run it.
    public let backendPlan: (any Sendable)?

    public init(leaves: [Leaf], skipped: [Skipped], recoverableSat: Sats, feeSat: Sats, fundingSat: Sats, satPerVbyte: UInt64,
                destination: String, backendPlan: (any Sendable)? = nil) {
        self.leaves = leaves
        self.skipped = skipped
        self.recoverableSat = recoverableSat
        self.feeSat = feeSat
        self.fundingSat = fundingSat
        self.satPerVbyte = satPerVbyte
        self.destination = destination
        self.backendPlan = backendPlan
    }

    /// Why this plan can't be run (nil: it can, its funding aside): nothing to recover.
    public var refusal: ExitError? {
        if recoverableSat == .zero { return .nothingToRecover(skipped.first?.reason ?? "the kept state holds no funds") }
        return nil
    }

    /// What reaches the destination: the recoverable value less the fees it pays itself.
    public var receivedSat: Sats { recoverableSat.minusOrZero(feeSat) }

    /// `{recoverableSat, feeSat, fundingSat, receivedSat, satPerVbyte, destination, leaves: [{id, valueSat, method}], skipped: [{id, reason}]}`
    public var json: JSONValue {
        .object([
            ("recoverableSat", .amount(recoverableSat)), ("feeSat", .amount(feeSat)), ("fundingSat", .amount(fundingSat)),
            ("receivedSat", .amount(receivedSat)), ("satPerVbyte", .int(Int(clamping: satPerVbyte))), ("destination", .string(destination)),
            ("leaves", .array(leaves.map { .object([("id", .string($0.id)), ("valueSat", .amount($0.valueSat)), ("method", .string($0.method))]) })),
            ("skipped", .array(skipped.map { .object([("id", .string($0.id)), ("reason", .string($0.reason))]) })),
        ])
    }
}

extension ExitPlan {
    /// What a person reads about a plan, the same in every face: what is recovered, the fees,
    /// what arrives where, any funding needed, the leaves left out and why.
    public var summaryRows: [(label: String, value: String)] {
        var rows = [("recoverable", "\(AmountText.sats(recoverableSat))"),
                    ("fees", "\(AmountText.sats(feeSat)) at \(satPerVbyte) sat/vB"),
                    ("arrives", "\(AmountText.sats(receivedSat)) at \(destination)")]
        if fundingSat > .zero { rows.append(("needs", "\(AmountText.sats(fundingSat)) from an on-chain output of your own, for the fees")) }
        for leaf in skipped { rows.append(("left out", "\(leaf.id.prefix(12))…: \(leaf.reason)")) }
        return rows
    }
}

extension KeptExitState {
    /// How old the kept state is and what it covered, in a person's words.
    public func summary(now: Date = Date(), timeZone: TimeZone = .current) -> String {
        "from \(exportedAt.relative(now: now, timeZone: timeZone))" + (valueSat.map { ", covering \(AmountText.sats($0))" } ?? "")
    }
}

/// One transaction of an exit, in the order it is broadcast.
public struct ExitTransaction: Sendable, Equatable, JSONRepresentable {
    public let kind: String
    public let txid: String
    /// The signed transaction; nil on devnet (its chain has no real transactions).
    public let hex: String?
    /// Blocks to wait after its parent confirmed before it can be broadcast (relative timelock).
    public let waitBlocks: UInt32?
    public init(kind: String, txid: String, hex: String?, waitBlocks: UInt32?) {
        self.kind = kind
        self.txid = txid
        self.hex = hex
        self.waitBlocks = waitBlocks
    }

    public var json: JSONValue {
        .object([("kind", .string(kind)), ("txid", .string(txid)), ("hex", .nullable(hex)), ("waitBlocks", waitBlocks.map { .int(Int($0)) } ?? .null)])
    }
}

/// The answer to "can this wallet leave without the operators, now?".
public struct ExitCheck: Sendable, JSONRepresentable {
    /// What the wallet keeps (nil: nothing yet).
    public let kept: KeptExitState?
    /// The exit planned at the current fees, to the wallet's own address; nil when it could not be.
    public let plan: ExitPlan?
    /// Why it could not be planned (no state, the network's fees unknown, …).
    public let problem: String?
    public let checkedAt: Date
    /// Where the funding the plan needs could come from (nil: it needs none).
    public let funding: ExitFunding?

    public init(kept: KeptExitState?, plan: ExitPlan?, problem: String?, checkedAt: Date = Date(), funding: ExitFunding? = nil) {
        self.kept = kept
        self.plan = plan
        self.problem = problem
        self.checkedAt = checkedAt
        self.funding = funding
    }

    /// Yes when a state is kept and an exit of it plans with something to recover, and the
    /// funding it needs (if any) a confirmed on-chain coin of the wallet's own can pay.
    public var canExit: Bool { kept != nil && plan != nil && plan?.refusal == nil && (plan?.fundingSat == .zero || funding?.isEnough == true) }

    /// A kept state older than this is worth refreshing (it may miss payments since).
    public static let staleAfter: TimeInterval = 7 * 86_400

    public var isStale: Bool { kept.map { checkedAt.timeIntervalSince($0.exportedAt) > ExitCheck.staleAfter } ?? false }

    /// The answer in plain words, one line.
    public var headline: String {
        guard kept != nil else { return "No: this wallet keeps no exit state yet. It is kept at each sync; sync once while the network answers." }
        guard let plan else { return "Unknown: the kept state could not be planned now (\(problem ?? "no reason given"))." }
        if let refusal = plan.refusal { return refusal.description.sentence }
        if plan.fundingSat > .zero, funding?.isEnough != true {
            return "No: " + ExitError.exitNeedsFunding(fundingSat: plan.fundingSat).description + "; " + (funding?.words ?? ExitFunding(needed: plan.fundingSat, confirmed: nil).words).sentence
        }
        let paid = plan.fundingSat > .zero ? " Its fees are paid from one of your confirmed on-chain coins." : ""
        return "Yes: \(AmountText.sats(plan.receivedSat)) would reach your address, after \(AmountText.sats(plan.feeSat)) of fees at \(plan.satPerVbyte) sat/vB." + paid
    }

    /// `{canExit, stale, headline, kept: {network, exportedAt, valueSat, leafCount}?, plan?, problem?}`
    public var json: JSONValue {
        .object([
            ("canExit", .bool(canExit)), ("stale", .bool(isStale)), ("headline", .string(headline)),
            ("kept", kept.map { k in
                .object([("network", .string(k.network)), ("exportedAt", .string(PaymentExport.date(k.exportedAt))),
                         ("valueSat", k.valueSat.map { .amount($0) } ?? .null), ("leafCount", k.leafCount.map { .int($0) } ?? .null)])
            } ?? .null),
            ("plan", plan?.json ?? .null), ("problem", .nullable(problem)), ("funding", funding?.json ?? .null),
        ])
    }
}

extension LightningSession {
    /// Exports the backend's exit state and keeps it sealed in the wallet (and so in its next
    /// backup); does nothing without the wallet's keyring (a session opened without the password)
    /// or a state. Returns what is kept.
    /// `keepExitState()` where nothing waits for it (a sync, the backend's event): a failure is
    /// logged, and the previous state stays kept.
    func keepExitStateLogged() async {
        await UnsavedWrite.attempt("wallet \(wallet.id)'s exit state") { _ = try await keepExitState() }
    }

    @discardableResult
    public func keepExitState() async throws -> KeptExitState? {
        guard let keyring else { return nil }
        // The kept state goes in first: importing never costs a leaf, so what is exported
        // covers at least what was kept (a device offline, or restored from a backup, never
        // replaces a good state with a poorer one of its own).
        if let kept = try store.exitState(walletID: wallet.id, network: spec.description, keyring: keyring) {
            await UnsavedWrite.attempt("the kept exit state, given to the backend,") { try await backend.importExitState(kept.state) }
        }
        guard let snapshot = try await backend.exportExitState() else { return nil }
        let kept = KeptExitState(network: spec.description, exportedAt: Date(), valueSat: snapshot.valueSat, leafCount: snapshot.leafCount)
        try store.saveExitState(snapshot.state, kept: kept, walletID: wallet.id, keyring: keyring)
        return kept
    }

    /// Whether the wallet could leave now with the state it keeps, at `satPerVbyte` (the
    /// network's fast rate when nil) to `destination` (the wallet's own Bitcoin address when nil):
    /// the kept state is given to the backend first, so no operator needs to answer.
    public func exitCheck(satPerVbyte: UInt64? = nil, destination: String? = nil) async -> ExitCheck {
        await refreshExitState()
        let kept = try? store.keptExitState(walletID: wallet.id, network: spec.description)
        guard kept != nil else { return ExitCheck(kept: nil, plan: nil, problem: nil) }
        do {
            let plan = try await prepareExit(satPerVbyte: satPerVbyte, destination: destination)
            let funding = plan.fundingSat > .zero ? ExitFunding.of(plan.fundingSat, wallet: wallet, store: store) : nil
            return ExitCheck(kept: kept, plan: plan, problem: nil, funding: funding)
        } catch {
            return ExitCheck(kept: kept, plan: nil, problem: DisplayText.safe(String(describing: error)))
        }
    }

    /// Plans leaving with the kept state (see `exitCheck`).
    /// - Throws: `ExitError.noExitState` when none is kept.
    public func prepareExit(satPerVbyte: UInt64? = nil, destination: String? = nil) async throws(ExitError) -> ExitPlan {
        if let satPerVbyte {
            do { try PaymentLimits.check(feeRate: satPerVbyte) } catch { throw .lightning(error) }
        }
        await refreshExitState()
        do { return try await plannedExit(satPerVbyte: satPerVbyte, destination: destination) } catch { throw ExitError(error, backend: backend.name) }
    }

    private func plannedExit(satPerVbyte: UInt64?, destination: String?) async throws -> ExitPlan {
        guard let keyring else { throw ExitError.noExitState(network: spec.networkName) }
        guard let kept = try store.exitState(walletID: wallet.id, network: spec.description, keyring: keyring) else {
            throw ExitError.noExitState(network: spec.networkName)
        }
        try await backend.importExitState(kept.state)
        let rate: UInt64
        if let satPerVbyte { rate = satPerVbyte } else { rate = try await backend.recommendedFees().fastest }
        let to: String
        if let destination {
            try backend.network.checkBitcoinAddress(destination, backend: backend.name)
            to = destination
        } else {
            to = try ownBitcoinAddress()
        }
        return try await backend.prepareExit(satPerVbyte: rate, destination: to)
    }

    /// Keeps the backend's state first when it can within 5 s (it covers what was kept, and
    /// what happened since); offline, the kept one stands.
    func refreshExitState() async {
        _ = try? await Deadline.run(.seconds(5), timedOut: { LightningError.timeout(waitingFor: .answer, after: .seconds(5)) }) { [self] in
            try await keepExitState()
        }
    }

    /// The wallet's own first Bitcoin receive address (BIP84), written for the backend's
    /// network: where funds leaving Lightning go unless a person says otherwise — not a Spark
    /// deposit address, which would bring them back to the operators.
    public func ownBitcoinAddress() throws -> String {
        // A testnet wallet's key on the test networks' path; a mainnet wallet's on bitcoin's —
        // real bitcoin only ever with a mainnet wallet (`LightningChoice.isAllowed(for:)`), so
        // a key of the test path is never written as a real-bitcoin address.
        let chain: Chain = wallet.network == .testnet ? .bitcoinTestnet : .bitcoin
        if chain == .bitcoinTestnet, backend.network == .bitcoin { throw LightningError.refused(by: "Hawala", reason: LightningSessionError.realBitcoinOnTestWallet(wallet: wallet.name).description) }
        guard let first = try store.addresses(wallet: wallet, chain: chain, count: 1).first?.address,
              let hrp = first.lowercased().split(separator: "1").first.map(String.init),
              let (version, program) = try? Bech32.decodeSegwitAddress(first, hrp: hrp) else {
            throw LightningError.refused(by: "Hawala", reason: "this wallet has no SegWit Bitcoin address of its own: say which address to send to")
        }
        let own = backend.network == .bitcoin ? "bc" : backend.network == .regtest ? "bcrt" : "tb"
        return Bech32.segwitAddress(hrp: own, version: version, program: program)
    }

    /// Builds the planned exit: its transactions in broadcast order. Fees it needs from an
    /// on-chain output of the wallet's own are paid from a confirmed Bitcoin coin of the
    /// wallet's on-chain account (as its last sync saw it), signed here.
    /// - Throws: `ExitError.nothingToRecover` when it recovers nothing, `exitNeedsFunding` when
    ///   it needs funding no coin of the wallet's can pay.
    public func runExit(_ plan: ExitPlan) async throws(ExitError) -> [ExitTransaction] {
        if let refusal = plan.refusal { throw refusal }
        var funding: ExitFundingSource?
        if plan.fundingSat > .zero {
            guard let keyring else { throw ExitError.noExitState(network: spec.networkName) }
            funding = try ExitFunding.source(plan.fundingSat, destination: plan.destination, wallet: wallet, store: store, keyring: keyring)
        }
        do { return try await backend.runExit(plan, funding: funding) } catch { throw ExitError(error, backend: backend.name) }
    }
}
