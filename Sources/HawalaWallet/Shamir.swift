import HawalaCrypto
import HawalaKeys

/// A wallet split into SLIP-39 shares, and what a person must know to keep and use them.
public struct ShamirSplit: Sendable {
    public let wallet: WalletSummary
    public let groupThreshold: Int
    public let layout: [SLIP39.Group]
    /// One array of shares per group, in `layout`'s order.
    public let shares: [[SLIP39Share]]
    /// The shares are encrypted with a SLIP-39 passphrase.
    public let withPassphrase: Bool
    /// The wallet has a BIP39 passphrase the shares do not hold: it must be kept as well.
    public let bip39PassphraseLeftOut: Bool

    /// What the shares hold: BIP39 entropy (the same words come back) or a BIP32 seed.
    public var secretKind: WalletKind { wallet.kind }

    /// Which shares recover the wallet, in a sentence for each share's sheet.
    public var recoveryRule: String {
        layout.count == 1
            ? "\(layout[0].threshold) of these \(layout[0].count) shares recover the wallet"
            : "\(groupThreshold) of the \(layout.count) groups recover the wallet, each with enough of its shares"
    }

    /// The shares as text: `#` comment lines say whose shares they are, what they hold and
    /// which groups are needed, then one share per line. `ShamirShares.parse` reads it back,
    /// whole or any sufficient part of it.
    public var text: String {
        let holds = secretKind == .bip39 ? "its BIP39 entropy (recover as BIP39 words)" : "its BIP32 seed (recover as a seed)"
        var lines = ["# SLIP-39 shares of wallet \"\(wallet.name)\" (fingerprint \(wallet.fingerprint)), \(holds)"]
        let needed = layout.count == 1 ? "the group below recovers it" : "any \(groupThreshold) of these \(layout.count) groups recover it"
        lines.append("# \(needed)\(withPassphrase ? ", with the passphrase" : "")")
        for (i, group) in shares.enumerated() {
            lines.append("# group \(i + 1): any \(layout[i].threshold) of these \(layout[i].count) shares")
            lines += group.map { $0.words.joined(separator: " ") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A line of shares (pasted, or from a file) that was not taken: which line of the text and
/// why — never the line itself, which is secret.
public struct ShareLineProblem: Sendable, Equatable, CustomStringConvertible {
    /// 1-based, counting every line of the text.
    public let line: Int
    public let error: SLIP39Error

    /// "line 3: word 7 is not a SLIP-39 word (did you mean …?)": the line, not a share number.
    public var description: String {
        switch error {
        case let .unknownWord(_, position, suggestions):
            "line \(line): word \(position) is not a SLIP-39 word" + (suggestions.isEmpty ? "" : " (did you mean \(suggestions.joined(separator: ", "))?)")
        case .invalidChecksum: "line \(line): the share's checksum does not match: a word is wrong or missing"
        case let .tooShort(_, words): "line \(line): \(words) words; a SLIP-39 share has at least 20"
        case let .invalidLength(_, words): "line \(line): \(words) words, which no SLIP-39 share has"
        default: "line \(line): \(error)"
        }
    }
}

/// One way to read a recovered master secret, with what a person needs to choose it.
public struct ShamirReading: Sendable {
    public let secret: WalletSecret
    /// The first address on the network chosen: what tells the readings apart.
    public let firstAddress: String?
    /// The wallet here that already is this reading (saving it again is refused), if any.
    public let existing: String?
}

/// Reading shares back from text and turning a recovered master secret into a wallet. Both
/// faces go through here: the same text gives the same shares, problems and readings.
public enum ShamirShares {
    /// Adds the shares in `text` to `flow` — one a line; blank lines and `#` comments skipped —
    /// each checked as a typed share is (a share of another split is refused). Returns the lines
    /// not taken; the others are in `flow.shares`, and the flow waits for more.
    public static func add(_ text: SecretBytes, to flow: inout ShareEntryFlow) -> [ShareLineProblem] {
        var problems: [ShareLineProblem] = []
        let lines = text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            switch flow.send(.share(SecretBytes(utf8: trimmed))) {
            case .refused(.invalidShare(let error)), .refused(.notWithTheOthers(let error)):
                problems.append(ShareLineProblem(line: index + 1, error: error))
            case .refused:
                break
            case .taken:
                if case .correcting(_, let error, _) = flow.state {
                    problems.append(ShareLineProblem(line: index + 1, error: error))
                    flow.send(.again)
                }
            }
        }
        return problems
    }

    /// The shares in `text` (see `add`), all of them or none.
    /// - Throws: `SLIP39Error.noShares` when there is none; the first line's problem otherwise.
    public static func parse(_ text: SecretBytes) throws(ShamirTextError) -> [SLIP39Share] {
        var flow = ShareEntryFlow()
        let problems = add(text, to: &flow)
        guard problems.isEmpty else { throw .lines(problems) }
        guard !flow.shares.isEmpty else { throw .noShares }
        return flow.shares
    }

    /// The readings of the secret `shares` recover (see `readings(of:)`), each with its first
    /// address on `network` and whether a wallet in `store` already is it.
    /// - Throws: `SLIP39Error` when the shares do not recover a secret (too few, wrong passphrase).
    public static func readings(of shares: [SLIP39Share], passphrase: SecretBytes, network: Network,
                                store: WalletStore?) throws -> [ShamirReading] {
        let masterSecret = try SLIP39.combine(shares, passphrase: passphrase)
        return try readings(of: masterSecret).map { secret in
            ShamirReading(secret: secret, firstAddress: firstAddress(of: secret, network: network),
                          existing: try store?.existingWallet(secret: secret, network: network))
        }
    }

    /// The ways a recovered master secret can be read: as BIP39 entropy (shares split by
    /// Hawala from a BIP39 wallet: the words come back), when its length allows, and as a BIP32
    /// seed (shares made by a Trezor or another SLIP-39 wallet). The same shares give different
    /// addresses each way; a person recognises theirs by the first address.
    public static func readings(of masterSecret: SecretBytes) -> [WalletSecret] {
        var readings: [WalletSecret] = []
        if Mnemonic.entropyLengths.contains(masterSecret.count), let words = try? Mnemonic(entropy: masterSecret, language: .english) {
            readings.append(.mnemonic(words, passphrase: SecretBytes([])))
        }
        readings.append(.seed(masterSecret))
        return readings
    }

    /// The first Bitcoin address of `secret` on `network`: what tells two readings apart.
    public static func firstAddress(of secret: WalletSecret, network: Network) -> String? {
        try? secret.keys.addresses(chain: network.confirmationChains[0], count: 1).first?.address
    }
}

extension WalletStore {
    /// Splits `wallet` into SLIP-39 shares: a BIP39 wallet as its BIP39 entropy (recovering in
    /// Hawala gives back the same words), a seed wallet as its seed.
    /// - Throws: `SLIP39Error` for an impossible layout or passphrase (checked before the
    ///   secret is opened), `WalletError` for the store.
    public func shamirSplit(_ wallet: WalletSummary, groupThreshold: Int, groups: [SLIP39.Group], passphrase: SecretBytes,
                            extendable: Bool = true, iterationExponent: Int = SLIP39.defaultIterationExponent,
                            keyring: Keyring) throws -> ShamirSplit {
        try SLIP39.checkLayout(groupThreshold: groupThreshold, groups: groups)
        try SLIP39.checkPassphrase(passphrase)
        let masterSecret: SecretBytes
        var leftOut = false
        switch try secret(of: wallet, keyring: keyring) {
        case let .mnemonic(mnemonic, bip39Passphrase):
            masterSecret = mnemonic.entropy()
            leftOut = !bip39Passphrase.isEmpty
        case let .seed(seed):
            masterSecret = seed
        }
        let shares = try SLIP39.split(masterSecret: masterSecret, passphrase: passphrase, groupThreshold: groupThreshold,
                                      groups: groups, extendable: extendable, iterationExponent: iterationExponent)
        noteBackup(.shares, wallets: [wallet.name])
        return ShamirSplit(wallet: wallet, groupThreshold: groupThreshold, layout: groups, shares: shares,
                           withPassphrase: !passphrase.isEmpty, bip39PassphraseLeftOut: leftOut)
    }

    /// The overwrite guard for any secret: refused when a wallet here already is it on `network`.
    /// - Throws: `WalletError.alreadyExists`.
    public func refuseExisting(_ secret: WalletSecret, network: Network) throws {
        if let existing = try existingWallet(secret: secret, network: network) { throw WalletError.alreadyExists(name: existing) }
    }

    /// Saves a recovered wallet — from SLIP-39 shares, or typed words (`restore`) — with the
    /// guard again (another process may have saved it meanwhile). It counts as backed up: the
    /// person holds the shares or words they entered. `keyring` is asked for last.
    public func recover(_ secret: WalletSecret, name: String?, network: Network, keyring: () throws -> Keyring) throws -> WalletSummary {
        try refuseExisting(secret, network: network)
        let wallet = try add(secret: secret, name: name, network: network, keyring: try keyring())
        try recordBackup(of: wallet)
        return try self.wallet(named: wallet.name)
    }
}

/// Why shares given as text can't be used.
public enum ShamirTextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text holds no share.
    case noShares
    /// These lines were not taken.
    case lines([ShareLineProblem])

    public var description: String {
        switch self {
        case .noShares: "no shares given"
        case .lines(let problems): problems.map(\.description).joined(separator: "; ")
        }
    }
}
