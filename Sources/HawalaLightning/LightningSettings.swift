import Foundation
import HawalaCrypto
import HawalaText
import HawalaWallet

/// A wallet's Lightning settings as saved: its backend, fiat currency, rates source and node.
public struct LightningSettings: Sendable, Equatable, JSONRepresentable {
    public var backend: String?
    public var fiat: String?
    public var rates: String?
    public var nodeID: String?
    /// Whether a Breez API key is saved for the wallet's Spark network (never the key itself);
    /// nil when the wallet's backend is not Spark.
    public var hasAPIKey: Bool?
    /// The cap on a deposit's claim fee.
    public var maxClaimFee: ClaimFeePolicy = .default

    public init(backend: String? = nil, fiat: String? = nil, rates: String? = nil, nodeID: String? = nil, hasAPIKey: Bool? = nil) {
        self.backend = backend
        self.fiat = fiat
        self.rates = rates
        self.nodeID = nodeID
        self.hasAPIKey = hasAPIKey
    }

    public static func load(store: WalletStore, walletID: String) throws -> LightningSettings {
        typealias Key = LightningWallet.SettingKey
        let backend = try store.setting(Key.backend, walletID: walletID)
        var hasAPIKey: Bool?
        if case .spark(let network)? = backend.flatMap({ try? BackendSpec.parse($0) }) {
            hasAPIKey = try store.hasSealedSetting(Key.sparkAPIKey(network))
        }
        var settings = LightningSettings(backend: backend, fiat: try store.setting(Key.fiatCurrency, walletID: walletID),
                                         rates: try store.setting(Key.rates, walletID: walletID),
                                         nodeID: try store.setting(Key.nodeID, walletID: walletID), hasAPIKey: hasAPIKey)
        settings.maxClaimFee = LightningWallet.claimFeePolicy(store: store, walletID: walletID)
        return settings
    }

    /// `{backend, fiat, rates, nodeId, apiKey, maxClaimFee}`, null when not set.
    public var json: JSONValue {
        .object([("backend", .nullable(backend)), ("fiat", .nullable(fiat)), ("rates", .nullable(rates)), ("nodeId", .nullable(nodeID)),
                 ("apiKey", hasAPIKey.map { .bool($0) } ?? .null), ("maxClaimFee", .string(maxClaimFee.saved))])
    }
}

/// A change to a wallet's Lightning settings. Everything is checked before anything is saved.
public struct LightningSettingsChange: Sendable {
    public var backend: BackendSpec?
    /// The Breez API key, for the Spark network of `backend` (or of the wallet's backend).
    public var apiKey: SecretBytes?
    public var fiat: String?
    public var rates: RatesSource?
    /// Forget the fiat currency and the rates source (amounts in sat only); not with `fiat` or
    /// `rates`.
    public var clearFiat: Bool
    /// A new cap on deposits' claim fees.
    public var maxClaimFee: ClaimFeePolicy?
    /// The person's typed acceptance of real bitcoin before the words are checked
    /// (`BackupBeforeRealMoney.acceptance`, checked before anything is saved).
    public var acceptRisk: String?

    public init(backend: BackendSpec? = nil, apiKey: SecretBytes? = nil, fiat: String? = nil, rates: RatesSource? = nil, clearFiat: Bool = false) {
        self.backend = backend
        self.apiKey = apiKey
        self.fiat = fiat
        self.rates = rates
        self.clearFiat = clearFiat
    }
}

extension LightningSettingsChange {
    /// A fiat currency code as kept: three ASCII letters, upper-case.
    public static func currencyCode(_ text: String) throws(LightningSettingsError) -> String {
        let code = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw .invalidCurrencyCode(text) }
        return code
    }
}

/// Why a settings change was refused; nothing was saved.
public enum LightningSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An API key was given, and neither the change nor the wallet uses Spark.
    case apiKeyWithoutSpark
    /// The key is not one token on one line.
    case malformedAPIKey
    /// Not a Breez API key: not base64, or not the certificate it encodes.
    case notABreezAPIKey
    /// A Breez API key whose certificate expired.
    case apiKeyExpired(Date)
    /// The rates source has no rate for the currency.
    case unknownCurrency(String)
    /// A currency or rates source was given with the request to forget them.
    case clearFiatWithValues
    /// A fiat currency is an ISO 4217 code: three letters.
    case invalidCurrencyCode(String)
    /// A rates service is reached over https only.
    case ratesNotHTTPS(String)
    /// Neither an https address nor the full path of a file.
    case unrecognizedRatesSource(String)

    public var description: String {
        switch self {
        case .clearFiatWithValues: "forgetting the fiat currency and setting one are exclusive"
        case .apiKeyWithoutSpark: "an API key is for the spark backend"
        case .malformedAPIKey: "the API key must be the key alone, on one line"
        case .notABreezAPIKey:
            "this is not a Breez API key: a key is one long line of letters, digits, + and / that starts with MII — copy it whole from Breez's email; nothing was saved"
        case .apiKeyExpired(let date): "this Breez API key expired on \(date.iso8601.prefix(10)): ask Breez for a new one; nothing was saved"
        case .unknownCurrency(let code): "the rates source has no \(code) rate; nothing was changed"
        case .invalidCurrencyCode(let code): "a fiat currency is three letters, like USD, not \"\(code)\""
        case .ratesNotHTTPS(let text): "a rates service must be an https address, not \"\(text)\""
        case .unrecognizedRatesSource(let text): "a rates source is an https address or the full path of a rates file, not \"\(text)\""
        }
    }
}

/// What a settings change did.
public struct LightningSettingsOutcome: Sendable {
    public let settings: LightningSettings
    /// The Spark network an API key was saved for.
    public let savedAPIKeyFor: BackendSpec.SparkNetwork?
    /// Why the rates source could not be checked now (the change was saved anyway).
    public let ratesUnchecked: FiatRatesError?
}

extension LightningSettings {
    /// Checks `change` whole (the devnet ledger opens, the key is well formed and has a Spark
    /// network, the rates source knows the currency), then saves it. The API key is sealed by the
    /// wallet password (`unlock`); a new backend forgets the node id of the old one.
    public static func apply(_ change: LightningSettingsChange, store: WalletStore, wallet: WalletSummary,
                             backends: BackendOpeners, unlock: () throws -> Keyring) async throws -> LightningSettingsOutcome {
        typealias Key = LightningWallet.SettingKey
        if change.clearFiat, change.fiat != nil || change.rates != nil { throw LightningSettingsError.clearFiatWithValues }
        let fiat = try change.fiat.map { code throws(LightningSettingsError) in try LightningSettingsChange.currencyCode(code) }
        if case .url(let url)? = change.rates { _ = try RatesSource.web(url.absoluteString) }
        if let typed = change.acceptRisk, typed.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() != BackupBeforeRealMoney.acceptance.lowercased() {
            throw BackupBeforeRealMoney.Refusal.notAccepted
        }
        try change.backend?.check(for: wallet.network, wallet: wallet.name)
        switch change.backend {
        case .devnet(let path)?:
            guard let devnet = backends.devnet else { throw LightningSessionError.devnetNotBuilt }
            _ = try devnet.makeBackend(path, nil, nil)  // reachable and a ledger
        case .spark? where backends.spark == nil: throw LightningSessionError.sparkNotBuilt
        default: break
        }
        var apiKey: (key: SecretBytes, network: BackendSpec.SparkNetwork)?
        if let key = change.apiKey {
            let target = try change.backend ?? store.setting(Key.backend, walletID: wallet.id).map { try BackendSpec.parse($0) }
            guard case .spark(let network)? = target else { throw LightningSettingsError.apiKeyWithoutSpark }
            let text = key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= 4096, !text.contains(where: { $0.isNewline || $0.isWhitespace }) else {
                throw LightningSettingsError.malformedAPIKey
            }
            try BreezAPIKey.check(text)
            apiKey = (SecretBytes(utf8: text), network)
        }
        let rates = try change.rates ?? store.setting(Key.rates, walletID: wallet.id).flatMap(RatesSource.init(saved:))
        let currency = try fiat ?? (change.rates != nil ? store.setting(Key.fiatCurrency, walletID: wallet.id) : nil)
        var ratesUnchecked: FiatRatesError?
        if let currency, let rates {
            do {
                _ = try await rates.provider().rate(currency)
            } catch {
                if case .unknownCurrency(let code) = error { throw LightningSettingsError.unknownCurrency(code) }
                ratesUnchecked = error
            }
        }
        if let apiKey {
            try store.setSealedSetting(Key.sparkAPIKey(apiKey.network), secret: apiKey.key, keyring: try unlock())
        }
        if let spec = change.backend {
            // What was known of the old network is not this one's: its node, its balance, when
            // it last synced (the history itself stays, under its own network).
            if spec.description != (try store.setting(Key.backend, walletID: wallet.id)) {
                for key in [Key.nodeID, Key.lastBalance, Key.syncedAt] { try store.setSetting(key, to: nil, walletID: wallet.id) }
            }
            try store.setSetting(Key.backend, to: spec.description, walletID: wallet.id)
        }
        if let rates = change.rates { try store.setSetting(Key.rates, to: rates.saved, walletID: wallet.id) }
        if let cap = change.maxClaimFee { try store.setSetting(Key.maxClaimFee, to: cap.saved, walletID: wallet.id) }
        if let fiat { try store.setSetting(Key.fiatCurrency, to: fiat, walletID: wallet.id) }
        if let typed = change.acceptRisk { try BackupBeforeRealMoney.accept(typed: typed, wallet: wallet, store: store) }
        if change.clearFiat {
            try store.setSetting(Key.fiatCurrency, to: nil, walletID: wallet.id)
            try store.setSetting(Key.rates, to: nil, walletID: wallet.id)
        }
        return LightningSettingsOutcome(settings: try load(store: store, walletID: wallet.id), savedAPIKeyFor: apiKey?.network,
                                        ratesUnchecked: ratesUnchecked)
    }
}
