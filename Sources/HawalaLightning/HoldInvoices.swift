import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet

/// Why a hold invoice's step was refused: each case one line a person (or a program) can act on.
public enum HoldInvoiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not 64 hex digits.
    case notAHash
    /// No payment is held for this wallet under this payment hash (none made, none paid yet).
    case nothingHeld(paymentHash: String)
    /// The invoice was made by its caller, who holds the preimage: settling needs it.
    case preimageNotKept(paymentHash: String)
    /// Settled already: the money is this wallet's, nothing can be given back.
    case settled
    /// Cancelled already (or expired): the money went back to its payer.
    case cancelled
    /// Its time passed before it was settled: the money went back to its payer.
    case expired(at: Date)
    /// The backend can make hold invoices but not give a held payment back before it expires.
    case cancelNotOffered(backend: String)
    /// The wallet already has an invoice or payment under this hash.
    case hashInUse

    public var description: String {
        switch self {
        case .notAHash: "a payment hash is 64 hex digits"
        case .nothingHeld(let hash): "no payment is held under \(hash.prefix(16))…: the invoice is unknown or not paid yet"
        case .preimageNotKept(let hash): "the preimage of \(hash.prefix(16))… was not made by this wallet: settle with the preimage itself"
        case .settled: "this payment is settled already: it is yours, and can't be given back"
        case .cancelled: "this payment was cancelled: the money went back to its payer"
        case .expired(let at): "this payment was not settled before \(at.iso8601): the money went back to its payer"
        case .cancelNotOffered(let backend): "\(backend) can't give a held payment back early: it goes back to its payer when the invoice expires"
        case .hashInUse: "this wallet already has an invoice or a payment with this payment hash: use a new preimage"
        }
    }
}

extension PaymentBackend {
    /// Backends without hold invoices say so.
    public func receiveHeldPayment(_ request: ReceiveRequest, paymentHash: String) async throws -> ReceiveResponse {
        throw LightningError.unsupported(backend: name, .otherCall("hold invoices, not offered here yet"))
    }
    public func settleHeldPayment(preimage: SecretBytes) async throws -> Payment {
        throw LightningError.unsupported(backend: name, .otherCall("hold invoices, not offered here yet"))
    }
    public func cancelHeldPayment(paymentHash: String) async throws -> Payment {
        throw LightningError.unsupported(backend: name, .otherCall("hold invoices, not offered here yet"))
    }
}

/// What a person or program names a held payment by: its payment hash, or the preimage that
/// settles it — both 64 hex digits, told apart by the wallet's own records.
public enum HoldReference: Sendable, Equatable {
    case paymentHash(String)
    case preimage(SecretBytes)

    /// The payment hash a reference settles or cancels.
    public var paymentHash: String {
        switch self {
        case .paymentHash(let hash): hash
        case .preimage(let preimage): preimage.withUnsafeBytes { hexString(Hash.sha256(Array($0))) }
        }
    }

    /// Reads `text` (64 hex digits) against the wallet's payments: a preimage when its hash is
    /// one of the wallet's hold invoices, else a payment hash.
    /// - Throws: `HoldInvoiceError.notAHash`.
    public static func read(_ text: String, knownHash: (String) -> Bool) throws(HoldInvoiceError) -> HoldReference {
        try read(SecretBytes(Array(text.utf8)), knownHash: knownHash)
    }

    /// `read` for text kept as a secret (a preimage typed or piped in).
    public static func read(_ text: SecretBytes, knownHash: (String) -> Bool) throws(HoldInvoiceError) -> HoldReference {
        var hex = text.unsafeCopy()
        defer { SecretBytes.wipe(&hex) }
        while let last = hex.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { hex.removeLast() }
        guard hex.count == 64 else { throw .notAHash }
        var bytes = [UInt8](repeating: 0, count: 32)
        defer { SecretBytes.wipe(&bytes) }
        for i in 0..<32 {
            guard let high = nibble(hex[2 * i]), let low = nibble(hex[2 * i + 1]) else { throw .notAHash }
            bytes[i] = high << 4 | low
        }
        let preimage = SecretBytes(bytes)
        let asPreimage = HoldReference.preimage(preimage)
        if knownHash(asPreimage.paymentHash) { return asPreimage }
        return .paymentHash(hexString(bytes))
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

extension LightningSession {
    /// Makes a hold invoice: a payment to it is held until `settle` or `cancel`, and goes back
    /// to its payer if neither comes before the invoice expires. With no `paymentHash`, the
    /// wallet makes the preimage and keeps it sealed (settling by hash later opens it); with
    /// one, its caller holds the preimage and settles with it.
    public func receiveHeld(_ request: ReceiveRequest, paymentHash: String? = nil, connection: String? = nil) async throws(LightningError) -> CreatedInvoice {
        try lightning.checkBackupBeforeRealMoney()
        return try await LightningError.during(backend.name) {
            let hash: String
            if let given = paymentHash {
                let hex = given.lowercased()
                guard hex.utf8.count == 64, bytes(fromHex: hex) != nil else { throw HoldInvoiceError.notAHash }
                // A hash the wallet knows names someone's invoice already: never a second one.
                guard !knowsPayment(hash: hex) else { throw HoldInvoiceError.hashInUse }
                hash = hex
            } else {
                guard let keyring else { throw LightningError.notConnected }
                var bytes = SystemRandom.bytes(32)
                defer { SecretBytes.wipe(&bytes) }
                hash = hexString(Hash.sha256(bytes))
                // Kept before the invoice exists: never an invoice paid that can't be settled.
                try store.saveHoldPreimage(SecretBytes(bytes), paymentHash: hash, walletID: wallet.id, keyring: keyring)
            }
            let response = try await backend.receiveHeldPayment(request, paymentHash: hash)
            try lightning.recordInvoice(response, amountSats: request.amountSats, description: request.description, connection: connection)
            return CreatedInvoice(response: response, amountSats: request.amountSats, description: request.description, backend: backend.name)
        }
    }

    /// The payments under `hash` as the backend has them now, recorded (a payment to an open
    /// invoice may have come, or been held, since the last sync).
    public func refresh(paymentHash hash: String) async throws(LightningError) {
        try await LightningError.during(backend.name) {
            try await lightning.record(try await backend.listPayments(PaymentFilter(paymentHash: hash)))
        }
    }

    /// Whether `hash` is one of this wallet's invoices or payments (how a reference is read).
    public func knowsPayment(hash: String) -> Bool {
        ((try? store.payments(walletID: wallet.id, filter: PaymentFilter(paymentHash: hash, limit: 1))) ?? []).isEmpty == false
    }

    /// Settles a held payment: it becomes this wallet's, and its payer gets the preimage. By
    /// payment hash, the preimage the wallet kept is used. Settling again answers with the
    /// settled payment.
    public func settle(_ reference: HoldReference) async throws(LightningError) -> Payment {
        try await LightningError.during(backend.name) {
            let hash = reference.paymentHash
            let preimage: SecretBytes
            switch reference {
            case .preimage(let given): preimage = given
            case .paymentHash:
                guard let keyring, let kept = try store.holdPreimage(paymentHash: hash, walletID: wallet.id, keyring: keyring) else {
                    if let done = try settledOrEnded(hash) { return done }
                    throw HoldInvoiceError.preimageNotKept(paymentHash: hash)
                }
                preimage = kept
            }
            let payment = try await backend.settleHeldPayment(preimage: preimage)
            try await lightning.record([payment])
            // Kept until the payment is surely this wallet's (a claim may still be on its way).
            if payment.status == .completed { forgetPreimage(hash) }
            return try store.payment(walletID: wallet.id, id: payment.id) ?? payment
        }
    }

    /// Gives a held payment back to its payer. Cancelling again answers with the cancelled payment.
    public func cancel(paymentHash: String) async throws(LightningError) -> Payment {
        try await LightningError.during(backend.name) {
            let hash = paymentHash.lowercased()
            guard hash.utf8.count == 64, bytes(fromHex: hash) != nil else { throw HoldInvoiceError.notAHash }
            let payment = try await backend.cancelHeldPayment(paymentHash: hash)
            try await lightning.record([payment])
            forgetPreimage(hash)
            return try store.payment(walletID: wallet.id, id: payment.id) ?? payment
        }
    }

    /// A held payment's preimage, no longer needed once it ended. Not deleted: it stays sealed
    /// in the store (a secret kept longer than needed, never one lost), and the log says so.
    func forgetPreimage(_ hash: String) {
        UnsavedWrite.attempt("the deletion of held payment \(hash)'s preimage") { try store.forgetHoldPreimage(paymentHash: hash, walletID: wallet.id) }
    }

    /// A settled payment under `hash` already recorded (a settle repeated after its preimage was forgotten).
    private func settledOrEnded(_ hash: String) throws -> Payment? {
        let payments = try store.payments(walletID: wallet.id, filter: PaymentFilter(type: .receive, paymentHash: hash, limit: 5))
        if let settled = payments.first(where: { $0.status == .completed }) { return settled }
        if payments.contains(where: { $0.status == .failed && $0.heldUntil != nil }) { throw HoldInvoiceError.cancelled }
        return nil
    }
}
