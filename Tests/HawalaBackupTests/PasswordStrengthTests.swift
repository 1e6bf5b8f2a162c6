import Foundation
import HawalaCrypto
import Testing
@testable import HawalaBackup

/// The backup-password estimator against PyPI's zxcvbn (scripts/gen_password_dictionary.py).
@Suite("Backup password strength")
struct PasswordStrengthTests {
    struct Vectors: Decodable {
        struct Row: Decodable { let password: String; let bits: Double }
        let vectors: [Row]
    }

    static func vectors() throws -> [Vectors.Row] {
        let url = try #require(Bundle.module.url(forResource: "zxcvbn", withExtension: "json", subdirectory: "Vectors"))
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
        #expect(throws: BackupPasswordRefusal.notText) { try PasswordStrength.check(SecretBytes([0xFF, 0xFE, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48])) }
        #expect(throws: BackupPasswordRefusal.tooShort(minimum: 10)) { try PasswordStrength.check(SecretBytes(utf8: "short")) }
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
