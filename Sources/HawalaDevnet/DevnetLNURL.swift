import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

// Devnet's LNURL server: the ledger's Lightning addresses served as LUD-16/LUD-06 and its
// withdraw vouchers as LUD-03, on 127.0.0.1, so two wallets on this machine pay each other by
// address and redeem vouchers through the same client code real services are reached with.

extension DevnetLedger {
    /// A server is taken as running while it announced itself within this long.
    static let serverFreshness: TimeInterval = 30

    // MARK: The server

    /// Records the running server's port and node (called every few seconds while it runs).
    func announceServer(port: Int, node: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO node (id, balanceMsat, createdAt) VALUES (?, 0, ?)", arguments: [node, now.timeIntervalSince1970])
            try db.execute(sql: "INSERT OR REPLACE INTO lnurlServer (id, port, node, seenAt) VALUES (1, ?, ?, ?)",
                           arguments: [port, node, now.timeIntervalSince1970])
        }
    }

    /// Marks the server stopped (its port stays known: the addresses it served keep their name).
    func withdrawServer(port: Int) throws {
        try write { db in try db.execute(sql: "UPDATE lnurlServer SET seenAt = 0 WHERE port = ?", arguments: [port]) }
    }

    /// The port of the server running on this ledger, nil when none announced itself lately.
    /// With `evenStale`, the last one known, running or not.
    func serverPort(now: Date, evenStale: Bool = false) throws -> Int? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT port, seenAt FROM lnurlServer WHERE id = 1") else { return nil }
            let seen: Double = row["seenAt"]
            return evenStale || now.timeIntervalSince1970 - seen < DevnetLedger.serverFreshness ? row["port"] : nil
        }
    }

    // MARK: Lightning addresses

    /// `node`'s address name and description.
    func address(of node: String) throws -> (name: String, description: String)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT name, description FROM lnaddress WHERE node = ?", arguments: [node]).map { ($0["name"], $0["description"]) }
        }
    }

    /// The node holding `name`, and its description.
    func addressOwner(_ name: String) throws -> (node: String, description: String)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT node, description FROM lnaddress WHERE name = ?", arguments: [name]).map { ($0["node"], $0["description"]) }
        }
    }

    /// Gives `name` to `node` (its earlier name is released), in one transaction.
    /// - Throws: `LightningAddressError.taken` when another node holds it.
    func registerAddress(_ name: String, node: String, description: String, now: Date) throws {
        var taken = false
        try write { db in
            if let owner = try String.fetchOne(db, sql: "SELECT node FROM lnaddress WHERE name = ?", arguments: [name]), owner != node {
                taken = true
                return
            }
            try db.execute(sql: "DELETE FROM lnaddress WHERE node = ?", arguments: [node])
            try db.execute(sql: "INSERT INTO lnaddress (name, node, description, createdAt) VALUES (?, ?, ?, ?)",
                           arguments: [name, node, description, now.timeIntervalSince1970])
        }
        if taken { throw LightningAddressError.taken(name) }
    }

    func deleteAddress(of node: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM lnaddress WHERE node = ?", arguments: [node]) }
    }

    // MARK: Login challenges (a test service for LNURL-auth)

    func addLogin(k1: String, now: Date) throws {
        try write { db in try db.execute(sql: "INSERT INTO login (k1, createdAt) VALUES (?, ?)", arguments: [k1, now.timeIntervalSince1970]) }
    }

    /// Accepts `key` for challenge `k1` once: nil when accepted, else why not.
    func useLogin(k1: String, linkingKey: String, now: Date) throws -> String? {
        var refusal: String?
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT usedAt FROM login WHERE k1 = ?", arguments: [k1]) else { refusal = "unknown challenge"; return }
            guard (row["usedAt"] as Double?) == nil else { refusal = "this challenge has been used"; return }
            try db.execute(sql: "UPDATE login SET linkingKey = ?, usedAt = ? WHERE k1 = ?", arguments: [linkingKey, now.timeIntervalSince1970, k1])
        }
        return refusal
    }

    /// The key that signed in with challenge `k1`, once it did.
    func loggedIn(k1: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT linkingKey FROM login WHERE k1 = ?", arguments: [k1]) }
    }

    // MARK: Withdraw vouchers

    /// A voucher worth up to `amountMsat` (test money), redeemable once.
    func addVoucher(k1: String, amountMsat: Msat, description: String, now: Date) throws {
        guard amountMsat >= 1000 else { throw LightningError.outOfRange(.amount) }
        try write { db in
            try db.execute(sql: "INSERT INTO voucher (k1, minMsat, maxMsat, description, createdAt) VALUES (?, 1000, ?, ?, ?)",
                           arguments: [k1, amountMsat.int64, description, now.timeIntervalSince1970])
        }
    }

    /// An unused voucher's bounds and description.
    func voucher(_ k1: String) throws -> (minMsat: Msat, maxMsat: Msat, description: String)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT minMsat, maxMsat, description FROM voucher WHERE k1 = ? AND usedAt IS NULL", arguments: [k1]).map {
                (DevnetLedger.msat($0["minMsat"]), DevnetLedger.msat($0["maxMsat"]), $0["description"])
            }
        }
    }

    /// Pays `invoice` with voucher `k1`, in one transaction: the voucher is unused and covers the
    /// amount, the invoice is registered, unpaid and not expired. Returns why not, or nil.
    func redeem(_ k1: String, invoice: Bolt11Invoice, text: String, now: Date) throws -> String? {
        var refusal: String?
        try write { db in
            guard let voucher = try Row.fetchOne(db, sql: "SELECT * FROM voucher WHERE k1 = ?", arguments: [k1]) else {
                refusal = "unknown voucher"; return
            }
            guard (voucher["usedAt"] as Double?) == nil else { refusal = "this voucher has been used"; return }
            guard let amount = invoice.amountMsat, amount >= DevnetLedger.msat(voucher["minMsat"]), amount <= DevnetLedger.msat(voucher["maxMsat"]) else {
                refusal = "the invoice's amount is outside the voucher's"; return
            }
            let hash = hexString(invoice.paymentHash)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM invoice WHERE paymentHash = ? AND payee = ?", arguments: [hash, hexString(invoice.payee)]),
                  (row["paidBy"] as String?) == nil, now.timeIntervalSince1970 < (row["expiresAt"] as Double) else {
                refusal = "the invoice is unknown to devnet, paid or expired"; return
            }
            let payee: String = (row["creditTo"] as String?) ?? row["payee"]
            try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [amount.int64, payee])
            try db.execute(sql: "UPDATE invoice SET paidBy = 'voucher' WHERE paymentHash = ?", arguments: [hash])
            try db.execute(sql: "UPDATE voucher SET usedBy = ?, usedAt = ? WHERE k1 = ?", arguments: [payee, now.timeIntervalSince1970, k1])
            try DevnetLedger.insertPayment(db, id: DevnetLedger.newID(), payer: nil, payee: payee, paymentHash: hash, bolt11: text,
                                           description: row["description"], amountMsat: amount, feeMsat: 0, status: .completed,
                                           failureReason: nil, preimage: row["preimage"], idempotencyKey: nil, now: now)
        }
        return refusal
    }
}

/// Devnet's LNURL server as a function from a request's path and query to its JSON answer
/// (the HTTP plumbing is the caller's): LUD-16 `/.well-known/lnurlp/NAME` and its callback,
/// which makes an invoice crediting NAME's node (signed by the server's own key, as a real
/// address server answers for its users), and LUD-03 `/lnurlw/K1` and its callback, which pays
/// the wallet's invoice with the voucher.
public final class DevnetLNURLService: Sendable {
    public let port: Int
    let ledger: DevnetLedger
    private let key: SecretBytes
    private let node: String
    private let clock: @Sendable () -> Date
    public var base: String { "http://127.0.0.1:\(port)" }
    /// The longest comment a payer may send (LUD-12).
    public static let commentAllowed = 255

    public init(ledgerPath: String, port: Int, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        ledger = try DevnetLedger(path: ledgerPath)
        self.port = port
        key = SecretBytes(SystemRandom.bytes(32))
        node = hexString(try Secp256k1.PublicKey(privateKey: key).compressed)
        self.clock = clock
    }

    /// Tells the ledger the server runs here; call every few seconds while it does.
    public func announce() throws { try ledger.announceServer(port: port, node: node, now: clock()) }

    /// Tells the ledger the server stopped.
    public func stop() { try? ledger.withdrawServer(port: port) }

    /// The answer to `target` (path and query): an HTTP status and a JSON body.
    public func respond(to target: String) -> (status: Int, body: [UInt8]) {
        guard let parts = URLComponents(string: target) else { return error(400, "bad request") }
        let query = Dictionary((parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        let path = parts.path.split(separator: "/").map(String.init)
        do {
            switch path.count {
            case 3 where path[0] == ".well-known" && path[1] == "lnurlp": return try payRequest(name: path[2])
            case 3 where path[0] == "lnurlp" && path[2] == "callback": return try payCallback(name: path[1], query: query)
            case 2 where path[0] == "lnurlw" && path[1] == "callback": return try withdrawCallback(query: query)
            case 2 where path[0] == "lnurlw": return try withdrawRequest(k1: path[1])
            case 1 where path[0] == "login": return try login(query: query)
            default: return error(404, "not found")
            }
        } catch {
            return self.error(500, "\(error)")
        }
    }

    private func payRequest(name: String) throws -> (Int, [UInt8]) {
        guard let owner = try ledger.addressOwner(name.lowercased()) else { return error(200, "no such Lightning address on this devnet") }
        return json(200, [
            "tag": "payRequest", "callback": "\(base)/lnurlp/\(name.lowercased())/callback", "minSendable": 1000,
            "maxSendable": 100_000_000_000, "metadata": metadata(name: name.lowercased(), description: owner.description),
            "commentAllowed": Self.commentAllowed,
        ])
    }

    private func metadata(name: String, description: String) -> String {
        let entries = [["text/plain", description.isEmpty ? "Pay \(name) on devnet" : description], ["text/identifier", "\(name)@127.0.0.1:\(port)"]]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: entries, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8), as: UTF8.self)
    }

    private func payCallback(name: String, query: [String: String]) throws -> (Int, [UInt8]) {
        guard let owner = try ledger.addressOwner(name.lowercased()) else { return error(200, "no such Lightning address on this devnet") }
        guard let amount = query["amount"].flatMap(UInt64.init).flatMap({ try? Msat($0) }), amount >= 1000, amount <= 100_000_000_000 else {
            return error(200, "the amount must be from 1,000 to 100,000,000,000 msat")
        }
        let comment = query["comment"].flatMap { $0.isEmpty ? nil : $0 }
        if let comment, !TextLimit.fits(comment, scalars: Self.commentAllowed) { return error(200, "the comment is longer than \(Self.commentAllowed) characters") }
        let metadata = metadata(name: name.lowercased(), description: owner.description)
        var preimage = SystemRandom.bytes(32)
        defer { SecretBytes.wipe(&preimage) }
        let fields = Bolt11Invoice.fields(paymentHash: Hash.sha256(preimage), paymentSecret: SystemRandom.bytes(32), description: nil,
                                          descriptionHash: Hash.sha256(Array(metadata.utf8)), expiry: 600, features: [8, 14])
        let text = try Bolt11Invoice.encode(network: .regtest, amountMsat: amount, timestamp: UInt64(clock().timeIntervalSince1970),
                                            fields: fields, privateKey: key)
        let invoice = try Bolt11Invoice(text)
        try ledger.addInvoice(invoice, text: text, preimage: preimage, creditTo: owner.node, comment: comment,
                              description: owner.description.isEmpty ? "to \(name.lowercased())@127.0.0.1:\(port)" : owner.description)
        return json(200, ["pr": text, "routes": [String](), "successAction": ["tag": "message", "message": "Paid to \(name.lowercased()) on devnet"]])
    }

    private func withdrawRequest(k1: String) throws -> (Int, [UInt8]) {
        guard let voucher = try ledger.voucher(k1) else { return error(200, "this voucher is unknown or has been used") }
        return json(200, [
            "tag": "withdrawRequest", "callback": "\(base)/lnurlw/callback", "k1": k1, "defaultDescription": voucher.description,
            "minWithdrawable": voucher.minMsat.value, "maxWithdrawable": voucher.maxMsat.value,
        ])
    }

    private func withdrawCallback(query: [String: String]) throws -> (Int, [UInt8]) {
        guard let k1 = query["k1"], let pr = query["pr"], let invoice = try? Bolt11Invoice(pr) else { return error(200, "k1 and a valid invoice (pr) are needed") }
        guard invoice.network == .regtest else { return error(200, "the invoice is not for devnet (regtest)") }
        if let refusal = try ledger.redeem(k1, invoice: invoice, text: pr, now: clock()) { return error(200, refusal) }
        return json(200, ["status": "OK"])
    }

    /// LUD-04's service side: the challenge was issued here and not used, the signature over it
    /// verifies for the key given.
    private func login(query: [String: String]) throws -> (Int, [UInt8]) {
        guard query["tag"] == "login", let k1 = query["k1"], let sigHex = query["sig"], let keyHex = query["key"],
              let k1Bytes = bytes(fromHex: k1), k1Bytes.count == 32, let sig = bytes(fromHex: sigHex), let keyBytes = bytes(fromHex: keyHex),
              let key = try? Secp256k1.PublicKey(sec1: keyBytes), keyBytes.count == 33 else {
            return error(200, "k1, sig and key are needed")
        }
        guard Secp256k1.verify(der: sig, digest: k1Bytes, publicKey: key) else { return error(200, "the signature does not verify") }
        if let refusal = try ledger.useLogin(k1: k1, linkingKey: keyHex, now: clock()) { return error(200, refusal) }
        return json(200, ["status": "OK"])
    }

    private func json(_ status: Int, _ object: [String: Any]) -> (Int, [UInt8]) {
        (status, Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)))
    }

    private func error(_ status: Int, _ reason: String) -> (status: Int, body: [UInt8]) {
        json(status, ["status": "ERROR", "reason": reason])
    }
}

/// Login challenges of a devnet ledger: a test service for LNURL-auth, served by its LNURL
/// server.
public enum DevnetLogins {
    /// A new challenge's LNURL (bech32) and its k1.
    /// - Throws: `LightningError.noLNURLServer` when none runs on the ledger.
    public static func issue(ledgerPath: String, action: LNURLAuthRequest.Action = .login, now: Date = Date()) throws -> (lnurl: String, k1: String) {
        let ledger = try DevnetLedger(path: ledgerPath)
        guard let port = try ledger.serverPort(now: now) else { throw LightningError.noLNURLServer(ledger: ledgerPath) }
        let k1 = hexString(SystemRandom.bytes(32))
        try ledger.addLogin(k1: k1, now: now)
        return (Bech32.encode(hrp: "lnurl", bytes: Array("http://127.0.0.1:\(port)/login?tag=login&k1=\(k1)&action=\(action.rawValue)".utf8)), k1)
    }

    /// The linking key (hex) that signed in with `k1`, nil until one did.
    public static func signedIn(ledgerPath: String, k1: String) throws -> String? {
        try DevnetLedger(path: ledgerPath).loggedIn(k1: k1)
    }
}

/// Withdraw vouchers of a devnet ledger (test money), redeemable through its LNURL server.
public enum DevnetVouchers {
    /// Makes a voucher worth up to `sats` and returns its LNURL (bech32, LUD-01), served by the
    /// ledger's running LNURL server.
    /// - Throws: `LightningError.noLNURLServer` when none runs on the ledger.
    public static func issue(ledgerPath: String, sats: Sats, description: String = "devnet voucher", now: Date = Date()) throws -> String {
        let ledger = try DevnetLedger(path: ledgerPath)
        guard let port = try ledger.serverPort(now: now) else { throw LightningError.noLNURLServer(ledger: ledgerPath) }
        let k1 = hexString(SystemRandom.bytes(16))
        try ledger.addVoucher(k1: k1, amountMsat: sats.msat, description: description, now: now)
        return Bech32.encode(hrp: "lnurl", bytes: Array("http://127.0.0.1:\(port)/lnurlw/\(k1)".utf8))
    }
}

extension DevnetBackend {
    /// The node's address while the ledger's LNURL server is known (name@127.0.0.1:PORT).
    public func lightningAddress() async throws -> LightningAddressInfo? {
        guard let (name, description) = try ledger.address(of: try node()) else { return nil }
        guard let port = try ledger.serverPort(now: Date(), evenStale: true) else { return nil }
        return Self.info(name: name, description: description, port: port)
    }

    public func isLightningAddressAvailable(_ name: String) async throws -> Bool {
        let name = try LightningAddressInfo.checkName(name)
        guard let owner = try ledger.addressOwner(name) else { return true }
        return owner.node == (try node())
    }

    /// Needs the ledger's LNURL server running (the address is served by it).
    public func registerLightningAddress(name: String, description: String) async throws -> LightningAddressInfo {
        let name = try LightningAddressInfo.checkName(name)
        let node = try signingNode()
        guard let port = try ledger.serverPort(now: Date()) else { throw LightningError.noLNURLServer(ledger: ledger.path) }
        try ledger.registerAddress(name, node: node, description: description, now: Date())
        return Self.info(name: name, description: description, port: port)
    }

    public func deleteLightningAddress() async throws {
        let node = try signingNode()
        guard try ledger.address(of: node) != nil else { throw LightningAddressError.noAddress }
        try ledger.deleteAddress(of: node)
    }

    static func info(name: String, description: String, port: Int) -> LightningAddressInfo {
        LightningAddressInfo(name: name, domain: "127.0.0.1:\(port)", description: description,
                             url: URL(string: "http://127.0.0.1:\(port)/.well-known/lnurlp/\(name)")!)
    }
}
