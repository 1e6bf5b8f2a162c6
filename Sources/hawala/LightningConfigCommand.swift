import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

// MARK: - config, devnet

struct LightningConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show or set the wallet's Lightning settings: backend, fiat currency, rates source.",
        discussion: """
            Backends: spark:mainnet (the Lightning network through the Breez Spark SDK, real \
            bitcoin; needs a Breez API key, free from https://breez.technology/request-api-key/, \
            saved sealed with --api-key-file), spark:regtest (Spark's test network, no key), and \
            devnet (test money on this machine, not the Lightning network: its ledger is \
            devnet/ledger.sqlite under the wallets' home; devnet:PATH for a ledger elsewhere).
            """)
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "JSON output: {backend, fiat, rates, nodeId, apiKey, maxClaimFee} (null when not set; apiKey is true when a key is saved, never the key).") var json = false
    @Option(help: ArgumentHelp("Payment backend to use: spark:mainnet, spark:regtest, devnet or devnet:PATH.", valueName: "spec")) var backend: String?
    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("File holding the Breez API key for the Spark network (\"-\" = standard input); saved sealed by the wallet password.", valueName: "path"))
    var apiKeyFile: String?
    @OptionGroup var password: PasswordOptions
    @Option(help: "Fiat currency for values in the history and balance (e.g. USD): rates from the backend unless a rates source is given.") var fiat: String?
    @Option(name: .customLong("rates-file"), help: "Offline rates table: one `CODE PRICE` a line, e.g. `USD 65000.00`.") var ratesFile: String?
    @Option(name: .customLong("rates-url"), help: "HTTPS URL answering [{\"coin\": \"USD\", \"value\": 65000.0}, …].") var ratesURL: String?
    @Flag(name: .customLong("no-fiat"), help: "Forget the fiat currency and the rates source (amounts in sat only).") var noFiat = false
    @Option(name: .customLong("max-claim-fee"), help: ArgumentHelp("The most a deposit's claim may cost: network (the recommended rate + 1 sat/vB, the default), network+N, N/vB (a rate) or N (sats).", valueName: "cap"))
    var maxClaimFee: String?
    @Option(name: .customLong("accept-risk"), help: ArgumentHelp("Use real bitcoin before the words are checked: type \"\(BackupBeforeRealMoney.acceptance)\".", valueName: "words"))
    var acceptRisk: String?

    func validate() throws {
        if ratesFile != nil && ratesURL != nil { throw ValidationError("give one of --rates-file or --rates-url") }
        if noFiat, fiat != nil || ratesFile != nil || ratesURL != nil { throw ValidationError("--no-fiat excludes --fiat, --rates-file and --rates-url") }
        try WalletSession.checkOneStdin(password.passwordFile, apiKeyFile)
    }

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        var change = LightningSettingsChange(backend: try backend.map { try BackendSpec.parse($0, home: store.home.directory) },
                                             fiat: try fiat.map { try LightningSettingsChange.currencyCode($0) },
                                             rates: try ratesFile.map(RatesSource.localFile) ?? ratesURL.map { try RatesSource.web($0) })
        change.apiKey = try apiKeyFile.map { try Input.readSecretFile($0, what: "API key") }
        change.clearFiat = noFiat
        change.maxClaimFee = try maxClaimFee.map { try ClaimFeePolicy(parsing: $0) }
        change.acceptRisk = acceptRisk
        let outcome = try await LightningSettings.apply(change, store: store, wallet: summary, backends: .linked) {
            try WalletSession.unlock(store, file: password.passwordFile)
        }
        if let problem = outcome.ratesUnchecked { Output.error("warning: the rates source could not be checked now (\(problem))") }
        if let network = outcome.savedAPIKeyFor { Output.error("saved the Breez API key for spark:\(network.rawValue), sealed by the wallet password") }
        if acceptRisk != nil { Output.error("noted: real bitcoin before the words are checked, at your risk; `hawala wallet verify-backup` checks them any time") }
        if let spec = change.backend ?? settings(store, summary), BackupBeforeRealMoney.holdsBack(spec, wallet: summary, store: store) {
            Output.error("note: \(BackupBeforeRealMoney.Refusal.backupFirst(wallet: summary.name)) (hawala ln config --accept-risk \"\(BackupBeforeRealMoney.acceptance)\")")
        }
        let settings = outcome.settings
        if json { settings.json.print(); return }
        for (label, value) in [("backend", settings.backend), ("fiat", settings.fiat), ("rates", settings.rates), ("node id", settings.nodeID),
                               ("claim fee cap", settings.maxClaimFee.description)] {
            print("\(label): \(value ?? "(not set)")")
        }
        if let hasKey = settings.hasAPIKey { print("api key: \(hasKey ? "saved (sealed)" : "(not set)")") }
    }

    /// The wallet's saved backend.
    func settings(_ store: WalletStore, _ summary: WalletSummary) -> BackendSpec? {
        ((try? store.setting(LightningWallet.SettingKey.backend, walletID: summary.id)) ?? nil).flatMap { try? BackendSpec.parse($0, home: store.home.directory) }
    }
}
