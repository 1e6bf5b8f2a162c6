import ArgumentParser
import Foundation
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

/// `hawala ln auth LNURL`: log in to a service with the wallet (LNURL-auth, LUD-04/05).
struct LightningAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "Log in to a service with the wallet (LNURL-auth; needs the wallet password).",
        discussion: """
            Shows the service's domain and what it asks (log in, create an account, link, \
            authorize), and asks before signing unless --yes. The signature is made with a key \
            derived from the wallet's seed for that domain alone (LUD-05): the service knows the \
            wallet by it on every login, and no two services can tell they see the same wallet. \
            Nothing is paid. Plain http is accepted only on devnet, for services on this machine. \
            JSON: {domain, action, linkingKey}.
            """)
    @OptionGroup var options: LightningOptions
    @Argument(help: "The login LNURL (lnurl1…, or keyauth://…).") var input: String
    @Flag(help: "Sign without asking.") var yes = false
    @Flag(help: "JSON output.") var json = false

    func run() async throws {
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: options.wallet)
        let saved = try options.backend ?? store.setting(LightningWallet.SettingKey.backend, walletID: wallet.id)
        let onDevnet: Bool
        if case .devnet? = try saved.map({ try BackendSpec.parse($0, home: store.home.directory) }) { onDevnet = true } else { onDevnet = false }
        guard case .lnurl(let url) = try PaymentInput.parse(input, allowLoopbackHTTP: onDevnet) else {
            throw CLIError("this is not an LNURL; a login link starts with lnurl1 or keyauth://")
        }
        let request = try LNURLAuthRequest(url)
        let action = (request.action ?? .login).rawValue
        if yes {
            Output.error("\(request.question) (\(action))")
        } else {
            let terminal = try Terminal.required("pass --yes")
            terminal.line("\(request.question).")
            terminal.line("The service will know this wallet by a key made for \(request.domain) alone. Nothing is paid.")
            guard try terminal.confirm("Sign in?") else { throw CLIError("not signed in") }
        }
        let secret = try store.secret(of: wallet, keyring: try WalletSession.unlock(store, file: options.password.passwordFile))
        let fetcher = HTTPFetcher(timeout: min(.seconds(options.networkTimeout), HTTPFetcher.defaultTimeout))
        let key: [UInt8]
        do {
            key = try await LNURLAuth.authenticate(request, secret: secret, fetcher: fetcher)
            await fetcher.shutdown()
        } catch {
            await fetcher.shutdown()
            throw error
        }
        if json {
            JSONValue.object([("domain", .string(request.domain)), ("action", .string(action)), ("linkingKey", .string(hexString(key)))]).print()
        } else {
            print("signed in to \(request.domain) (\(action)); it knows this wallet as \(hexString(key).prefix(16))…")
        }
    }
}
