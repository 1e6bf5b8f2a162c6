import ArgumentParser
import Foundation
import HawalaBackup
import HawalaKeys
import HawalaLightning
#if canImport(HawalaSpark)
import HawalaSpark
#endif
import HawalaWallet

// The option groups several commands share, and the library's types as arguments.

/// Where the password comes from.
struct PasswordOptions: ParsableArguments {
    @Option(name: .customLong("password-file"), help: ArgumentHelp("File holding the wallet password (\"-\" = standard input); otherwise a prompt.", valueName: "path"))
    var passwordFile: String?
}

extension Chain: ExpressibleByArgument {
    public init?(argument: String) {
        guard let chain = Chain.named(argument) else { return nil }
        self = chain
    }

    public static var allValueStrings: [String] { Chain.all.map(\.name) }
}

extension Language: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { Language.allCases.map(\.rawValue) }
}

/// Options shared by the commands that read a mnemonic.
struct SeedOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp(
        "File holding the BIP39 passphrase, used exactly as written minus one trailing newline (\"-\" = stdin after the mnemonic line).",
        valueName: "path"))
    var passphraseFile: String?

    /// Reads the mnemonic (stdin or prompt) and the passphrase, and builds the wallet keys.
    func wallet() throws -> HDWallet {
        let phrase = try Input.readMnemonic()
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(phrase: phrase) } catch let e as MnemonicError { throw CLIError(e.description) }
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        return HDWallet(mnemonic: mnemonic, passphrase: passphrase)
    }
}

/// Options every wallet-side `ln` command takes.
struct LightningOptions: ParsableArguments {
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: ArgumentHelp("Payment backend: spark:mainnet, spark:regtest or devnet:PATH (default: the wallet's, see `hawala ln config`).", valueName: "spec"))
    var backend: String?
    @Option(name: .customLong("network-timeout"), help: ArgumentHelp("Seconds to wait for the payment network before giving up (Spark).", valueName: "seconds"))
    var networkTimeout: Int = 30
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (1...600).contains(networkTimeout) else { throw ValidationError("--network-timeout must be between 1 and 600 seconds") }
    }
}

extension LightningOptions {
    /// Whether the backend these options open (`--backend`, else the wallet's) reaches LNURL
    /// services over plain http on this machine (devnet).
    func allowsLoopbackHTTP() -> Bool {
        guard let store = try? WalletSession.store(create: false), let wallet = try? store.wallet(named: self.wallet),
              let text = backend ?? (try? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id)) ?? nil,
              let spec = try? BackendSpec.parse(text, home: store.home.directory) else { return false }
        return spec.allowsLoopbackHTTP
    }

    /// Opens the wallet's backend for one command (see `LightningSession.open`): the password
    /// comes from the prompt or --password-file, only when needed.
    func open(signing: Bool, reachesLNURL: Bool = false) async throws -> LightningSession {
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: self.wallet)
        return try await LightningSession.open(store: store, wallet: wallet, backend: backend, signing: signing, backends: .linked,
                                               networkTimeout: .seconds(networkTimeout), reachesLNURL: reachesLNURL) {
            try WalletSession.unlock(store, file: password.passwordFile)
        }
    }
}

extension Network: ExpressibleByArgument {}
extension ConflictPolicy: ExpressibleByArgument {}
extension Payment.Status: ExpressibleByArgument {}
extension ReceiveMethod: ExpressibleByArgument {}
extension PaymentExport.Format: ExpressibleByArgument {}

extension WalletKind: ExpressibleByArgument, CaseIterable {
    public static var allCases: [WalletKind] { [.bip39, .seed] }
}
