import ArgumentParser
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaPaper
import HawalaText
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
            WalletShowSeed.self, WalletVerifyBackup.self, WalletStatus.self, WalletReceive.self, WalletExportWatchOnly.self, WalletImportWatchOnly.self,
            WalletUnit.self,
        ])
}

extension AmountUnit: ExpressibleByArgument {}

struct WalletUnit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unit", abstract: "Show amounts in sat or in BTC (here and in `hawala app`); without a unit, say which.",
        discussion: "Only what people read changes: --amount options stay in sat, and JSON and exports keep their numbers.")
    @Argument(help: "sat or btc.") var unit: AmountUnit?
    func run() throws {
        guard let unit else {
            let home = WalletHome.fromEnvironment()
            print(try home.existing() ? try WalletStore(home: home, create: false).displayUnit().label : AmountUnit.sat.label)
            return
        }
        try WalletSession.store(create: true).setDisplayUnit(unit)
        print("amounts now show in \(unit.label)")
    }
}

// MARK: - Commands

struct WalletCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a wallet with new words, then back them up.",
        discussion: "Right after creation, the backup flow shows the words and checks them with a short quiz. Without a terminal, pass --skip-backup and run `hawala wallet verify-backup` later.")

    @Option(help: "Wallet name (default: Wallet N).") var name: String?
    @Option(help: "Number of words: \(WalletStore.newWordCounts.map(String.init).joined(separator: " or ")).") var words: Int = WalletStore.newWordCounts[0]
    @Option(help: "testnet (the default: try Hawala with coins worth nothing first) or mainnet (real bitcoin).") var network: Network = WalletStore.newWalletNetwork
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File holding an optional BIP39 passphrase.", valueName: "path")) var passphraseFile: String?
    @OptionGroup var password: PasswordOptions
    @Flag(name: .customLong("skip-backup"), help: "Back up later (the wallet is marked not backed up).") var skipBackup = false
    @Flag(help: "JSON output: the new wallet, as one object of `wallet list --json` (after the backup flow).") var json = false

    func validate() throws {
        do { _ = try WalletStore.checkNewWordCount(words) } catch { throw ValidationError("--words: \(error)") }
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
    @Flag(help: "JSON output (shape in docs/reference.md).") var json = false

    func run() throws {
        let home = WalletHome.fromEnvironment()
        let wallets = try home.existing() ? try WalletStore(home: home, create: false).list() : []
        if json { JSONValue.array(wallets.map(\.json)).print(); return }
        if wallets.isEmpty { print("no wallets; create one with `hawala wallet create` or restore one with `hawala wallet restore`"); return }
        for w in wallets {
            print("\(w.isCurrent ? "*" : " ") \(w.name)  \(w.network.rawValue)  \(w.fingerprint)  created \(BackupStatus.day(w.createdAt))  \(w.accountsText)  \(w.backup.summary)")
            for a in w.importedAccounts { print("    \(a.importedLine)") }
        }
    }
}

struct WalletUse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use", abstract: "Switch the current wallet (kept across runs).",
        discussion: "When the current wallet has payments still pending, asks first at a terminal (--yes switches anyway).")
    @Argument(help: "Wallet name.") var name: String
    @Flag(help: "Switch even when the current wallet has payments still pending.") var yes = false
    func run() throws {
        let store = try WalletSession.store(create: false)
        if !yes, let warning = try store.switchWarning(to: name) {
            guard let terminal = Terminal.open() else { throw CLIError("\(warning) Pass --yes to switch anyway.", code: .usage) }
            terminal.line(warning.description)
            guard try terminal.confirm("Switch to \u{201C}\(warning.to)\u{201D}?") else { throw CLIError("not switched") }
        }
        try store.use(name)
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
    @Flag(help: "JSON output (shape in docs/reference.md).") var json = false

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

extension ImportedAccount {
    /// `imported: bitcoin bc1q… "label"`.
    var importedLine: String { "imported: \(chain) \(address)" + (label.map { " \"\($0)\"" } ?? "") }
}
