import HawalaBackup
import HawalaLightning
import HawalaWallet
import HawalaVaultClient

/// The command line's words for library errors: where the remedy is an option of this command
/// line, it is said here (library messages never name flags). Everything else speaks for itself.
enum ErrorWords {
    static func words(for error: Error) -> CLIError? {
        switch error {
        case let error as CLIError:
            return error
        case WalletError.noSuchWallet(let name):
            return CLIError("no wallet named \"\(name)\" (see: hawala wallet list)")
        case WalletError.noWallets:
            return CLIError("no wallet yet: create one with `hawala wallet create` or restore one with `hawala wallet restore`")
        case WalletError.noWords(let name):
            return CLIError("wallet \"\(name)\" was recovered from SLIP-39 shares and has no BIP39 words; back it up with `hawala backup shamir split` or `hawala backup export`")
        case let error as VaultClientError:
            return VaultSession.words(error)
        case let error as SendRequestError:
            return sendWords(error)
        case LightningError.commentNotAccepted:
            return CLIError("--comment is for Lightning addresses and LNURL-pay only", code: .usage)
        case LightningError.amountRequired:
            return CLIError("the payment needs an amount: give one with --amount SAT")
        case LightningError.apiKeyRequired:
            return CLIError("\(error); save it with `hawala ln config --backend spark:mainnet --api-key-file PATH`")
        case LightningSessionError.noBackend(let wallet):
            return CLIError("""
                no Lightning backend is set for wallet "\(wallet)": pass --backend spark:mainnet, --backend spark:regtest \
                (Spark's test network) or --backend devnet (test money on this machine, not the Lightning network), or save \
                one with `hawala ln config --backend SPEC`
                """)
        case LightningError.backupFirst:
            return CLIError("\(error): `hawala wallet verify-backup`, or `hawala ln config --accept-risk \"\(BackupBeforeRealMoney.acceptance)\"`")
        case FiatSettingError.noRatesSource:
            return CLIError("no fiat rates source is set: `hawala ln config --rates-file PATH` or `--rates-url URL`")
        case LightningSettingsError.apiKeyWithoutSpark:
            return CLIError("an API key is for the spark backend: give --backend spark:mainnet (or spark:regtest) with it", code: .usage)
        case LightningSettingsError.invalidCurrencyCode, LightningSettingsError.ratesNotHTTPS:
            return CLIError(String(describing: error), code: .usage)
        case LightningSettingsError.malformedAPIKey:
            return CLIError("the API key file must hold the key alone, on one line")
        case ImportChoiceError.unresolved(let names):
            return CLIError("\(names.count) wallet\(names.count == 1 ? " is" : "s are") already here; choose --on-conflict skip|keep-both|replace (nothing was imported)")
        default:
            return nil
        }
    }

    /// A send request's refusals name the options that fix them; all are usage errors but a
    /// bitcoin: link's amount, which is the payee's.
    static func sendWords(_ error: SendRequestError) -> CLIError {
        switch error {
        case .amountIsZero: CLIError("--amount must be at least 1 sat", code: .usage)
        case .amountAndEverything: CLIError("give one of --amount or --all", code: .usage)
        case .everythingNeedsAddress, .speedNeedsAddress: CLIError("--all and --speed are for a Bitcoin address (an on-chain withdrawal)", code: .usage)
        case .commentNotAccepted: CLIError("--comment is for Lightning addresses and LNURL-pay only", code: .usage)
        case .amountMissing: CLIError("how much? give --amount SATS, or --all to send the whole balance", code: .usage)
        case .linkAmountMismatch: CLIError(error.description)
        case .invalidIdempotencyKey(let why): CLIError("--idempotency-key: \(why)", code: .usage)
        }
    }
}
