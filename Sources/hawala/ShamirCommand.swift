import ArgumentParser
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// `hawala backup shamir …`: SLIP-39 shares.
struct ShamirCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shamir",
        abstract: "Split a wallet into SLIP-39 Shamir shares, or recover one from them.",
        discussion: """
            SLIP-39 shares are word lists; a chosen number of groups, each needing its own number of \
            shares, rebuild the secret. Compatible with Trezor's reference implementation.
            A BIP39 wallet is split as its BIP39 entropy, so recovering in Hawala gives back the same \
            words and addresses. A Trezor given such shares derives other addresses (it uses the \
            shared secret as the BIP32 seed); recover them here with --as seed to see the difference.
            """,
        subcommands: [ShamirSplit.self, ShamirRecover.self])
}

/// How the recovered master secret becomes a wallet.
enum ShamirSecretKind: String, ExpressibleByArgument, CaseIterable {
    /// BIP39 entropy (shares made by `hawala backup shamir split` from a BIP39 wallet).
    case bip39
    /// A BIP32 seed (shares made by a Trezor or any other SLIP-39 wallet).
    case seed
}

struct ShamirSplit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Print SLIP-39 shares of a wallet, grouped, on standard output.",
        discussion: """
            Example: --group-threshold 2 --group 2/3 --group 3/5 --group 1/1 makes three groups; \
            any two complete groups recover the wallet. The output lists each group's shares one per \
            line, with '#' comment lines, so the whole output (or any sufficient part of it) can be \
            given back to `hawala backup shamir recover --shares-file`. Write each share down \
            separately and keep them apart; the output is the secret in the clear.
            The optional SLIP-39 passphrase encrypts the shared secret; a wrong passphrase at \
            recovery silently gives another wallet, so keep it as carefully as the shares.
            """)

    @Option(help: "Wallet name (default: the current wallet).") var wallet: String?
    @Option(name: .customLong("group-threshold"), help: ArgumentHelp("How many groups are needed to recover.", valueName: "T")) var groupThreshold: Int
    @Option(name: .customLong("group"), help: ArgumentHelp("A group: M of its N shares are needed (repeat for more groups, at most 16).", valueName: "M/N"))
    var groups: [String]
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File holding a SLIP-39 passphrase (printable ASCII).", valueName: "path")) var passphraseFile: String?
    @Option(name: .customLong("iteration-exponent"), help: ArgumentHelp("PBKDF2 cost: 10000·2^E iterations (0–6).", valueName: "E"))
    var iterationExponent = SLIP39.defaultIterationExponent
    @Flag(inversion: .prefixedNo, help: "Make extendable shares (SLIP-39's current default; --no-extendable for older tools).")
    var extendable = true
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard !groups.isEmpty else { throw ValidationError("give at least one --group M/N") }
        guard (0...6).contains(iterationExponent) else { throw ValidationError("--iteration-exponent must be 0 to 6") }
        // An impossible layout is a usage error, found before anything is asked.
        do {
            try SLIP39.checkLayout(groupThreshold: groupThreshold, groups: try parsedGroups())
        } catch let error as SLIP39Error {
            throw ValidationError(error.description)
        }
        try WalletSession.checkOneStdin(passphraseFile, password.passwordFile)
    }

    func parsedGroups() throws -> [SLIP39.Group] {
        try groups.map { text in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let m = Int(parts[0]), let n = Int(parts[1]) else {
                throw ValidationError("--group takes M/N, e.g. 2/3 (M of N shares needed); got \"\(text)\"")
            }
            return SLIP39.Group(threshold: m, count: n)
        }
    }

    func run() throws {
        let layout = try parsedGroups()
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        try SLIP39.checkPassphrase(passphrase)  // before asking for the wallet password
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        let secret = try store.secret(of: summary, keyring: keyring)
        let masterSecret: SecretBytes
        switch secret {
        case let .mnemonic(mnemonic, bip39Passphrase):
            masterSecret = mnemonic.entropy()
            if !bip39Passphrase.isEmpty {
                Output.error("warning: \"\(summary.name)\" has a BIP39 passphrase; the shares hold only the words — keep the passphrase too")
            }
        case let .seed(seed):
            masterSecret = seed
        }
        if iterationExponent > 2 { BackupPasswords.progress("encrypting (PBKDF2, exponent \(iterationExponent))…") }
        let shares = try SLIP39.split(masterSecret: masterSecret, passphrase: passphrase, groupThreshold: groupThreshold,
                                      groups: layout, extendable: extendable, iterationExponent: iterationExponent)
        let kind = summary.kind == .bip39 ? "its BIP39 entropy; recover with --as bip39" : "its BIP32 seed; recover with --as seed"
        print("# SLIP-39 shares of wallet \"\(summary.name)\" (fingerprint \(summary.fingerprint)), \(kind)")
        let needed = layout.count == 1 ? "the group below recovers it" : "any \(groupThreshold) of these \(layout.count) groups recover it"
        print("# \(needed)\(passphrase.isEmpty ? "" : ", with the passphrase")")
        for (i, group) in shares.enumerated() {
            print("# group \(i + 1): any \(layout[i].threshold) of these \(layout[i].count) shares")
            for share in group { print(share.words.joined(separator: " ")) }
        }
        if isatty(STDOUT_FILENO) == 1 {
            Output.error("write each share down on its own sheet and keep them in separate places; then clear the screen")
        }
    }
}

struct ShamirRecover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Recover a wallet from SLIP-39 shares.",
        discussion: """
            The shares come from --shares-file (one share a line; blank lines and '#' comments are \
            skipped; "-" = standard input) or are typed one by one in a terminal. Extra shares are \
            checked against the others.
            --as bip39 restores a wallet split by Hawala (its words come back); --as seed restores \
            shares made by a Trezor or another SLIP-39 wallet (the secret is the BIP32 seed; such a \
            wallet has no words and no Cardano account). In a terminal the first address of each is \
            shown and you choose. The addresses are shown before anything is saved; a wallet that \
            already exists is never replaced.
            --print-xprv prints the BIP32 root key of the recovered master secret (the form \
            SLIP-39's published vectors use) and saves nothing.
            """)

    @Option(name: .customLong("shares-file"), help: ArgumentHelp("File with one share per line (\"-\" = standard input).", valueName: "path")) var sharesFile: String?
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File holding the SLIP-39 passphrase.", valueName: "path")) var passphraseFile: String?
    @Flag(name: .customLong("print-xprv"), help: "Print the BIP32 root xprv of the master secret instead of saving a wallet.") var printXprv = false
    @Option(name: .customLong("as"), help: ArgumentHelp("What the shares hold: bip39 (split by Hawala) or seed (a Trezor's).", valueName: "kind")) var kind: ShamirSecretKind?
    @Option(help: "Wallet name (default: Wallet N).") var name: String?
    @Option(help: "mainnet or testnet (default mainnet).") var network: Network = .mainnet
    @OptionGroup var password: PasswordOptions
    @Flag(help: "Confirm the shown addresses without asking.") var yes = false

    func validate() throws {
        try WalletSession.checkOneStdin(sharesFile, passphraseFile, password.passwordFile)
        if printXprv, kind != nil || name != nil || yes { throw ValidationError("--print-xprv saves nothing: --as, --name and --yes do not apply") }
    }

    func run() throws {
        let shares = try readShares()
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        if let e = shares.first?.iterationExponent, e > 2 { BackupPasswords.progress("decrypting (PBKDF2, exponent \(e))…") }
        let masterSecret = try SLIP39.combine(shares, passphrase: passphrase)
        if printXprv {
            print(try ExtendedPrivateKey(seed: masterSecret).serialized(version: network == .testnet ? .tpub : .xpub))
            return
        }
        let secret = try chooseSecret(masterSecret)
        let store = try WalletSession.store(create: true)
        if let existing = try store.existingWallet(secret: secret, network: network) { throw WalletError.alreadyExists(name: existing) }
        for line in ShamirRecover.firstAddresses(secret.keys, network: network) { Output.error(line) }
        if !yes {
            let terminal = try Terminal.required("pass --yes to confirm the addresses")
            guard try terminal.confirm("Do these addresses match your records?") else { throw CLIError("not confirmed; nothing was saved") }
        }
        let keyring = try WalletSession.keyringForChange(store, file: password.passwordFile)
        let wallet = try store.add(secret: secret, name: name, network: network, keyring: keyring)
        // The person holds the shares they just entered: the wallet counts as backed up.
        try store.recordBackup(of: wallet)
        log.info("wallet recovered from SLIP-39 shares", metadata: ["id": "\(wallet.id)"])
        print("recovered wallet \"\(wallet.name)\" (\(wallet.network.rawValue), \(secret.kind == .bip39 ? "BIP39 words" : "seed only"), fingerprint \(wallet.fingerprint))")
    }

    /// The wallet secret the master secret stands for, by --as or by the person's choice.
    func chooseSecret(_ masterSecret: SecretBytes) throws -> WalletSecret {
        let asWords = [16, 20, 24, 28, 32].contains(masterSecret.count)
            ? try? Mnemonic(entropy: masterSecret, language: .english) : nil
        switch kind {
        case .bip39:
            guard let asWords else { throw CLIError("a \(masterSecret.count)-byte secret cannot be BIP39 words; use --as seed") }
            return .mnemonic(asWords, passphrase: SecretBytes([]))
        case .seed:
            return .seed(masterSecret)
        case nil:
            guard let asWords else { return .seed(masterSecret) }
            let terminal = try Terminal.required("pass --as bip39 (shares made by Hawala from a BIP39 wallet) or --as seed (shares from a Trezor or another SLIP-39 wallet)")
            let chain: Chain = network == .testnet ? .bitcoinTestnet : .bitcoin
            let wordsAddress = try HDWallet(mnemonic: asWords).addresses(chain: chain, count: 1)[0].address
            let seedAddress = try HDWallet(seed: masterSecret).addresses(chain: chain, count: 1)[0].address
            terminal.line("These shares can be read two ways:")
            terminal.line("  1. BIP39 words (shares made by Hawala):            \(wordsAddress)")
            terminal.line("  2. SLIP-39 seed (shares made by a Trezor or other): \(seedAddress)")
            while true {
                switch try terminal.ask("Which first address is yours? [1/2] ").trimmingCharacters(in: .whitespaces) {
                case "1": return .mnemonic(asWords, passphrase: SecretBytes([]))
                case "2": return .seed(masterSecret)
                default: terminal.line("  type 1 or 2")
                }
            }
        }
    }

    /// The shares from the file, or typed in a terminal until enough are in.
    func readShares() throws -> [SLIP39Share] {
        if let sharesFile {
            let text = try Input.readSecretFile(sharesFile, what: "shares")
            let lines = text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
            guard !lines.isEmpty else { throw CLIError("\(sharesFile) holds no shares") }
            return try lines.enumerated().map { try SLIP39Share(mnemonic: $1, number: $0 + 1) }
        }
        let terminal = try Terminal.required("pass the shares with --shares-file")
        terminal.line("Type each share (its words separated by spaces; four letters per word are enough). An empty line when done.")
        var shares = [SLIP39Share]()
        while true {
            let line = try terminal.ask("Share \(shares.count + 1): ").trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                if shares.isEmpty { throw CLIError("no shares entered; nothing was saved") }
                return shares
            }
            guard let share = try correctedShare(line, number: shares.count + 1, on: terminal) else { continue }
            shares.append(share)
            let inGroup = Set(shares.filter { $0.groupIndex == share.groupIndex }.map(\.memberIndex)).count
            terminal.line("  ok: group \(share.groupIndex + 1) of \(share.groupCount), \(inGroup) of \(share.memberThreshold) shares; \(share.groupThreshold) group\(share.groupThreshold == 1 ? "" : "s") needed")
        }
    }

    /// Checks a typed share; when one word is wrong (not in the list, or the checksum fails),
    /// the words are shown numbered and the person corrects one at a time instead of typing all
    /// 20 or 33 again. Nil: type the whole share again.
    func correctedShare(_ line: String, number: Int, on terminal: Terminal) throws -> SLIP39Share? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
        while true {
            let problem: SLIP39Error
            do { return try SLIP39Share(mnemonic: words.joined(separator: " "), number: number) } catch { problem = error }
            let suspect: Int?
            switch problem {
            case .unknownWord(_, let position, _, _): suspect = position
            case .invalidChecksum: suspect = nil
            default:
                terminal.line("  \(problem) — type it again")
                return nil
            }
            terminal.line("  \(problem)")
            for (i, w) in words.enumerated() { terminal.line("  \(i + 1). \(w)\(i + 1 == suspect ? "   <- not a SLIP-39 word" : "")") }
            let count = words.count
            enum Fix { case word(Int), share([String]), again }
            let fix: Fix = try terminal.choose(
                "Number of the word to correct\(suspect.map { " [\($0)]" } ?? ""), the whole share, or \"again\": ",
                hint: "Type a number from 1 to \(count), the whole share, or \"again\"."
            ) { answer in
                if answer.isEmpty, let suspect { return .word(suspect) }
                if answer.lowercased() == "again" { return .again }
                let typed = answer.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
                if typed.count > 1 { return .share(typed) }
                guard let n = Int(answer), (1...count).contains(n) else { return nil }
                return .word(n)
            }
            switch fix {
            case .again: return nil
            case .share(let typed): words = typed
            case .word(let position): words[position - 1] = try terminal.ask("Word \(position): ").trimmingCharacters(in: .whitespaces)
            }
        }
    }

    static func firstAddresses(_ keys: HDWallet, network: Network) -> [String] {
        let chains: [Chain] = network == .testnet ? [.bitcoinTestnet] : [.bitcoin, .ethereum, .solana]
        return chains.compactMap { c in (try? keys.addresses(chain: c, count: 1).first).map { "\(c.name): \($0.address)" } }
    }
}
