import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// The preview of importing a backup's wallets into a store, before anything is written: each
/// wallet with its first addresses and its conflict with a wallet already here, if any. A
/// front end shows the rows, asks a `ConflictPolicy` for each conflict, then `apply`s.
public struct BackupImportPlan: Sendable {
    /// How an incoming wallet meets one already here.
    public enum Conflict: Sendable, Equatable, CustomStringConvertible {
        /// The same wallet (words, passphrase and network) is here under `existing`.
        case sameWallet(existing: String)
        /// Another wallet here has the same name.
        case sameName

        /// The policies that mean something for this conflict.
        public var offered: [ConflictPolicy] { ConflictPolicy.offered(sameWallet: self != .sameName) }

        public var description: String {
            switch self {
            case .sameWallet(let existing): "the same wallet is already here as \"\(existing)\""
            case .sameName: "another wallet here has the same name"
            }
        }
    }

    public struct Row: Sendable {
        public let wallet: WalletExport
        /// The first addresses on `network.confirmationChains`.
        public let firstAddresses: [(chain: Chain, address: String)]
        public let conflict: Conflict?

        /// `Name (mainnet, 12 words, 2 imported keys): bitcoin bc1q…, ethereum 0x…`.
        public var summary: String {
            let kind = wallet.secret.mnemonic.map { "\($0.wordCount) words" } ?? "seed only"
            let imported = wallet.importedAccounts.isEmpty ? "" : ", \(wallet.importedAccounts.count) imported keys"
            let first = firstAddresses.map { "\($0.chain.name) \($0.address)" }.joined(separator: ", ")
            return "\(wallet.name) (\(wallet.network.rawValue), \(kind)\(imported)): \(first)"
        }
    }

    public let payload: BackupPayload
    public let rows: [Row]
    /// Whether the store held wallets before (then its current wallet stays current).
    let hadWallets: Bool

    /// The plan for `payload` against `store` (nil: no store yet, a new device).
    public init(payload: BackupPayload, store: WalletStore?) throws {
        self.payload = payload
        hadWallets = try store.map { try !$0.list().isEmpty } ?? false
        rows = try payload.wallets.map { wallet in
            var conflict: Conflict?
            if let store {
                let (sameKeys, sameName) = try store.conflicts(for: wallet)
                conflict = sameKeys.map { .sameWallet(existing: $0) } ?? (sameName ? .sameName : nil)
            }
            return Row(wallet: wallet, firstAddresses: wallet.secret.keys.confirmationAddresses(network: wallet.network), conflict: conflict)
        }
    }

    /// The rows with a conflict, which need a policy.
    public var conflicts: [Row] { rows.filter { $0.conflict != nil } }

    /// The policy of every conflict, from what a person chose: one for all of them, or one per
    /// row (by its index in `rows`). Keep-both on the same wallet keeps it once.
    /// - Throws: `ImportChoiceError.unresolved` naming the conflicts left without a policy:
    ///   nothing is skipped, replaced or kept on a guess.
    public func policies(_ choices: ConflictChoices) throws(ImportChoiceError) -> [String: ConflictPolicy] {
        var policies: [String: ConflictPolicy] = [:]
        var unresolved: [String] = []
        for (index, row) in rows.enumerated() where row.conflict != nil {
            let policy: ConflictPolicy? = switch choices {
            case .forAll(let policy): policy
            case .perRow(let chosen): chosen[index]
            case .none: nil
            }
            if let policy { policies[row.wallet.name] = policy } else { unresolved.append(row.wallet.name) }
        }
        guard unresolved.isEmpty else { throw .unresolved(unresolved) }
        return policies
    }

    /// Imports every wallet, each conflict as `policies[name]` says (`policies(_:)`). The
    /// backup's current wallet becomes current only on a store that had no wallets.
    /// - Throws: `ImportChoiceError.unresolved` before anything is written when a conflict has no
    ///   policy; `WalletError` from the store.
    public func apply(policies: [String: ConflictPolicy], store: WalletStore, keyring: Keyring) throws -> [ImportOutcome] {
        let unresolved = conflicts.map(\.wallet.name).filter { policies[$0] == nil }
        guard unresolved.isEmpty else { throw ImportChoiceError.unresolved(unresolved) }
        let outcomes = try rows.map { try store.importWallet($0.wallet, policy: policies[$0.wallet.name] ?? .skip, keyring: keyring) }
        if let current = payload.current, !hadWallets, (try? store.wallet(named: current)) != nil {
            try store.use(current)
        }
        return outcomes
    }
}

/// Everything an export needs besides the destination: the wallets' payload.
public enum BackupExporter {
    /// The wallets named (all when nil) as an encoded payload, with how many there are.
    public static func payload(store: WalletStore, keyring: Keyring, names: [String]?, app: String) throws -> (payload: SecretBytes, wallets: Int) {
        let wallets = try store.exportWallets(names: names, keyring: keyring)
        guard !wallets.isEmpty else { throw WalletError.noWallets }
        return (try BackupPayload(app: app, wallets: wallets, current: try store.current()?.name).encoded(), wallets.count)
    }

    /// `payload` sealed with `password` as the bytes of a `.hawala` file, written and read back
    /// in a private temporary folder first (as an export to disk is), then removed.
    public static func sealedBytes(_ payload: SecretBytes, password: SecretBytes) throws -> Data {
        try withPrivateFolder { folder in
            let file = folder.appendingPathComponent("backup.hawala")
            try BackupFile.write(payload, to: file, password: password)
            return try Data(contentsOf: file)
        }
    }

    /// `hawala-backup-YYYY-MM-DD.hawala`, then `…-2.hawala`, `…-3.hawala` for later backups of the day.
    public static func suggestedName(_ date: Date = Date(), number: Int = 1) -> String {
        let day = date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
        return "hawala-backup-\(day)\(number > 1 ? "-\(number)" : "").hawala"
    }

    /// Where an export to `path` goes: a folder gets the first free suggested name (taken when
    /// the file is written); a file's name ends in `.hawala` (added when it doesn't: a backup is
    /// found, and opened, by its extension); nil when that file exists (a backup is never replaced).
    public static func destination(_ path: URL, date: Date = Date()) -> BackupFile.Target? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory), isDirectory.boolValue { return .folder(path, date: date) }
        let file = fileName(path)
        return FileManager.default.fileExists(atPath: file.path) ? nil : .file(file)
    }

    /// `path`, ending in `.hawala`.
    public static func fileName(_ path: URL) -> URL {
        path.pathExtension.lowercased() == "hawala" ? path : path.deletingLastPathComponent().appendingPathComponent(path.lastPathComponent + ".hawala")
    }
}

/// Runs `body` with a new folder only this user can read, removed afterwards.
func withPrivateFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

extension BackupFile {
    /// Decrypts the `.hawala` file held in `data` (a download), at most `limit` bytes; nothing
    /// touches the disk.
    public static func read(_ data: Data, password: SecretBytes, limit: Int = BackupPayload.maximumBytes) throws -> SecretBytes {
        try HawalaFileReader(source: MemoryStream(Array(data)), password: password).readAll(limit: limit)
    }
}

/// Choosing a policy for each conflict of a plan, one conflict at a time, as a state machine
/// with no I/O. A policy given for all (a script's choice) resolves every conflict at once.
/// What a person chose for an import's conflicts.
public enum ConflictChoices: Sendable, Equatable {
    /// Nothing chosen (no terminal to ask, no form field).
    case none
    /// One policy for every conflict (`--on-conflict`).
    case forAll(ConflictPolicy)
    /// A policy per conflicted row, by its index in the plan's rows (a form).
    case perRow([Int: ConflictPolicy])
}

/// Why an import's choices can't be applied.
public enum ImportChoiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// These incoming wallets meet one here and have no policy: nothing was imported.
    case unresolved([String])

    public var description: String {
        switch self {
        case .unresolved(let names):
            "\(names.count) wallet\(names.count == 1 ? " is" : "s are") already here (\(names.map { "\"\($0)\"" }.joined(separator: ", "))): "
                + "choose to skip, keep both or replace; nothing was imported"
        }
    }
}

/// Keeping both is offered only for a name clash: the same wallet is never kept twice.
public struct ConflictResolution: Sendable {
    public enum State: Sendable, Equatable {
        /// Ask about the incoming wallet `name`; `conflict` says what it meets here.
        case asking(name: String, conflict: BackupImportPlan.Conflict)
        /// Every conflict has its policy: `apply` the plan with `policies`.
        case resolved
    }

    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The policy does not apply to this conflict (keeping the same wallet twice).
        case notOffered(ConflictPolicy, offered: [ConflictPolicy])
        case notApplicable

        public var description: String {
            switch self {
            case let .notOffered(policy, offered):
                "\(policy.rawValue) is not possible here; choose \(offered.map(\.rawValue).joined(separator: " or "))"
            case .notApplicable: "not possible at this step"
            }
        }
    }

    public private(set) var state: State
    public private(set) var problem: Problem?
    /// The policy chosen for each conflicted wallet, by name.
    public private(set) var policies: [String: ConflictPolicy] = [:]
    private let pending: [(name: String, conflict: BackupImportPlan.Conflict)]

    /// - Parameter policy: the policy for every conflict, when chosen beforehand.
    public init(plan: BackupImportPlan, policy: ConflictPolicy? = nil) {
        pending = plan.conflicts.compactMap { row in row.conflict.map { (row.wallet.name, $0) } }
        state = .resolved
        if let policy {
            for (name, _) in pending { policies[name] = policy }
        } else if let first = pending.first {
            state = .asking(name: first.name, conflict: first.conflict)
        }
    }

    /// The chosen policy for the conflict being asked about.
    @discardableResult
    public mutating func choose(_ policy: ConflictPolicy) -> FlowStep<Problem> {
        problem = nil
        guard case .asking(let name, let conflict) = state else {
            problem = .notApplicable
            return .refused(.notApplicable)
        }
        guard conflict.offered.contains(policy) else {
            problem = .notOffered(policy, offered: conflict.offered)
            return .refused(problem!)
        }
        policies[name] = policy
        let next = pending.first { policies[$0.name] == nil }
        state = next.map { .asking(name: $0.name, conflict: $0.conflict) } ?? .resolved
        return .taken
    }
}

extension ImportOutcome {
    /// `{wallet, outcome: added|skipped|alreadyHere|replaced|completed, existing, taken}`:
    /// what an import actually did to one incoming wallet (scripts read it).
    public var json: JSONValue {
        let (name, outcome, existing, taken): (String, String, String?, [String]) = switch self {
        case .added(let name): (name, "added", nil, [])
        case let .skipped(name, existing): (name, "skipped", existing, [])
        case let .alreadyHere(name, existing): (name, "alreadyHere", existing, [])
        case let .replaced(name, existing): (name, "replaced", existing, [])
        case let .completed(name, existing, taken): (name, "completed", existing, taken)
        }
        return .object([("wallet", .string(name)), ("outcome", .string(outcome)), ("existing", .nullable(existing)),
                        ("taken", .array(taken.map { .string($0) }))])
    }

    /// Whether it brought anything into this store (a wallet, or what one lacked).
    public var broughtSomething: Bool {
        switch self {
        case .added, .replaced: true
        case .completed(_, _, let taken): !taken.isEmpty
        case .skipped, .alreadyHere: false
        }
    }
}

extension ImportOutcome: CustomStringConvertible {
    /// What happened to one incoming wallet, in a person's words.
    public var description: String {
        switch self {
        case .added(let name): "imported \"\(name)\""
        case let .skipped(name, existing): "skipped \"\(name)\" (already here as \"\(existing)\")"
        case let .alreadyHere(name, existing):
            "kept \"\(name)\" once: the same wallet (same words and network) is already here as \"\(existing)\"; keep both applies to name clashes"
        case .replaced(_, let existing): "replaced wallet \"\(existing)\" with the one from the backup"
        case let .completed(_, existing, taken):
            "\"\(existing)\" is the same wallet: kept it, and took from the backup " + taken.joined(separator: ", ")
        }
    }
}
