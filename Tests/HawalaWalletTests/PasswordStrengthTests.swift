import Foundation
import HawalaCrypto
import Testing
@testable import HawalaWallet

/// The password estimator against PyPI's zxcvbn (scripts/gen_password_dictionary.py).
@Suite("Password strength")
struct PasswordStrengthTests {
    struct Vectors: Decodable {
        struct Row: Decodable { let password: String; let bits: Double }
        let vectors: [Row]
    }

    static func vectors() throws -> [Vectors.Row] {
        let url = try #require(Bundle.module.url(forResource: "zxcvbn", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url)).vectors
    }

    @Test func theDictionaryIsThere() {
        #expect(PasswordDictionary.shared.count > 60_000)
        #expect(PasswordDictionary.shared.entry("password")?.rank == 2)
    }

    @Test func refusesWhatAnAttackerTriesFirst() throws {
        for (password, why) in [("qwertyuiop", PasswordStrength.Weakness.commonPassword), ("password123", .commonPassword),
                                ("qwertgfdsazxcvb", .keyboardPattern),
                                ("asdfghjkl;'", .keyboardPattern), ("abcabcabcabcabc", .repeats), ("abcdefghijklmnop", .sequence),
                                ("P@ssw0rd2024", .commonPassword), ("michael19871987", .repeats), ("Rodriguez.Eleanor", .commonWord),
                                ("kitten-12/05/1990", .yearOrDate)] {
            let refusal = refusal(password)
            #expect(refusal?.contains("too easy to guess") == true, "\(password)")
            let strength = PasswordStrength(password)
            #expect(strength.weakness == why, "\(password): \(strength)")
            #expect(refusal?.contains(password) == false, "a refusal never quotes the password")
        }
        #expect(refusal("short") == "the backup password must have at least 10 characters")
        #expect(refusal("correct horse battery staple") == nil)
        // zxcvbn's brute-force rate is 10 guesses a character: 60 bits takes 18 random ones.
        #expect(refusal("x7#Kq9!mZ2vR") != nil)
        #expect(refusal("x7#Kq9!mZ2vR-p4Lw8&T") == nil)
        #expect(throws: PasswordRefusal.notText(.backup)) { try PasswordStrength.check(SecretBytes([0xFF, 0xFE, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48])) }
        #expect(throws: PasswordRefusal.tooShort(.backup, minimum: 10)) { try PasswordStrength.check(SecretBytes(utf8: "short")) }
        #expect(try PasswordStrength.check(SecretBytes(utf8: "correct horse battery staple")).bits >= PasswordStrength.minimumBits)
    }

    /// Where zxcvbn is sure (well below or above the 60-bit line), Hawala decides the same; and
    /// the estimates stay close overall.
    @Test func agreesWithZxcvbn() throws {
        var report: [String] = []
        var close = 0
        let rows = try Self.vectors()
        for row in rows {
            let ours = Double(PasswordStrength(row.password).bits)
            if row.bits < 50, ours >= 60 { report.append("accepted \"\(row.password)\": \(ours) bits, zxcvbn \(row.bits)") }
            if row.bits >= 72, ours < 60 { report.append("refused \"\(row.password)\": \(ours) bits, zxcvbn \(row.bits)") }
            if abs(ours - row.bits) <= 8 { close += 1 }
        }
        #expect(report.isEmpty, "\(report.joined(separator: "\n"))")
        #expect(Double(close) >= 0.85 * Double(rows.count), "only \(close) of \(rows.count) within 8 bits of zxcvbn")
    }
}

/// Why `password` is refused, in the words a person sees, or nil when it is accepted.
private func refusal(_ password: String) -> String? {
    do { _ = try PasswordStrength.check(SecretBytes(utf8: password)); return nil } catch { return error.description }
}

/// One estimator, two bars (decision 0011): a wallet password guards a file on this machine,
/// each guess an Argon2id run; a backup password guards a file that leaves it.
@Suite("Wallet password bar")
struct WalletPasswordBarTests {
    @Test func theMostCommonPasswordsAreRefusedForAWallet() {
        for weak in ["12345678", "password", "qwertyuiop", "iloveyou1", "aaaaaaaaaa", "Password1", "11111111", "abcd1234"] {
            #expect(throws: PasswordRefusal.self, "\(weak)") { try PasswordStrength.check(SecretBytes(utf8: weak), for: .wallet) }
        }
        #expect(throws: PasswordRefusal.tooShort(.wallet, minimum: 8)) { try PasswordStrength.check(SecretBytes(utf8: "x7#Kq9"), for: .wallet) }
        #expect(throws: WalletError.self) { try WalletStore.checkStrength(SecretBytes(utf8: "12345678")) }
    }

    @Test func aWalletBarBelowTheBackupBar() throws {
        for fine in ["correct horse", "hawala2024", "x7#Kq9!mZ2vR", "another good password"] {
            let strength = try PasswordStrength.check(SecretBytes(utf8: fine), for: .wallet)
            #expect(strength.bits >= PasswordUse.wallet.minimumBits, "\(fine)")
        }
        #expect(throws: PasswordRefusal.self) { try PasswordStrength.check(SecretBytes(utf8: "hawala2024"), for: .backup) }
        #expect(PasswordUse.wallet.minimumBits < PasswordUse.backup.minimumBits)
    }
}
