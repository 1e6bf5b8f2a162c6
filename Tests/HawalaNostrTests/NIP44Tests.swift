import Foundation
import HawalaCrypto
@testable import HawalaNostr
import Testing

/// NIP-44 v2 against paulmillr/nip44's official vectors (every valid and invalid case).
@Suite("NIP-44 v2")
struct NIP44Tests {
    struct Vectors: Decodable {
        struct V2: Decodable {
            struct Valid: Decodable {
                struct ConversationKey: Decodable { let sec1: String, pub2: String, conversation_key: String }
                struct MessageKeys: Decodable {
                    struct Key: Decodable { let nonce: String, chacha_key: String, chacha_nonce: String, hmac_key: String }
                    let conversation_key: String
                    let keys: [Key]
                }
                struct EncryptDecrypt: Decodable { let sec1: String, sec2: String, conversation_key: String, nonce: String, plaintext: String, payload: String }
                struct Long: Decodable { let conversation_key: String, nonce: String, pattern: String, `repeat`: Int, plaintext_sha256: String, payload_sha256: String }
                let get_conversation_key: [ConversationKey]
                let get_message_keys: MessageKeys
                let calc_padded_len: [[Int]]
                let encrypt_decrypt: [EncryptDecrypt]
                let encrypt_decrypt_long_msg: [Long]
            }
            struct Invalid: Decodable {
                struct ConversationKey: Decodable { let sec1: String, pub2: String, note: String }
                struct Decrypt: Decodable { let conversation_key: String, nonce: String, plaintext: String, payload: String, note: String }
                let encrypt_msg_lengths: [Int]
                let get_conversation_key: [ConversationKey]
                let decrypt: [Decrypt]
            }
            let valid: Valid
            let invalid: Invalid
        }
        let v2: V2
    }

    static func vectors() throws -> Vectors.V2 {
        let url = try #require(Bundle.module.url(forResource: "nip44.vectors", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url)).v2
    }

    static func bytes(_ hex: String) -> [UInt8] { NostrHex.decode(hex, count: hex.utf8.count / 2)! }
    static func secret(_ hex: String) -> SecretBytes { SecretBytes(bytes(hex)) }

    @Test func conversationKeys() throws {
        let v = try Self.vectors()
        for c in v.valid.get_conversation_key {
            let key = try NIP44.conversationKey(privateKey: Self.secret(c.sec1), publicKey: Self.bytes(c.pub2))
            #expect(key == Self.secret(c.conversation_key), "\(c.sec1)")
        }
        for c in v.invalid.get_conversation_key {
            #expect(throws: NIP44.Error.invalidKey, "\(c.note)") { try NIP44.conversationKey(privateKey: Self.secret(c.sec1), publicKey: Self.bytes(c.pub2)) }
        }
    }

    @Test func messageKeysAndPadding() throws {
        let v = try Self.vectors()
        let conversation = Self.secret(v.valid.get_message_keys.conversation_key)
        for k in v.valid.get_message_keys.keys {
            let keys = NIP44.messageKeys(conversationKey: conversation, nonce: Self.bytes(k.nonce))
            #expect(keys.chachaKey == Self.secret(k.chacha_key) && keys.chachaNonce == Self.bytes(k.chacha_nonce) && keys.hmacKey == Self.secret(k.hmac_key))
        }
        for pair in v.valid.calc_padded_len { #expect(NIP44.paddedLength(pair[0]) == pair[1], "\(pair[0])") }
        for length in v.invalid.encrypt_msg_lengths {
            #expect(throws: NIP44.Error.invalidPlaintextLength, "\(length)") { try NIP44.pad([UInt8](repeating: 0x61, count: length)) }
        }
    }

    @Test func encryptDecrypt() throws {
        let v = try Self.vectors()
        for c in v.valid.encrypt_decrypt {
            let conversation = try NIP44.conversationKey(privateKey: Self.secret(c.sec1),
                                                         publicKey: try Schnorr.xOnlyPublicKey(privateKey: Self.secret(c.sec2)))
            #expect(conversation == Self.secret(c.conversation_key))
            #expect(try NIP44.encrypt(c.plaintext, conversationKey: conversation, nonce: Self.bytes(c.nonce)) == c.payload)
            #expect(try NIP44.decrypt(c.payload, conversationKey: conversation) == c.plaintext)
        }
        for c in v.valid.encrypt_decrypt_long_msg {
            let plaintext = String(repeating: c.pattern, count: c.repeat)
            #expect(hex(Hash.sha256(Array(plaintext.utf8))) == c.plaintext_sha256)
            let payload = try NIP44.encrypt(plaintext, conversationKey: Self.secret(c.conversation_key), nonce: Self.bytes(c.nonce))
            #expect(hex(Hash.sha256(Array(payload.utf8))) == c.payload_sha256)
            #expect(try NIP44.decrypt(payload, conversationKey: Self.secret(c.conversation_key)) == plaintext)
        }
        for c in v.invalid.decrypt {
            #expect(throws: NIP44.Error.self, "\(c.note)") { try NIP44.decrypt(c.payload, conversationKey: Self.secret(c.conversation_key)) }
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { NostrHex.encode(bytes) }
    func hex(_ bytes: [UInt8]) -> String { NostrHex.encode(bytes) }
}
