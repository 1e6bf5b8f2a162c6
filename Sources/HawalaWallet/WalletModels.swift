import Foundation
import HawalaCrypto
import HawalaKeys

/// A way a wallet is kept besides this machine (seed 000's backup methods).
public enum BackupMethod: String, Sendable, Codable, CaseIterable, Comparable {
    /// The words written down, checked by the quiz.
    case words
    /// A `.hawala` file exported.
    case file
    /// A backup uploaded to a vault.
    case vault
    /// A paper sheet printed with the words.
    case paper
    /// SLIP-39 shares made.
    case shares

    public static func < (a: BackupMethod, b: BackupMethod) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// "words checked", "file", "vault", "paper", "shares".
    public var label: String { self == .words ? "words checked" : rawValue }
}

/// The last time a backup method was used for a wallet.
public struct BackupRecord: Sendable, Codable, Equatable {
    public let method: BackupMethod
    public let lastAt: Date
    public init(method: BackupMethod, lastAt: Date) {
        self.method = method
        self.lastAt = lastAt
    }
}

/// Whether the words of a wallet were written down and checked, and the other ways it is kept.
public struct BackupStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case notBackedUp = "not-backed-up"
        case backedUp = "backed-up"
    }
    public let state: State
    /// When the quiz was first passed.
    public let backedUpAt: Date?
    /// When the quiz was last passed (`verify-backup`).
    public let lastVerifiedAt: Date?

    /// The other methods used (file, vault, paper, shares), each with its last time, in that order.
    public let others: [BackupRecord]

    public init(state: State, backedUpAt: Date?, lastVerifiedAt: Date?, others: [BackupRecord] = []) {
        self.state = state
        self.backedUpAt = backedUpAt
        self.lastVerifiedAt = lastVerifiedAt
        self.others = others.filter { $0.method != .words }.sorted { $0.method < $1.method }
    }

    public var isBackedUp: Bool { state == .backedUp }

    /// Every method used, the words first: what a wallet list shows.
    public var methods: [BackupRecord] {
        (lastVerifiedAt ?? backedUpAt).map { [BackupRecord(method: .words, lastAt: $0)] + others } ?? others
    }

    /// "not backed up", "backed up 2026-11-22", "backed up 2026-11-22, last verified 2026-12-01",
    /// then the other methods: "…; also file 2026-11-25, vault 2026-11-26" (or "not backed up
    /// (words not checked); file 2026-11-25").
    public var summary: String {
        var text: String
        if let backedUpAt {
            text = "backed up \(BackupStatus.day(backedUpAt))"
            if let lastVerifiedAt, lastVerifiedAt != backedUpAt { text += ", last verified \(BackupStatus.day(lastVerifiedAt))" }
        } else {
            text = others.isEmpty ? "not backed up" : "words not checked"
        }
        guard !others.isEmpty else { return text }
        return text + (backedUpAt == nil ? "; " : "; also ") + othersText
    }

    /// "file 2026-11-25, vault 2026-11-26".
    public var othersText: String { others.map { "\($0.method.label) \(BackupStatus.day($0.lastAt))" }.joined(separator: ", ") }

    /// A day as `YYYY-MM-DD`, in UTC.
    public static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
    }
}

/// An account of an HD wallet on one chain (seed 004 M1.1).
public struct HDAccount: Sendable, Codable, Equatable {
    public let chain: String
    public let index: UInt32
    /// The account's derivation path, e.g. `m/84'/0'/0'`.
    public let path: String
    public let label: String?
}

/// A private key imported into a wallet, kept apart from its HD accounts. The key is sealed.
public struct ImportedAccount: Sendable, Codable, Equatable {
    public let id: String
    public let chain: String
    public let address: String
    public let label: String?
    public let importedAt: Date
    /// False for a legacy key imported uncompressed (its address is P2PKH of the 65-byte key).
    public let compressed: Bool
}

/// What the store shows without the password: the public model of one wallet.
public struct WalletSummary: Sendable, Codable, Equatable {
    /// Deterministic from the seed (words and passphrase), UUID-formatted.
    public let id: String
    public let name: String
    public let createdAt: Date
    public let network: Network
    /// Words or a bare seed.
    public let kind: WalletKind
    /// The number of words (0 for a seed wallet).
    public let wordCount: Int
    public let hasPassphrase: Bool
    /// The BIP32 master key fingerprint, 8 hex digits.
    public let fingerprint: String
    public let backup: BackupStatus
    public let accounts: [HDAccount]
    public let importedAccounts: [ImportedAccount]
    public let isCurrent: Bool

    /// "10 accounts", "10 accounts, 1 imported key": what a wallet list says of its accounts.
    public var accountsText: String {
        var text = "\(accounts.count) account\(accounts.count == 1 ? "" : "s")"
        if !importedAccounts.isEmpty { text += ", \(importedAccounts.count) imported key\(importedAccounts.count == 1 ? "" : "s")" }
        return text
    }
}

/// What a wallet's keys come from.
public enum WalletKind: String, Sendable, Codable {
    /// BIP39 words (and an optional BIP39 passphrase).
    case bip39
    /// A BIP32 seed with no words: the master secret of SLIP-39 shares made by another wallet.
    case seed
    /// One account's public key and no secret: sees and plans payments, another wallet signs.
    case watchOnly
}

/// The secret a wallet's keys derive from.
public enum WalletSecret: Sendable {
    case mnemonic(Mnemonic, passphrase: SecretBytes)
    /// A BIP32 seed, 16–64 bytes.
    case seed(SecretBytes)

    public var kind: WalletKind {
        switch self {
        case .mnemonic: .bip39
        case .seed: .seed
        }
    }

    /// The BIP32 seed (the words' with their passphrase, or the seed itself).
    public var seed: SecretBytes {
        switch self {
        case let .mnemonic(mnemonic, passphrase): mnemonic.seed(passphrase: passphrase)
        case let .seed(seed): seed
        }
    }

    /// The HD keys.
    public var keys: HDWallet {
        switch self {
        case let .mnemonic(mnemonic, passphrase): HDWallet(mnemonic: mnemonic, passphrase: passphrase)
        case let .seed(seed): HDWallet(seed: seed)
        }
    }

    /// The words, for BIP39 wallets.
    public var mnemonic: Mnemonic? {
        if case let .mnemonic(m, _) = self { return m }
        return nil
    }

    /// The BIP39 passphrase (empty for seed wallets).
    public var passphrase: SecretBytes {
        if case let .mnemonic(_, p) = self { return p }
        return SecretBytes([])
    }
}

extension WalletSummary {
    /// Refuses a wallet that holds no secret (watch-only) before a payment is worked out: what
    /// both faces check first, so nobody reviews a payment that can't be signed.
    /// - Throws: `WalletError.watchOnly`.
    public func mustSign() throws(WalletError) {
        if kind == .watchOnly { throw .watchOnly(name) }
    }
}
