import Foundation
import GRDB
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaText
import HawalaWallet

/// The shared SQLite file that settles devnet payments between Hawala wallets on this machine.
/// It plays the network: node balances, the invoices nodes registered (with their preimages, so
/// the ledger can settle them), and every payment attempt. Each payment is one immediate
/// transaction — debit, credit, invoice marked paid — so two processes paying at once can't
/// double-spend a balance or an invoice. Nothing in it is a key.
final class DevnetLedger: Sendable {
    let path: String
    private let db: DatabaseQueue

    /// Fees every devnet payment pays: a base fee plus a proportional part (like a route's).
    static let baseFeeMsat: Msat = 1_000
    static let feePartsPerMillion: UInt64 = 1_000
    /// The fee of a payment of `amountMsat`.
    /// - Throws: `AmountError.aboveSupply` when it would be more than all the bitcoin there is.
    static func fee(amountMsat: Msat) throws(AmountError) -> Msat {
        try baseFeeMsat + amountMsat.share(partsPerMillion: feePartsPerMillion)
    }

    /// A balance or amount as the ledger stores it (a signed column), read back.
    static func msat(_ stored: Int64?) -> Msat { Msat(clamping: UInt64(max(0, stored ?? 0))) }
    /// A sats column read back.
    static func sats(_ stored: Int64?) -> Sats { Sats(clamping: UInt64(max(0, stored ?? 0))) }

    init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(15)
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            db = try DatabaseQueue(path: path, configuration: configuration)
            try DevnetLedger.migrator.migrate(db)
        } catch let error as DatabaseError {
            throw LightningError.devnetLedger(path: path, reason: error.message ?? error.description)
        } catch let error as CocoaError {
            throw LightningError.devnetLedger(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("devnet-v1") { db in
            try db.execute(sql: """
                CREATE TABLE node (
                    id TEXT PRIMARY KEY,
                    balanceMsat INTEGER NOT NULL CHECK (balanceMsat >= 0),
                    createdAt REAL NOT NULL);
                CREATE TABLE invoice (
                    paymentHash TEXT PRIMARY KEY,
                    payee TEXT NOT NULL REFERENCES node(id),
                    bolt11 TEXT NOT NULL,
                    amountMsat INTEGER,
                    description TEXT,
                    createdAt REAL NOT NULL,
                    expiresAt REAL NOT NULL,
                    preimage TEXT NOT NULL,
                    paidBy TEXT);
                CREATE TABLE payment (
                    id TEXT PRIMARY KEY,
                    seq INTEGER NOT NULL UNIQUE,
                    payer TEXT,
                    payee TEXT NOT NULL,
                    paymentHash TEXT,
                    bolt11 TEXT,
                    description TEXT,
                    amountMsat INTEGER NOT NULL,
                    feeMsat INTEGER NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
                    failureReason TEXT,
                    preimage TEXT,
                    idempotencyKey TEXT,
                    createdAt REAL NOT NULL,
                    UNIQUE (payer, idempotencyKey));
                CREATE INDEX payment_by_payer ON payment (payer, createdAt);
                CREATE INDEX payment_by_payee ON payment (payee, createdAt);
                """)
        }
        // v2: devnet's LNURL server (`DevnetLNURLService`): Lightning addresses, withdraw
        // vouchers, login challenges (a test service for LNURL-auth), and invoices the server makes for an address, which credit the address's
        // node (`creditTo`) and carry the payer's comment to its history.
        migrator.registerMigration("devnet-v2") { db in
            try db.execute(sql: """
                ALTER TABLE invoice ADD COLUMN creditTo TEXT;
                ALTER TABLE invoice ADD COLUMN comment TEXT;
                ALTER TABLE payment ADD COLUMN comment TEXT;
                CREATE TABLE lnaddress (
                    name TEXT PRIMARY KEY,
                    node TEXT NOT NULL UNIQUE,
                    description TEXT NOT NULL,
                    createdAt REAL NOT NULL);
                CREATE TABLE voucher (
                    k1 TEXT PRIMARY KEY,
                    minMsat INTEGER NOT NULL,
                    maxMsat INTEGER NOT NULL,
                    description TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    usedBy TEXT,
                    usedAt REAL);
                CREATE TABLE login (
                    k1 TEXT PRIMARY KEY,
                    createdAt REAL NOT NULL,
                    linkingKey TEXT,
                    usedAt REAL);
                CREATE TABLE lnurlServer (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    port INTEGER NOT NULL,
                    node TEXT NOT NULL,
                    seenAt REAL NOT NULL);
                """)
        }
        // v3: devnet's chain (`DevnetChain.swift`): its height, its fee table, deposit addresses
        // and the deposits sent to them.
        migrator.registerMigration("devnet-v3") { db in
            try db.execute(sql: """
                CREATE TABLE chain (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    height INTEGER NOT NULL,
                    fast INTEGER NOT NULL,
                    medium INTEGER NOT NULL,
                    slow INTEGER NOT NULL);
                INSERT INTO chain VALUES (1, 100, 10, 5, 2);
                CREATE TABLE depositAddress (
                    address TEXT PRIMARY KEY,
                    node TEXT NOT NULL,
                    createdAt REAL NOT NULL);
                CREATE INDEX depositAddress_by_node ON depositAddress (node, createdAt);
                CREATE TABLE deposit (
                    txid TEXT NOT NULL,
                    vout INTEGER NOT NULL,
                    address TEXT NOT NULL REFERENCES depositAddress(address),
                    amountSat INTEGER NOT NULL,
                    height INTEGER,
                    state TEXT NOT NULL DEFAULT 'unclaimed' CHECK (state IN ('unclaimed', 'claimed', 'notClaimed', 'refunded')),
                    claimFeeSat INTEGER,
                    requiredFeeSat INTEGER,
                    capSat INTEGER,
                    reason TEXT,
                    refundTxid TEXT,
                    refundAddress TEXT,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (txid, vout));
                """)
        }
        // v4: on-chain payments — withdrawals to an address (pending until mined), claimed
        // deposits, exits — carry their transaction, address and block (`height`: NULL while
        // unconfirmed).
        migrator.registerMigration("devnet-v4") { db in
            try db.execute(sql: """
                ALTER TABLE payment ADD COLUMN method TEXT NOT NULL DEFAULT 'lightning';
                ALTER TABLE payment ADD COLUMN txid TEXT;
                ALTER TABLE payment ADD COLUMN address TEXT;
                ALTER TABLE payment ADD COLUMN height INTEGER;
                CREATE INDEX payment_unconfirmed ON payment (txid) WHERE txid IS NOT NULL AND height IS NULL;
                """)
        }
        // v5: hold invoices. A payment to one (`invoice.hold`) is taken from its payer and held
        // (`payment.heldUntil`: the invoice's expiry) until its payee settles it with the
        // preimage — which the ledger is not told (`invoice.preimage` stays empty) — or cancels
        // it, or its time passes (`releaseExpiredHolds`): then it goes back to the payer, fee too.
        migrator.registerMigration("devnet-v5") { db in
            try db.execute(sql: """
                ALTER TABLE invoice ADD COLUMN hold INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE payment ADD COLUMN heldUntil REAL;
                CREATE INDEX payment_held ON payment (heldUntil) WHERE heldUntil IS NOT NULL AND status = 'pending';
                """)
        }
        // v6: devnet's rate table as changed (`setTestRate`): a price per currency over the
        // built-in test table, so a test (or a person trying budgets in a currency) can move it.
        migrator.registerMigration("devnet-v6") { db in
            try db.execute(sql: "CREATE TABLE rate (currency TEXT PRIMARY KEY, btcPrice TEXT NOT NULL)")
        }
        return migrator
    }

    /// The rates set over the test table (`devnet-v6`).
    func testRates() throws -> [String: Decimal] {
        try read { db in
            var rates: [String: Decimal] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT currency, btcPrice FROM rate") {
                if let price = Decimal(string: row["btcPrice"], locale: Locale(identifier: "en_US_POSIX")) { rates[row["currency"]] = price }
            }
            return rates
        }
    }

    /// Sets (or, with nil, removes) a currency's test price.
    func setTestRate(_ currency: String, btcPrice: Decimal?) throws {
        try write { db in
            if let btcPrice {
                try db.execute(sql: "INSERT OR REPLACE INTO rate (currency, btcPrice) VALUES (?, ?)", arguments: [currency.uppercased(), "\(btcPrice)"])
            } else {
                try db.execute(sql: "DELETE FROM rate WHERE currency = ?", arguments: [currency.uppercased()])
            }
        }
    }

    // MARK: Nodes and invoices

    /// Makes `node` known to the ledger (balance 0) if it is not yet.
    func register(node: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO node (id, balanceMsat, createdAt) VALUES (?, 0, ?)", arguments: [node, now.timeIntervalSince1970])
        }
    }

    func balanceMsat(node: String) throws -> Msat {
        DevnetLedger.msat(try read { try Int64.fetchOne($0, sql: "SELECT balanceMsat FROM node WHERE id = ?", arguments: [node]) })
    }

    /// Registers an invoice the ledger can settle. `creditTo`: the node paid instead of the
    /// invoice's signer (an invoice the LNURL server made for an address), with the payer's
    /// `comment`; `description` stands for a description hash's text.
    /// `preimage` nil: a hold invoice, whose preimage only its payee holds.
    func addInvoice(_ invoice: Bolt11Invoice, text: String, preimage: [UInt8]?, creditTo: String? = nil, comment: String? = nil,
                    description: String? = nil) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO invoice (paymentHash, payee, bolt11, amountMsat, description, createdAt, expiresAt, preimage, creditTo, comment, hold)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    hexString(invoice.paymentHash), hexString(invoice.payee), text, invoice.amountMsat.map(\.int64),
                    description ?? invoice.description, Double(invoice.timestamp), invoice.expiresAt.timeIntervalSince1970, preimage.map(hexString) ?? "",
                    creditTo, comment, preimage == nil,
                ])
        }
    }

    /// Whether an invoice with this payment hash, payable to `payee`, is registered and unpaid,
    /// and which node it credits.
    func invoiceState(paymentHash: String, payee: String) throws -> (known: Bool, paid: Bool, credits: String) {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT paidBy, creditTo FROM invoice WHERE paymentHash = ? AND payee = ?",
                                             arguments: [paymentHash, payee]) else {
                return (false, false, payee)
            }
            return (true, (row["paidBy"] as String?) != nil, (row["creditTo"] as String?) ?? payee)
        }
    }

    // MARK: Payments

    /// Test funds: credits `node` and records a completed receive.
    func fund(node: String, amountMsat: Msat, now: Date) throws -> Payment {
        guard amountMsat > .zero, amountMsat < .supply else { throw LightningError.outOfRange(.amount) }
        let id = DevnetLedger.newID()
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO node (id, balanceMsat, createdAt) VALUES (?, 0, ?)", arguments: [node, now.timeIntervalSince1970])
            let balance = DevnetLedger.msat(try Int64.fetchOne(db, sql: "SELECT balanceMsat FROM node WHERE id = ?", arguments: [node]))
            guard (try? balance + amountMsat) != nil else { throw LightningError.outOfRange(.balance) }
            try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [amountMsat.int64, node])
            try DevnetLedger.insertPayment(db, id: id, payer: nil, payee: node, paymentHash: nil, bolt11: nil,
                                           description: "devnet test funds", amountMsat: amountMsat, feeMsat: .zero,
                                           status: .completed, failureReason: nil, preimage: nil, idempotencyKey: nil, now: now)
        }
        return try payment(id: id, as: node)!
    }

    /// Pays `invoice` from `payer` in one transaction, or records why it failed. A second call
    /// with the same `idempotencyKey` returns the first attempt and moves no money.
    func pay(payer: String, invoice: Bolt11Invoice, text: String, amountMsat: Msat, feeMsat: Msat, idempotencyKey: String, now: Date) throws -> Payment {
        let id = DevnetLedger.newID()
        var existing: String?
        try write { db in
            if let earlier = try String.fetchOne(db, sql: "SELECT id FROM payment WHERE payer = ? AND idempotencyKey = ?", arguments: [payer, idempotencyKey]) {
                existing = earlier
                return
            }
            let hash = hexString(invoice.paymentHash)
            var payee = hexString(invoice.payee)
            var failure: String?
            var preimage: String?
            var comment: String?
            var heldUntil: Double?
            let row = try Row.fetchOne(db, sql: "SELECT * FROM invoice WHERE paymentHash = ? AND payee = ?", arguments: [hash, payee])
            let balance = DevnetLedger.msat(try Int64.fetchOne(db, sql: "SELECT balanceMsat FROM node WHERE id = ?", arguments: [payer]))
            let total = try? amountMsat + feeMsat
            if let row {
                // An address's invoice credits the address's node, with the payer's comment.
                if let credited: String = row["creditTo"] { payee = credited }
                comment = row["comment"]
                try db.execute(sql: "INSERT OR IGNORE INTO node (id, balanceMsat, createdAt) VALUES (?, 0, ?)", arguments: [payee, now.timeIntervalSince1970])
                if (row["paidBy"] as String?) != nil {
                    failure = "invoice already paid"
                } else if now.timeIntervalSince1970 >= (row["expiresAt"] as Double) {
                    failure = "invoice expired"
                } else if payee == payer {
                    failure = "cannot pay this wallet's own invoice"
                } else if let total, total <= balance {
                    try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat - ? WHERE id = ?", arguments: [total.int64, payer])
                    try db.execute(sql: "UPDATE invoice SET paidBy = ? WHERE paymentHash = ?", arguments: [payer, hash])
                    if (row["hold"] as Bool?) == true {
                        // Held: taken from the payer, not yet the payee's.
                        heldUntil = row["expiresAt"]
                    } else {
                        preimage = row["preimage"]
                        try db.execute(sql: "UPDATE node SET balanceMsat = balanceMsat + ? WHERE id = ?", arguments: [amountMsat.int64, payee])
                    }
                } else {
                    failure = "insufficient balance"
                }
            } else {
                failure = "unknown destination: no devnet node \(payee.prefix(16))… has this invoice"
            }
            try DevnetLedger.insertPayment(db, id: id, payer: payer, payee: payee, paymentHash: hash, bolt11: text,
                                           description: (row?["description"] as String?) ?? invoice.description, amountMsat: amountMsat,
                                           feeMsat: failure == nil ? feeMsat : .zero, status: failure != nil ? .failed : heldUntil != nil ? .pending : .completed,
                                           failureReason: failure, preimage: preimage, idempotencyKey: idempotencyKey, now: now, comment: comment,
                                           heldUntil: heldUntil)
        }
        return try payment(id: existing ?? id, as: payer)!
    }

    static func insertPayment(_ db: Database, id: String, payer: String?, payee: String, paymentHash: String?, bolt11: String?,
                                      description: String?, amountMsat: Msat, feeMsat: Msat, status: Payment.Status,
                                      failureReason: String?, preimage: String?, idempotencyKey: String?, now: Date, comment: String? = nil,
                                      onChain: (txid: String, address: String, height: Int?)? = nil, heldUntil: Double? = nil) throws {
        let seq = (try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM payment") ?? 0) + 1
        try db.execute(sql: """
            INSERT INTO payment (id, seq, payer, payee, paymentHash, bolt11, description, amountMsat, feeMsat, status,
                failureReason, preimage, idempotencyKey, createdAt, comment, method, txid, address, height, heldUntil)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, seq, payer, payee, paymentHash, bolt11, description, amountMsat.int64, feeMsat.int64,
                             status.rawValue, failureReason, preimage, idempotencyKey, now.timeIntervalSince1970, comment,
                             onChain == nil ? "lightning" : Payment.onChainMethod, onChain?.txid, onChain?.address, onChain?.height, heldUntil])
    }

    /// The payment with `id` as `node` sees it (nil when it is not one of its payments).
    func payment(id: String, as node: String) throws -> Payment? {
        try read { db in
            try Row.fetchOne(db, sql: DevnetLedger.selectPayments + " WHERE id = ?", arguments: [id]).flatMap { DevnetLedger.payment($0, as: node) }
        }
    }

    /// `node`'s payments matching `filter`, newest first. A receive appears once it completed.
    /// Sends and receives are two indexed queries, not one OR over the whole ledger.
    func payments(of node: String, filter: PaymentFilter) throws -> [Payment] {
        var common = ""
        var commonArguments: StatementArguments = []
        if let from = filter.from { common += " AND createdAt >= ?"; commonArguments += [from.timeIntervalSince1970] }
        if let to = filter.to { common += " AND createdAt < ?"; commonArguments += [to.timeIntervalSince1970] }
        if let hash = filter.paymentHash { common += " AND paymentHash = ?"; commonArguments += [hash] }
        if let status = filter.status { common += " AND status = ?"; commonArguments += [status.rawValue] }
        var parts: [String] = []
        var arguments: StatementArguments = []
        if filter.type != .receive {
            parts.append(DevnetLedger.selectPayments + " WHERE payer = ?" + common)
            arguments += [node]
            arguments += commonArguments
        }
        if filter.type != .send {
            parts.append(DevnetLedger.selectPayments + " WHERE payee = ? AND (status = 'completed' OR heldUntil IS NOT NULL) AND payer IS NOT ?" + common)
            arguments += [node, node]
            arguments += commonArguments
        }
        let sql = "SELECT * FROM (" + parts.joined(separator: " UNION ALL ") + ") ORDER BY createdAt DESC, seq DESC LIMIT ? OFFSET ?"
        arguments += [filter.limit ?? -1, max(0, filter.offset)]
        return try read { db in try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { DevnetLedger.payment($0, as: node) } }
    }

    /// `node`'s payments recorded after sequence number `seq`, oldest first, with the last
    /// sequence number seen (for the event poller).
    func changes(of node: String, after seq: Int64) throws -> (payments: [Payment], last: Int64) {
        try read { db in
            let rows = try Row.fetchAll(db, sql: DevnetLedger.selectPayments + " WHERE seq > ? AND (payer = ? OR payee = ?) ORDER BY seq",
                                        arguments: [seq, node, node])
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM payment") ?? 0
            return (rows.compactMap { DevnetLedger.payment($0, as: node) }, max(last, seq))
        }
    }

    func lastSequence() throws -> Int64 {
        try read { try Int64.fetchOne($0, sql: "SELECT MAX(seq) FROM payment") ?? 0 }
    }

    static func payment(_ row: Row, as node: String) -> Payment? {
        let payer: String? = row["payer"]
        let payee: String = row["payee"]
        guard let status = Payment.Status(rawValue: row["status"]) else { return nil }
        let type: Payment.Kind
        let heldUntil = (row["heldUntil"] as Double?).map(Date.init(timeIntervalSince1970:))
        if payer == node { type = .send } else if payee == node, status == .completed || heldUntil != nil { type = .receive } else { return nil }
        let amount = DevnetLedger.msat(row["amountMsat"])
        let fee = DevnetLedger.msat(row["feeMsat"])
        let method: String = row["method"] ?? "lightning"
        let txid: String? = row["txid"]
        // Confirmations as of the chain's height when read: 0 while in no block.
        let confirmations = txid == nil ? nil : (row["height"] as Int?).map { max(0, (row["chainHeight"] as Int? ?? $0) - $0 + 1) } ?? 0
        return Payment(
            id: row["id"], type: type, status: status, amountMsat: amount, feeMsat: type == .send || txid != nil ? fee : .zero,
            timestamp: Date(timeIntervalSince1970: row["createdAt"]), method: method, backend: DevnetBackend.name,
            details: Payment.Details(invoice: row["bolt11"], description: row["description"], paymentHash: row["paymentHash"],
                                     preimage: status == .completed ? row["preimage"] : nil, destination: txid == nil ? payee : nil, comment: row["comment"],
                                     txid: txid, address: row["address"], confirmations: confirmations),
            idempotencyKey: type == .send ? row["idempotencyKey"] : nil, failureReason: row["failureReason"],
            heldUntil: type == .receive ? heldUntil : nil)
    }

    static func newID() -> String { hexString(SystemRandom.bytes(16)) }

    /// A payment row with the chain's height beside it (for its confirmations).
    static let selectPayments = "SELECT payment.*, (SELECT height FROM chain WHERE id = 1) AS chainHeight FROM payment"

    // MARK: Access

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try db.read(body) } catch let error as DatabaseError { throw ledgerError(error) }
    }

    func write(_ body: (Database) throws -> Void) throws {
        do {
            try db.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try body(db)
                    return .commit
                }
            }
        } catch let error as DatabaseError { throw ledgerError(error) }
    }

    private func ledgerError(_ error: DatabaseError) -> LightningError {
        .devnetLedger(path: path, reason: error.message ?? error.description)
    }
}
