import Foundation
import HawalaTestSupport
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet
import Testing

@Suite("Crash safety and secrets", .serialized)
struct CrashAndSecretTests {
    /// Starts hawala and kills it with SIGKILL after `delay` seconds (or lets it finish first).
    static func runKilled(_ arguments: [String], environment: [String: String], after delay: TimeInterval) throws {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(useconds_t(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// ≥ 50 trials: create, import-key and change-password killed at random moments. Afterwards
    /// the store opens, exactly one of the two passwords unlocks it, and every wallet and
    /// imported key opens and derives what the store lists.
    @Test func killedAtRandomMomentsLeavesOldOrNewState() throws {
        let f = try WalletFixture()
        let passwords = [f.path("password"), try f.write("password2", "second password here")]
        let passwordTexts = [f.password, "second password here"]
        #expect(try f.restoreAbandon().status == 0)
        var current = 0
        var generator = SystemRandomNumberGenerator()
        var completed = 0
        for trial in 0..<54 {
            let delay = Double.random(in: 0...0.45, using: &generator)
            switch trial % 3 {
            case 0:
                try Self.runKilled(["wallet", "create", "--network", "mainnet", "--skip-backup", "--password-file", passwords[current]],
                                   environment: f.environment, after: delay)
            case 1:
                let key = try f.write("key\(trial)", hexString(SystemRandom.bytes(32)))
                try Self.runKilled(["wallet", "import-key", "--chain", "ethereum", "--key-file", key, "--password-file", passwords[current]], environment: f.environment, after: delay)
            default:
                try Self.runKilled(["wallet", "change-password", "--password-file", passwords[current], "--new-password-file", passwords[1 - current]],
                                   environment: f.environment, after: delay)
            }
            // Check the store as a new process would.
            let store = try WalletStore(home: WalletHome(directory: f.data), create: false)
            let unlocked = passwordTexts.enumerated().compactMap { i, p in (try? store.unlock(password: SecretBytes(utf8: p))).map { (i, $0) } }
            #expect(unlocked.count == 1, "trial \(trial): \(unlocked.count) passwords unlock the store")
            guard let (index, keyring) = unlocked.first else { return }
            if index != current { completed += 1 }
            current = index
            for wallet in try store.list() {
                let (mnemonic, passphrase) = try store.secrets(of: wallet, keyring: keyring)
                let expected = try HDWallet(mnemonic: mnemonic, passphrase: passphrase).addresses(chain: .bitcoin, count: 1)
                #expect(try store.addresses(wallet: wallet, chain: .bitcoin, count: 1) == expected, "trial \(trial)")
                for account in wallet.importedAccounts {
                    let secret = try store.importedKey(account, keyring: keyring)
                    let key = try ImportedPrivateKey(text: SecretBytes(utf8: hexString(secret.unsafeCopy())), chain: .ethereum)
                    #expect(key.address == account.address, "trial \(trial)")
                }
            }
        }
        // Not a requirement of safety, but a sign the kills landed at different moments.
        print("crash test: \(completed) password changes completed out of 18")
    }

    /// Every command with --log-level trace: no mnemonic, passphrase, password, seed or private
    /// key in any output or any file but the (sealed) database — and not in the database either.
    @Test func noSecretsInOutputsOrFiles() throws {
        let f = try WalletFixture()
        let mnemonic = try Mnemonic.generate(wordCount: 12)
        let phrase = mnemonic.phrase
        let passphraseText = "passphrase-\(UUID().uuidString)"
        let privateKeyHex = hexString(SystemRandom.bytes(32))
        let mnemonicFile = try f.write("words", phrase + "\n")
        let passphraseFile = try f.write("passphrase", passphraseText)
        let keyFile = try f.write("key", privateKeyHex)
        let newPasswordFile = try f.write("new", "another long password")
        let seedHex = hexString(mnemonic.seed(passphrase: SecretBytes(utf8: passphraseText)).unsafeCopy())
        let entropyHex = hexString(mnemonic.entropy().unsafeCopy())
        let secrets = [phrase, mnemonic.words.prefix(3).joined(separator: " "), passphraseText, f.password, "another long password",
                       privateKeyHex, seedHex, entropyHex]

        let t = ["--log-level", "trace"]
        let commands: [[String]] = [
            t + ["wallet", "restore", "--name", "S", "--mnemonic-file", mnemonicFile, "--passphrase-file", passphraseFile, "--password-file", f.path("password"), "--yes"],
            t + ["wallet", "create", "--skip-backup", "--passphrase-file", passphraseFile, "--password-file", f.path("password")],
            t + ["wallet", "list", "--json"],
            t + ["wallet", "status", "--json"],
            t + ["wallet", "use", "S"],
            t + ["wallet", "addresses", "--count", "3", "--json"],
            t + ["wallet", "import-key", "--chain", "ethereum", "--key-file", keyFile, "--password-file", f.path("password")],
            t + ["wallet", "change-password", "--password-file", f.path("password"), "--new-password-file", newPasswordFile],
            t + ["wallet", "show-seed", "--reveal", "--password-file", f.path("password")],  // wrong password now
            t + ["wallet", "rename", "S", "T"],
            t + ["wallet", "delete", "T", "--yes", "--password-file", newPasswordFile],
            t + ["derive", "--chain", "bitcoin", "--passphrase-file", passphraseFile],
            t + ["xpub", "--chain", "bitcoin"],
            t + ["mnemonic", "validate"],
        ]
        var captured = ""
        for command in commands {
            let r = try f.run(command, stdin: phrase + "\n")
            captured += r.stdout + r.stderr
        }
        #expect(captured.contains("trace") || captured.contains("debug"), "the trace level produced no log lines")
        // Every file Hawala wrote (the secret inputs live elsewhere, under secrets/).
        let files = FileManager.default.enumerator(atPath: f.data.path)?.compactMap { $0 as? String } ?? []
        #expect(files.contains("wallets.sqlite"))
        for file in files {
            guard let data = FileManager.default.contents(atPath: f.data.appendingPathComponent(file).path) else { continue }
            captured += String(decoding: data, as: UTF8.self)
        }
        for secret in secrets {
            #expect(!captured.contains(secret), "a secret leaked: \(secret.prefix(8))…")
        }
    }
}
