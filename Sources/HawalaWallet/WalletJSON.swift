import Foundation
import HawalaText

// The documented JSON shapes of wallets and payments (docs/reference.md), the same for every front end.

extension BackupStatus: JSONRepresentable {
    /// `{state, backedUpAt, lastVerifiedAt}`.
    public var json: JSONValue {
        .object([("state", .string(state.rawValue)), ("backedUpAt", .date(backedUpAt)), ("lastVerifiedAt", .date(lastVerifiedAt)),
                 ("methods", .array(methods.map { .object([("method", .string($0.method.rawValue)), ("lastAt", .string($0.lastAt.iso8601))]) }))])
    }
}

extension ImportedAccount: JSONRepresentable {
    /// `{chain, address, label, importedAt}`.
    public var json: JSONValue {
        .object([("chain", .string(chain)), ("address", .string(address)), ("label", .nullable(label)), ("importedAt", .string(importedAt.iso8601))])
    }

    /// `{chain, path: "imported", address, label}`: an imported key among derived addresses.
    public var addressJSON: JSONValue {
        .object([("chain", .string(chain)), ("path", .string("imported")), ("address", .string(address)), ("label", .nullable(label))])
    }
}

extension WalletSummary: JSONRepresentable {
    /// One wallet of `wallet list`.
    public var json: JSONValue {
        .object([
            ("id", .string(id)), ("name", .string(name)), ("current", .bool(isCurrent)), ("network", .string(network.rawValue)),
            ("createdAt", .string(createdAt.iso8601)), ("fingerprint", .string(fingerprint)), ("kind", .string(kind.rawValue)),
            ("wordCount", .int(wordCount)), ("hasPassphrase", .bool(hasPassphrase)), ("backup", backup.json),
            ("chains", .array(accounts.map { .string($0.chain) })), ("importedAccounts", .array(importedAccounts.map(\.json))),
        ])
    }
}

/// What `wallet status` reports: where the wallets live, the current one, what is not backed up.
public struct WalletOverview: Sendable, Equatable, JSONRepresentable {
    public let home: URL
    public let wallets: [WalletSummary]
    /// Whether a wallet password is set: the wallets are locked behind it, even when none is
    /// left (every wallet deleted, or a vault login made before the first one).
    public let hasPassword: Bool
    /// How many programs' payments wait for the person's approval now.
    public let waitingApprovals: Int
    public var current: WalletSummary? { wallets.first(where: \.isCurrent) }
    public var reminder: BackupReminder { BackupReminder(wallets: wallets) }

    /// Reads the wallets of `home`, if it has any; no password needed.
    public init(home: WalletHome) throws {
        try self.init(store: try home.existing() ? try WalletStore(home: home, create: false) : nil, home: home)
    }

    /// Reads the wallets of an open store (nil: the home has none yet).
    public init(store: WalletStore?, home: WalletHome) throws {
        self.home = home.directory
        wallets = try store?.list() ?? []
        hasPassword = try store?.hasPassword() ?? false
        waitingApprovals = try store?.waitingApprovals().count ?? 0
    }

    public var json: JSONValue {
        .object([
            ("home", .string(home.path)),
            ("wallets", .int(wallets.count)),
            ("current", current.map { w in
                .object([("id", .string(w.id)), ("name", .string(w.name)), ("network", .string(w.network.rawValue)),
                         ("fingerprint", .string(w.fingerprint)), ("backup", w.backup.json),
                         ("importedAccounts", .array(w.importedAccounts.map(\.json)))])
            } ?? .null),
            ("networks", .array(Set(wallets.map(\.network.rawValue)).sorted().map { .string($0) })),
            ("notBackedUp", .array(reminder.wallets.map { .string($0.name) })),
        ])
    }
}
