import Foundation
import HawalaCrypto
@testable import HawalaNostr
import Testing

@Suite("Nostr events, NIP-04 and Wallet Connect URIs")
struct NostrEventTests {
    /// NIP-01's serialization: only the listed characters escaped, the rest verbatim; the id is
    /// its SHA-256 and the signature verifies; any change to any field is caught.
    @Test func eventsSignAndVerify() throws {
        let keys = try NostrKeys(secret: SecretBytes(NostrHex.decode("0000000000000000000000000000000000000000000000000000000000000003", count: 32)!))
        #expect(keys.publicKeyHex == "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9")
        let content = "line\nquote\" back\\ tab\t bell\u{07} é 😀 \u{2028}"
        let event = try NostrEvent.signed(kind: 1, tags: [["p", "abc"], ["e", "x", "wss://r"]], content: content, by: keys, at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(NostrEvent.serialization(pubkey: event.pubkey, createdAt: 1_700_000_000, kind: 1, tags: [["p", "abc"]], content: "a\"b\nc\u{07}")
                == "[0,\"\(event.pubkey)\",1700000000,1,[[\"p\",\"abc\"]],\"a\\\"b\\nc\u{07}\"]")
        #expect(event.isValid && event.tag("p") == "abc")
        // The wire form is valid JSON whatever the content; parsed back, the same event.
        let parsed = try JSONDecoder().decode(NostrEvent.self, from: Data(event.json.utf8))
        #expect(parsed == event && parsed.isValid)
        let changed = NostrEvent(id: event.id, pubkey: event.pubkey, created_at: event.created_at, kind: event.kind, tags: event.tags,
                                 content: content + ".", sig: event.sig)
        #expect(!changed.isValid)
        let otherKey = NostrEvent(id: event.id, pubkey: NostrKeys.generate().publicKeyHex, created_at: event.created_at, kind: event.kind,
                                  tags: event.tags, content: content, sig: event.sig)
        #expect(!otherKey.isValid)
        #expect(!NostrEvent(id: "zz", pubkey: "", created_at: 0, kind: 1, tags: [], content: "", sig: "").isValid)
    }

    @Test func relayMessagesParse() throws {
        let keys = NostrKeys.generate()
        let event = try NostrEvent.signed(kind: 23194, tags: [], content: "x", by: keys)
        #expect(RelayMessage("[\"EVENT\",\"sub\",\(event.json)]") == .event(subscription: "sub", event))
        #expect(RelayMessage("[\"OK\",\"\(event.id)\",true,\"\"]") == .ok(eventID: event.id, accepted: true, message: ""))
        #expect(RelayMessage("[\"EOSE\",\"sub\"]") == .endOfStoredEvents(subscription: "sub"))
        for junk in ["", "[]", "{}", "[\"EVENT\"]", "[\"OK\",1,2,3]", "[\"EVENT\",\"s\",{\"id\":1}]", String(repeating: "[", count: 10_000)] {
            #expect(RelayMessage(junk) == nil, "\(junk.prefix(20))")
        }
        #expect(NostrFilter(kinds: [23194], authors: ["a"], pTags: ["b"], since: 5).json == "{\"kinds\":[23194],\"authors\":[\"a\"],\"#p\":[\"b\"],\"since\":5}")
    }

    /// NIP-04 round trip with a fixed IV (its format: base64?iv=base64), and what is not one.
    @Test func nip04() throws {
        let a = NostrKeys.generate(), b = NostrKeys.generate()
        let iv = [UInt8](repeating: 7, count: 16)
        let payload = try NIP04.encrypt("{\"method\":\"get_info\"}", privateKey: a.secret, publicKey: b.publicKey, iv: iv)
        #expect(payload.hasSuffix("?iv=BwcHBwcHBwcHBwcHBwcHBw=="))
        #expect(try NIP04.decrypt(payload, privateKey: b.secret, publicKey: a.publicKey) == "{\"method\":\"get_info\"}")
        for bad in ["", "abc", "abc?iv=", "AAAA?iv=AAAA", String(repeating: "A", count: 200_000) + "?iv=BwcHBwcHBwcHBwcHBwcHBw=="] {
            #expect(throws: NIP04.Error.self) { try NIP04.decrypt(bad, privateKey: b.secret, publicKey: a.publicKey) }
        }
        let stranger = NostrKeys.generate()
        #expect(throws: NIP04.Error.self) { try NIP04.decrypt(payload, privateKey: stranger.secret, publicKey: a.publicKey) }
    }

    /// NIP-04 against an independent implementation: a payload rust-nostr made (PyPI nostr-sdk
    /// 0.45.1, `nip04_encrypt` from key 1 to key 2) decrypts here, and encrypting the same text
    /// with its IV gives the same payload.
    @Test func nip04AgreesWithRustNostr() throws {
        let one = try NostrKeys(secret: SecretBytes([UInt8](repeating: 0, count: 31) + [1]))
        let two = try NostrKeys(secret: SecretBytes([UInt8](repeating: 0, count: 31) + [2]))
        #expect(one.publicKeyHex == "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        let theirs = "ttPweUZU1S3YVu0dK38lj/7QxJHwbIGxyqXkLKOxSRE7UrdVvtqkmyb0MXvBmxaCS20RQZGg0AvM0UekybEj461/j9ZRMhMu6+3h1iekGYA=?iv=L4ceC3mYJ6E8KVJ1W5MK5Q=="
        let text = "{\"method\":\"pay_invoice\",\"params\":{\"invoice\":\"lnbc1…\"}} ünïcödé"
        #expect(try NIP04.decrypt(theirs, privateKey: two.secret, publicKey: one.publicKey) == text)
        let iv = try #require(Data(base64Encoded: "L4ceC3mYJ6E8KVJ1W5MK5Q=="))
        #expect(try NIP04.encrypt(text, privateKey: one.secret, publicKey: two.publicKey, iv: [UInt8](iv)) == theirs)
    }

    @Test func walletConnectURIs() throws {
        let service = NostrKeys.generate(), client = NostrKeys.generate()
        let uri = WalletConnectURI(walletPublicKey: service.publicKeyHex, relays: ["wss://relay.example.com/nwc", "ws://127.0.0.1:7777"], secret: client.secret)
        let text = uri.text()
        #expect(text.hasPrefix("nostr+walletconnect://\(service.publicKeyHex)?relay=wss%3A%2F%2Frelay.example.com%2Fnwc&relay=ws%3A%2F%2F127.0.0.1%3A7777&secret="))
        #expect(WalletConnectURI(text) == uri)
        #expect(WalletConnectURI("nostr+walletconnect://nothex?relay=wss://r&secret=00") == nil)
        #expect(WalletConnectURI("nostr+walletconnect://\(service.publicKeyHex)?secret=" + client.publicKeyHex) == nil, "no relay")
        #expect(throws: RelaySession.Error.plainWebSocket("ws://relay.example.com")) { try RelaySession.check("ws://relay.example.com") }
        try RelaySession.check("ws://127.0.0.1:7777")
        try RelaySession.check("wss://relay.example.com")
        #expect(throws: RelaySession.Error.invalidURL("https://relay.example.com")) { try RelaySession.check("https://relay.example.com") }
    }
}
