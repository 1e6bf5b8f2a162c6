import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaPaper
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
        subcommands: [ShamirSplitCommand.self, ShamirRecover.self])
}

struct ShamirSplitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Print SLIP-39 shares of a wallet, grouped, on standard output.",
        discussion: """
            Example: --group-threshold 2 --group 2/3 --group 3/5 --group 1/1 makes three groups; \
            any two complete groups recover the wallet. The output lists each group's shares one per \
            line, with '#' comment lines, so the whole output (or any sufficient part of it) can be \
            given back to `hawala backup shamir recover --shares-file`. Write each share down \
            separately and keep them apart; the output is the secret in the clear. --pdf draws \
            the shares into a PDF instead, one share a page, to print (then delete the file).
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
    @Option(help: ArgumentHelp("Write the shares as a PDF, one share a page, instead of printing them.", valueName: "path")) var pdf: String?
    @Option(help: "With --pdf: a4 (the default) or letter.") var paper: PaperBackup.Paper?
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        guard !groups.isEmpty else { throw ValidationError("give at least one --group M/N") }
        if paper != nil, pdf == nil { throw ValidationError("--paper goes with --pdf") }
        guard (0...6).contains(iterationExponent) else { throw ValidationError("--iteration-exponent must be 0 to 6") }
        // An impossible layout is a usage error, found before anything is asked.
        do {
            try SLIP39.checkLayout(groupThreshold: groupThreshold, groups: try groups.map(SLIP39.Group.init(parsing:)))
        } catch {
            throw ValidationError(error.description)
        }
        try WalletSession.checkOneStdin(passphraseFile, password.passwordFile)
    }

    func run() throws {
        let pdfURL = pdf.map { URL(fileURLWithPath: $0) }
        if let pdfURL, FileManager.default.fileExists(atPath: pdfURL.path) { throw CLIError("\(pdfURL.path) already exists; choose another name") }
        let passphrase = try Input.readPassphrase(file: passphraseFile)
        try SLIP39.checkPassphrase(passphrase)  // before asking for the wallet password
        let store = try WalletSession.store(create: false)
        let summary = try store.wallet(named: wallet)
        let keyring = try WalletSession.unlock(store, file: password.passwordFile)
        if iterationExponent > 2 { BackupPasswords.progress("encrypting (PBKDF2, exponent \(iterationExponent))…") }
        let split = try store.shamirSplit(summary, groupThreshold: groupThreshold, groups: try groups.map(SLIP39.Group.init(parsing:)),
                                          passphrase: passphrase, extendable: extendable, iterationExponent: iterationExponent, keyring: keyring)
        if split.bip39PassphraseLeftOut {
            Output.error("warning: \"\(summary.name)\" has a BIP39 passphrase; the shares hold only the words — keep the passphrase too")
        }
        if let pdfURL {
            let sheets = ShareSheets(split, paper: paper ?? .a4)
            try AtomicFile.write(to: pdfURL) { _, path in try sheets.render(to: path) }
            let count = split.shares.joined().count
            print("wrote \(pdfURL.path) (\(count) shares, one a page)")
            Output.error("warning: \(pdfURL.path) holds the shares in the clear; print it, then delete the file (shred -u \(pdfURL.path))")
            return
        }
        print(split.text + "# recover with: hawala backup shamir recover --as \(split.secretKind.rawValue) --shares-file FILE")
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
    @Option(name: .customLong("as"), help: ArgumentHelp("What the shares hold: bip39 (split by Hawala) or seed (a Trezor's).", valueName: "kind")) var kind: WalletKind?
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
        if printXprv {
            let masterSecret = try SLIP39.combine(shares, passphrase: passphrase)
            print(try ExtendedPrivateKey(seed: masterSecret).serialized(version: network == .testnet ? .tpub : .xpub))
            return
        }
        let store = try WalletSession.store(create: true)
        let secret = try chooseSecret(try ShamirShares.readings(of: shares, passphrase: passphrase, network: network, store: store))
        for a in secret.keys.confirmationAddresses(network: network) { Output.error("\(a.chain.name): \(a.address)") }
        if !yes {
            let terminal = try Terminal.required("pass --yes to confirm the addresses")
            guard try terminal.confirm("Do these addresses match your records?") else { throw CLIError("not confirmed; nothing was saved") }
        }
        let wallet = try store.recover(secret, name: name, network: network) { try WalletSession.keyringForChange(store, file: password.passwordFile) }
        log.info("wallet recovered from SLIP-39 shares", metadata: ["id": "\(wallet.id)"])
        print("recovered wallet \"\(wallet.name)\" (\(wallet.network.rawValue), \(secret.kind == .bip39 ? "BIP39 words" : "seed only"), fingerprint \(wallet.fingerprint))")
    }

    /// The reading of the master secret by --as, or by the person's choice of first address;
    /// a reading that is already a wallet here is refused (the others are not).
    func chooseSecret(_ readings: [ShamirReading]) throws -> WalletSecret {
        func usable(_ reading: ShamirReading) throws -> WalletSecret {
            if let existing = reading.existing { throw WalletError.alreadyExists(name: existing) }
            return reading.secret
        }
        if let kind {
            guard let reading = readings.first(where: { $0.secret.kind == kind }) else {
                throw CLIError("this secret's length cannot be BIP39 words; use --as seed")
            }
            return try usable(reading)
        }
        guard readings.count > 1 else { return try usable(readings[0]) }
        let terminal = try Terminal.required("pass --as bip39 (shares made by Hawala from a BIP39 wallet) or --as seed (shares from a Trezor or another SLIP-39 wallet)")
        let label: [WalletKind: String] = [.bip39: "BIP39 words (shares made by Hawala):            ", .seed: "SLIP-39 seed (shares made by a Trezor or other):"]
        terminal.line("These shares can be read two ways:")
        for (i, reading) in readings.enumerated() {
            let here = reading.existing.map { "  (already here as \"\($0)\")" } ?? ""
            terminal.line("  \(i + 1). \(label[reading.secret.kind]!) \(reading.firstAddress ?? "?")\(here)")
        }
        let chosen = try terminal.choose("Which first address is yours? [1/2] ", hint: "  type 1 or 2") { answer in
            Int(answer).flatMap { (1...readings.count).contains($0) ? readings[$0 - 1] : nil }
        }
        return try usable(chosen)
    }

    /// The shares from the file, or typed in a terminal until an empty line.
    func readShares() throws -> [SLIP39Share] {
        if let sharesFile {
            let text = try Input.readSecretFile(sharesFile, what: "shares")
            do { return try ShamirShares.parse(text) } catch {
                switch error {
                case .noShares: throw CLIError("\(sharesFile) holds no shares")
                case .lines(let problems): throw CLIError("\(sharesFile): " + problems.map(\.description).joined(separator: "; ") + " (nothing was saved)")
                }
            }
        }
        return try ShareEntryRenderer.run(on: try Terminal.required("pass the shares with --shares-file"))
    }
}
