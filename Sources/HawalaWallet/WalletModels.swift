import Foundation
import HawalaCrypto
import HawalaKeys

/// Whether the words of a wallet were written down and checked.
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

    public var isBackedUp: Bool { state == .backedUp }

    /// "not backed up", "backed up 2026-11-22", "backed up 2026-11-22, last verified 2026-12-01".
    public var summary: String {
        guard let backedUpAt else { return "not backed up" }
        var text = "backed up \(BackupStatus.day(backedUpAt))"
        if let lastVerifiedAt, lastVerifiedAt != backedUpAt { text += ", last verified \(BackupStatus.day(lastVerifiedAt))" }
        return text
    }

    static func day(_ date: Date) -> String {
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
}

/// What a wallet's keys come from.
public enum WalletKind: String, Sendable, Codable {
    /// BIP39 words (and an optional BIP39 passphrase).
    case bip39
    /// A BIP32 seed with no words: the master secret of SLIP-39 shares made by another wallet.
    case seed
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
