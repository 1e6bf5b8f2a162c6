#if os(Linux)
import CMalloc
#endif
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet
import HawalaBackup

// `hawala-bench make-fixture DIR`: the schema-v1 fixture of Tests/HawalaWalletTests/Fixtures
// (one wallet of the "abandon … about" words, password "correct horse", 8 MiB / 1 pass).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "make-fixture" {
    let store = try WalletStore(home: WalletHome(directory: URL(fileURLWithPath: CommandLine.arguments[2])), create: true)
    let keyring = try store.newKeyring(password: SecretBytes(utf8: "correct horse"), parameters: KDFParameters(passes: 1, memoryKiB: 8192))
    let words = try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
    let wallet = try store.add(secret: .mnemonic(words, passphrase: SecretBytes(utf8: "TREZOR")), name: "Fixture v1", network: .mainnet, keyring: keyring,
                               now: Date(timeIntervalSince1970: 1_795_000_000))
    try store.recordBackup(of: wallet, at: Date(timeIntervalSince1970: 1_795_000_000))
    let key = try ImportedPrivateKey(text: SecretBytes(utf8: "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"), chain: .ethereum)
    try store.importKey(key, into: wallet, label: "fixture", keyring: keyring, now: Date(timeIntervalSince1970: 1_795_000_000))
    exit(0)
}

// `hawala-bench make-backup-fixture FILE`: the version-1 .hawala fixture of
// Tests/HawalaBackupTests/Fixtures (password "fixture password v1", Argon2id floor cost).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "make-backup-fixture" {
    let when = Date(timeIntervalSince1970: 1_795_000_000)
    let words = try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
    let key = ImportedAccountExport(chain: "ethereum", key: SecretBytes(bytes(fromHex: "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")!), label: "hot", importedAt: when)
    let wallets = [
        WalletExport(name: "Main", network: .mainnet, createdAt: when, secret: .mnemonic(words, passphrase: SecretBytes([])), backedUpAt: when, lastVerifiedAt: when, importedAccounts: [key]),
        WalletExport(name: "Hidden", network: .testnet, createdAt: when, secret: .mnemonic(words, passphrase: SecretBytes(utf8: "TREZOR")), backedUpAt: nil, lastVerifiedAt: nil, importedAccounts: []),
    ]
    let payload = try BackupPayload(createdAt: when, app: "hawala 0.1.0", wallets: wallets, current: "Main").encoded()
    try BackupFile.write(payload, to: URL(fileURLWithPath: CommandLine.arguments[2]), password: SecretBytes(utf8: "fixture password v1"), cost: .floor, createdAt: when, replace: true)
    exit(0)
}

#if os(Linux)
hawala_tune_malloc()  // as the executables measured do
#endif

// `hawala-bench stream MIB FILE`: .hawala export then import of MIB MiB (KDF excluded), with
// throughput and this process's peak resident memory.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "stream", let mib = Int(CommandLine.arguments[2]) {
    let path = CommandLine.arguments[3]
    let password = SecretBytes(utf8: "benchmark backup password")
    var piece = [UInt8](repeating: 0, count: 1 << 20)
    SystemRandom.fill(&piece)
    let out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    // As BackupFile does: writes on a background thread.
    let sink = BackgroundSink(FileDescriptorStream(fd: out))
    let writer = try HawalaFileWriter(sink: sink, password: password, cost: .floor)
    var start = Date()
    for _ in 0..<mib { try writer.write(piece) }
    try writer.finish()
    try sink.finish()
    let encrypt = Date().timeIntervalSince(start)
    close(out)
    let input = open(path, O_RDONLY)
    let reader = try HawalaFileReader(source: FileDescriptorStream(fd: input), password: password)
    start = Date()
    var total = 0
    while let chunk = try reader.nextChunk() { total += chunk.count }
    let decrypt = Date().timeIntervalSince(start)
    close(input)
    unlink(path)
    precondition(total == mib << 20)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let rate = { (seconds: Double) in Double(mib) * 1.048576 / seconds }  // MB/s
    print(String(format: "%5d MiB: export %7.0f MB/s, import %7.0f MB/s, peak RSS %5.1f MiB",
                 mib, rate(encrypt), rate(decrypt), Double(usage.ru_maxrss) / 1024))
    exit(0)
}

// `hawala-bench gcm`: AES-256-GCM seal and open of 64 KiB chunks alone (swift-crypto), MB/s.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "gcm" {
    let key = SystemRandom.secret(count: 32)
    let nonce = [UInt8](repeating: 1, count: 12)
    var chunk = [UInt8](repeating: 0, count: 65536)
    SystemRandom.fill(&chunk)
    var start = Date()
    var sealed = [UInt8]()
    for _ in 0..<8192 { sealed = try AESGCM.seal(chunk, key: key, nonce: nonce) }
    let seal = Date().timeIntervalSince(start)
    start = Date()
    for _ in 0..<8192 { _ = try AESGCM.open(sealed, key: key, nonce: nonce) }
    let open = Date().timeIntervalSince(start)
    print(String(format: "AES-256-GCM 64 KiB: seal %.0f MB/s, open %.0f MB/s", 536.870912 / seal, 536.870912 / open))
    exit(0)
}

// `hawala-bench sha256-1mib`: SHA-256 over 1 MiB blobs, per second, on all cores: the ceiling
// that checking every vault download's hash puts on download throughput (scripts/bench-vault.sh).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "sha256-1mib" {
    let blob = {
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        SystemRandom.fill(&bytes)
        return bytes
    }()
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let perCore = 1500
    let start = Date()
    DispatchQueue.concurrentPerform(iterations: cores) { _ in
        for _ in 0..<perCore { _ = Hash.sha256(blob) }
    }
    print(String(format: "%.0f", Double(cores * perCore) / Date().timeIntervalSince(start)))
    exit(0)
}

// `hawala-bench bolt11 FILE`: BOLT11 decoding with signature checks on one core, invoices/s,
// over the invoices in FILE (one per line).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "bolt11" {
    let invoices = try String(contentsOfFile: CommandLine.arguments[2], encoding: .utf8).split(separator: "\n").map(String.init)
    var decoded = 0
    let start = Date()
    while Date().timeIntervalSince(start) < 3 {
        for invoice in invoices { _ = try Bolt11Invoice(invoice); decoded += 1 }
    }
    print(String(format: "BOLT11 decode + signature check, 1 core: %.0f invoices/s", Double(decoded) / Date().timeIntervalSince(start)))
    // The ceiling: libsecp256k1's public-key recovery alone, same run.
    let key = SystemRandom.secret(count: 32)
    let signed = try (0..<64).map { _ in
        let digest = SystemRandom.bytes(32)
        return (digest, try Secp256k1.signRecoverable(digest: digest, privateKey: key))
    }
    var recovered = 0
    let recoveryStart = Date()
    while Date().timeIntervalSince(recoveryStart) < 3 {
        for (digest, signature) in signed { _ = Secp256k1.recover(signature, digest: digest); recovered += 1 }
    }
    print(String(format: "libsecp256k1 ecdsa_recover alone, 1 core: %.0f/s", Double(recovered) / Date().timeIntervalSince(recoveryStart)))
    exit(0)
}

// `hawala-bench populate-wallets DIR N`: a wallet store with N wallets (password
// "benchmark password", default KDF parameters) for timing the CLI on it.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "populate-wallets", let n = Int(CommandLine.arguments[3]) {
    let store = try WalletStore(home: WalletHome(directory: URL(fileURLWithPath: CommandLine.arguments[2])), create: true)
    let keyring = try store.hasPassword()
        ? try store.unlock(password: SecretBytes(utf8: "benchmark password"))
        : try store.newKeyring(password: SecretBytes(utf8: "benchmark password"))
    for _ in 0..<n {
        let wallet = try store.add(mnemonic: try Mnemonic.generate(), passphrase: SecretBytes([]), name: nil, network: .mainnet, keyring: keyring)
        try store.recordBackup(of: wallet)
    }
    exit(0)
}

// `hawala-bench populate-payments DIR N`: N Lightning payments (invoice, description, hashes,
// mixed types and statuses) in the current wallet of the store at DIR, for `ln history` and
// `ln export` timings.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "populate-payments", let n = Int(CommandLine.arguments[3]) {
    let store = try WalletStore(home: WalletHome(directory: URL(fileURLWithPath: CommandLine.arguments[2])), create: false)
    guard let wallet = try store.current() else { print("no wallet in the store"); exit(1) }
    let invoice = "lnbcrt25u1p4s89u9pp59tjz9waycs2yzj47r0mddp8w6gxm7tlgd5g5408x5j7h6jc56khssp5zk9s6zc885rxgje846cfq06azcexsa0wjskj9xrszm5vphgxjueqdq2vdhkven9v59qrsgqvapvve80s2upc3rzns2np3txz20gx0a2m6u28m6xh6dnse95d2ljlw5f06dgwesade3ml3sekcjd9t5p036n57z7xhx05ghnrpefxuqpmlu4dv"
    let start = Date().timeIntervalSince1970 - Double(n) * 60
    var batch: [Payment] = []
    for i in 0..<n {
        let send = i % 3 != 0
        batch.append(Payment(
            id: hexString(SystemRandom.bytes(16)), type: send ? .send : .receive, status: i % 50 == 0 ? .failed : .completed,
            amountMsat: Msat(clamping: UInt64(1_000 * (1 + i % 100_000))), feeMsat: send ? Msat(clamping: 1_000 + UInt64(i % 1_000)) : .zero, timestamp: Date(timeIntervalSince1970: start + Double(i) * 60),
            backend: "devnet",
            details: Payment.Details(invoice: invoice, description: "payment number \(i), for coffee", paymentHash: hexString(SystemRandom.bytes(32)),
                                     preimage: hexString(SystemRandom.bytes(32)), destination: "02" + hexString(SystemRandom.bytes(32))),
            idempotencyKey: send ? "bench:\(i)" : nil, fiat: Payment.FiatValue(currency: "USD", value: Decimal(i % 1000) / 100)))
        if batch.count == 10_000 {
            try store.savePayments(batch, walletID: wallet.id)
            batch.removeAll(keepingCapacity: true)
        }
    }
    try store.savePayments(batch, walletID: wallet.id)
    exit(0)
}

// Throughput figures for `make bench` (release build). Each figure runs for about `seconds`.
// `hawala-bench seed-figures`: seed 003's success metrics, in process as an app sees them —
// wallet initialization (unlock + open the Lightning backend, signing) < 2 s, payment preview
// (parse + prepare a received invoice) < 1 s, payment execution < 5 s on average — on devnet,
// and on Spark regtest as far as it answers offline; Argon2id alone is the reference.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "onchain" {
    try OnChainFigures.selection()
    try OnChainFigures.signing()
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "onchain-sync" {
    try await OnChainFigures.sync(url: CommandLine.arguments[2], cookie: CommandLine.arguments[3])
    exit(0)
}

if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "seed-figures" {
    try await SeedFigures.run()
    exit(0)
}

let seconds = Double(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "3") ?? 3
let cores = ProcessInfo.processInfo.activeProcessorCount

/// `BENCH_ONLY=text` runs only the figures whose label contains `text` (for profiling one).
let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]

func measure(_ label: String, unit: String, _ body: () throws -> Int) rethrows -> Double {
    if let only, !label.contains(only) { return 0 }
    _ = try body()  // warm up
    var done = 0
    let start = Date()
    while Date().timeIntervalSince(start) < seconds { done += try body() }
    let rate = Double(done) / Date().timeIntervalSince(start)
    print(String(format: "%-46@ %12.0f %@/s", label as NSString, rate, unit as NSString))
    return rate
}

let mnemonic = try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
let passphrase = SecretBytes(utf8: "TREZOR")
let wallet = HDWallet(mnemonic: mnemonic)
let master = try wallet.masterKey()
let branch = try master.derive(path: DerivationPath("m/84'/0'/0'")).publicKey.derive(ChildNumber(0, hardened: false))

print("hawala-bench: \(cores) cores, \(Int(seconds)) s per figure")
_ = measure("mnemonic -> seed (PBKDF2-SHA512, 2048)", unit: "seeds") {
    _ = mnemonic.seed(passphrase: passphrase)
    return 1
}
var next: UInt32 = 0
_ = try measure("BIP84 addresses from account xpub, 1 core", unit: "addr") {
    for _ in 0..<200 {
        let key = try branch.childKey(next)
        _ = try Address.encode(secp256k1: key, format: Chain.bitcoin.addressFormat)
        next &+= 1
    }
    return 200
}
_ = try measure("BIP84 addresses, all cores (HDWallet.addresses)", unit: "addr") {
    try wallet.addresses(chain: .bitcoin, from: 0, count: 20_000).count
}
_ = try measure("Solana addresses (SLIP-10), all cores", unit: "addr") {
    try wallet.addresses(chain: .solana, from: 0, count: 2_000).count
}
_ = try measure("Cardano base addresses (CIP-1852), all cores", unit: "addr") {
    try wallet.addresses(chain: .cardano, from: 0, count: 2_000).count
}
_ = try measure("secp256k1 P + t·G alone (BIP32 step), 1 core", unit: "ops") {
    let tweak = [UInt8](repeating: 0x11, count: 32)
    for _ in 0..<200 { _ = try branch.key.adding(tweak: tweak) }
    return 200
}
_ = try measure("secp256k1 P + t·G alone (BIP32 step), all cores", unit: "ops") {
    let tweak = [UInt8](repeating: 0x11, count: 32)
    let key = branch.key
    DispatchQueue.concurrentPerform(iterations: cores) { _ in
        for _ in 0..<1000 { _ = try? key.adding(tweak: tweak) }
    }
    return 1000 * cores
}

// Unlocking the wallet store against libsodium's Argon2id with the same parameters.
if only == nil || "unlock".contains(only!) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = try WalletStore(home: WalletHome(directory: dir), create: true)
    let password = SecretBytes(utf8: "benchmark password")
    let keyring = try store.newKeyring(password: password)
    try store.add(mnemonic: mnemonic, passphrase: SecretBytes([]), name: "Bench", network: .mainnet, keyring: keyring)
    let p = keyring.parameters
    func median(_ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<7 {
            let t = Date()
            try body()
            times.append(Date().timeIntervalSince(t))
        }
        return times.sorted()[3]
    }
    var kdf = 0.0, unlock = 0.0
    // Interleaved so both see the same machine.
    for _ in 0..<2 {
        kdf += try median { _ = try Sodium.argon2id(password: password, salt: p.salt, opsLimit: p.passes, memLimitBytes: p.memoryKiB * 1024) }
        unlock += try median { _ = try store.unlock(password: password) }
    }
    print(String(format: "%-46@ %9.1f ms", "libsodium Argon2id (\(p.memoryKiB / 1024) MiB, \(p.passes) passes)" as NSString, kdf / 2 * 1000))
    print(String(format: "%-46@ %9.1f ms  (%.3f x Argon2id)", "wallet store unlock" as NSString, unlock / 2 * 1000, unlock / kdf))
}
