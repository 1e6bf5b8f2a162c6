import HawalaFormat
import ArgumentParser
import Foundation
import HawalaVault
import HawalaCrypto
import HawalaKeys
import HawalaPaper
import HawalaWallet
import Logging

/// `hawala wallet …`: wallets kept encrypted in `$HAWALA_HOME`.
struct WalletCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Create, restore and manage wallets kept encrypted on this machine.",
        discussion: """
            Wallets live in $HAWALA_HOME (default $XDG_DATA_HOME/hawala, else ~/.local/share/hawala). \
            Words, passphrases and imported keys are sealed with AES-256-GCM under a key derived \
            from the wallet password with Argon2id; names, accounts and addresses are readable \
            without it. The password comes from a prompt with echo off or --password-file \
            ("-" = standard input).
            """,
        subcommands: [
            WalletCreate.self, WalletRestore.self, WalletList.self, WalletUse.self, WalletRename.self,
            WalletDelete.self, WalletImportKey.self, WalletChangePassword.self, WalletAddresses.self,
            WalletShowSeed.self, WalletVerifyBackup.self, WalletStatus.self, WalletReceive.self, WalletExportWatchOnly.self,
        ])
}

// MARK: - Shared pieces

let log = Logger(label: "hawala")

/// Where the password comes from.
struct PasswordOptions: ParsableArguments {
    @Option(name: .customLong("password-file"), help: ArgumentHelp("File holding the wallet password (\"-\" = standard input); otherwise a prompt.", valueName: "path"))
    var passwordFile: String?
}

enum WalletSession {
    /// The keyrings this command's stores handed out: a flow made of several commands
    /// (onboarding, a vault restore) asks for the password once, and main.swift refreshes the
    /// vault agent's snapshot with the newest one when the command is done.
    @TaskLocal static var unlocked: UnlockedKeyring?

    static func store(create: Bool) throws -> WalletStore {
        let home = WalletHome.fromEnvironment()
        log.debug("wallet store", metadata: ["home": "\(home.directory.path)"])
        return try WalletStore(home: home, create: create, unlocked: unlocked)
    }

    /// The password from the file or a prompt.
    static func readPassword(file: String?, prompt: String = "Wallet password: ") throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "password") }
        guard let terminal = Terminal.open() else {
            throw CLIError("no terminal to ask for the wallet password; pass --password-file", code: .usage)
        }
        return try terminal.askSecret(prompt)
    }

    /// How many passwords a person may type at the prompt before the command gives up.
    static let passwordAttempts = 3

    /// Unlocks the store: at a prompt a mistyped password is asked again, up to
    /// `passwordAttempts` times; a password file gets one try.
    static func unlock(_ store: WalletStore, file: String?) throws -> Keyring {
        try store.unlock(attempts: file == nil ? passwordAttempts : 1, password: {
            let password = try readPassword(file: file)
            log.debug("unlocking: argon2id")
            return password
        }, wrong: { left in Output.error("wrong password; try again (\(left) left)") })
    }

    /// The keyring for a change: the existing password, or — for the first wallet — a new one,
    /// asked twice at a prompt.
    static func keyringForChange(_ store: WalletStore, file: String?) throws -> Keyring {
        try store.keyringForChange(unlock: { try unlock(store, file: file) },
                                   newPassword: { try newPassword(file: file, purpose: "Choose a wallet password") })
    }

    /// A new password: from the file, or typed twice.
    static func newPassword(file: String?, purpose: String) throws -> SecretBytes {
        if let file { return try Input.readSecretFile(file, what: "password") }
        guard let terminal = Terminal.open() else {
            throw CLIError("no terminal to ask for a new password; pass a password file", code: .usage)
        }
        terminal.line("\(purpose) (at least \(WalletStore.minimumPasswordLength) characters). It unlocks your wallets on this machine.")
        return try askNewSecret(on: terminal, prompt: "New password: ") { try WalletStore.checkStrength($0) }.secret
    }

    /// A new secret typed twice, asked again while `check` refuses it or the two entries differ.
    static func askNewSecret<T>(on terminal: Terminal, prompt: String, check: (SecretBytes) throws -> T) throws -> (secret: SecretBytes, checked: T) {
        while true {
            let first = try terminal.askSecret(prompt)
            let checked: T
            do { checked = try check(first) } catch {
                terminal.line("\(error); choose another.")
                continue
            }
            if try terminal.askSecret("Repeat it: ") == first { return (first, checked) }
            terminal.line("The two entries differ; choose the password again.")
        }
    }

    static func mnemonicFromFile(_ path: String) throws -> Mnemonic {
        let phrase = try Input.readSecretFile(path, what: "mnemonic")
        do { return try Mnemonic(phrase: phrase) } catch let e as MnemonicError { throw CLIError(e.description) }
    }

    /// "-" may stand for standard input once only.
    static func checkOneStdin(_ files: String?...) throws {
        if files.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("only one secret can come from standard input (\"-\")")
        }
    }
}

extension Network: ExpressibleByArgument {}

extension ImportedAccount {
    /// `imported: bitcoin bc1q… "label"`.
    var importedLine: String { "imported: \(chain) \(address)" + (label.map { " \"\($0)\"" } ?? "") }
}

// MARK: - Flows rendered in the terminal

enum BackupFlowRenderer {
    /// Runs the seed backup flow; returns whether the wallet ended backed up.
    /// `grid` shows the words in rows of four (the credential phrase); `allowLater` offers
    /// "back up later" (a wallet) — without it, "later" cancels.
    static func run(_ flow: inout SeedBackupFlow, on terminal: Terminal, grid: Bool = false, allowLater: Bool = true) throws -> Bool {
        while true {
            switch flow.state {
            case .intro:
                terminal.line("")
                terminal.line("Back up your wallet now.")
                terminal.line("Write down these \(flow.wordCount) words, in order, on paper. You'll need them to recover your wallet")
                terminal.line("if this machine is lost, stolen or broken. Anyone who has them can take your funds:")
                terminal.line("never share them, never type them into a website, no screenshots, no photos, no cloud notes.")
                let answer = try terminal.ask("Press Enter to show the words (or type \"later\" to back up later): ")
                flow.send(isLater(answer) ? .skip : .proceed)
            case .showingWords:
                terminal.line("")
                if grid {
                    let words = flow.words
                    let width = (words.map(\.count).max() ?? 8) + 5
                    for row in stride(from: 0, to: words.count, by: 4) {
                        let cells = (row..<min(row + 4, words.count)).map { i -> String in
                            let cell = "\(i + 1). \(words[i])"
                            return cell + String(repeating: " ", count: max(1, width - cell.count))
                        }
                        terminal.line(cells.joined())
                    }
                } else {
                    for (i, word) in flow.words.enumerated() { terminal.line("\(i + 1). \(word)") }
                }
                terminal.line("")
                let answer = try terminal.ask(allowLater
                    ? "Press Enter when you have written them down (or \"later\"): "
                    : "Press Enter when you have written them down (\"cancel\" to stop): ")
                terminal.clearScreen()
                flow.send(isLater(answer) ? .skip : .proceed)
            case .quiz(let question, let position):
                if question == 0 { terminal.line("Check your backup: type the words asked for (\(flow.positions.count) questions).") }
                let answer = try terminal.ask("Word #\(position): ")
                flow.send(.answer(answer))
            case .wrongAnswer(let position):
                let answer = try terminal.ask("That is not word #\(position). [r]etry, see the [w]ords again, or back up [l]ater: ")
                switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                case "w", "words": flow.send(.showWordsAgain)
                case "l", "later": flow.send(.skip)
                default: flow.send(.retry)
                }
            case .confirming:
                terminal.line("All correct.")
                let confirmed = try terminal.choose(
                    "Type \"yes\" to confirm the words are written down and kept offline (or \"later\"): ",
                    hint: "Type \"yes\" (or \"y\") once the words are on paper, or \"later\" to back up later."
                ) { answer in Answer.explicitYes(answer) ?? (isLater(answer) ? false : nil) }
                flow.send(confirmed ? .confirm : .skip)
            case .backedUp:
                terminal.line("Backup verified.")
                return true
            case .skipped where !allowLater:
                terminal.line("Cancelled.")
                return false
            case .skipped:
                terminal.line("Not backed up. Until you are, Hawala reminds you; run `hawala wallet verify-backup` once the words are written down.")
                terminal.line("Without them, losing this machine loses the funds.")
                return false
            }
        }
    }

    static func isLater(_ answer: String) -> Bool {
        ["later", "l", "skip", "cancel"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

enum RecoveryRenderer {
    /// Runs the recovery flow in the terminal; returns the flow when done, nil when cancelled.
    /// `refuse` is the overwrite guard, called before the addresses are shown for confirmation.
    static func run(_ flow: inout RecoveryFlow, on terminal: Terminal, network: Network?, passphraseFile: String?,
                    refuse: (RecoveryFlow) throws -> Void) throws -> RecoveryFlow? {
        while true {
            if let problem = flow.problem { terminal.line("  \(problem)") }
            switch flow.state {
            case .choosingNetwork:
                if let network { flow.send(.network(network)); continue }
                terminal.line(RecoveryFlow.networkWarning)
                flow.send(.network(try askNetwork(terminal)))
            case .choosingWordCount:
                let answer = try terminal.ask("How many words (12, 15, 18, 21, 24), or paste the whole phrase: [12] ").trimmingCharacters(in: .whitespaces)
                if answer.isEmpty { flow.send(.wordCount(12)) } else if let n = Int(answer) { flow.send(.wordCount(n)) } else { flow.send(.word(answer)) }
            case .enteringWord(let position):
                let answer = try terminal.ask("Word \(position) of \(flow.wordCount) (a prefix of 4 letters is enough; \"<\" goes back): ")
                if answer.trimmingCharacters(in: .whitespaces) == "<" { flow.send(.back) } else { flow.send(.word(answer)) }
            case .checksumFailed:
                terminal.line("These words do not form a valid \(flow.purpose == .wallet ? "mnemonic" : "phrase") (checksum mismatch): at least one word is wrong.")
                flow.send(try askCorrection(flow, on: terminal, passphraseAndNetwork: false))
            case .enteringPassphrase:
                if let passphraseFile {
                    flow.send(.passphrase(try Input.readPassphrase(file: passphraseFile)))
                } else {
                    flow.send(.passphrase(try terminal.askSecret("BIP39 passphrase, if the wallet has one (Enter for none; input hidden): ")))
                }
            case .confirmingAddresses(let addresses):
                try refuse(flow)
                terminal.line("Compare these first receiving addresses with your records:")
                for a in addresses { terminal.line("  \(a.chain): \(a.address)") }
                if try terminal.confirm("Do they match?") { flow.send(.confirm) } else {
                    terminal.line("Then a word, the passphrase or the network differs.")
                    flow.send(.correct)
                }
            case .reviewing:
                terminal.line("The words as entered (\(flow.network.rawValue)):")
                flow.send(try askCorrection(flow, on: terminal, passphraseAndNetwork: true))
            case .done:
                return flow
            case .cancelled:
                return nil
            }
        }
    }

    static func askNetwork(_ terminal: Terminal) throws -> Network {
        try terminal.choose("Network: [m]ainnet or [t]estnet? [m] ", hint: "Type m for mainnet or t for testnet.") { answer in
            switch answer.lowercased() {
            case "", "m", "mainnet": .mainnet
            case "t", "testnet": .testnet
            default: nil
            }
        }
    }

    /// Which word to correct (or, once the addresses were shown, the passphrase or the network);
    /// only "restart" throws the words away.
    static func askCorrection(_ flow: RecoveryFlow, on terminal: Terminal, passphraseAndNetwork: Bool) throws -> RecoveryFlow.Event {
        for (i, w) in flow.words.enumerated() { terminal.line("\(i + 1). \(w)") }
        let prompt = passphraseAndNetwork
            ? "Number of the word to correct, [p]assphrase, [n] switch to \(flow.network == .mainnet ? "testnet" : "mainnet"), or \"restart\": "
            : "Number of the word to correct, or \"restart\": "
        let count = flow.words.count
        return try terminal.choose(prompt, hint: "Type a number from 1 to \(count)\(passphraseAndNetwork ? ", p, n" : ""), or \"restart\".") { answer in
            if let n = Int(answer), (1...count).contains(n) { return .edit(position: n) }
            let word = answer.lowercased()
            if word == "restart" { return .reject }
            guard passphraseAndNetwork else { return nil }
            if ["p", "passphrase"].contains(word) { return .editPassphrase }
            if ["n", "network"].contains(word) { return .network(flow.network == .mainnet ? .testnet : .mainnet) }
            return nil
        }
    }
}

// MARK: - Commands

struct WalletCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a wallet with new words, then back them up.",
        discussion: "Right after creation, the backup flow shows the words and checks them with a short quiz. Without a terminal, pass --skip-backup and run `hawala wallet verify-backup` later.")

    @Option(help: "Wallet name (default: Wallet N).") var name: String?
    @Option(help: "Number of words: 12 or 24.") var words: Int = 12
    @Option(help: "mainnet or testnet.") var network: Network = .mainnet
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File holding an optional BIP39 passphrase.", valueName: "path")) var passphraseFile: String?
    @OptionGroup var password: PasswordOptions
    @Flag(name: .customLong("skip-backup"), help: "Back up later (the wallet is marked not backed up).") var skipBackup = false
    @Flag(help: "JSON output: the new wallet, as one object of `wallet list --json` (after the backup flow).") var json = false

    func validate() throws {
        guard words == 12 || words == 24 else { throw ValidationError("--words must be 12 or 24") }
        try WalletSession.checkOneStdin(passphraseFile, password.passwordFile)
    }

    func run() throws {
        // The flow needs a terminal: find out before creating anything.
        let terminal = skipBackup ? nil : try Terminal.required("pass --skip-backup to back up later with `hawala wallet verify-backup`")
        let store = try WalletSession.store(create: true)
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        let keyring = try WalletSession.keyringForChange(store, file: password.passwordFile)
        var (wallet, flow) = try store.create(wordCount: words, passphrase: passphrase, name: name, network: network, keyring: keyring)
        log.info("wallet created", metadata: ["id": "\(wallet.id)", "network": "\(network.rawValue)"])
        defer { if json, let created = try? store.wallet(named: wallet.name) { created.json.print() } }
        if !json { print("created wallet \"\(wallet.name)\" (\(network.rawValue), fingerprint \(wallet.fingerprint))") }
        if let terminal {
            do {
                _ = try BackupFlowRenderer.run(&flow, on: terminal)
                try store.finishBackup(flow, of: wallet)
            } catch let error as CLIError where error.isCancellation {
                // The wallet exists already: say so, rather than suggest nothing was written.
                throw CLIError("cancelled; wallet \"\(wallet.name)\" was created but is not backed up: run `hawala wallet verify-backup` once the words (`hawala wallet show-seed`) are written down")
            }
        } else {
            Output.error("warning: wallet \"\(wallet.name)\" is not backed up; run `hawala wallet verify-backup` once the words (`hawala wallet show-seed`) are written down")
        }
    }
}

struct WalletRestore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a wallet from its words, checking everything before saving.",
        discussion: "In a terminal, words are entered one by one and checked as typed. With --mnemonic-file the words come from a file; the first addresses are shown and must be confirmed (--yes confirms them non-interactively). A restore never replaces an existing wallet.")

    @Option(help: "Wallet name (default: Wallet N).") var name: String?
    @Option(help: "mainnet or testnet (asked in a terminal when not given).") var network: Network?
    @Option(name: .customLong("mnemonic-file"), help: ArgumentHelp("File holding the words (\"-\" = standard input).", valueName: "path")) var mnemonicFile: String?
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File holding the BIP39 passphrase.", valueName: "path")) var passphraseFile: String?
    @OptionGroup var password: PasswordOptions
    @Flag(help: "Confirm the shown addresses without asking.") var yes = false

    func validate() throws {
        try WalletSession.checkOneStdin(mnemonicFile, passphraseFile, password.passwordFile)
    }

    func run() throws {
        var flow = RecoveryFlow()
        if let mnemonicFile {
            flow = RecoveryFlow(phrase: try WalletSession.mnemonicFromFile(mnemonicFile), network: network ?? .mainnet,
                                passphrase: try Input.readPassphrase(file: passphraseFile))
            guard case .confirmingAddresses(let addresses) = flow.state else { throw CLIError("could not derive the addresses") }
            // The overwrite guard comes first: nothing to confirm for a wallet that exists.
            try WalletStore.refuseExisting(flow, in: WalletHome.fromEnvironment())
            for a in addresses { Output.error("\(a.chain): \(a.address)") }
            if yes {
                flow.send(.confirm)
            } else {
                let terminal = try Terminal.required("pass --yes to confirm the addresses")
                guard try terminal.confirm("Do these addresses match your records?") else { throw CLIError("not confirmed; nothing was saved") }
                flow.send(.confirm)
            }
        } else {
            let terminal = try Terminal.required("pass the words with --mnemonic-file")
            let home = WalletHome.fromEnvironment()
            guard let done = try RecoveryRenderer.run(&flow, on: terminal, network: network, passphraseFile: passphraseFile,
                                                      refuse: { try WalletStore.refuseExisting($0, in: home) }) else {
                throw CLIError("cancelled; nothing was saved")
            }
            flow = done
        }
        let store = try WalletSession.store(create: true)
        let wallet = try store.restore(flow, name: name) { try WalletSession.keyringForChange(store, file: password.passwordFile) }
        log.info("wallet restored", metadata: ["id": "\(wallet.id)"])
        print("restored wallet \"\(wallet.name)\" (\(wallet.network.rawValue), fingerprint \(wallet.fingerprint))")
    }
}

struct WalletList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the wallets (no password needed).")
    @Flag(help: "JSON output (shape in the README).") var json = false

    func run() throws {
        let home = WalletHome.fromEnvironment()
        let wallets = try home.existing() ? try WalletStore(home: home, create: false).list() : []
        if json { JSONValue.array(wallets.map(\.json)).print(); return }
        if wallets.isEmpty { print("no wallets; create one with `hawala wallet create` or restore one with `hawala wallet restore`"); return }
        for w in wallets {
            print("\(w.isCurrent ? "*" : " ") \(w.name)  \(w.network.rawValue)  \(w.fingerprint)  \(w.backup.summary)")
            for a in w.importedAccounts { print("    \(a.importedLine)") }
        }
    }
}

struct WalletUse: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "use", abstract: "Switch the current wallet (kept across runs).")
    @Argument(help: "Wallet name.") var name: String
    func run() throws {
        try WalletSession.store(create: false).use(name)
        print("current wallet: \(name)")
    }
}

struct WalletRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a wallet.")
    @Argument(help: "Current name.") var old: String
    @Argument(help: "New name.") var new: String
    func run() throws {
        try WalletSession.store(create: false).rename(old, to: new)
        print("renamed \"\(old)\" to \"\(new.trimmingCharacters(in: .whitespaces))\"")
    }
}

struct WalletDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a wallet and everything of it from this machine.",
        discussion: "Needs the password and, in a terminal, the wallet's name typed again (--yes skips that). Funds stay on the blockchain: only the words can bring them back.")
    @Argument(help: "Wallet name.") var name: String
    @OptionGroup var password: PasswordOptions
    @Flag(help: "Skip the typed confirmation.") var yes = false

    func run() throws {
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: name)
        if !yes {
            let terminal = try Terminal.required("pass --yes to delete without the typed confirmation")
            terminal.line("Deleting \"\(wallet.name)\" removes its words and keys from this machine. Without a backup of the words, its funds are lost.")
            if !wallet.backup.isBackedUp { terminal.line("This wallet is NOT backed up.") }
            let typed = try terminal.ask("Type the wallet's name to delete it: ")
            guard typed == wallet.name else { throw CLIError("the name does not match; nothing was deleted") }
        }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        try store.delete(wallet.name, keyring: keyring)
        print("deleted wallet \"\(wallet.name)\"")
    }
}

struct WalletImportKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-key", abstract: "Import a private key into the current wallet as a separate account.",
        discussion: "WIF for Bitcoin and Litecoin, 64 hex digits for Ethereum/BSC/Polygon, a base58 secret key for Solana. The key comes from --key-file or a prompt with echo off.")
    @Option(help: "Chain of the key.") var chain: Chain
    @Option(help: "Label for the account.") var name: String?
    @Option(name: .customLong("key-file"), help: ArgumentHelp("File holding the private key (\"-\" = standard input).", valueName: "path")) var keyFile: String?
    @OptionGroup var password: PasswordOptions

    func validate() throws { try WalletSession.checkOneStdin(keyFile, password.passwordFile) }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let wallet = try store.wallet(named: nil)
        let text = try keyFile.map { try Input.readSecretFile($0, what: "key") } ?? Input.promptSecret("Private key (input hidden): ")
        let key: ImportedPrivateKey
        do { key = try ImportedPrivateKey(text: text, chain: chain) } catch let e as ImportedPrivateKey.Error { throw CLIError(e.description) }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let account = try store.importKey(key, into: wallet, label: name, keyring: keyring)
        print("imported \(account.address) (\(chain.name)) into wallet \"\(wallet.name)\"")
    }
}

struct WalletChangePassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-password", abstract: "Change the wallet password; every secret is re-sealed in one transaction.")
    @Option(name: .customLong("password-file"), help: ArgumentHelp("File holding the current password.", valueName: "path")) var passwordFile: String?
    @Option(name: .customLong("new-password-file"), help: ArgumentHelp("File holding the new password.", valueName: "path")) var newPasswordFile: String?

    func validate() throws { try WalletSession.checkOneStdin(passwordFile, newPasswordFile) }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let keyring = try WalletSession.unlock(store, file: passwordFile)
        let new = try WalletSession.newPassword(file: newPasswordFile, purpose: "Choose the new wallet password")
        try store.changePassword(from: keyring, to: new)
        print("password changed")
    }
}

struct WalletAddresses: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "addresses", abstract: "Receiving addresses of a wallet (no password needed for the first 20).",
        discussion: "The first 20 addresses of every chain, and any number on Bitcoin-family chains (from the stored account xpub), need no password. More Solana or Cardano addresses are derived from the wallet's secret: the password is asked (or read from --password-file).")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(help: "Only this chain (default: every chain of the wallet).") var chain: Chain?
    @Option(help: "How many addresses per chain.") var count: Int = 1
    @Flag(help: "JSON output: the objects of `hawala derive --json`.") var json = false
    @Flag(help: "Draw each address as a QR code too (at most 20 addresses).") var qr = false
    @Flag(help: "Check the cached addresses and keys against the wallet's secret first (asks for the password).") var verify = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be between 1 and 100000") }
        if qr && json { throw ValidationError("--qr and --json cannot be combined") }
        if qr && count > 20 { throw ValidationError("--qr draws at most 20 addresses; lower --count") }
    }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let all = try store.receivingAddresses(of: summary, chains: chain.map { [$0] }, count: count, verify: verify) {
            try WalletSession.unlock(store, file: password.passwordFile)
        }
        if verify { Output.error("verified: the cached addresses and account keys match the wallet's secret") }
        // Imported keys are accounts of their own: listed after the derived ones, marked.
        let imported = summary.importedAccounts.filter { a in chain.map { $0.name == a.chain } ?? true }
        if json {
            JSONValue.array(all.map(\.json) + imported.map(\.addressJSON)).print()
            return
        }
        let lines = all.map { ("\($0.chain) \($0.path) \($0.address)", $0.address) } + imported.map { ("\($0.chain) imported \($0.address)", $0.address) }
        for (line, address) in lines {
            print(line)
            if qr { for row in TextQR.terminalLines(try TextQR.encode(address)) { print(row) } }
        }
    }
}

struct WalletShowSeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-seed", abstract: "Show a wallet's words, after the password.",
        discussion: "In a terminal the words are masked and revealed one at a time; the screen is cleared at the end. --reveal prints them plainly for scripts and needs --password-file. --copy puts them on the clipboard (wl-copy or xclip) and clears it after 30 seconds.")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Flag(help: "Print the words on one line (needs --password-file).") var reveal = false
    @Flag(help: "Copy the words to the clipboard (wl-copy or xclip), cleared after --clear-after seconds.") var copy = false
    @Option(name: .customLong("clear-after"), help: ArgumentHelp("Seconds before the clipboard is cleared (1–600).", valueName: "seconds")) var clearAfter = 30
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        if reveal && password.passwordFile == nil { throw ValidationError("--reveal needs --password-file") }
        if reveal && copy { throw ValidationError("--reveal and --copy cannot be combined") }
        if !(1...600).contains(clearAfter) { throw ValidationError("--clear-after takes 1 to 600 seconds") }
    }

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.walletWithWords(named: wallet)
        if copy {
            guard let clipboard = Clipboard.find() else {
                throw CLIError("no clipboard here (needs wl-copy under Wayland or xclip under X11); write the words down from `hawala wallet show-seed`")
            }
            let terminal = try Terminal.required("copying needs a confirmation at a terminal")
            terminal.line("Warning: other programs can read the clipboard, and clipboard managers may keep a history.")
            terminal.line("Paste the words only into software you trust, then clear your clipboard history.")
            guard try terminal.confirm("Copy the words of \"\(summary.name)\" to the clipboard?") else { return }
            let keyring = try WalletSession.unlock(store, file: password.passwordFile)
            let phrase = SecretBytes(utf8: try store.secrets(of: summary, keyring: keyring).mnemonic.phrase)
            try clipboard.copy(phrase)
            clipboard.scheduleClear(after: clearAfter)
            terminal.line("Copied with \(clipboard.name); the clipboard is cleared in \(clearAfter) seconds.")
            return
        }
        if reveal {
            let keyring = try WalletSession.unlock(store, file: password.passwordFile)
            print(try store.secrets(of: summary, keyring: keyring).mnemonic.phrase)
            return
        }
        let terminal = try Terminal.required("use --reveal with --password-file in scripts")
        terminal.line("Anyone who sees these words can take the funds of \"\(summary.name)\".")
        terminal.line("Make sure no one is watching and nothing is recording the screen.")
        guard try terminal.confirm("Show the words?") else { return }
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let words = try store.secrets(of: summary, keyring: keyring).mnemonic.words
        var revealed: Int?
        while true {
            terminal.clearScreen()
            for (i, word) in words.enumerated() {
                terminal.line("\(i + 1). " + (revealed == i + 1 ? word : String(repeating: "•", count: 6)))
            }
            let choice: Int? = try terminal.choose(
                "Number of the word to reveal, or Enter to finish: ",
                hint: "Type a number from 1 to \(words.count) to reveal that word (one at a time), or press Enter to finish."
            ) { answer in
                if answer.isEmpty { return .some(nil) }
                guard let n = Int(answer), (1...words.count).contains(n) else { return nil }
                return .some(n)
            }
            guard let n = choice else { break }
            revealed = n
        }
        terminal.clearScreen()
    }
}

struct WalletVerifyBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-backup", abstract: "Check the written-down words with a quiz and record the date.")
    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @OptionGroup var password: PasswordOptions

    func run() throws {
        let store = try WalletSession.store(create: false)
        let summary = try store.walletWithWords(named: wallet)
        let terminal = try Terminal.required("the quiz is answered at a terminal")
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let mnemonic = try store.secrets(of: summary, keyring: keyring).mnemonic
        terminal.line("Have your written words for \"\(summary.name)\" at hand.")
        var flow = SeedBackupFlow(mnemonic: mnemonic, start: .quiz)
        if try BackupFlowRenderer.run(&flow, on: terminal) {
            try store.recordBackup(of: summary)
            print("backup of \"\(summary.name)\" verified")
        } else {
            throw CLIError("backup not verified")
        }
    }
}

struct WalletStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "The current wallet, its network and backup status.")
    @Flag(help: "JSON output (shape in the README).") var json = false

    func run() throws {
        let overview = try WalletOverview(home: WalletHome.fromEnvironment())
        if json { overview.json.print(); return }
        let wallets = overview.wallets, reminder = overview.reminder, home = overview.home
        guard let current = overview.current else { print("no wallet yet (\(home.path)); create one with `hawala wallet create`"); return }
        print("current wallet: \(current.name) (\(current.network.rawValue), fingerprint \(current.fingerprint))")
        print("backup: \(current.backup.summary)")
        for a in current.importedAccounts { print(a.importedLine) }
        print("wallets: \(wallets.count) in \(home.path)")
        if !reminder.isEmpty {
            print("not backed up: " + reminder.wallets.map { "\"\($0.name)\"" }.joined(separator: ", "))
        }
    }
}
