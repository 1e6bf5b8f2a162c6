import Foundation
import GRDB
import HawalaCrypto

/// An L402 credential bought for an origin and a folder of its paths: the token and the
/// preimage that proves the payment, sealed under the wallet keyring (either one alone is
/// worth nothing to a thief; together they are the paid access).
public struct L402Token: Sendable, Equatable {
    public let walletID: String
    /// `https://api.example.com` (scheme, host, port when not the default).
    public let origin: String
    /// The folder it was bought for (`/api/jobs/`): paths under it use it too.
    public let path: String
    /// "L402" or "LSAT": the scheme the service asked with.
    public let scheme: String
    public let token: String
    public let preimageHex: String
    public let paymentID: String
    public let createdAt: Date

    public init(walletID: String, origin: String, path: String, scheme: String, token: String, preimageHex: String, paymentID: String, createdAt: Date) {
        self.walletID = walletID
        self.origin = origin
        self.path = path
        self.scheme = scheme
        self.token = token
        self.preimageHex = preimageHex
        self.paymentID = paymentID
        self.createdAt = createdAt
    }

    /// Where a credential bought for `url` is used again: its origin (scheme, host, the port
    /// when not the default) and the folder of its path (`/api/jobs/run` → `/api/jobs/`); nil
    /// for an address that is not http(s).
    public static func scope(of url: URL) -> (origin: String, path: String)? {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port.map { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? "" : ":\($0)" } ?? ""
        let path = url.path.isEmpty ? "/" : url.path
        let folder = path.hasSuffix("/") ? path : String(path[...path.lastIndex(of: "/")!])
        return ("\(scheme)://\(host)\(port)", folder)
    }

    /// `Authorization`'s value.
    public var authorization: String { "\(scheme) \(token):\(preimageHex.lowercased())" }
}

extension WalletStore {
    static func context(l402 origin: String, path: String) -> [UInt8] { Array("hawala/l402/v1/\(origin)\(path)".utf8) }

    /// Keeps `token` (one per origin and folder: a newer one replaces the older).
    public func saveL402Token(_ token: L402Token, keyring: Keyring) throws {
        let secret = try JSONSerialization.data(withJSONObject: ["token": token.token, "preimage": token.preimageHex])
        let sealed = try keyring.seal(SecretBytes([UInt8](secret)), context: WalletStore.context(l402: token.origin, path: token.path))
        try writeTransaction { db in
            try self.checkKeyringIsCurrent(keyring, db: db)
            try L402TokenRecord(walletId: token.walletID, origin: token.origin, path: token.path, scheme: token.scheme, sealed: Data(sealed),
                                paymentId: token.paymentID, createdAt: token.createdAt.timeIntervalSince1970).insert(db, onConflict: .replace)
        }
    }

    /// The token kept for `url`: the same origin, the longest folder holding its path.
    public func l402Token(walletID: String, url: URL, keyring: Keyring) throws -> L402Token? {
        guard let origin = L402Token.scope(of: url)?.origin else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let records = try read { db in
            try L402TokenRecord.filter(L402TokenRecord.Columns.walletId == walletID && L402TokenRecord.Columns.origin == origin).fetchAll(db)
        }
        guard let record = records.filter({ path.hasPrefix($0.path) }).max(by: { $0.path.count < $1.path.count }) else { return nil }
        let folder = record.path
        let opened = try WalletStore.open(keyring, Array(record.sealed), WalletStore.context(l402: origin, path: folder), what: "an L402 token")
        guard let fields = opened.withUnsafeBytes({ try? JSONSerialization.jsonObject(with: Data($0)) }) as? [String: String],
              let token = fields["token"], let preimage = fields["preimage"] else { throw WalletError.unreadableRecord(.l402Token) }
        return L402Token(walletID: walletID, origin: origin, path: folder, scheme: record.scheme, token: token, preimageHex: preimage,
                         paymentID: record.paymentId, createdAt: Date(timeIntervalSince1970: record.createdAt))
    }

    /// Forgets `token` (the service refused it).
    public func forgetL402Token(_ token: L402Token) throws {
        try writeTransaction { db in
            _ = try L402TokenRecord.deleteOne(db, key: ["walletId": token.walletID, "origin": token.origin, "path": token.path])
        }
    }

    static func resealL402Tokens(from keyring: Keyring, to newKeyring: Keyring, db: Database) throws {
        for var record in try L402TokenRecord.fetchAll(db) {
            let context = WalletStore.context(l402: record.origin, path: record.path)
            let secret = try WalletStore.open(keyring, Array(record.sealed), context, what: "an L402 token")
            record.sealed = Data(try newKeyring.seal(secret, context: context))
            try record.update(db, columns: ["sealed"])
        }
    }
}
