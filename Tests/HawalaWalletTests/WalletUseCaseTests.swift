import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet
import Testing
import HawalaTestSupport

@Suite("Wallet use cases")
struct WalletUseCaseTests {
    /// A new wallet is saved at once, not backed up; only a flow that ended backed up records it.
    @Test func createThenBackUp() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        var (wallet, flow) = try store.create(wordCount: 24, passphrase: SecretBytes([]), name: nil, network: .testnet, keyring: keyring)
        #expect(wallet.wordCount == 24 && wallet.network == .testnet && wallet.backup.state == .notBackedUp)
        #expect(try store.finishBackup(flow, of: wallet) == false)
        flow.send(.proceed)
        flow.send(.proceed)
        for position in flow.positions { flow.send(.answer(flow.words[position - 1])) }
        flow.send(.confirm)
        #expect(try store.finishBackup(flow, of: wallet))
        #expect(try store.wallet(named: wallet.name).backup.isBackedUp)
    }

    /// The guard refuses the same words, passphrase and network before confirmation and again at
    /// saving; the keyring is asked for only for a wallet that will be saved; the same words on
    /// another network are another wallet.
    @Test func restoreGuardsBeforeAskingAnything() throws {
        let home = temporaryHome()
        var flow = RecoveryFlow()
        flow.send(.network(.mainnet))
        flow.send(.word(SecretBytes(utf8: abandonAbout)))
        flow.send(.passphrase(SecretBytes([])))
        try WalletStore.refuseExisting(flow, in: home)  // no home yet: nothing to refuse, nothing created
        #expect(try !home.existing())
        let store = try WalletStore(home: home, create: true)
        var asked = 0
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        #expect(throws: RestoreError.notConfirmed) { _ = try store.restore(flow, name: nil) { asked += 1; return keyring } }
        flow.send(.confirm)
        let wallet = try store.restore(flow, name: "Back", keyring: { asked += 1; return keyring })
        #expect(wallet.name == "Back" && wallet.fingerprint == "73c5da0a" && asked == 1)
        #expect(try store.wallet(named: "Back").backup.isBackedUp)
        #expect(throws: WalletError.alreadyExists(name: "Back")) { try WalletStore.refuseExisting(flow, in: home) }
        #expect(throws: WalletError.alreadyExists(name: "Back")) { _ = try store.restore(flow, name: nil) { asked += 1; return keyring } }
        #expect(asked == 1)
        var testnet = RecoveryFlow()
        testnet.send(.network(.testnet))
        testnet.send(.word(SecretBytes(utf8: abandonAbout)))
        testnet.send(.passphrase(SecretBytes([])))
        testnet.send(.confirm)
        #expect(try store.restore(testnet, name: nil) { keyring }.network == .testnet)
    }

    /// No password for what the cache and the account keys answer; past them the secret is used
    /// once, and the cache is verified first; a swapped cached address is an error.
    @Test func addressesAskForThePasswordOnlyWhenNeeded() throws {
        let store = try WalletStore(home: temporaryHome(), create: true)
        let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        let mnemonic = try Mnemonic(text: abandonAbout)
        let wallet = try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let keys = HDWallet(mnemonic: mnemonic)
        var asked = 0
        let unlock = { () throws -> Keyring in asked += 1; return keyring }
        #expect(try store.receivingAddresses(of: wallet, count: 20, unlock: unlock).count == 20 * wallet.accounts.count && asked == 0)
        #expect(try store.receivingAddresses(of: wallet, chains: [.bitcoin], count: 30, unlock: unlock) == keys.addresses(chain: .bitcoin, count: 30))
        #expect(asked == 0)
        #expect(try store.receivingAddresses(of: wallet, chains: [.solana, .cardano], count: 21, unlock: unlock)
            == keys.addresses(chain: .solana, count: 21) + keys.addresses(chain: .cardano, count: 21))
        #expect(asked == 1)
        _ = try store.receivingAddresses(of: wallet, chains: [.ethereum], count: 1, verify: true, unlock: unlock)
        #expect(asked == 2)
    }

    /// Every keyring the store hands out reaches its hook: unlock, a first password, a change.
    @Test func theUnlockHookHearsEveryKeyring() throws {
        let home = temporaryHome()
        let hook = UnlockedKeyring()
        let store = try WalletStore(home: home, create: true, unlocked: hook)
        #expect(hook.last == nil)
        let first = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
        _ = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: first)
        // Keyrings of different passwords (or salts) differ in their salt.
        func same(_ a: Keyring?, _ b: Keyring) -> Bool { a?.parameters.salt == b.parameters.salt }
        #expect(same(hook.keyring(for: home), first))
        #expect(hook.keyring(for: temporaryHome()) == nil)
        let changed = try store.changePassword(from: first, to: password("battery staple"), parameters: fastKDF())
        #expect(same(hook.keyring(for: home), changed) && !same(hook.keyring(for: home), first))
        let other = UnlockedKeyring()
        let unlocked = try WalletStore(home: home, create: false, unlocked: other).unlock(password: password("battery staple"))
        #expect(other.last?.home.directory == home.directory && same(other.last?.keyring, unlocked) && same(hook.keyring(for: home), changed))
    }

    /// A person gets the tries given, each wrong one heard with the tries left; a file gets one;
    /// the first change sets a new password, later ones unlock; a keyring handed out in this
    /// task is reused without asking.
    @Test func unlockTriesAndTheFirstPassword() throws {
        let home = temporaryHome()
        var asked = 0
        let first = try WalletStore(home: home, create: true).keyringForChange(
            unlock: { Issue.record("nothing to unlock yet"); throw WalletError.wrongPassword },
            newPassword: { asked += 1; return password("correct horse") }, parameters: fastKDF())
        #expect(asked == 1)
        let store = try WalletStore(home: home, create: true)
        _ = try store.add(mnemonic: Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: nil, network: .mainnet, keyring: first)
        var typed = ["wrong one", "wrong two", "correct horse"]
        var left: [Int] = []
        _ = try store.unlock(attempts: 3, password: { password(typed.removeFirst()) }, wrong: { left.append($0) })
        #expect(left == [2, 1] && typed.isEmpty)
        typed = ["wrong one", "correct horse"]
        #expect(throws: WalletError.wrongPassword) { try store.unlock(password: { password(typed.removeFirst()) }) }
        #expect(typed.count == 1)
        #expect(throws: WalletError.wrongPassword) { try store.keyringForChange(unlock: { try store.unlock(password: { password("nope") }) }, newPassword: { password("x") }) }
        let hook = UnlockedKeyring()
        let session = try WalletStore(home: home, create: false, unlocked: hook)
        _ = try session.unlock(password: { password("correct horse") })
        _ = try session.unlock(password: { Issue.record("asked twice"); return password("") })
    }

    /// A receive request: the Bitcoin chain by default, the same address until a new one is
    /// asked for, a request the chain can't carry refused before the index moves, the password
    /// only past the cached Solana addresses.
    @Test func addressRequestsGiveTheSameAddressUntilANewOne() throws {
        let (store, keyring) = try newStore()
        let mnemonic = try Mnemonic(text: abandonAbout)
        let wallet = try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let keys = HDWallet(mnemonic: mnemonic)
        var asked = 0
        let unlock = { () throws -> Keyring in asked += 1; return keyring }
        let first = try store.addressRequest(wallet: wallet, chain: nil, amountSats: 150_000, label: "rent & food", advance: false, unlock: unlock)
        let firstBitcoin = try keys.addresses(chain: .bitcoin, count: 1)[0]
        #expect(first.chain == .bitcoin && first.index == 0 && first.address == firstBitcoin)
        #expect(first.uri == "bitcoin:\(first.address.address)?amount=0.0015&label=rent%20%26%20food" && first.uriAddsToAddress)
        #expect(first.qrText == first.uri)
        let plain = try store.addressRequest(wallet: wallet, chain: .bitcoin, advance: false, unlock: unlock)
        #expect(plain.address == first.address && !plain.uriAddsToAddress)
        #expect(throws: BIP21.Error.notBitcoinFamily("ethereum")) {
            _ = try store.addressRequest(wallet: wallet, chain: .ethereum, amountSats: 1, advance: true, unlock: unlock)
        }
        let ethereum = try store.addressRequest(wallet: wallet, chain: .ethereum, advance: false, unlock: unlock)
        #expect(ethereum.index == 0 && ethereum.uri == nil && ethereum.qrText == ethereum.address.address)
        #expect(try store.addressRequest(wallet: wallet, chain: nil, advance: true, unlock: unlock).index == 1)
        #expect(asked == 0)
        for _ in 0..<20 { _ = try store.addressRequest(wallet: wallet, chain: .solana, advance: true, unlock: unlock) }
        #expect(asked == 1)
        let solana = try keys.addresses(chain: .solana, count: 21)[20]
        #expect(try store.addressRequest(wallet: wallet, chain: .solana, advance: false, unlock: unlock).address == solana)
    }

    /// Showing or checking the words is refused at once for a wallet that has none, before
    /// any password; a wallet on testnet receives on Bitcoin testnet; the watch-only export
    /// covers the Bitcoin-family accounts only.
    @Test func walletsWithoutWordsAndWatchOnly() throws {
        let (store, keyring) = try newStore()
        let seed = try store.recover(.seed(SecretBytes(Array(repeating: 7, count: 16))), name: "Seed", network: .testnet) { keyring }
        #expect(throws: WalletError.noWords("Seed")) { _ = try store.walletWithWords(named: "Seed") }
        #expect(WalletStore.defaultReceiveChain(of: seed) == .bitcoinTestnet)
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        #expect(try store.walletWithWords(named: "Main").id == main.id)
        let exports = try store.watchOnlyExports(wallet: main)
        #expect(!exports.isEmpty && exports.allSatisfy { Chain.named($0.chain)?.isBitcoinFamily == true })
        #expect(exports.map(\.chain).contains("bitcoin") && exports.map(\.chain).contains("litecoin"))
        #expect(try store.watchOnlyExports(wallet: main, chain: .litecoin).map(\.chain) == ["litecoin"])
        #expect(throws: WalletError.noExtendedPublicKey(chain: "ethereum")) { _ = try store.watchOnlyExports(wallet: main, chain: .ethereum) }
    }
}
