import Foundation
import HawalaWallet

/// L402 (bLIP-26; formerly LSAT): a service's `402 Payment Required` carries a challenge —
/// `WWW-Authenticate: L402 version="0", token="…", invoice="lnbc…"` (older servers: `macaroon=`,
/// or the scheme `LSAT`) —; the client pays the invoice and sends `Authorization: L402
/// TOKEN:PREIMAGE_HEX`. This reads challenges and writes credentials; nothing here pays.
public enum L402 {
    /// The longest `WWW-Authenticate` value read (all of a response's, together).
    public static let maximumHeaderBytes = 16 * 1024

    /// A challenge: the token (a macaroon, base64) to send back with the preimage of the
    /// invoice's payment, under the scheme the server used.
    public struct Challenge: Sendable, Equatable {
        public enum Scheme: String, Sendable { case l402 = "L402", lsat = "LSAT" }
        public let scheme: Scheme
        public let token: String
        public let invoice: String

        public init(scheme: Scheme, token: String, invoice: String) {
            self.scheme = scheme
            self.token = token
            self.invoice = invoice
        }
    }

    /// Why a 402 could not be answered.
    public enum ChallengeError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A 402 without an L402 or LSAT challenge (x402 and others: not guessed at).
        case notL402(schemes: [String])
        /// An L402 challenge without a token or an invoice, or of a version not spoken.
        case malformed(String)
        case tooLarge

        public var description: String {
            switch self {
            case .notL402(let schemes):
                schemes.isEmpty ? "the service asks for a payment without an L402 challenge (x402 and other schemes are not supported)"
                    : "the service asks for a payment by \(schemes.prefix(3).joined(separator: ", ")), not L402: not supported"
            case .malformed(let why): "the service's L402 challenge is not usable: \(why)"
            case .tooLarge: "the service's WWW-Authenticate header is larger than \(maximumHeaderBytes / 1024) KiB; refused"
            }
        }
    }

    /// The L402 (preferred) or LSAT challenge among a response's `WWW-Authenticate` values.
    public static func challenge(in values: [String]) throws(ChallengeError) -> Challenge {
        guard values.reduce(0, { $0 + $1.utf8.count }) <= maximumHeaderBytes else { throw .tooLarge }
        let challenges = values.flatMap(AuthChallenge.parse)
        var usable: [Challenge] = []
        var problem: String?
        for challenge in challenges {
            guard let scheme = Challenge.Scheme(rawValue: challenge.scheme.uppercased()) else { continue }
            if let version = challenge.parameters["version"], version != "0" { problem = "version \(version.prefix(16)) is not spoken here"; continue }
            guard let token = challenge.parameters["token"] ?? challenge.parameters["macaroon"], !token.isEmpty else { problem = "no token"; continue }
            guard let invoice = challenge.parameters["invoice"], !invoice.isEmpty else { problem = "no invoice"; continue }
            guard token.unicodeScalars.allSatisfy(isTokenCharacter) else { problem = "the token is not base64"; continue }
            usable.append(Challenge(scheme: scheme, token: token, invoice: invoice))
        }
        if let l402 = usable.first(where: { $0.scheme == .l402 }) ?? usable.first { return l402 }
        if let problem { throw .malformed(problem) }
        throw .notL402(schemes: challenges.map(\.scheme))
    }

    /// `Authorization`'s value for `challenge` paid with `preimage`.
    public static func authorization(_ challenge: Challenge, preimageHex: String) -> String {
        "\(challenge.scheme.rawValue) \(challenge.token):\(preimageHex.lowercased())"
    }

    /// Base64 (standard or URL-safe, padded or not) and the comma several macaroons are joined with.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=", "-", "_", ",": true
        default: false
        }
    }

    /// Where a token bought for `url` is used again: the same origin, paths under the URL's
    /// folder (`/api/jobs/run` → `/api/jobs/`).
    public static func scope(of url: URL) -> (origin: String, path: String)? { L402Token.scope(of: url) }
}

/// One challenge of an HTTP `WWW-Authenticate` value (RFC 9110 §11): a scheme and its
/// parameters (names lower-cased; values unquoted), or a token68.
struct AuthChallenge: Equatable {
    let scheme: String
    var parameters: [String: String] = [:]
    var token68: String?

    /// Every challenge in `value`; what can't be read ends the reading (what was read stays).
    static func parse(_ value: String) -> [AuthChallenge] {
        var scanner = Scanner(Array(value.unicodeScalars))
        var challenges: [AuthChallenge] = []
        while true {
            scanner.skip(while: { $0 == " " || $0 == "\t" || $0 == "," })
            guard let scheme = scanner.token() else { break }
            var challenge = AuthChallenge(scheme: scheme)
            scanner.skipSpaces()
            // Parameters until the next challenge's scheme (a token not followed by '=').
            while !scanner.atEnd {
                let mark = scanner.position
                scanner.skip(while: { $0 == " " || $0 == "\t" || $0 == "," })
                guard let name = scanner.token() else { scanner.position = mark; break }
                scanner.skipSpaces()
                guard scanner.take("=") else {
                    if challenge.parameters.isEmpty, challenge.token68 == nil, scanner.atEnd || scanner.peek == "," {
                        // A token68 alone (`Basic abc`): the scheme's credential form.
                        challenge.token68 = name
                        continue
                    }
                    scanner.position = mark
                    break
                }
                // A token68 may end in '=' padding: `Negotiate abc==`.
                if challenge.parameters.isEmpty, challenge.token68 == nil, scanner.peek == "=" || scanner.atEnd || scanner.peek == "," {
                    var padded = name + "="
                    while scanner.take("=") { padded += "=" }
                    challenge.token68 = padded
                    continue
                }
                scanner.skipSpaces()
                guard var value = scanner.quoted() ?? scanner.token() else { return challenges + [challenge] }
                // An unquoted base64 value keeps its '=' padding (RFC 9110 would quote it; servers don't always).
                while scanner.take("=") { value += "=" }
                let key = name.lowercased()
                if challenge.parameters[key] == nil { challenge.parameters[key] = value }
                scanner.skipSpaces()
                if !scanner.atEnd, scanner.peek != "," { return challenges + [challenge] }
            }
            challenges.append(challenge)
        }
        return challenges
    }

    struct Scanner {
        let scalars: [Unicode.Scalar]
        var position = 0
        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }
        var atEnd: Bool { position >= scalars.count }
        var peek: Unicode.Scalar? { atEnd ? nil : scalars[position] }

        mutating func skip(while test: (Unicode.Scalar) -> Bool) {
            while let c = peek, test(c) { position += 1 }
        }
        mutating func skipSpaces() { skip(while: { $0 == " " || $0 == "\t" }) }

        mutating func take(_ c: Unicode.Scalar) -> Bool {
            guard peek == c else { return false }
            position += 1
            return true
        }

        /// RFC 9110's tchar, plus the '/' base64 uses in unquoted values.
        static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "A"..."Z", "a"..."z", "0"..."9", "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~", "/": true
            default: false
            }
        }

        mutating func token() -> String? {
            let start = position
            skip(while: Self.isTokenCharacter)
            guard position > start else { return nil }
            return String(String.UnicodeScalarView(scalars[start..<position]))
        }

        mutating func quoted() -> String? {
            guard take("\"") else { return nil }
            var text = String.UnicodeScalarView()
            while let c = peek {
                position += 1
                if c == "\"" { return String(text) }
                if c == "\\", let next = peek { position += 1; text.append(next); continue }
                text.append(c)
            }
            return nil  // unterminated
        }
    }
}
