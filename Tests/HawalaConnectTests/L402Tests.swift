import Foundation
@testable import HawalaConnect
import Testing

/// L402 challenges as bLIP-26 writes them, as older servers did (LSAT, macaroon=), and as a
/// hostile or sloppy server might.
@Suite("L402 challenges and credentials")
struct L402Tests {
    let invoice = "lnbcrt10u1pjexample"

    @Test func theSpecsForms() throws {
        // bLIP-26's example shape.
        let spec = try L402.challenge(in: [#"L402 version="0", token="AGIAJEemVQUTEyNCR0exk7ek90Cg==", invoice="lnbc1500n1pw5kjhmpp5fu6xhthlt2vucmzkx6c7wtlh2r625r30cyjsfqhu8rsx4xpz5lwqdpa2fjkzep6yptksct5yp5hxgrrv96hx6twvusycn3qv9jx7ur5d9hkugr5dusx6cqzpgxqr23s79ruapxc4j5uskt4htly2salw4drq979d7rcela9wz02elhypmdzmzlnxuknpgfyfm86pntt8vvkvffma5qc9n50h4mvqhngadqy3ngqjcym5a""#])
        #expect(spec.scheme == .l402 && spec.token == "AGIAJEemVQUTEyNCR0exk7ek90Cg==" && spec.invoice.hasPrefix("lnbc1500n1"))
        #expect(L402.authorization(spec, preimageHex: "1234ABCD") == "L402 AGIAJEemVQUTEyNCR0exk7ek90Cg==:1234abcd")
        // Aperture's older form: LSAT with macaroon=.
        let lsat = try L402.challenge(in: [#"LSAT macaroon="AGIAJEemVQUTEyNCR0exk7ek90Cg==", invoice="\#(invoice)""#])
        #expect(lsat.scheme == .lsat && lsat.token == "AGIAJEemVQUTEyNCR0exk7ek90Cg==")
        #expect(L402.authorization(lsat, preimageHex: "00") == "LSAT AGIAJEemVQUTEyNCR0exk7ek90Cg==:00")
        // L402 with macaroon= (what lnget and Aperture send today).
        #expect(try L402.challenge(in: [#"L402 macaroon="abc=", invoice="\#(invoice)""#]).token == "abc=")
    }

    @Test func sloppyButReadable() throws {
        // Unquoted values (padding included), extra parameters, a lowercase scheme, odd spacing.
        let unquoted = try L402.challenge(in: ["l402 version=0,token=AbC+/x==,  invoice=\(invoice) , realm=\"api\""])
        #expect(unquoted.scheme == .l402 && unquoted.token == "AbC+/x==" && unquoted.invoice == invoice)
        // Several challenges in one value and across values; L402 preferred over LSAT, whichever comes first.
        let several = try L402.challenge(in: [#"Bearer realm="x", LSAT macaroon="old", invoice="\#(invoice)", L402 token="new", invoice="\#(invoice)""#])
        #expect(several.scheme == .l402 && several.token == "new")
        let split = try L402.challenge(in: [#"Basic realm="x""#, #"L402 token="t", invoice="\#(invoice)""#])
        #expect(split.token == "t")
        // Escapes inside quotes; a repeated parameter keeps its first value.
        #expect(try L402.challenge(in: [#"L402 token="a\=b", invoice="\#(invoice)""#]).token == "a=b")
        #expect(try L402.challenge(in: [#"L402 token="first", token="second", invoice="\#(invoice)""#]).token == "first")
    }

    @Test func notL402() {
        #expect(throws: L402.ChallengeError.notL402(schemes: ["x402"])) { try L402.challenge(in: [#"x402 accepts="usdc""#]) }
        #expect(throws: L402.ChallengeError.notL402(schemes: [])) { try L402.challenge(in: []) }
        #expect(throws: L402.ChallengeError.malformed("no invoice")) { try L402.challenge(in: [#"L402 token="abc""#]) }
        #expect(throws: L402.ChallengeError.malformed("no token")) { try L402.challenge(in: [#"L402 invoice="\#(invoice)""#]) }
        #expect(throws: L402.ChallengeError.malformed("version 1 is not spoken here")) { try L402.challenge(in: [#"L402 version="1", token="a", invoice="\#(invoice)""#]) }
        #expect(throws: L402.ChallengeError.malformed("the token is not base64")) { try L402.challenge(in: [#"L402 token="a b\r\nX-Evil: 1", invoice="\#(invoice)""#]) }
        #expect(throws: L402.ChallengeError.tooLarge) { try L402.challenge(in: ["L402 token=\"" + String(repeating: "A", count: 20_000) + "\", invoice=\"x\""]) }
        // Unterminated quotes, garbage: never a crash, never a challenge.
        for garbage in ["L402 token=\"abc", "L402 ,,,, =", "=\"\"", "L402 token", String(repeating: ",", count: 5000), "\u{0}\u{1}L402"] {
            #expect((try? L402.challenge(in: [garbage])) == nil, "\(garbage.prefix(20))")
        }
    }

    @Test func scopes() throws {
        let url = try #require(URL(string: "https://API.example.com:443/v1/jobs/run?x=1"))
        let scope = try #require(L402.scope(of: url))
        #expect(scope.origin == "https://api.example.com" && scope.path == "/v1/jobs/")
        let local = try #require(URL(string: "http://127.0.0.1:8080"))
        let bare = try #require(L402.scope(of: local))
        #expect(bare.origin == "http://127.0.0.1:8080" && bare.path == "/")
        for other in ["ftp://example.com/x", "file:///etc/passwd"] {
            let address = try #require(URL(string: other))
            #expect(L402.scope(of: address) == nil)
        }
    }
}
