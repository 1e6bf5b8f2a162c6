import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// Why an LNURL-pay exchange was refused. Each case is one line for the user.
public enum LNURLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The service answered `{"status": "ERROR", "reason": …}`.
    case serviceError(String)
    case invalidResponse(String)
    case wrongTag(String)
    /// An LNURL given to log in with is something else (its tag, or "no tag").
    case notALogin(String)
    /// An LNURL given to withdraw from is something else (its tag).
    case notAWithdrawal(String)
    case callbackOnAnotherDomain(String)
    case amountOutOfRange(requested: Msat, min: Msat, max: Msat)
    case commentTooLong(allowed: Int)
    case invoice(Bolt11Error)
    case invoiceAmountMismatch(requested: Msat, invoice: Msat?)
    case descriptionHashMismatch
    case wrongNetwork(LightningNetwork)
    case invalidSuccessAction(String)
    case identifierMismatch(String)
    case http(String)

    public var description: String {
        switch self {
        case .serviceError(let reason): "the service refused: \(reason)"
        case .invalidResponse(let why): "the service's answer is invalid: \(why)"
        case .wrongTag(let tag): "this LNURL is for \"\(tag)\", not a payment"
        case .notAWithdrawal(let tag): tag == "payRequest" ? "this LNURL asks for a payment, it does not offer one: pay it instead" : "this LNURL is not a withdrawal (LNURL-withdraw): its tag is \"\(tag)\""
        case .notALogin(let tag): "this LNURL is not a login (LNURL-auth): its tag is \"\(tag)\""
        case .callbackOnAnotherDomain(let host): "the service sends payments to another domain (\(host)); refused"
        case let .amountOutOfRange(requested, min, max):
            "\(satsText(requested, .down)) is outside what the service accepts (\(satsText(min, .up)) to \(satsText(max, .down)))"
        case .commentTooLong(let allowed): allowed == 0 ? "this service takes no comment" : "the comment is longer than the \(allowed) characters the service allows"
        case .invoice(let e): "the service's invoice is invalid: \(e)"
        case let .invoiceAmountMismatch(requested, invoice):
            "the service's invoice asks \(invoice.map { AmountText.exactSats($0) } ?? "any amount"), not the \(AmountText.exactSats(requested)) requested; refused"
        case .descriptionHashMismatch: "the service's invoice is not for this payment request (description hash mismatch); refused"
        case .wrongNetwork(let n): "the service's invoice is for another network (\(n.rawValue)); refused"
        case .invalidSuccessAction(let why): "the service's success action is invalid: \(why)"
        case .identifierMismatch(let address): "the service does not vouch for \(address) in its metadata; refused"
        case .http(let why): why
        }
    }
}

/// An LNURL-pay request (LUD-06), checked: the answer to the first GET.
public struct LNURLPayRequest: Sendable, Equatable {
    public let callback: URL
    public let minSendableMsat: Msat
    public let maxSendableMsat: Msat
    /// The metadata string exactly as served: its SHA-256 must be the invoice's description hash.
    public let metadata: String
    /// The `text/plain` entry of the metadata.
    public let description: String
    /// LUD-12: the longest comment accepted (0: none).
    public let commentAllowed: Int
    /// The host the request came from; the callback and success-action URLs must be on it.
    public let domain: String
    /// Tests on loopback only: http:// accepted on 127.0.0.1.
    let allowLoopbackHTTP: Bool

    static let maximumMetadataBytes = 64 * 1024

    /// Parses and checks the service's answer to `url` (a decoded LNURL or a Lightning address's
    /// endpoint). For a Lightning address `identifier`, the metadata must name it (LUD-16).
    public static func parse(_ data: Data, from url: URL, identifier: String? = nil) throws(LNURLError) -> LNURLPayRequest {
        try parse(data, from: url, identifier: identifier, allowLoopbackHTTP: false)
    }

    static func parse(_ data: Data, from url: URL, identifier: String? = nil, allowLoopbackHTTP: Bool) throws(LNURLError) -> LNURLPayRequest {
        let object: PayRequestJSON = try decode(data)
        guard let tag = object.tag else { throw .invalidResponse("no tag") }
        guard tag == "payRequest" else { throw .wrongTag(tag) }
        guard let domain = url.host?.lowercased() else { throw .invalidResponse("no host") }
        guard let callbackText = object.callback, let callback = URL(string: callbackText) else { throw .invalidResponse("no callback URL") }
        if !(allowLoopbackHTTP && callback.host == "127.0.0.1") {
            do { _ = try PaymentInput.checkedURL(callbackText) } catch { throw .invalidResponse("the callback is not https") }
        }
        guard callback.host?.lowercased() == domain else { throw .callbackOnAnotherDomain(callback.host ?? "?") }
        guard let minimum = object.minSendable, let maximum = object.maxSendable, minimum >= 1, minimum <= maximum,
              let min = try? Msat(minimum), let max = try? Msat(maximum) else {
            throw .invalidResponse("minSendable/maxSendable missing or inconsistent")
        }
        guard let metadata = object.metadata, metadata.utf8.count <= maximumMetadataBytes,
              let entries = try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [[Any]] else {
            throw .invalidResponse("metadata is not a JSON array of entries")
        }
        let pairs = entries.compactMap { e -> (String, String)? in
            guard e.count >= 2, let k = e[0] as? String, let v = e[1] as? String else { return nil }
            return (k, v)
        }
        guard let text = pairs.first(where: { $0.0 == "text/plain" })?.1 else { throw .invalidResponse("metadata has no text/plain entry") }
        if let identifier {
            guard pairs.contains(where: { ($0.0 == "text/identifier" || $0.0 == "text/email") && $0.1.lowercased() == identifier.lowercased() }) else {
                throw .identifierMismatch(identifier)
            }
        }
        return LNURLPayRequest(callback: callback, minSendableMsat: min, maxSendableMsat: max, metadata: metadata, description: text,
                               commentAllowed: Swift.max(0, Swift.min(object.commentAllowed ?? 0, 2000)), domain: domain,
                               allowLoopbackHTTP: allowLoopbackHTTP)
    }

    struct PayRequestJSON: Decodable {
        let tag, callback, metadata: String?
        let minSendable, maxSendable: UInt64?
        let commentAllowed: Int?
    }

    struct CallbackJSON: Decodable {
        let pr: String?
        let successAction: SuccessActionJSON?
    }

    struct SuccessActionJSON: Decodable {
        let tag, message, description, url, ciphertext, iv: String?
    }

    struct StatusJSON: Decodable {
        let status, reason: String?
    }

    /// The callback URL for `amountMsat` and an optional comment (LUD-06, LUD-12).
    public func callbackURL(amountMsat: Msat, comment: String? = nil) throws(LNURLError) -> URL {
        guard amountMsat >= minSendableMsat, amountMsat <= maxSendableMsat else {
            throw .amountOutOfRange(requested: amountMsat, min: minSendableMsat, max: maxSendableMsat)
        }
        guard var parts = URLComponents(url: callback, resolvingAgainstBaseURL: false) else { throw .invalidResponse("bad callback URL") }
        var items = parts.queryItems ?? []
        items.append(URLQueryItem(name: "amount", value: String(amountMsat.value)))
        if let comment, !comment.isEmpty {
            guard TextLimit.fits(comment, scalars: commentAllowed) else { throw .commentTooLong(allowed: commentAllowed) }
            items.append(URLQueryItem(name: "comment", value: comment))
        }
        parts.queryItems = items
        guard let url = parts.url else { throw .invalidResponse("bad callback URL") }
        return url
    }

    /// Checks the callback's answer: the invoice is valid, for the amount asked, for this
    /// request's metadata (SHA-256 description hash — stricter than the Spark SDK), on our
    /// network; the success action, if any, is well formed and on the callback's domain.
    public func invoice(from data: Data, amountMsat: Msat, network: LightningNetwork) throws(LNURLError) -> (Bolt11Invoice, SuccessAction?) {
        let object: CallbackJSON = try LNURLPayRequest.decode(data)
        guard let pr = object.pr else { throw .invalidResponse("no invoice (pr)") }
        let invoice: Bolt11Invoice
        do { invoice = try Bolt11Invoice(pr) } catch { throw .invoice(error) }
        guard invoice.network == network else { throw .wrongNetwork(invoice.network) }
        guard invoice.amountMsat == amountMsat else { throw .invoiceAmountMismatch(requested: amountMsat, invoice: invoice.amountMsat) }
        guard invoice.descriptionHash == Hash.sha256(Array(metadata.utf8)) else { throw .descriptionHashMismatch }
        var action: SuccessAction?
        if let a = object.successAction {
            action = try SuccessAction(a, domain: callback.host?.lowercased() ?? domain, allowLoopbackHTTP: allowLoopbackHTTP)
        }
        return (invoice, action)
    }

    /// Decodes a service's JSON answer; `{"status": "ERROR", "reason": …}` becomes `.serviceError`.
    static func decode<T: Decodable>(_ data: Data) throws(LNURLError) -> T {
        if let status = try? JSONDecoder().decode(StatusJSON.self, from: data), status.status?.uppercased() == "ERROR" {
            let reason = status.reason ?? "no reason given"
            throw .serviceError(String(reason.filter { !$0.isNewline }.prefix(200)))
        }
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw .invalidResponse("not the JSON expected (\(LNURLPayRequest.firstProblem(error)))")
        }
    }

    static func firstProblem(_ error: Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c), DecodingError.dataCorrupted(let c):
            let path = c.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "malformed JSON" : "bad \(path)"
        default: return "malformed JSON"
        }
    }
}

/// What to show once a payment succeeded (LUD-09, LUD-10).
public enum SuccessAction: Sendable, Equatable {
    case message(String)
    case url(description: String, url: URL)
    /// LUD-10: a message encrypted with AES-256-CBC under the payment preimage.
    case aes(description: String, ciphertext: [UInt8], iv: [UInt8])

    init(_ object: LNURLPayRequest.SuccessActionJSON, domain: String, allowLoopbackHTTP: Bool = false) throws(LNURLError) {
        guard let tag = object.tag else { throw .invalidSuccessAction("no tag") }
        func text(_ key: KeyPath<LNURLPayRequest.SuccessActionJSON, String?>, _ name: String, max: Int) throws(LNURLError) -> String {
            guard let value = object[keyPath: key] else { throw .invalidSuccessAction("no \(name)") }
            guard TextLimit.fits(value, scalars: max) else { throw .invalidSuccessAction("\(name) is longer than \(max) characters") }
            return value
        }
        switch tag {
        case "message":
            self = .message(try text(\.message, "message", max: 144))
        case "url":
            let description = try text(\.description, "description", max: 144)
            let link = try text(\.url, "url", max: 2048)
            guard let url = URL(string: link),
                  url.scheme?.lowercased() == "https" || url.host?.hasSuffix(".onion") == true || (allowLoopbackHTTP && url.host == "127.0.0.1") else {
                throw .invalidSuccessAction("the url is not https")
            }
            guard url.host?.lowercased() == domain else { throw .invalidSuccessAction("the url is on another domain (\(url.host ?? "?"))") }
            self = .url(description: description, url: url)
        case "aes":
            let description = try text(\.description, "description", max: 144)
            guard let ciphertext = Data(base64Encoded: try text(\.ciphertext, "ciphertext", max: 5500)), ciphertext.count <= 4096, ciphertext.count % 16 == 0, !ciphertext.isEmpty,
                  let iv = Data(base64Encoded: try text(\.iv, "iv", max: 24)), iv.count == 16 else {
                throw .invalidSuccessAction("ciphertext or iv is malformed")
            }
            self = .aes(description: description, ciphertext: Array(ciphertext), iv: Array(iv))
        default:
            throw .invalidSuccessAction("unknown tag \"\(tag)\"")
        }
    }

    /// The text to show after payment: LUD-10 messages are decrypted with the preimage.
    public func text(preimage: [UInt8]?) throws(LNURLError) -> String {
        switch self {
        case .message(let m): return m
        case let .url(description, url): return "\(description) \(url.absoluteString)"
        case let .aes(description, ciphertext, iv):
            guard let preimage else { throw .invalidSuccessAction("the preimage is needed to read this message") }
            guard let plain = try? AESCBC.decrypt(ciphertext, key: preimage, iv: iv), let message = String(validating: plain, as: UTF8.self) else {
                throw .invalidSuccessAction("the message does not decrypt with the payment preimage")
            }
            return "\(description) \(message)"
        }
    }
}
