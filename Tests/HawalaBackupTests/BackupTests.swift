import Foundation
import Synchronization
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaWallet
import Testing
@testable import HawalaBackup
import HawalaTestSupport



@Suite("Version-1 fixture")
struct BackupFixtureTests {
    @Test func importsInEveryLaterVersion() throws {
        let url = try #require(Bundle.module.url(forResource: "backup-v1", withExtension: "hawala", subdirectory: "Fixtures"))
        let header = try BackupFile.inspect(url)
        #expect(header.version == 1 && header.createdAt == 1_795_000_000)
        #expect(throws: HawalaFileError.wrongPasswordOrDamaged) { try BackupFile.read(url, password: SecretBytes(utf8: "fixture password v2")) }
        let payload = try BackupPayload.decode(try BackupFile.read(url, password: SecretBytes(utf8: "fixture password v1")))
        #expect(payload.wallets.map(\.name) == ["Main", "Hidden"] && payload.current == "Main")
        let (store, keyring) = try newStore()
        for w in payload.wallets { try store.importWallet(w, policy: .skip, keyring: keyring) }
        let main = try store.wallet(named: "Main"), hidden = try store.wallet(named: "Hidden")
        #expect(main.fingerprint == "73c5da0a" && main.backup.isBackedUp && hidden.network == .testnet && !hidden.backup.isBackedUp)
        #expect(main.importedAccounts.map(\.address) == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(try store.secrets(of: hidden, keyring: keyring).passphrase == SecretBytes(utf8: "TREZOR"))
        #expect(try store.addresses(wallet: main, chain: .bitcoin, count: 1).first?.address == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
    }
}

@Suite("Export and import")
struct ExportImportTests {
    func exportAll(_ store: WalletStore, _ keyring: Keyring) throws -> URL {
        let url = temporaryFolder("export", suffix: ".hawala")
        let payload = try BackupPayload(app: "test", wallets: try store.exportWallets(names: nil, keyring: keyring), current: nil).encoded()
        try BackupFile.write(payload, to: url, password: testPassword, cost: .floor)
        return url
    }

    @Test func roundTripThroughAFile() throws {
        let (store, keyring) = try newStore()
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes(utf8: " spaced "), name: "Main", network: .mainnet, keyring: keyring)
        try store.importKey(try ImportedPrivateKey(text: SecretBytes(utf8: "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"), chain: .bitcoin), into: main, label: nil, keyring: keyring)
        try store.importKey(try ImportedPrivateKey(text: SecretBytes(utf8: "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"), chain: .bitcoinLegacy), into: main, label: "paper", keyring: keyring)
        try store.add(mnemonic: try Mnemonic.generate(wordCount: 24, language: .japanese), passphrase: SecretBytes([]), name: "日本", network: .testnet, keyring: keyring)
        let url = try exportAll(store, keyring)
        let payload = try BackupPayload.decode(try BackupFile.read(url, password: testPassword))
        // A download is read from memory the same way; damaged or foreign bytes are refused.
        let bytes = try Data(contentsOf: url)
        #expect(try BackupFile.read(bytes, password: testPassword) == (try BackupFile.read(url, password: testPassword)))
        #expect(throws: (any Error).self) { try BackupFile.read(bytes.prefix(bytes.count - 1), password: testPassword) }
        #expect(throws: HawalaFileError.self) { try BackupFile.read(Data("not a backup at all".utf8), password: testPassword) }
        let (other, otherKeyring) = try newStore()
        for w in payload.wallets { #expect(try other.importWallet(w, policy: .skip, keyring: otherKeyring) == .added(name: w.name)) }
        #expect(try store.wallet(named: "Main").importedAccounts.map(\.address) == ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "1GAehh7TsJAHuUAeKZcXf5CnwuGuGgyX2S"])
        for w in try store.list() {
            let copy = try other.wallet(named: w.name)
            #expect(copy.id == w.id && copy.network == w.network && copy.importedAccounts.map(\.address) == w.importedAccounts.map(\.address))
            #expect(copy.importedAccounts.map(\.compressed) == w.importedAccounts.map(\.compressed))
            let (m1, p1) = try store.secrets(of: w, keyring: keyring), (m2, p2) = try other.secrets(of: copy, keyring: otherKeyring)
            #expect(m1 == m2 && p1 == p2)
        }
    }

    /// The exit state travels sealed inside the file (payload format 2): it comes back exactly,
    /// a newer one reaches a wallet already here, an older one never replaces a newer; the
    /// file's AEAD refuses it altered or cut; a password change re-seals it.
    @Test func exitStatesComeBack() throws {
        let (store, keyring) = try newStore()
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let old = KeptExitState(network: "spark:mainnet", exportedAt: Date(timeIntervalSince1970: 1_795_000_000), valueSat: 1_000, leafCount: nil)
        try store.saveExitState(SecretBytes(utf8: "state one"), kept: old, walletID: main.id, keyring: keyring)
        let url = try exportAll(store, keyring)
        let payload = try BackupPayload.decode(try BackupFile.read(url, password: testPassword))
        #expect(try BackupFile.read(url, password: testPassword).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.contains("\"format\":2"))
        let carried = try #require(payload.wallets.first?.exitStates.first)
        #expect(carried.kept == old && carried.state == SecretBytes(utf8: "state one"))

        // A newer state on this device; the older file, restored over the same wallet, keeps it.
        let newer = KeptExitState(network: "spark:mainnet", exportedAt: Date(timeIntervalSince1970: 1_795_000_500), valueSat: 900, leafCount: 2)
        try store.saveExitState(SecretBytes(utf8: "state two"), kept: newer, walletID: main.id, keyring: keyring)
        #expect(try store.importWallet(payload.wallets[0], policy: .skip, keyring: keyring) == .skipped(name: "Main", existing: "Main"))
        #expect(try store.exitState(walletID: main.id, network: "spark:mainnet", keyring: keyring)?.state == SecretBytes(utf8: "state two"))
        // A new device that restored the words first gets the file's state with `skip`.
        let (other, otherKeyring) = try newStore()
        let restored = try other.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Phone", network: .mainnet, keyring: otherKeyring)
        #expect(try other.keptExitState(walletID: restored.id, network: "spark:mainnet") == nil)
        #expect(try other.importWallet(payload.wallets[0], policy: .skip, keyring: otherKeyring)
                == .completed(name: "Main", existing: "Phone", taken: ["its newer way-out state"]))
        #expect(try other.keptExitState(walletID: restored.id, network: "spark:mainnet") == old)
        #expect(try other.importWallet(payload.wallets[0], policy: .skip, keyring: otherKeyring) == .skipped(name: "Main", existing: "Phone"),
                "nothing left to take: skipped")
        #expect(try other.exitState(walletID: restored.id, network: "spark:mainnet", keyring: otherKeyring)?.state == SecretBytes(utf8: "state one"))
        // Re-sealed with the rest when the password changes.
        let changed = try other.changePassword(from: otherKeyring, to: SecretBytes(utf8: "another long password 9"), parameters: fastKDF())
        #expect(try other.exitState(walletID: restored.id, network: "spark:mainnet", keyring: changed)?.state == SecretBytes(utf8: "state one"))

        // Altered or cut anywhere after the header, the file is refused whole.
        var bytes = try Data(contentsOf: url)
        #expect(throws: (any Error).self) { try BackupFile.read(bytes.prefix(bytes.count - 20), password: testPassword) }
        bytes[bytes.count - 40] ^= 0x01
        #expect(throws: HawalaFileError.self) { try BackupFile.read(bytes, password: testPassword) }
        let malformed = #"{"format":2,"createdAt":"2026-01-01T00:00:00Z","app":"x","settings":{},"wallets":[{"name":"W","network":"mainnet","createdAt":"2026-01-01T00:00:00Z","language":"english","entropy":"00000000000000000000000000000000","importedAccounts":[],"exitStates":[{"network":"spark:mainnet","exportedAt":1,"state":"not base64!"}]}]}"#
        #expect(throws: HawalaFileError.invalidPayload("wallet \"W\": an exit state is malformed")) { try BackupPayload.decode(SecretBytes(utf8: malformed)) }
        let future = malformed.replacingOccurrences(of: #""format":2"#, with: #""format":3"#)
        #expect(throws: HawalaFileError.invalidPayload("unsupported payload format 3")) { try BackupPayload.decode(SecretBytes(utf8: future)) }
    }

    /// On-chain labels and frozen coins travel in the file and come back (to a new device, or
    /// to the same wallet restored from its words); a watch-only wallet is left out of a backup
    /// of every wallet (its public key makes it again); a malformed label refuses the file.
    @Test func onChainLabelsAndFrozenCoinsComeBack() throws {
        let (store, keyring) = try newStore()
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .testnet, keyring: keyring)
        let txid = String(repeating: "ab", count: 32)
        let kept = OnChainKept(labels: [.init(coin: "bitcoin", type: "addr", ref: "tb1qexample", label: "shop"), .init(coin: "litecoin", type: "tx", ref: txid, label: "rent ✓")],
                               frozen: [.init(coin: "litecoin", outpoint: txid + ":1")])
        try store.writeTransaction { db in try WalletStore.insert(kept, walletID: main.id, db: db) }
        let watchKey = try WatchOnlyKey(key: try HDWallet(mnemonic: try Mnemonic(text: abandonAbout)).accountExport(chain: .bitcoinTestnet).xpub)
        let watching = try store.addWatchOnly(watchKey, chain: .bitcoinTestnet, name: "Watch", keyring: keyring)
        #expect(try store.list().count == 2 && watching.kind == .watchOnly)
        #expect(throws: WalletError.watchOnly("Watch")) { try store.exportWallets(names: ["Watch"], keyring: keyring) }
        let payload = try BackupPayload.decode(try BackupFile.read(try exportAll(store, keyring), password: testPassword))
        #expect(payload.wallets.map(\.name) == ["Main"])
        #expect(payload.wallets[0].onChain == kept)

        let (other, otherKeyring) = try newStore()
        #expect(try other.importWallet(payload.wallets[0], policy: .skip, keyring: otherKeyring) == .added(name: "Main"))
        #expect(try other.onChainKept(walletID: try other.wallet(named: "Main").id) == kept)
        let (phone, phoneKeyring) = try newStore()
        let restored = try phone.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Phone", network: .testnet, keyring: phoneKeyring)
        #expect(try phone.importWallet(payload.wallets[0], policy: .skip, keyring: phoneKeyring)
                == .completed(name: "Main", existing: "Phone", taken: ["its on-chain labels"]))
        #expect(try phone.onChainKept(walletID: restored.id) == kept)

        let malformed = #"{"format":2,"createdAt":"2026-01-01T00:00:00Z","app":"x","settings":{},"wallets":[{"name":"W","network":"mainnet","createdAt":"2026-01-01T00:00:00Z","language":"english","entropy":"00000000000000000000000000000000","importedAccounts":[],"onChain":{"labels":[{"coin":"dogecoin","type":"tx","ref":"x","label":"y"}],"frozen":[]}}]}"#
        #expect(throws: HawalaFileError.invalidPayload("wallet \"W\": an on-chain label or frozen coin is malformed")) { try BackupPayload.decode(SecretBytes(utf8: malformed)) }
    }

    /// A payment with every field set (a new field left empty here fails the test that uses it).
    static let everyField = Payment(
        id: "c", type: .send, status: .failed, amountMsat: 21_000, feeMsat: 3, timestamp: Date(timeIntervalSince1970: 1_795_000_200.25),
        method: Payment.onChainMethod, backend: "spark",
        details: Payment.Details(invoice: "lnbc1…", description: "job 7", paymentHash: "01", preimage: "02", destination: "03",
                                 comment: "thanks", successAction: "{\"tag\":\"message\"}", txid: "04", address: "bc1q…", confirmations: 3),
        idempotencyKey: "connect:x:y", failureReason: "no route", fiat: Payment.FiatValue(currency: "USD", value: Decimal(string: "12.5")!),
        network: "spark:mainnet", connection: "compute-agent", heldUntil: Date(timeIntervalSince1970: 1_795_003_600))

    /// The Lightning history and settings travel with the wallet, exactly.
    @Test func paymentHistoryComesBack() throws {
        let (store, keyring) = try newStore()
        let main = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let payments = [
            Payment(id: "a", type: .receive, status: .completed, amountMsat: 1_500, feeMsat: 0, timestamp: Date(timeIntervalSince1970: 1_795_000_000.125),
                    backend: "devnet", details: Payment.Details(description: "tip ⚡", paymentHash: "ab", preimage: "cd", destination: "02ef"),
                    fiat: Payment.FiatValue(currency: "EUR", value: Decimal(string: "0.01")!)),
            Payment(id: "b", type: .send, status: .pending, amountMsat: 7, feeMsat: 1_001, timestamp: Date(timeIntervalSince1970: 1_795_000_100.5),
                    backend: "devnet", details: Payment.Details(invoice: "lnbcrt1…"), idempotencyKey: "k", failureReason: nil),
            Self.everyField,
        ]
        // Every field of a payment is set in `everyField`, so each one is checked by the round trip below.
        for (label, value) in Array(Mirror(reflecting: Self.everyField).children) + Array(Mirror(reflecting: Self.everyField.details).children) {
            let mirror = Mirror(reflecting: value)
            #expect(mirror.displayStyle != Mirror.DisplayStyle.optional || mirror.children.count == 1, "everyField leaves \(label ?? "?") empty")
        }
        try store.savePayments(payments, walletID: main.id)
        try store.setSetting("ln.backend", to: "devnet:/tmp/x", walletID: main.id)
        let url = try exportAll(store, keyring)
        let payload = try BackupPayload.decode(try BackupFile.read(url, password: testPassword))
        // A download is read from memory the same way; damaged or foreign bytes are refused.
        let bytes = try Data(contentsOf: url)
        #expect(try BackupFile.read(bytes, password: testPassword) == (try BackupFile.read(url, password: testPassword)))
        #expect(throws: (any Error).self) { try BackupFile.read(bytes.prefix(bytes.count - 1), password: testPassword) }
        #expect(throws: HawalaFileError.self) { try BackupFile.read(Data("not a backup at all".utf8), password: testPassword) }
        let (other, otherKeyring) = try newStore()
        _ = try other.importWallet(payload.wallets[0], policy: .skip, keyring: otherKeyring)
        #expect(try other.payments(walletID: main.id) == (try store.payments(walletID: main.id)))
        #expect(try other.payment(walletID: main.id, id: "c")?.connection == "compute-agent", "a restore remembers who paid")
        #expect(try other.setting("ln.backend", walletID: main.id) == "devnet:/tmp/x")
        // A malformed payment is refused by name, not imported half.
        let bad = #"{"format":1,"createdAt":"2026-01-01T00:00:00Z","app":"x","settings":{},"wallets":[{"name":"W","network":"mainnet","createdAt":"2026-01-01T00:00:00Z","language":"english","entropy":"00000000000000000000000000000000","importedAccounts":[],"payments":[{"id":"x","type":"gift","status":"completed","amountMsat":1,"feeMsat":0,"timestamp":1,"method":"lightning","backend":"devnet"}]}]}"#
        #expect(throws: HawalaFileError.invalidPayload("wallet \"W\": a payment is malformed")) { try BackupPayload.decode(SecretBytes(utf8: bad)) }
        let badFiat = bad.replacingOccurrences(of: #""type":"gift""#, with: #""type":"send","fiatCurrency":"EUR","fiatValue":"twelve""#)
        #expect(throws: HawalaFileError.invalidPayload("wallet \"W\": a payment's fiat value is not a decimal")) { try BackupPayload.decode(SecretBytes(utf8: badFiat)) }

        // The history exported to a file: atomic, never replacing unless asked, progress heard.
        let csv = temporaryFolder("history", suffix: ".csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        var heard = 0
        #expect(try PaymentExport.write(.csv, store: store, walletID: main.id, to: csv) { heard = $0 } == 3)
        let written = try Data(contentsOf: csv)
        #expect(heard == written.count && String(decoding: written, as: UTF8.self).hasPrefix(PaymentExport.csvHeader))
        #expect(throws: HawalaFileError.exists(path: csv.path)) { try PaymentExport.write(.json, store: store, walletID: main.id, to: csv) }
        #expect(try Data(contentsOf: csv) == written)
        #expect(try PaymentExport.write(.json, store: store, walletID: main.id, to: csv, replace: true) == 3)
        #expect(try Data(contentsOf: csv).first == UInt8(ascii: "["))
    }

    @Test func conflictsAreResolvedAsAsked() throws {
        let (store, keyring) = try newStore()
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let payload = try BackupPayload.decode(try BackupFile.read(try exportAll(store, keyring), password: testPassword))
        let incoming = payload.wallets[0]
        // Keep both is offered for name clashes only.
        #expect(ConflictPolicy.offered(sameWallet: true) == [.skip, .replace] && ConflictPolicy.offered(sameWallet: false).contains(.keepBoth))
        // Same keys: skip and keep-both keep it once (keep-both says why); replace swaps it in.
        #expect(try store.importWallet(incoming, policy: .skip, keyring: keyring) == .skipped(name: "Main", existing: "Main"))
        #expect(try store.importWallet(incoming, policy: .keepBoth, keyring: keyring) == .alreadyHere(name: "Main", existing: "Main"))
        try store.rename("Main", to: "Renamed")
        #expect(try store.importWallet(incoming, policy: .replace, keyring: keyring) == .replaced(name: "Main", existing: "Renamed"))
        #expect(try store.list().map(\.name) == ["Main"])
        // Same name, other keys.
        let stranger = WalletExport(name: "Main", network: .mainnet, createdAt: Date(), secret: .mnemonic(try Mnemonic.generate(), passphrase: SecretBytes([])),
                                    backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: [])
        #expect(try store.importWallet(stranger, policy: .skip, keyring: keyring) == .skipped(name: "Main", existing: "Main"))
        #expect(try store.importWallet(stranger, policy: .keepBoth, keyring: keyring) == .added(name: "Main (2)"))
        #expect(try store.list().count == 2)
        // Imports leave the current wallet alone; replacing the current wallet hands its place on.
        #expect(try store.current()?.name == "Main")
        let third = WalletExport(name: "Third", network: .mainnet, createdAt: Date(), secret: .mnemonic(try Mnemonic.generate(), passphrase: SecretBytes([])),
                                 backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: [])
        #expect(try store.importWallet(third, policy: .skip, keyring: keyring) == .added(name: "Third"))
        #expect(try store.current()?.name == "Main")
        let newMain = WalletExport(name: "Main", network: .mainnet, createdAt: Date(), secret: .mnemonic(try Mnemonic.generate(), passphrase: SecretBytes([])),
                                   backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: [])
        try store.use("Main (2)")
        #expect(try store.importWallet(newMain, policy: .replace, keyring: keyring) == .replaced(name: "Main", existing: "Main"))
        #expect(try store.current()?.name == "Main (2)", "replacing another wallet keeps the current one")
        try store.use("Main")
        let newest = WalletExport(name: "Main", network: .mainnet, createdAt: Date(), secret: .mnemonic(try Mnemonic.generate(), passphrase: SecretBytes([])),
                                  backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: [])
        #expect(try store.importWallet(newest, policy: .replace, keyring: keyring) == .replaced(name: "Main", existing: "Main"))
        #expect(try store.current()?.name == "Main" && store.current()?.id == newest.id, "the replacement takes the current wallet's place")
        // The same words on the other network are another wallet, never a conflict.
        let testnet = WalletExport(name: "Test", network: .testnet, createdAt: Date(), secret: newest.secret,
                                   backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: [])
        #expect(try store.conflicts(for: testnet).sameKeys == nil)
        #expect(try store.importWallet(testnet, policy: .skip, keyring: keyring) == .added(name: "Test"))
        #expect(try store.conflicts(for: testnet).sameKeys == "Test" && store.conflicts(for: newest).sameKeys == "Main")
    }

    @Test func exportIsAtomicAndReadBack() throws {
        let dir = temporaryFolder("atomic")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("b.hawala")
        try BackupFile.write(SecretBytes(utf8: "{}"), to: url, password: testPassword, cost: .floor)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["b.hawala"], "no temporary file left")
        // An unwritable folder fails cleanly and leaves nothing.
        #expect(throws: HawalaFileError.self) { try BackupFile.write(SecretBytes(utf8: "{}"), to: URL(fileURLWithPath: "/nonexistent/x.hawala"), password: testPassword, cost: .floor) }
    }

    /// Two exports into one folder at once, and a third file planted under the next name while
    /// they are written: each export gets a name of its own, taken when it is written
    /// (`-2`, `-3`…), each reads back whole, and nothing is replaced. (Before, both took the
    /// same free name, both said "verified", one file remained.)
    @Test func exportsIntoOneFolderEachGetAName() throws {
        let dir = temporaryFolder("exports")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        guard case .folder = try #require(BackupExporter.destination(dir, date: date)) else { Issue.record("a folder is a folder target"); return }
        let payloads = (0..<4).map { SecretBytes(utf8: "{\"n\": \($0)}") }
        let written = Mutex<[URL]>([])
        DispatchQueue.concurrentPerform(iterations: payloads.count) { i in
            if let url = try? BackupFile.export(payloads[i], to: .folder(dir, date: date), password: testPassword, cost: .floor) {
                written.withLock { $0.append(url) }
            }
        }
        let names = written.withLock { $0 }.map(\.lastPathComponent).sorted()
        #expect(names == ["hawala-backup-2027-01-15-2.hawala", "hawala-backup-2027-01-15-3.hawala", "hawala-backup-2027-01-15-4.hawala",
                          "hawala-backup-2027-01-15.hawala"], "\(names)")
        let contents = try written.withLock { $0 }.map { try BackupFile.read($0, password: testPassword) }
        #expect(Set(contents.map { String(decoding: $0.unsafeCopy(), as: UTF8.self) }) == Set(payloads.map { String(decoding: $0.unsafeCopy(), as: UTF8.self) }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 4, "no temporary file left")
        // A file that exists is never the target.
        #expect(BackupExporter.destination(dir.appendingPathComponent(names[0]), date: date) == nil)
    }

    /// A file planted under the final name while the backup is being written (another export,
    /// an attacker) is never replaced: the late writer fails, and leaves no temporary file.
    @Test func aNamePlantedMidwayIsNeverReplaced() throws {
        let dir = temporaryFolder("atomic")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("b.hawala")
        #expect(throws: HawalaFileError.exists(path: url.path)) {
            try AtomicFile.write(to: url, produce: { fd, _ in
                _ = write(fd, "new", 3)
                try Data("planted".utf8).write(to: url)
            })
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == "planted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["b.hawala"], "no temporary file left")
        // Replacing, when asked for, still works.
        try AtomicFile.write(SecretBytes(utf8: "replaced"), to: url, replace: true)
        #expect(try String(contentsOf: url, encoding: .utf8) == "replaced")
    }

    @Test func invalidPayloads() throws {
        for json in ["", "[]", "{\"format\": 2}", "{\"format\":1,\"createdAt\":\"x\"}"] {
            #expect(throws: HawalaFileError.self) { try BackupPayload.decode(SecretBytes(utf8: json)) }
        }
        // A wallet name is shown in the import preview: a file's terminal escape, bidi override,
        // empty or padded name is refused before anything prints it.
        func payload(name: String) throws -> SecretBytes {
            let quoted = String(decoding: try JSONEncoder().encode(name), as: UTF8.self)
            let wallet = #","network":"mainnet","createdAt":"2026-01-01T00:00:00Z","language":"english","entropy":"00000000000000000000000000000000","importedAccounts":[]}]}"#
            return SecretBytes(utf8: #"{"format":1,"createdAt":"2026-01-01T00:00:00Z","app":"x","settings":{},"wallets":[{"name":"# + quoted + wallet)
        }
        #expect(try BackupPayload.decode(payload(name: "Main")).wallets.map(\.name) == ["Main"])
        for hostile in ["a\u{1B}[2Jb", "pay \u{202E}cba", "", " Main", String(repeating: "x", count: 65)] {
            #expect(throws: HawalaFileError.self, "\(hostile.debugDescription)") { try BackupPayload.decode(payload(name: hostile)) }
        }
    }

}

@Suite("Import plan")
struct BackupImportPlanTests {
    /// The preview names each conflict before anything is written; `apply` follows the policy
    /// per wallet; the backup's current wallet becomes current only on a store without wallets.
    @Test func previewThenApply() throws {
        let (source, sourceKeyring) = try newStore()
        try source.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: sourceKeyring)
        try source.add(mnemonic: try Mnemonic(text: legalWinner), passphrase: SecretBytes([]), name: "Savings", network: .testnet, keyring: sourceKeyring)
        try source.add(mnemonic: try Mnemonic.generate(wordCount: 12), passphrase: SecretBytes([]), name: "Spare", network: .mainnet, keyring: sourceKeyring)
        try source.use("Savings")
        let (payload, count) = try BackupExporter.payload(store: source, keyring: sourceKeyring, names: nil, app: "test")
        #expect(count == 3)
        let decoded = try BackupPayload.decode(payload)

        // A new device: no conflicts, and the backup's current wallet is current.
        let fresh = try BackupImportPlan(payload: decoded, store: nil)
        #expect(fresh.conflicts.isEmpty)
        let main = try #require(fresh.rows.first { $0.wallet.name == "Main" })
        #expect(main.firstAddresses.map(\.chain.name) == ["bitcoin", "ethereum", "solana"])
        #expect(main.firstAddresses.first?.address == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(main.summary.hasPrefix("Main (mainnet, 12 words): bitcoin bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu, ethereum 0x"))
        #expect(try #require(fresh.rows.first { $0.wallet.name == "Savings" }).firstAddresses.first?.chain == .bitcoinTestnet)
        let (newDevice, newKeyring) = try newStore()
        _ = try fresh.apply(policies: [:], store: newDevice, keyring: newKeyring)
        #expect(try newDevice.current()?.name == "Savings")

        // A store that has the same Main under another name, and another wallet named Spare.
        let (store, keyring) = try newStore()
        try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Old main", network: .mainnet, keyring: keyring)
        try store.add(mnemonic: try Mnemonic.generate(wordCount: 12), passphrase: SecretBytes([]), name: "Spare", network: .mainnet, keyring: keyring)
        try store.use("Spare")
        let plan = try BackupImportPlan(payload: decoded, store: store)
        #expect(plan.conflicts.map(\.wallet.name) == ["Main", "Spare"])
        #expect(plan.conflicts.map(\.conflict) == [.sameWallet(existing: "Old main"), .sameName])
        #expect(plan.conflicts.map { "\($0.conflict!)" } == ["the same wallet is already here as \"Old main\"", "another wallet here has the same name"])
        #expect(plan.conflicts[0].conflict?.offered == [.skip, .replace] && plan.conflicts[1].conflict?.offered == [.skip, .keepBoth, .replace])
        #expect(try store.list().count == 2, "a plan writes nothing")
        // One conflict at a time; keeping the same wallet twice is refused and asked again.
        var resolution = ConflictResolution(plan: plan)
        #expect(resolution.state == .asking(name: "Main", conflict: .sameWallet(existing: "Old main")))
        #expect(resolution.choose(.keepBoth) == .refused(.notOffered(.keepBoth, offered: [.skip, .replace])))
        #expect(resolution.choose(.skip) == .taken && resolution.state == .asking(name: "Spare", conflict: .sameName))
        #expect(resolution.choose(.keepBoth) == .taken && resolution.state == .resolved)
        #expect(resolution.choose(.skip) == .refused(.notApplicable))
        #expect(resolution.policies == ["Main": .skip, "Spare": .keepBoth])
        #expect(ConflictResolution(plan: plan, policy: .replace).policies == ["Main": .replace, "Spare": .replace])
        #expect(ConflictResolution(plan: fresh).state == .resolved)
        let outcomes = try plan.apply(policies: resolution.policies, store: store, keyring: keyring)
        #expect(outcomes == [.skipped(name: "Main", existing: "Old main"), .added(name: "Savings"), .added(name: "Spare (2)")])
        #expect(try store.current()?.name == "Spare", "the current wallet here stays current")
    }
}

