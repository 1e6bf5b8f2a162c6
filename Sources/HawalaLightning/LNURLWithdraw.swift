import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText

/// An LNURL-withdraw request (LUD-03), checked: a service (a voucher, an ATM, a faucet) offers
/// to pay an invoice of this wallet's, between `minWithdrawableMsat` and `maxWithdrawableMsat`.
public struct LNURLWithdrawRequest: Sendable, Equatable {
    public let callback: URL
    public let k1: String
    /// The service's description, proposed for the invoice.
    public let defaultDescription: String
    public let minWithdrawableMsat: Msat
    public let maxWithdrawableMsat: Msat
    /// The host the request came from.
    public let domain: String

    struct JSON: Decodable {
        let tag, callback, k1, defaultDescription: String?
        let minWithdrawable, maxWithdrawable: UInt64?
    }

    /// Parses and checks the service's answer to `url`.
    public static func parse(_ data: Data, from url: URL, allowLoopbackHTTP: Bool = false) throws(LNURLError) -> LNURLWithdrawRequest {
        let object: JSON = try LNURLPayRequest.decode(data)
        guard let tag = object.tag else { throw .invalidResponse("no tag") }
        guard tag == "withdrawRequest" else { throw .notAWithdrawal(String(tag.prefix(40))) }
        guard let domain = url.host?.lowercased() else { throw .invalidResponse("no host") }
        guard let callbackText = object.callback, let callback = URL(string: callbackText), callback.host != nil else {
            throw .invalidResponse("no callback URL")
        }
        do { _ = try PaymentInput.checkedURL(callbackText, allowLoopbackHTTP: allowLoopbackHTTP) } catch {
            throw .invalidResponse("the callback is not https")
        }
        guard let k1 = object.k1, !k1.isEmpty, k1.count <= 1024 else { throw .invalidResponse("no k1") }
        guard let minimum = object.minWithdrawable, let maximum = object.maxWithdrawable, minimum <= maximum, maximum >= 1000,
              let min = try? Msat(minimum), let max = try? Msat(maximum) else {
            throw .invalidResponse("minWithdrawable/maxWithdrawable missing or inconsistent")
        }
        let description = TextLimit.prefix(object.defaultDescription ?? "", scalars: PaymentLimits.maximumDescriptionBytes / 4)
        return LNURLWithdrawRequest(callback: callback, k1: k1, defaultDescription: description, minWithdrawableMsat: Swift.max(min, 1000 as Msat),
                                    maxWithdrawableMsat: max, domain: domain)
    }

    /// The amount to withdraw: `sats` when given (within the bounds), else the most offered,
    /// in whole sats (an invoice's amount here is whole sats).
    public func amountSats(_ sats: Sats?) throws(LNURLError) -> Sats {
        let chosen = sats ?? maxWithdrawableMsat.sats(.down)
        guard chosen > .zero, chosen.msat >= minWithdrawableMsat, chosen.msat <= maxWithdrawableMsat else {
            throw .amountOutOfRange(requested: chosen.msat, min: minWithdrawableMsat, max: maxWithdrawableMsat)
        }
        return chosen
    }

    /// The callback URL handing the service `invoice` (LUD-03: `k1` and `pr` added to its query).
    public func callbackURL(invoice: String) throws(LNURLError) -> URL {
        guard var parts = URLComponents(url: callback, resolvingAgainstBaseURL: false) else { throw .invalidResponse("bad callback URL") }
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "k1", value: k1), URLQueryItem(name: "pr", value: invoice)]
        guard let url = parts.url else { throw .invalidResponse("bad callback URL") }
        return url
    }

    /// Said before withdrawing less than offered: a withdrawal link is used once.
    public func remainderNote(sats: Sats) -> String? {
        let offered = maxWithdrawableMsat.sats(.down)
        guard sats < offered else { return nil }
        return "the link is used once: the other \(AmountText.sats(offered.minusOrZero(sats))) it offers are given up"
    }

    /// What a person is asked: "Receive up to 5,000 sat from example.com: coffee voucher".
    public var summary: String {
        let range = minWithdrawableMsat.sats(.down) == maxWithdrawableMsat.sats(.down)
            ? satsText(maxWithdrawableMsat, .down)
            : "\(satsText(minWithdrawableMsat, .up)) to \(satsText(maxWithdrawableMsat, .down))"
        return "Receive \(range) from \(domain)" + (defaultDescription.isEmpty ? "" : ": \(DisplayText.safe(defaultDescription))")
    }
}

/// A wallet's own Lightning address (LUD-16), with the LNURL a QR code carries (LUD-01).
public struct LightningAddressInfo: Sendable, Equatable, JSONRepresentable {
    /// name@domain.
    public let address: String
    public let name: String
    public let description: String
    /// The LNURL-pay endpoint the address stands for.
    public let url: URL

    public init(name: String, domain: String, description: String, url: URL) {
        self.name = name
        address = "\(name)@\(domain)"
        self.description = description
        self.url = url
    }

    /// LUD-01: the endpoint as bech32 `lnurl1…` (upper-case in a QR code: a smaller one).
    public var lnurl: String { Bech32.encode(hrp: "lnurl", bytes: Array(url.absoluteString.utf8)) }

    /// `{address, name, description, lnurl, url}`.
    public var json: JSONValue {
        .object([("address", .string(address)), ("name", .string(name)), ("description", .string(description)),
                 ("lnurl", .string(lnurl)), ("url", .string(url.absoluteString))])
    }

    /// The longest description a Lightning address carries for its payers, in Unicode scalars.
    public static let maximumDescriptionScalars = 200

    /// Checks a name a person chose: LUD-16's characters (a-z, 0-9, -, _, .), 1 to 64 of them.
    /// Returns it lower-cased.
    public static func checkName(_ text: String) throws(LightningAddressError) -> String {
        let name = text.trimmingCharacters(in: .whitespaces).lowercased()
        // Dots only between other characters: "." and ".." would be path steps in the address's URL.
        guard PaymentInput.addressNameLength.contains(name.count), name.allSatisfy(PaymentInput.addressNameCharacters.contains),
              !name.hasPrefix("."), !name.hasSuffix("."), !name.contains("..") else {
            throw .invalidName(text)
        }
        return name
    }
}
