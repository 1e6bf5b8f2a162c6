import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// Which backend a wallet pays through, as written in `--backend` and the wallet's settings.
public enum BackendSpec: Sendable, Equatable, CustomStringConvertible {
    /// The development network: a shared ledger file on this machine.
    case devnet(path: String)
    /// The Breez Spark SDK on one of Spark's networks.
    case spark(SparkNetwork)

    /// Spark's networks: mainnet (real bitcoin, needs a Breez API key) and regtest (Spark's
    /// public test network, no key).
    public enum SparkNetwork: String, Sendable, CaseIterable {
        case mainnet, regtest

        /// The network of the invoices it pays and makes.
        public var lightningNetwork: LightningNetwork { self == .mainnet ? .bitcoin : .regtest }
    }

    /// Parses `devnet:PATH` (a relative path is made absolute), `spark:mainnet` or `spark:regtest`;
    /// `devnet` alone is the ledger under the wallets' home (`defaultDevnetLedger`), when given.
    public static func parse(_ text: String, relativeTo directory: String = FileManager.default.currentDirectoryPath,
                             home: URL? = nil) throws(BackendSpecError) -> BackendSpec {
        if text == "devnet", let home { return .devnet(path: defaultDevnetLedger(home: home)) }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0] == "spark" {
            guard let network = SparkNetwork(rawValue: parts[1]) else { throw .unknownBackend(text) }
            return .spark(network)
        }
        guard parts.count == 2, parts[0] == "devnet", !parts[1].isEmpty else { throw .unknownBackend(text) }
        let path = parts[1].hasPrefix("/") ? parts[1] : URL(fileURLWithPath: directory).appendingPathComponent(parts[1]).standardizedFileURL.path
        return .devnet(path: path)
    }

    public var description: String {
        switch self {
        case .devnet(let path): "devnet:\(path)"
        case .spark(let network): "spark:\(network.rawValue)"
        }
    }

    /// Devnet's ledger when nobody chose another: `devnet/ledger.sqlite` under the wallets' home.
    /// Wallets of one home share it, so they can pay each other.
    public static func defaultDevnetLedger(home: URL) -> String {
        home.appendingPathComponent("devnet").appendingPathComponent("ledger.sqlite").path
    }

    /// The name of the backend it is made with (`PaymentBackend.name`): "devnet" or "spark".
    public var backendName: String {
        switch self {
        case .devnet: "devnet"
        case .spark: "spark"
        }
    }

    /// Whether LNURL services may be reached over plain http on this machine (127.0.0.1):
    /// devnet's LNURL server only; real networks are https (or .onion) only.
    public var allowsLoopbackHTTP: Bool {
        if case .devnet = self { return true }
        return false
    }

    /// What a person is told could not be reached: "Spark network", "devnet ledger".
    public var networkName: String {
        switch self {
        case .devnet: "devnet ledger"
        case .spark: "Spark network"
        }
    }

    /// The network in a few plain words, for a page ("Lightning: Spark test network").
    public var plainName: String {
        switch self {
        case .devnet: "test money on this machine (devnet)"
        case .spark(.mainnet): "Spark, real bitcoin"
        case .spark(.regtest): "Spark test network"
        }
    }

    /// How the backend is named to a user: devnet always says it is not the Lightning network.
    public var label: String {
        switch self {
        case .devnet: "devnet (development network on this machine, not the Lightning network)"
        case .spark(.mainnet): "Spark mainnet (real bitcoin)"
        case .spark(.regtest): "Spark regtest (test network, no real bitcoin)"
        }
    }
}

/// A wallet's Lightning side: a payment backend plus the history in the wallet store. It keeps
/// the rules the backend alone can't: a payment is recorded as pending before it is sent (a
/// crash leaves "pending", never "failed" and never nothing), the same idempotency key never
/// pays twice even across backends, and completed payments get their fiat value of the moment.
public final class LightningWallet: Sendable {
    /// Per-wallet settings keys in the wallet store.
    public enum SettingKey {
        public static let backend = "ln.backend"
        public static let nodeID = "ln.nodeId"
        public static let fiatCurrency = "ln.fiat"
        public static let rates = "ln.rates"
        /// The cap on a deposit's claim fee (`ClaimFeePolicy.saved`).
        public static let maxClaimFee = "ln.maxClaimFee"
        /// The Breez API key for a Spark network (a sealed store-wide setting).
        public static func sparkAPIKey(_ network: BackendSpec.SparkNetwork) -> String { "ln.spark.\(network.rawValue).apiKey" }
        static let syncedAt = "ln.syncedAt"
        static let lastBalance = "ln.lastBalance"
    }

    /// The wallet's cap on a deposit's claim fee (the default: the network's rate + 1 sat/vB).
    public static func claimFeePolicy(store: WalletStore, walletID: String) -> ClaimFeePolicy {
        ((try? store.setting(SettingKey.maxClaimFee, walletID: walletID)) ?? nil).flatMap { try? ClaimFeePolicy(parsing: $0) } ?? .default
    }

    /// The network a wallet's history is shown for: its saved backend (`BackendSpec.description`),
    /// nil when none is saved (then every network's payments are shown).
    public static func currentNetwork(store: WalletStore, walletID: String) -> String? {
        (try? store.setting(SettingKey.backend, walletID: walletID)) ?? nil
    }

    /// The last balance `network`'s backend gave, and when the history was last synced with it:
    /// what a page shows, marked offline, when the backend does not answer (never a bare 0).
    /// Each note names its network: another network's is never read as this one's.
    public static func lastKnownBalance(store: WalletStore, walletID: String, network: String?) -> (msat: Msat, at: Date?)? {
        guard let text = note(SettingKey.lastBalance, store: store, walletID: walletID, network: network), let value = UInt64(text), let msat = try? Msat(value) else { return nil }
        return (msat, lastSyncedAt(store: store, walletID: walletID, network: network))
    }

    /// Keeps `msat` as `network`'s last known balance (written only when it changed; a failure
    /// to write loses nothing but the note, and is logged).
    static func rememberBalance(_ msat: Msat, store: WalletStore, walletID: String, network: String?) {
        if let known = lastKnownBalance(store: store, walletID: walletID, network: network), known.msat == msat { return }
        UnsavedWrite.attempt("the last known balance of wallet \(walletID)") {
            try store.setSetting(SettingKey.lastBalance, to: tagged(String(msat.value), network: network), walletID: walletID)
        }
    }

    /// When the history of `walletID` was last brought up to date with `network`'s backend.
    public static func lastSyncedAt(store: WalletStore, walletID: String, network: String?) -> Date? {
        note(SettingKey.syncedAt, store: store, walletID: walletID, network: network).flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    }

    /// A per-network note as kept: "VALUE\nNETWORK".
    static func tagged(_ value: String, network: String?) -> String { network.map { value + "\n" + $0 } ?? value }

    /// A note's value when it is `network`'s (an untagged one, from before, counts for any).
    static func note(_ key: String, store: WalletStore, walletID: String, network: String?) -> String? {
        guard let stored = (try? store.setting(key, walletID: walletID)) ?? nil else { return nil }
        let parts = stored.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return stored }
        return network == nil || String(parts[1]) == network ? String(parts[0]) : nil
    }

    public let store: WalletStore
    public let wallet: WalletSummary
    public let backend: PaymentBackend
    private let fiat: (currency: String, provider: FiatRatesProvider)?
    private let clock: @Sendable () -> Date

    /// The network payments recorded here belong to (`BackendSpec.description`); nil: the
    /// store infers it (`WalletStore.network(of:walletBackend:)`).
    public let network: String?

    public init(store: WalletStore, wallet: WalletSummary, backend: PaymentBackend, network: String? = nil,
                fiat: (currency: String, provider: FiatRatesProvider)? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.network = network
        self.store = store
        self.wallet = wallet
        self.backend = backend
        self.fiat = fiat
        self.clock = clock
    }

    /// `BackupBeforeRealMoney` for this wallet on its network: asked before anything is
    /// received or paid.
    public func checkBackupBeforeRealMoney() throws(LightningError) {
        guard let network, let spec = try? BackendSpec.parse(network) else { return }
        do { try BackupBeforeRealMoney.check(spec, wallet: wallet, store: store) } catch { throw .backupFirst(wallet: wallet.name) }
    }

    /// Pays `prepared` once per `idempotencyKey`: a key already used returns that payment
    /// (settled or still pending) and sends nothing; after a failure (which paid nothing) it is
    /// a new attempt, recorded beside the failed one. `connection`: the app connection paying
    /// (its name is kept with the payment: "paid by …").
    public func pay(_ prepared: PrepareSendResponse, idempotencyKey: String, connection: String? = nil) async throws(LightningError) -> Payment {
        try await pay(prepared.invoice, amountMsat: prepared.amountMsat, feeMsat: prepared.feeMsat, idempotencyKey: idempotencyKey,
                      connection: connection) { key in
            try await self.backend.sendPayment(prepared, idempotencyKey: key)
        }
    }

    /// `pay` for a prepared LNURL-pay.
    /// The payer's history keeps the comment sent and the payee's message once paid.
    public func pay(_ prepared: PrepareLnurlPayResponse, idempotencyKey: String, connection: String? = nil) async throws(LightningError) -> Payment {
        try await pay(prepared.prepared.invoice, amountMsat: prepared.prepared.amountMsat, feeMsat: prepared.prepared.feeMsat, idempotencyKey: idempotencyKey,
                      comment: prepared.comment, connection: connection) { key in
            var paid = try await self.backend.lnurlPay(prepared, idempotencyKey: key)
            if paid.details.comment == nil { paid.details.comment = prepared.comment }
            if paid.details.successAction == nil, paid.status == .completed, let action = prepared.successAction,
               let text = try? action.text(preimage: paid.details.preimage.flatMap { bytes(fromHex: $0) }) {
                paid.details.successAction = DisplayText.safe(text)
            }
            return paid
        }
    }

    /// How long a chosen idempotency key may be, in UTF-8 bytes.
    public static let idempotencyKeyBytes = 1...256

    /// Refuses a key outside `idempotencyKeyBytes`: checked before anything is prepared or paid.
    public static func checkIdempotencyKey(_ key: String) throws(LightningError) {
        guard idempotencyKeyBytes.contains(key.utf8.count) else { throw .invalidIdempotencyKey(bytes: key.utf8.count) }
        guard !key.contains("#") else { throw .idempotencyKeyWithHash }
    }

    private func pay(_ invoice: Bolt11Invoice, amountMsat: Msat, feeMsat: Msat, idempotencyKey key: String, comment: String? = nil,
                     connection: String? = nil, send: (_ idempotencyKey: String) async throws -> Payment) async throws(LightningError) -> Payment {
        try Self.checkIdempotencyKey(key)
        return try await LightningError.during(backend.name) {
            try await pay(invoice, amountMsat: amountMsat, feeMsat: feeMsat, checkedKey: key, comment: comment, connection: connection, send: send)
        }
    }

    private func pay(_ invoice: Bolt11Invoice, amountMsat: Msat, feeMsat: Msat, checkedKey key: String, comment: String?,
                     connection: String?, send: (_ idempotencyKey: String) async throws -> Payment) async throws -> Payment {
        // Never twice under one key: a pending payment may still settle (a sync says how), a
        // completed one is paid. A failed one paid nothing: asking again is a new attempt,
        // recorded under the key's next attempt (`KEY#2`, `#3`…) so the failure stays listed.
        let (latest, idempotencyKey) = try Self.latestAttempt(key: key, store: store, walletID: wallet.id)
        if let latest, latest.status != .failed { return latest }
        // Recorded before sending: whatever happens next, the history says "pending" until the
        // backend says otherwise.
        let placeholder = Payment(
            id: "pending-" + hexString(Hash.sha256(Array(idempotencyKey.utf8)).prefix(12)), type: .send, status: .pending,
            amountMsat: amountMsat, feeMsat: feeMsat, timestamp: clock(), backend: backend.name,
            details: Payment.Details(invoice: invoice.text, description: invoice.description, paymentHash: hexString(invoice.paymentHash),
                                     destination: hexString(invoice.payee), comment: comment),
            idempotencyKey: idempotencyKey, network: network, connection: connection)
        try store.savePayment(placeholder, walletID: wallet.id)
        let result: Payment
        do {
            result = try await send(idempotencyKey)
        } catch {
            // Sent or not, nobody knows yet: the payment stays pending and a later sync settles it.
            if LightningError.noAnswer(error) { return placeholder }
            throw error
        }
        try await record([result])
        return try store.payment(walletID: wallet.id, id: result.id) ?? result
    }

    /// Sends a priced withdrawal at `speed` (its fee at most `maxFeeSats`), once per
    /// `idempotencyKey`: recorded pending before sending, so a send whose answer never came
    /// (timeout, network gone) stays pending under its key — a retry with the key returns it,
    /// never sends again — until a sync says what became of it.
    public func sendOnChain(_ quote: OnChainQuote, speed: OnChainSpeed, idempotencyKey: String, maxFeeSats: Sats? = nil) async throws(LightningError) -> Payment {
        try Self.checkIdempotencyKey(idempotencyKey)
        return try await LightningError.during(backend.name) { try await send(quote, speed: speed, checkedKey: idempotencyKey, maxFeeSats: maxFeeSats) }
    }

    private func send(_ quote: OnChainQuote, speed: OnChainSpeed, checkedKey idempotencyKey: String, maxFeeSats: Sats?) async throws -> Payment {
        if let earlier = try store.payment(walletID: wallet.id, idempotencyKey: idempotencyKey) { return earlier }
        let option = try quote.affordable(speed, maxFeeSats: maxFeeSats)
        let placeholder = Payment(
            id: "pending-" + hexString(Hash.sha256(Array(idempotencyKey.utf8)).prefix(12)), type: .send, status: .pending,
            amountMsat: option.amountSat.msat, feeMsat: option.feeSat.msat, timestamp: clock(), method: Payment.onChainMethod,
            backend: backend.name, details: Payment.Details(description: "on-chain withdrawal", address: quote.address, confirmations: 0),
            idempotencyKey: idempotencyKey, network: network)
        try store.savePayment(placeholder, walletID: wallet.id)
        let sent: Payment
        do {
            sent = try await backend.sendOnChain(quote, speed: speed, idempotencyKey: idempotencyKey)
        } catch {
            // No answer: it may have gone out, and stays pending under its key. A refusal (the
            // backend's words: devnet's ledger or Spark said no) sent nothing: the placeholder
            // goes. An error of no known kind keeps it, on the safe side, as does a placeholder
            // the store failed to remove: a retry under the key is answered, never sent twice.
            if LightningError.noAnswer(error) { return placeholder }
            if error is LightningError || error is WithdrawalError {
                UnsavedWrite.attempt("the removal of refused on-chain send \(placeholder.id) (it shows as pending)") {
                    try store.deletePendingPlaceholder(walletID: wallet.id, id: placeholder.id)
                }
            }
            throw error
        }
        try await record([sent])
        return try store.payment(walletID: wallet.id, id: sent.id) ?? sent
    }

    /// The key under which a new invoice is kept as a pending receive until it is paid: the
    /// backend's received payment carries the same key (added in `record`) and replaces it.
    public static func invoiceKey(paymentHash: String) -> String { Payment.invoiceKeyPrefix + paymentHash }

    /// How many of the wallet's invoices on `network` wait for a payment at `now` (not paid,
    /// not expired): what a home says apart from its payments.
    public static func waitingInvoices(store: WalletStore, walletID: String, network: String?, now: Date) throws -> Int {
        try store.payments(walletID: walletID, filter: PaymentFilter(type: .receive, status: .pending, network: network, limit: 1_000))
            .filter { $0.isOpenInvoice && $0.receiveState(at: now) != .expired }.count
    }

    /// Keeps a new invoice in the history as a pending receive, so unpaid invoices are listed
    /// (with their expiry, in the invoice) until a payment for them is recorded.
    public func recordInvoice(_ response: ReceiveResponse, amountSats: Sats?, description: String, connection: String? = nil) throws {
        let key = LightningWallet.invoiceKey(paymentHash: response.paymentHash)
        let invoice = Payment(
            id: "invoice-" + response.paymentHash.prefix(24), type: .receive, status: .pending,
            amountMsat: (amountSats ?? .zero).msat, feeMsat: .zero, timestamp: clock(),
            backend: backend.name, details: Payment.Details(invoice: response.invoice, description: description.isEmpty ? nil : description,
                                                            paymentHash: response.paymentHash),
            idempotencyKey: key, network: network, connection: connection)
        try store.savePayments([invoice], walletID: wallet.id)
    }

    /// Records payments reported by the backend (an event, a sync), with the fiat value of the
    /// moment for payments that just completed. A received payment replaces its invoice's
    /// pending record (same key).
    public func record(_ payments: [Payment]) async throws {
        var annotated = payments
        for i in annotated.indices where annotated[i].network == nil { annotated[i].network = network }
        for i in annotated.indices where annotated[i].type == .receive && annotated[i].idempotencyKey == nil {
            if let hash = annotated[i].details.paymentHash { annotated[i].idempotencyKey = LightningWallet.invoiceKey(paymentHash: hash) }
        }
        // A backend that does not report idempotency keys (Spark): a send keeps the key it was
        // recorded with, or takes the key of the pending send of the same invoice, which it replaces.
        for i in annotated.indices where annotated[i].type == .send && annotated[i].idempotencyKey == nil {
            if let known = try store.payment(walletID: wallet.id, id: annotated[i].id)?.idempotencyKey {
                annotated[i].idempotencyKey = known
            } else if let hash = annotated[i].details.paymentHash {
                let local = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send, status: .pending, paymentHash: hash))
                annotated[i].idempotencyKey = local.first(where: { $0.idempotencyKey != nil })?.idempotencyKey
            } else if annotated[i].isOnChain {
                // A withdrawal whose answer was lost: the pending record of the same address and
                // amount, written before sending, which it replaces.
                let local = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .send, status: .pending))
                annotated[i].idempotencyKey = local.first {
                    $0.isOnChain && $0.details.txid == nil && $0.idempotencyKey != nil && $0.amountMsat == annotated[i].amountMsat
                        && (annotated[i].details.address == nil || $0.details.address == annotated[i].details.address)
                }?.idempotencyKey
            }
        }
        if let fiat, annotated.contains(where: { $0.status == .completed && $0.fiat == nil }) {
            let rate = try? await fiat.provider.rate(fiat.currency)
            for i in annotated.indices where annotated[i].status == .completed && annotated[i].fiat == nil {
                // Only the moment's rate is known: older payments stay without a fiat value.
                guard let rate, abs(annotated[i].timestamp.timeIntervalSince(clock())) < 600 else { continue }
                annotated[i].fiat = Payment.FiatValue(currency: rate.currency, value: rate.value(msat: annotated[i].amountMsat))
            }
        }
        try store.savePayments(annotated, walletID: wallet.id)
    }

    /// Brings the history up to date with the backend: payments since the last sync (with an
    /// hour's overlap) and every payment still pending here.
    @discardableResult
    public func sync() async throws(LightningError) -> Int {
        try await LightningError.during(backend.name) { try await syncHistory() }
    }

    private func syncHistory() async throws -> Int {
        try await backend.sync()
        let syncedAt = LightningWallet.note(SettingKey.syncedAt, store: store, walletID: wallet.id, network: network).flatMap(Double.init)
        let now = clock()
        var found = try await backend.listPayments(PaymentFilter(from: syncedAt.map { Date(timeIntervalSince1970: $0 - 3600) }))
        // Only this network's: another network's pending payments are settled by its own backend.
        let pending = try store.payments(walletID: wallet.id, filter: PaymentFilter(status: .pending, network: network))
        for local in pending where !found.contains(where: { $0.id == local.id || ($0.idempotencyKey != nil && $0.idempotencyKey == local.idempotencyKey) }) {
            if let remote = try await backend.getPayment(id: local.id) {
                found.append(remote)
            } else if let hash = local.details.paymentHash, local.type == .send,
                      var remote = try await backend.listPayments(PaymentFilter(type: .send, paymentHash: hash))
                          .first(where: { $0.idempotencyKey == local.idempotencyKey || $0.idempotencyKey == nil }) {
                remote.idempotencyKey = local.idempotencyKey  // a backend that doesn't report keys (Spark)
                found.append(remote)
            } else if let hash = local.details.paymentHash, local.type == .receive,
                      let remote = try await backend.listPayments(PaymentFilter(type: .receive, paymentHash: hash)).first {
                found.append(remote)  // an invoice kept here, paid before the window above
            }
        }
        try await record(found)
        try store.setSetting(SettingKey.syncedAt, to: LightningWallet.tagged(String(now.timeIntervalSince1970), network: network), walletID: wallet.id)
        return found.count
    }

    /// How a bounded sync ended.
    public enum SyncOutcome: Sendable, Equatable {
        case synced(count: Int)
        /// The backend did not answer (or not in time): the history is as of `lastSyncedAt`.
        case offline(reason: String, lastSyncedAt: Date?)
    }

    /// `sync()`, given at most `timeout`: a read of the history never hangs on the network (a
    /// sync that overruns finishes in the background).
    public func sync(timeout: Duration) async -> SyncOutcome {
        do {
            let count = try await Deadline.run(timeout, timedOut: { LightningError.timeout(waitingFor: .answer, after: timeout) }) {
                try await self.sync()
            }
            return .synced(count: count)
        } catch {
            return .offline(reason: "\(error)", lastSyncedAt: LightningWallet.lastSyncedAt(store: store, walletID: wallet.id, network: network))
        }
    }

    /// History from the wallet store.
    public func history(_ filter: PaymentFilter) throws -> [Payment] {
        try store.payments(walletID: wallet.id, filter: filter)
    }
}

extension Payment {
    /// When an invoice not paid yet expires (a pending receive that keeps its invoice).
    public var invoiceExpiry: Date? {
        guard type == .receive, status == .pending, !isHeld, let text = details.invoice else { return nil }
        return (try? Bolt11Invoice(text))?.expiresAt
    }

    /// Where this receive stands at `now`, for every face alike (a page, an event stream, a
    /// history line). A pending receive is expired from its invoice's expiry on
    /// (`Bolt11Invoice.isExpired`); one whose invoice is missing or unreadable can't be paid,
    /// so it counts as expired too.
    public func receiveState(at now: Date) -> ReceiveState {
        switch status {
        case .completed: return .paid(amountMsat: amountMsat)
        case .failed: return .failed
        case .pending:
            guard let invoice = details.invoice.flatMap({ try? Bolt11Invoice($0) }), !invoice.isExpired(at: now) else { return .expired }
            return .waiting(expiresAt: invoice.expiresAt)
        }
    }
}

/// How a failed send can be tried again: what to pay, as a person would type it in the send form.
public enum PaymentRetry: Sendable, Equatable {
    /// Pay `to` again (an invoice, an on-chain address); `amount` when the form must say it (an
    /// invoice without an amount, an on-chain withdrawal), nil when `to` carries it.
    case payAgain(to: String, amount: Sats?)
    /// The invoice expired: only the payee's new one can be paid.
    case askForANewInvoice
}

extension Payment {
    /// How this payment can be tried again at `now`: only a failed send, to an invoice (still
    /// payable) or an address it kept. nil: nothing to try again.
    public func retry(at now: Date) -> PaymentRetry? {
        guard type == .send, status == .failed else { return nil }
        if method == "bitcoin", let address = details.address { return .payAgain(to: address, amount: amountMsat.sats(.down)) }
        guard let text = details.invoice, let invoice = try? Bolt11Invoice(text) else { return nil }
        if invoice.isExpired(at: now) { return .askForANewInvoice }
        return .payAgain(to: text, amount: invoice.amountMsat == nil ? amountMsat.sats(.down) : nil)
    }
}

/// Where an invoice made for receiving stands.
public enum ReceiveState: Sendable, Equatable {
    /// Not paid yet; payable until `expiresAt`.
    case waiting(expiresAt: Date)
    case paid(amountMsat: Msat)
    case failed
    /// Past its expiry (or unreadable): it can't be paid any more.
    case expired

    /// One word: "waiting", "paid", "failed" or "expired".
    public var word: String {
        switch self {
        case .waiting: "waiting"
        case .paid: "paid"
        case .failed: "failed"
        case .expired: "expired"
        }
    }
}
