import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// A payment prepared and not yet sent: what a person confirms (amount, fee, payee, expiry).
public enum PreparedPayment: Sendable {
    case invoice(PrepareSendResponse)
    /// A Lightning address or LNURL-pay: the service's terms, then the invoice it returned.
    case lnurl(PrepareLnurlPayResponse)

    public var prepared: PrepareSendResponse {
        switch self {
        case .invoice(let prepared): prepared
        case .lnurl(let response): response.prepared
        }
    }

    /// The LNURL service's terms, for a Lightning address or LNURL.
    public var payRequest: LNURLPayRequest? {
        if case .lnurl(let response) = self { return response.payRequest }
        return nil
    }

    /// What the payee shows once paid (LNURL-pay only).
    public var successAction: SuccessAction? {
        if case .lnurl(let response) = self { return response.successAction }
        return nil
    }

    /// What the payee says once `payment` completed: the LNURL-pay success action (a LUD-10
    /// message decrypted with the preimage), made safe to show; nil before that, without one, or
    /// when it can't be read.
    public func payeeMessage(after payment: Payment) -> String? {
        guard payment.status == .completed, let successAction,
              let text = try? successAction.text(preimage: payment.details.preimage.flatMap { bytes(fromHex: $0) }) else { return nil }
        return DisplayText.safe(text)
    }

    /// The key a payment is made under when none is given: the invoice's payment hash, so the
    /// same invoice is never paid twice.
    public var defaultIdempotencyKey: String { PaymentInput.idempotencyKey(paymentHash: prepared.invoice.paymentHash) }
}

extension PaymentInput {
    /// Whether paying this goes through an LNURL service (which may take a comment).
    public var isLNURL: Bool {
        switch self {
        case .lnurl, .lightningAddress: true
        default: false
        }
    }

    /// The default idempotency key when the input carries its invoice (BOLT11, or a bitcoin:
    /// URI with one); nil for LNURL, whose invoice comes later.
    public var defaultIdempotencyKey: String? {
        switch self {
        case .bolt11(let invoice): Self.idempotencyKey(paymentHash: invoice.paymentHash)
        case .bitcoinURI(let uri): uri.lightning.map { Self.idempotencyKey(paymentHash: $0.paymentHash) }
        default: nil
        }
    }

    static func idempotencyKey(paymentHash: [UInt8]) -> String { "invoice:" + hexString(paymentHash) }

    /// The comment for the payee as typed: trimmed, none when empty (LUD-12; the service's own
    /// length bound is checked when the payment is prepared).
    /// - Throws: `LightningError.commentNotAccepted` for an input that is no LNURL service.
    public func comment(_ typed: String?) throws(LightningError) -> String? {
        guard let text = typed?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard isLNURL else { throw .commentNotAccepted }
        return text
    }
}

/// A payment made earlier under the key of one being asked for: it is never sent again (a
/// Lightning payment that failed is no such payment: it paid nothing, and is tried again).
public enum EarlierPayment: Sendable, Equatable {
    case paid(Payment)
    case failed(Payment)
    /// Sent, not final yet: a sync settles it.
    case pending(Payment)

    public init(_ payment: Payment) {
        switch payment.status {
        case .completed: self = .paid(payment)
        case .failed: self = .failed(payment)
        case .pending: self = .pending(payment)
        }
    }

    public var payment: Payment {
        switch self {
        case .paid(let p), .failed(let p), .pending(let p): p
        }
    }

    /// One line: what happened, and that nothing was sent again.
    public var headline: String {
        switch self {
        case .paid: "already paid: nothing was sent again"
        case .failed: "this withdrawal failed earlier: nothing was sent again (another idempotency key sends anew)"
        case .pending: "this payment is still pending: nothing was sent again; it settles by itself"
        }
    }
}

extension LightningWallet {
    /// The payment already made under `key` (or the input's default key), answered before any
    /// password or network: the same key never pays twice while its payment is paid or pending;
    /// after a failure (which paid nothing) there is none, and paying is a new attempt.
    public static func earlier(for input: PaymentInput, key: String?, store: WalletStore, walletID: String) throws -> EarlierPayment? {
        guard let key = key ?? input.defaultIdempotencyKey else { return nil }
        try LightningWallet.checkIdempotencyKey(key)
        return try latestAttempt(key: key, store: store, walletID: walletID).latest.flatMap { $0.status == .failed ? nil : EarlierPayment($0) }
    }

    /// The newest payment made under `key` — `key` itself, then `key#2`, `#3`… after each
    /// failure — and the key a new attempt takes (the latest's when it did not fail: none).
    static func latestAttempt(key: String, store: WalletStore, walletID: String) throws -> (latest: Payment?, next: String) {
        var latest: Payment?, candidate = key, attempt = 1
        while let earlier = try store.payment(walletID: walletID, idempotencyKey: candidate) {
            latest = earlier
            guard earlier.status == .failed else { break }
            attempt += 1
            candidate = key + "#\(attempt)"
        }
        return (latest, candidate)
    }

    /// Prepares a payment (nothing is sent): the invoice's or the LNURL service's amount and
    /// the fee, refused when the fee is above `maxFeeSats`. `lnurl` is needed for a Lightning
    /// address or an LNURL, which also need `amountSats`.
    public func prepare(_ input: PaymentInput, text: String, amountSats: Sats?, comment: String?, maxFeeSats: Sats?,
                        lnurl: LNURLPayFlow?) async throws(LightningError) -> PreparedPayment {
        try checkBackupBeforeRealMoney()
        let prepared: PreparedPayment = try await LightningError.during(backend.name) {
            if input.isLNURL, let lnurl {
                guard let amountSats else { throw LightningError.amountRequired }
                let payRequest = try await lnurl.payRequest(for: input)
                return .lnurl(try await backend.prepareLnurlPay(PrepareLnurlPayRequest(payRequest: payRequest, amountSats: amountSats, comment: comment)))
            }
            return .invoice(try await backend.prepareSendPayment(PrepareSendRequest(input: text, amountSats: amountSats)))
        }
        if let maxFeeSats, prepared.prepared.feeMsat > maxFeeSats.msat {
            throw .feeAboveMaximum(feeMsat: prepared.prepared.feeMsat, maximumMsat: maxFeeSats.msat)
        }
        return prepared
    }

    /// Pays a prepared payment once per key (the invoice's payment hash when nil).
    public func pay(_ payment: PreparedPayment, idempotencyKey: String?, connection: String? = nil) async throws(LightningError) -> Payment {
        let key = idempotencyKey ?? payment.defaultIdempotencyKey
        switch payment {
        case .invoice(let prepared): return try await pay(prepared, idempotencyKey: key, connection: connection)
        case .lnurl(let response): return try await pay(response, idempotencyKey: key, connection: connection)
        }
    }

    /// Waits for the invoice with `paymentHash` to be paid and records the payment.
    public func waitForPayment(paymentHash: String, paymentID: String? = nil, timeout: Duration) async throws(LightningError) -> Payment {
        try await LightningError.during(backend.name) {
            let paid = try await backend.waitForPayment(paymentHash: paymentHash, paymentID: paymentID, timeout: timeout)
            try await record([paid])
            return paid
        }
    }
}

/// Where fiat rates come from, as saved in a wallet's settings (`file:PATH` or `url:URL`).
public enum RatesSource: Sendable, Equatable {
    case file(path: String)
    case url(URL)

    /// The saved text's source; nil when it is not one.
    public init?(saved: String) {
        if saved.hasPrefix("file:") {
            self = .file(path: String(saved.dropFirst(5)))
        } else if saved.hasPrefix("url:"), let url = URL(string: String(saved.dropFirst(4))), url.scheme != nil {
            self = .url(url)
        } else {
            return nil
        }
    }

    /// The text kept in the wallet's settings.
    public var saved: String {
        switch self {
        case .file(let path): "file:" + path
        case .url(let url): "url:" + url.absoluteString
        }
    }

    /// A rates file named by a person: a relative path is taken from the current directory.
    public static func localFile(_ path: String) -> RatesSource {
        .file(path: URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    /// A rates service's address: https only, since the rates decide the fiat values shown.
    public static func web(_ text: String) throws(LightningSettingsError) -> RatesSource {
        guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false else {
            throw .ratesNotHTTPS(text)
        }
        return .url(url)
    }

    /// What a person typed in one field: an https address, or the full path of a rates file.
    public init(typed text: String) throws(LightningSettingsError) {
        if text.hasPrefix("/") {
            self = .localFile(text)
        } else if text.contains("://") {
            self = try .web(text)
        } else {
            throw .unrecognizedRatesSource(text)
        }
    }

    public func provider() -> FiatRatesProvider {
        switch self {
        case .file(let path): FileRatesProvider(path: path)
        case .url(let url): HTTPRatesProvider(url: url, fetcher: HTTPFetcher())
        }
    }
}

/// Why a wallet's fiat value cannot be given.
public enum FiatSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A currency was asked for, and no rates source is saved.
    case noRatesSource
    case invalidRatesSource(String)

    public var description: String {
        switch self {
        case .noRatesSource: "no fiat rates source is set for this wallet"
        case .invalidRatesSource(let saved): "the saved rates source \"\(saved)\" is not valid"
        }
    }
}

extension LightningWallet {
    /// The wallet's fiat currency (or `currency`, asked for now) and its rates provider: the
    /// saved rates source, else `backendRates` (the backend's own rates); nil when no currency is
    /// configured, or none asked for and there is no source.
    public static func fiat(store: WalletStore, wallet: WalletSummary, currency: String? = nil,
                            backendRates: FiatRatesProvider? = nil) throws -> (currency: String, provider: FiatRatesProvider)? {
        guard let code = try currency ?? store.setting(SettingKey.fiatCurrency, walletID: wallet.id) else { return nil }
        guard let saved = try store.setting(SettingKey.rates, walletID: wallet.id) else {
            if let backendRates { return (code, backendRates) }
            if currency != nil { throw FiatSettingError.noRatesSource }
            return nil
        }
        guard let source = RatesSource(saved: saved) else { throw FiatSettingError.invalidRatesSource(saved) }
        return (code, source.provider())
    }
}
