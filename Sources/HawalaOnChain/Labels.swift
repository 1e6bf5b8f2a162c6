import Foundation
import GRDB
import HawalaText
import HawalaWallet

/// BIP-329 wallet labels: a label on a transaction, an address or a coin, exported and imported
/// as JSON lines other wallets (Sparrow, BDK-based ones) read.
public struct WalletLabel: Sendable, Equatable {
    /// BIP-329's types this wallet keeps.
    public enum Kind: String, Sendable, CaseIterable {
        case tx, addr, pubkey, input, output, xpub
    }
    public let kind: Kind
    public let ref: String
    public let label: String

    /// BIP-329 asks that labels be no longer than 255 characters.
    public static let maximumScalars = 255
    /// A line longer than this is no label file's.
    public static let maximumLineBytes = 16 * 1024

    public init(kind: Kind, ref: String, label: String) throws(OnChainError) {
        guard !ref.isEmpty, ref.utf8.count <= 200 else { throw .unsupported("a label's reference must be 1 to 200 bytes") }
        guard label.unicodeScalars.count <= Self.maximumScalars else {
            throw .unsupported("a label is at most \(Self.maximumScalars) characters (this one has \(label.unicodeScalars.count))")
        }
        // Labels are printed on terminals and pages: no control character (an escape sequence
        // could rewrite the history shown) and no bidirectional override (it could reverse it).
        guard !(label + ref).unicodeScalars.contains(where: { $0.properties.generalCategory == .control || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }) else {
            throw .unsupported("a label holds a control or text-direction character: only plain text")
        }
        self.kind = kind
        self.ref = ref
        self.label = label
    }

    /// The label for what a person typed: a transaction id, `TXID:VOUT` (a coin) or an address.
    public static func forTarget(_ target: String, label: String, on network: OnChainNetwork) throws(OnChainError) -> WalletLabel {
        if Txid(target) != nil { return try WalletLabel(kind: .tx, ref: target.lowercased(), label: label) }
        if let outpoint = try? OutPoint(target) { return try WalletLabel(kind: .output, ref: outpoint.description, label: label) }
        let script = try OutputScript.of(address: target, on: network)
        return try WalletLabel(kind: .addr, ref: script.address(on: network), label: label)
    }

    /// One BIP-329 line.
    public var jsonLine: String {
        JSONValue.object([("type", .string(kind.rawValue)), ("ref", .string(ref)), ("label", .string(label))]).compact
    }
}

/// What an import did.
public struct LabelImport: Sendable, Equatable {
    public let imported: Int
    /// Lines of types this wallet doesn't keep, or without a label (BIP-329: importers ignore them).
    public let skipped: Int
    public let frozen: Int
}

extension OnChainWallet {
    /// Sets (or with an empty text, removes) a label.
    public func setLabel(_ label: WalletLabel) throws {
        try store.store.writeTransaction { db in
            if label.label.isEmpty {
                try db.execute(sql: "DELETE FROM onchainLabel WHERE walletId = ? AND coin = ? AND type = ? AND ref = ?",
                               arguments: [account.walletID, account.network.coin.rawValue, label.kind.rawValue, label.ref])
            } else {
                try db.execute(sql: "INSERT INTO onchainLabel (walletId, coin, type, ref, label) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET label = excluded.label",
                               arguments: [account.walletID, account.network.coin.rawValue, label.kind.rawValue, label.ref, label.label])
            }
        }
    }

    /// Every label as BIP-329 lines, frozen coins as `"spendable": false` outputs.
    public func exportLabels() throws -> String {
        let labels = try store.labels()
        let frozen = try store.frozen()
        var lines: [String] = labels.sorted { $0.key < $1.key }.compactMap { key, label in
            guard let colon = key.firstIndex(of: ":") else { return nil }
            let type = String(key[..<colon]), ref = String(key[key.index(after: colon)...])
            var fields: [(String, JSONValue)] = [("type", .string(type)), ("ref", .string(ref)), ("label", .string(label))]
            if type == "output", let outpoint = try? OutPoint(ref), frozen.contains(outpoint) { fields.append(("spendable", .bool(false))) }
            return JSONValue.object(fields).compact
        }
        for outpoint in frozen.sorted(by: { $0.description < $1.description }) where labels["output:\(outpoint)"] == nil {
            lines.append(JSONValue.object([("type", .string("output")), ("ref", .string(outpoint.description)), ("spendable", .bool(false))]).compact)
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Imports BIP-329 lines in one transaction: all of them or, on a bad line, none.
    public func importLabels(_ text: String) throws -> LabelImport {
        var labels: [WalletLabel] = [], frozen: [OutPoint] = [], skipped = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            guard line.utf8.count <= WalletLabel.maximumLineBytes,
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let type = object["type"] as? String, let ref = object["ref"] as? String else {
                throw OnChainError.unsupported("line \(number + 1) is not a BIP-329 label (a JSON object with type and ref); nothing was imported")
            }
            guard let kind = WalletLabel.Kind(rawValue: type) else { skipped += 1; continue }
            if kind == .output, object["spendable"] as? Bool == false, let outpoint = try? OutPoint(ref) { frozen.append(outpoint) }
            guard let text = object["label"] as? String, !text.isEmpty else { if kind != .output { skipped += 1 }; continue }
            do { labels.append(try WalletLabel(kind: kind, ref: ref, label: text)) } catch {
                throw OnChainError.unsupported("line \(number + 1): \(error); nothing was imported")
            }
        }
        try store.store.writeTransaction { db in
            for label in labels {
                try db.execute(sql: "INSERT INTO onchainLabel (walletId, coin, type, ref, label) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET label = excluded.label",
                               arguments: [account.walletID, account.network.coin.rawValue, label.kind.rawValue, label.ref, label.label])
            }
            for outpoint in frozen {
                try db.execute(sql: "INSERT OR IGNORE INTO onchainFrozen (walletId, coin, outpoint) VALUES (?, ?, ?)",
                               arguments: [account.walletID, account.network.coin.rawValue, outpoint.description])
            }
        }
        return LabelImport(imported: labels.count, skipped: skipped, frozen: frozen.count)
    }
}
