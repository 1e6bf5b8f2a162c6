import HawalaFormat
import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

/// The JSON inside a `.hawala` file (payload format 2, docs/hawala-format.md; format 1, without
/// exit states and on-chain details, still reads).
struct BackupPayloadJSON: Codable {
    var format: Int
    var createdAt: Date
    var app: String
    var wallets: [Wallet]
    var settings: Settings

    struct Wallet: Codable {
        var name: String
        var network: String
        var createdAt: Date
        /// BIP39 wallets: the word list and the entropy (hex). Seed wallets: `seed` (hex) instead.
        var language: String?
        var entropy: String?
        var seed: String?
        var passphrase: String?
        var backedUpAt: Date?
        var lastVerifiedAt: Date?
        var importedAccounts: [Imported]
        /// Lightning history and per-wallet settings (absent in files written before them).
        var payments: [Payment]?
        var settings: [String: String]?
        /// The newest unilateral-exit state of each Lightning network (format 2).
        var exitStates: [ExitStateJSON]?
        /// On-chain labels (BIP-329 type, ref, label, per coin) and frozen coins (absent before them).
        var onChain: OnChainKept?
    }

    struct ExitStateJSON: Codable {
        var network: String
        /// Seconds since 1970, fractional.
        var exportedAt: Double
        var valueSat: UInt64?
        var leafCount: Int?
        /// The backend's state, base64 (Spark: the SDK's `exportUnilateralExitState`, as given).
        var state: String
    }

    struct Imported: Codable {
        var chain: String
        var key: String
        var label: String?
        var importedAt: Date
        /// Present (false) only for a legacy key imported uncompressed; absent means compressed.
        var compressed: Bool?
    }

    struct Settings: Codable {
        var current: String?
    }
}

/// What a backup holds, decoded: wallets with their secrets and the current wallet's name.
public struct BackupPayload: Sendable {
    public static let format = 2
    /// Formats this Hawala reads: 1 (before exit states) and 2.
    public static let readableFormats = 1...2
    /// A bound on the payload a reader holds in memory (wallets are kilobytes; a Lightning
    /// history is about 1 KiB a payment).
    public static let maximumBytes = HawalaFormat.maximumPayloadBytes

    public let createdAt: Date
    public let app: String
    public let wallets: [WalletExport]
    public let current: String?

    public init(createdAt: Date = Date(), app: String, wallets: [WalletExport], current: String?) {
        self.createdAt = createdAt
        self.app = app
        self.wallets = wallets
        self.current = current
    }

    /// UTF-8 JSON, as a secret.
    public func encoded() throws -> SecretBytes {
        let json = BackupPayloadJSON(
            format: BackupPayload.format, createdAt: createdAt, app: app,
            wallets: wallets.map { w in
                BackupPayloadJSON.Wallet(
                    name: w.name, network: w.network.rawValue, createdAt: w.createdAt, language: w.secret.mnemonic?.language.rawValue,
                    entropy: w.secret.mnemonic.map { hexString($0.entropy().unsafeCopy()) },
                    seed: { if case let .seed(seed) = w.secret { hexString(seed.unsafeCopy()) } else { nil } }(),
                    passphrase: w.secret.passphrase.isEmpty ? nil : Data(w.secret.passphrase.unsafeCopy()).base64EncodedString(),
                    backedUpAt: w.backedUpAt, lastVerifiedAt: w.lastVerifiedAt,
                    importedAccounts: w.importedAccounts.map {
                        BackupPayloadJSON.Imported(chain: $0.chain, key: hexString($0.key.unsafeCopy()), label: $0.label, importedAt: $0.importedAt,
                                                   compressed: $0.compressed ? nil : false)
                    },
                    payments: w.payments.isEmpty ? nil : w.payments,
                    settings: w.settings.isEmpty ? nil : w.settings,
                    exitStates: w.exitStates.isEmpty ? nil : w.exitStates.map { e in
                        BackupPayloadJSON.ExitStateJSON(network: e.kept.network, exportedAt: e.kept.exportedAt.timeIntervalSince1970,
                                                        valueSat: e.kept.valueSat?.value, leafCount: e.kept.leafCount,
                                                        state: Data(e.state.unsafeCopy()).base64EncodedString())
                    },
                    onChain: w.onChain.isEmpty ? nil : w.onChain)
            },
            settings: .init(current: current))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(json)
        defer { data.resetBytes(in: 0..<data.count) }
        return SecretBytes(data)
    }

    /// Parses and checks the JSON of an authenticated payload.
    /// - Throws: `HawalaFileError.invalidPayload` naming what is wrong.
    public static func decode(_ payload: SecretBytes) throws -> BackupPayload {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let json: BackupPayloadJSON
        do {
            json = try payload.withUnsafeBytes { try decoder.decode(BackupPayloadJSON.self, from: Data($0)) }
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.contains(where: { $0.stringValue == "payments" }) {
            // A payment that reads as JSON but not as a payment (`Payment`'s file form): said
            // with its wallet's name.
            throw HawalaFileError.invalidPayload("wallet \"\(Self.walletName(at: context.codingPath, in: payload))\": \(context.debugDescription)")
        } catch {
            throw HawalaFileError.invalidPayload("the payload is not valid backup JSON")
        }
        guard readableFormats.contains(json.format) else { throw HawalaFileError.invalidPayload("unsupported payload format \(json.format)") }
        let wallets = try json.wallets.map { w -> WalletExport in
            // A name is printed in the import preview and kept in the store: the store's rule
            // applies, so no escape sequence from a file ever reaches a screen.
            guard (try? WalletStore.validKeptName(w.name)) == w.name else {
                throw HawalaFileError.invalidPayload("a wallet name is empty, longer than 64 characters, padded or holds control characters")
            }
            guard let network = Network(rawValue: w.network) else { throw HawalaFileError.invalidPayload("unknown network \(w.network)") }
            let secret = try Self.secret(of: w)
            let imported = try w.importedAccounts.map { a -> ImportedAccountExport in
                guard var key = bytes(fromHex: a.key), key.count == 32 else { throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": an imported key is malformed") }
                defer { SecretBytes.wipe(&key) }
                return ImportedAccountExport(chain: a.chain, key: SecretBytes(key), label: a.label, importedAt: a.importedAt, compressed: a.compressed ?? true)
            }
            let exitStates = try (w.exitStates ?? []).map { e -> ExitStateExport in
                guard e.exportedAt.isFinite, !e.network.isEmpty, e.network.count <= 4096, var state = Data(base64Encoded: e.state) else {
                    throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": an exit state is malformed")
                }
                defer { state.resetBytes(in: 0..<state.count) }
                return ExitStateExport(kept: KeptExitState(network: e.network, exportedAt: Date(timeIntervalSince1970: e.exportedAt),
                                                           valueSat: e.valueSat.map { Sats(clamping: $0) }, leafCount: e.leafCount),
                                       state: SecretBytes(state))
            }
            return WalletExport(name: w.name, network: network, createdAt: w.createdAt, secret: secret,
                                backedUpAt: w.backedUpAt, lastVerifiedAt: w.lastVerifiedAt, importedAccounts: imported,
                                payments: w.payments ?? [], settings: w.settings ?? [:], exitStates: exitStates, onChain: try Self.onChain(w))
        }
        return BackupPayload(createdAt: json.createdAt, app: json.app, wallets: wallets, current: json.settings.current)
    }

    /// A wallet's on-chain labels and frozen coins, within the bounds the store keeps.
    static func onChain(_ w: BackupPayloadJSON.Wallet) throws -> OnChainKept {
        let kept = w.onChain ?? OnChainKept()
        let coins: Set<String> = ["bitcoin", "litecoin"]
        guard kept.labels.count + kept.frozen.count <= 1_000_000,
              kept.labels.allSatisfy({ coins.contains($0.coin) && $0.type.utf8.count <= 16 && $0.ref.utf8.count <= 200 && $0.label.unicodeScalars.count <= 255 }),
              kept.frozen.allSatisfy({ coins.contains($0.coin) && $0.outpoint.utf8.count <= 80 }) else {
            throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": an on-chain label or frozen coin is malformed")
        }
        return kept
    }

    /// A wallet's words (entropy, word list, passphrase) or seed, as the file holds them.
    static func secret(of w: BackupPayloadJSON.Wallet) throws -> WalletSecret {
        switch (w.language, w.entropy, w.seed) {
        case let (language?, entropyHex?, nil):
            guard let language = Language(rawValue: language) else { throw HawalaFileError.invalidPayload("unknown word list \(language)") }
            guard var entropy = bytes(fromHex: entropyHex) else { throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": entropy is not hex") }
            defer { SecretBytes.wipe(&entropy) }
            let mnemonic: Mnemonic
            do { mnemonic = try Mnemonic(entropy: SecretBytes(entropy), language: language) } catch {
                throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": invalid entropy")
            }
            var passphrase = SecretBytes([])
            if let p = w.passphrase {
                guard let data = Data(base64Encoded: p) else { throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": passphrase is not base64") }
                passphrase = SecretBytes(data)
            }
            return .mnemonic(mnemonic, passphrase: passphrase)
        case let (nil, nil, seedHex?):
            guard var seed = bytes(fromHex: seedHex), (16...64).contains(seed.count), w.passphrase == nil else {
                throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": the seed must be 16 to 64 bytes of hex")
            }
            defer { SecretBytes.wipe(&seed) }
            return .seed(SecretBytes(seed))
        default:
            throw HawalaFileError.invalidPayload("wallet \"\(w.name)\": needs either a word list and entropy or a seed")
        }
    }

    /// The name of the wallet `path` (wallets, index, …) leads into, read on its own.
    static func walletName(at path: [any CodingKey], in payload: SecretBytes) -> String {
        struct Names: Decodable {
            struct Named: Decodable { var name: String? }
            var wallets: [Named]
        }
        guard path.count > 1, path[0].stringValue == "wallets", let index = path[1].intValue,
              let names = try? payload.withUnsafeBytes({ try JSONDecoder().decode(Names.self, from: Data($0)) }),
              names.wallets.indices.contains(index), let name = names.wallets[index].name, (try? WalletStore.validKeptName(name)) == name else { return "?" }
        return name
    }
}
