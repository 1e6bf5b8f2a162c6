import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaText
import HawalaWallet
import Testing
@testable import HawalaLightning
import HawalaTestSupport

@Suite("LNURL-auth (LUD-04/05)")
struct LNURLAuthTests {
    struct Vector: Decodable {
        let mnemonic, passphrase, domain, hashingKey, linkingKey, k1, sig: String
        let pathSuffix: [UInt32]
    }

    struct MessageVector: Decodable {
        let privateKey, message, pubkey, sig, compact: String
    }

    struct File: Decodable {
        let vectors: [Vector]
        let messages: [MessageVector]
    }

    static func file() throws -> File {
        let url = try #require(Bundle.module.url(forResource: "lnurl-auth", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    }

    static func vectors() throws -> [Vector] { try file().vectors }

    /// Signed messages agree with PyPI ecdsa byte for byte (RFC 6979, low S, SHA-256 of the
    /// UTF-8 message); DER and compact both verify; another message or key does not; what may
    /// not be signed is refused before any key is touched.
    @Test func signedMessagesMatchAnIndependentImplementation() throws {
        let messages = try Self.file().messages
        #expect(messages.count >= 4)
        for v in messages {
            let key = SecretBytes(try #require(bytes(fromHex: v.privateKey)))
            if v.message.isEmpty {
                #expect(throws: MessageSignatureError.empty) { try MessageSignature.sign(v.message, privateKey: key) }
            } else {
                #expect(try MessageSignature.sign(v.message, privateKey: key) == SignedMessage(message: v.message, publicKey: v.pubkey, signature: v.sig))
            }
            #expect(try MessageSignature.verify(v.message, publicKey: v.pubkey, signature: v.sig))
            #expect(try MessageSignature.verify(v.message, publicKey: v.pubkey, signature: v.compact))
            #expect(!(try MessageSignature.verify(v.message + ".", publicKey: v.pubkey, signature: v.sig)))
            let other = messages.first { $0.pubkey != v.pubkey }!.pubkey
            #expect(!(try MessageSignature.verify(v.message, publicKey: other, signature: v.sig)))
        }
        let v = messages[0]
        #expect(throws: MessageSignatureError.invalidPublicKey) { try MessageSignature.verify(v.message, publicKey: "02abc", signature: v.sig) }
        #expect(throws: MessageSignatureError.invalidSignature) { try MessageSignature.verify(v.message, publicKey: v.pubkey, signature: "zz") }
        #expect(throws: MessageSignatureError.reserved("breez-lnurl:")) { try MessageSignature.check("breez-lnurl:register") }
        #expect(throws: MessageSignatureError.tooLong(bytes: 65_537)) { try MessageSignature.check(String(repeating: "a", count: 65_537)) }
    }

    static func keys(_ v: Vector) throws -> HDWallet {
        HDWallet(mnemonic: try Mnemonic(text: v.mnemonic), passphrase: SecretBytes(utf8: v.passphrase))
    }

    /// LUD-05's own test vector: the hashing key and domain give the spec's four path numbers
    /// (two of them above 2^31).
    @Test func theSpecsVector() throws {
        let hashing = SecretBytes(try #require(bytes(fromHex: "7d417a6a5e9a6a4a879aeaba11a11838764c8fa2b959c242d43dea682b3e409b")))
        #expect(LNURLAuth.pathSuffix(hashingKey: hashing, domain: "site.com") == [1588488367, 2659270754, 38110259, 4136336762])
    }

    /// Keys and signatures agree with independent implementations (PyPI bip-utils derives the
    /// keys, PyPI ecdsa signs k1 with RFC 6979 nonces): the same hashing key, path, linking key
    /// and DER signature, byte for byte; and the signature verifies.
    @Test func keysAndSignaturesMatchIndependentImplementations() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 5)
        for v in vectors {
            let keys = try Self.keys(v)
            let hashing = try LNURLAuth.hashingKey(keys)
            #expect(hexString(hashing.unsafeCopy()) == v.hashingKey, "\(v.domain)")
            #expect(LNURLAuth.pathSuffix(hashingKey: hashing, domain: v.domain) == v.pathSuffix)
            let linking = try LNURLAuth.linkingKey(keys, domain: v.domain)
            let publicKey = try Secp256k1.PublicKey(privateKey: linking)
            #expect(hexString(publicKey.compressed) == v.linkingKey, "\(v.domain)")
            let k1 = try #require(bytes(fromHex: v.k1))
            let signature = try Secp256k1.signDER(digest: k1, privateKey: linking)
            #expect(hexString(signature) == v.sig, "\(v.domain)")
            #expect(Secp256k1.verify(der: signature, digest: k1, publicKey: publicKey))
            var tampered = k1
            tampered[0] ^= 1
            #expect(!Secp256k1.verify(der: signature, digest: tampered, publicKey: publicKey))
        }
        // One key per domain: two services never see the same key.
        let abandon = vectors.filter { $0.mnemonic.hasPrefix("abandon") && $0.passphrase.isEmpty }
        #expect(Set(abandon.map(\.linkingKey)).count == abandon.count && abandon.count >= 2)
    }

    @Test func requestsAreReadStrictly() throws {
        let k1 = String(repeating: "ab", count: 32)
        let login = try LNURLAuthRequest(try #require(URL(string: "https://Auth.Site.com./x?tag=login&k1=\(k1)&action=register")))
        #expect(login.domain == "auth.site.com" && login.action == .register && login.k1 == [UInt8](repeating: 0xab, count: 32))
        #expect(login.question == "Create an account at auth.site.com")
        #expect(try LNURLAuthRequest(try #require(URL(string: "https://site.com/?tag=login&k1=\(k1)"))).question == "Log in to site.com")
        let refused: [(String, LNURLError)] = [
            ("https://site.com/?tag=payRequest&k1=\(k1)", .notALogin("payRequest")),
            ("https://site.com/?k1=\(k1)", .notALogin("none")),
            ("https://site.com/?tag=login&k1=abcd", .invalidResponse("the login link's challenge (k1) is not 32 bytes of hex")),
            ("https://site.com/?tag=login&k1=\(String(repeating: "zz", count: 32))", .invalidResponse("the login link's challenge (k1) is not 32 bytes of hex")),
            ("https://site.com/?tag=login&k1=\(k1)&action=steal", .invalidResponse("unknown action \"steal\"")),
        ]
        for (text, error) in refused {
            #expect(throws: error, "\(text)") { try LNURLAuthRequest(try #require(URL(string: text))) }
        }
    }

    /// Against a small service on loopback: the wallet signs the challenge the service issued,
    /// the service checks the signature and that the key is the one bip-utils derives for its
    /// domain; a refusal comes back in the service's words. Plain http is an LNURL only when
    /// loopback http is allowed (devnet).
    @Test func logsInToALoopbackService() async throws {
        let vector = try #require(try Self.vectors().first { $0.domain == "127.0.0.1" })
        let issued = Array(Hash.sha256(Array("challenge".utf8)))
        let server = try LoopbackServer { path in
            let items = URLComponents(string: path)?.queryItems ?? []
            func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
            guard let k1 = value("k1").flatMap(bytes(fromHex:)), k1 == issued else { return .json(#"{"status":"ERROR","reason":"unknown k1"}"#) }
            guard let sig = value("sig").flatMap(bytes(fromHex:)), let keyHex = value("key"), let key = bytes(fromHex: keyHex),
                  let publicKey = try? Secp256k1.PublicKey(sec1: key), Secp256k1.verify(der: sig, digest: k1, publicKey: publicKey) else {
                return .json(#"{"status":"ERROR","reason":"bad signature"}"#)
            }
            return keyHex == vector.linkingKey ? .json(#"{"status":"OK"}"#) : .json(#"{"status":"ERROR","reason":"unknown key"}"#)
        }
        defer { server.stop() }
        let link = "\(server.base)/auth?tag=login&k1=\(hexString(issued))&action=login"
        let lnurl = Bech32.encode(hrp: "lnurl", bytes: Array(link.utf8))
        #expect(throws: PaymentInputError.self) { try PaymentInput.parse(lnurl) }
        guard case .lnurl(let url) = try PaymentInput.parse(lnurl, allowLoopbackHTTP: true) else { Issue.record("not an LNURL"); return }
        let request = try LNURLAuthRequest(url)
        let secret = WalletSecret.mnemonic(try Mnemonic(text: vector.mnemonic), passphrase: SecretBytes([]))
        let fetcher = HTTPFetcher()
        defer { Task { await fetcher.shutdown() } }
        let key = try await LNURLAuth.authenticate(request, secret: secret, fetcher: fetcher)
        #expect(hexString(key) == vector.linkingKey)
        // Another challenge: the service refuses, in its own words.
        let other = try LNURLAuthRequest(try #require(URL(string: "\(server.base)/auth?tag=login&k1=\(String(repeating: "00", count: 32))")))
        await #expect(throws: LNURLError.serviceError("unknown k1")) { _ = try await LNURLAuth.authenticate(other, secret: secret, fetcher: fetcher) }
        #expect(server.requests.count == 2 && server.requests[0].contains("&sig=") && server.requests[0].contains("&key=\(vector.linkingKey)"))
    }
}
