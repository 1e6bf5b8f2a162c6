import ArgumentParser
import CHardening
#if os(Linux)
import CMalloc
#endif
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import Logging
import HawalaVaultAgent
import HawalaVaultClient

// Every failure ends as one line on stderr and a meaningful exit code: 1 for bad input or a
// failed operation, 2 for usage errors (3: a payment still pending, `ln pay`). Never a stack
// trace.
signal(SIGPIPE, SIG_IGN)
hawala_quiet_crashes()
#if os(Linux)
hawala_tune_malloc()
#endif

/// `--log-level LEVEL`: it only configures logging, and is accepted anywhere on the line.
struct LoggingOptions: ParsableArguments {
    @Option(help: "How much to log on stderr: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .warning
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// The level `--log-level` names (warning when none), read by argument-parser from its own
/// words, which are taken out of `arguments`; the rest of the line is left as it was typed.
func readLogLevel(_ arguments: inout [String]) -> Logger.Level {
    guard let i = arguments.firstIndex(where: { $0 == "--log-level" || $0.hasPrefix("--log-level=") }) else { return .warning }
    let end = arguments[i] == "--log-level" ? min(i + 2, arguments.count) : i + 1
    let words = Array(arguments[i..<end])
    arguments.removeSubrange(i..<end)
    do {
        return try LoggingOptions.parse(words).logLevel
    } catch {
        Output.error("error: --log-level takes one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(2)
    }
}

var arguments = NegativeNumbers.rewrite(Array(CommandLine.arguments.dropFirst()))
let logLevel = readLogLevel(&arguments)
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = logLevel
    return handler
}

/// The seed's re-prompt: while any wallet is not backed up, say so on every command (except
/// the ones that back one up).
func remindAboutBackup(_ command: ParsableCommand) {
    // Also not in the vault agent's log: it runs unattended, and nobody reads its reminders.
    if command is WalletCreate || command is WalletVerifyBackup || command is WalletRestore || command is VaultAgentRun { return }
    let home = WalletHome.fromEnvironment()
    guard home.exists, let store = try? WalletStore(home: home, create: false),
          let wallets = try? store.list(), let line = BackupReminderText.line(BackupReminder(wallets: wallets)) else { return }
    Output.error(line)
}

/// With the vault agent enabled, a command that opened the wallet with its password leaves a
/// fresh snapshot behind when the wallets changed (docs/decisions/0002). Never fails the command.
func refreshVaultAgentSnapshot(after command: ParsableCommand, _ unlocked: UnlockedKeyring) {
    guard !(command is VaultAgentDisable), let (home, keyring) = unlocked.last, let store = try? WalletStore(home: home, create: false) else { return }
    switch VaultAgent.afterChange(store: store, keyring: keyring, app: "hawala \(HawalaVersion.string)") {
    case .written: log.debug("vault agent snapshot refreshed")
    case .failed(let why): Output.error("warning: the vault agent's snapshot was not refreshed (\(why)); it would upload the last one written")
    case .notEnabled, .unchanged: break
    }
}

/// Runs a parsed command, awaiting the ones that are async, with `unlocked` hearing of the
/// keyrings its wallet stores hand out.
func runCommand(_ command: ParsableCommand, unlocked: UnlockedKeyring, json: Bool) async throws {
    var command = command
    // Amounts in the unit chosen for this machine (`wallet unit`); sat without a wallet store,
    // and always in JSON (what scripts read never changes with a setting).
    let home = WalletHome.fromEnvironment()
    let unit = !json && home.exists ? ((try? WalletStore(home: home, create: false).displayUnit()) ?? .sat) : .sat
    guard var asyncCommand = command as? AsyncParsableCommand else {
        return try AmountText.$unit.withValue(unit) { try WalletSession.$unlocked.withValue(unlocked) { try command.run() } }
    }
    try await AmountText.$unit.withValue(unit) { try await WalletSession.$unlocked.withValue(unlocked) { try await asyncCommand.run() } }
}

do {
    // What the command's wallet stores unlock, for the steps after it (no global state).
    let unlocked = UnlockedKeyring()
    if arguments.isEmpty, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
        try await WalletSession.$unlocked.withValue(unlocked) { try await Onboarding.run() }
        exit(0)
    }
    if let unknown = UnknownCommand.find(in: arguments, root: Hawala.self) {
        Output.error("error: \(unknown.parent) has no command \"\(unknown.word)\" (see: \(unknown.parent) --help)")
        exit(2)
    }
    let command = try Hawala.parseAsRoot(arguments)
    remindAboutBackup(command)
    try await runCommand(command, unlocked: unlocked, json: arguments.contains("--json"))
    refreshVaultAgentSnapshot(after: command, unlocked)
} catch let error as ExitCode {
    exit(error.rawValue)
} catch {
    if let words = ErrorWords.words(for: error) {
        Output.error(words.message)
        exit(words.code.rawValue)
    }
    let code = Hawala.exitCode(for: error)
    let message = Hawala.fullMessage(for: error)
    if code == .success {
        print(message)
        exit(0)
    }
    if code == .validationFailure {
        Output.error(message)
        exit(2)
    }
    // Library errors carry their own one-line description.
    Output.error(String(describing: error))
    exit(1)
}
