import Foundation
import HawalaCrypto
import HawalaKeys

// The wallet rules every front end follows, in one place: creating (then backing up), restoring
// (the overwrite guard before anything is confirmed or saved) and listing addresses (the
// password only when the cache can't answer). The front end asks and shows; these decide.

/// Why a recovery can't be saved.
public enum RestoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The flow has not reached its end (the addresses were not confirmed).
    case notConfirmed

    public var description: String { "the recovery did not complete; nothing was saved" }
}

extension WalletStore {
    /// The lengths a new wallet's words may have: 12 or 24, what SeedQR and every hardware
    /// wallet read, and what a paper sheet prints. (A restore takes every BIP39 length.)
    public static let newWordCounts = [12, 24]
    /// The network a new wallet is made on unless another is chosen: Hawala is young and
    /// unaudited, so a new wallet starts on testnet, whose coins are worth nothing (mainnet is
    /// one choice away). A restored wallet has no default: its words may hold real funds.
    public static let newWalletNetwork = Network.testnet

    /// A new wallet's word count as asked (nil: 12), if offered.
    /// - Throws: `WalletError.wordCountNotOffered`.
    public static func checkNewWordCount(_ count: Int?) throws(WalletError) -> Int {
        let count = count ?? newWordCounts[0]
        guard newWordCounts.contains(count) else { throw .wordCountNotOffered(count, offered: newWordCounts) }
        return count
    }

    /// Creates a wallet with new words (`newWordCounts`). The wallet is saved at once and is not
    /// backed up: the returned flow shows the words and quizzes them; `finishBackup` records
    /// the outcome.
    public func create(wordCount: Int, passphrase: SecretBytes, name: String?, network: Network,
                       keyring: Keyring) throws -> (wallet: WalletSummary, backup: SeedBackupFlow) {
        let mnemonic = try Mnemonic.generate(wordCount: try WalletStore.checkNewWordCount(wordCount))
        let wallet = try add(mnemonic: mnemonic, passphrase: passphrase, name: name, network: network, keyring: keyring)
        return (wallet, SeedBackupFlow(mnemonic: mnemonic))
    }

    /// Records the backup of `wallet` when `flow` ended backed up; returns whether it did.
    @discardableResult
    public func finishBackup(_ flow: SeedBackupFlow, of wallet: WalletSummary) throws -> Bool {
        guard flow.state == .backedUp else { return false }
        try recordBackup(of: wallet)
        return true
    }

    /// The overwrite guard, for a recovery that reached its addresses: a wallet here that
    /// already is these words, passphrase and network is refused before anything is confirmed.
    /// - Throws: `WalletError.alreadyExists`.
    public func refuseExisting(_ flow: RecoveryFlow) throws {
        guard let mnemonic = flow.mnemonic else { return }
        try refuseExisting(.mnemonic(mnemonic, passphrase: flow.passphrase), network: flow.network)
    }

    /// `refuseExisting` against the wallets of `home`, without creating it when it has none.
    public static func refuseExisting(_ flow: RecoveryFlow, in home: WalletHome) throws {
        guard try home.existing() else { return }
        try WalletStore(home: home, create: false).refuseExisting(flow)
    }

    /// Saves a completed recovery (the guard again: another process may have restored the same
    /// words meanwhile). The wallet counts as backed up: the person just typed its words.
    /// `keyring` is asked for only once everything else is known to be fine.
    public func restore(_ flow: RecoveryFlow, name: String?, keyring: () throws -> Keyring) throws -> WalletSummary {
        guard flow.state == .done, let mnemonic = flow.mnemonic else { throw RestoreError.notConfirmed }
        return try recover(.mnemonic(mnemonic, passphrase: flow.passphrase), name: name, network: flow.network, keyring: keyring)
    }

    /// The first `count` receiving addresses of `wallet` on `chains` (nil: every chain of the
    /// wallet). They come from the cache or the account keys; past that (Solana, Cardano), from
    /// the secret, after `unlock`. With `verify`, the cached addresses and keys are checked
    /// against the secret before any is returned (so `unlock` is called first); every unlock
    /// verifies them too: a swapped address is an error, never a result.
    public func receivingAddresses(of wallet: WalletSummary, chains: [Chain]? = nil, count: Int, verify: Bool = false,
                                   unlock: () throws -> Keyring) throws -> [DerivedAddress] {
        let chains = try chains ?? wallet.accounts.map { account in
            guard let chain = Chain.named(account.chain) else { throw WalletError.tampered("the chain of an account (\"\(account.chain)\")") }
            return chain
        }
        var keyring: Keyring?
        func unlocked() throws -> Keyring {
            if let keyring { return keyring }
            let opened = try unlock()
            try verifyCachedKeys(of: wallet, keyring: opened)
            keyring = opened
            return opened
        }
        if verify { _ = try unlocked() }
        var all: [DerivedAddress] = []
        for chain in chains {
            do {
                all += try addresses(wallet: wallet, chain: chain, count: count)
            } catch WalletError.passwordNeeded {
                all += try addresses(wallet: wallet, chain: chain, count: count, keyring: try unlocked())
            }
        }
        return all
    }
}
