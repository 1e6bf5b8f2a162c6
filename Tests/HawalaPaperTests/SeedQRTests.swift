import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import Testing
@testable import HawalaPaper
import HawalaWallet

@Suite("SeedQR")
struct SeedQRTests {
    // The SeedQR specification (SeedSigner, docs/seed_qr/README.md): its 12-word example and
    // test vector 1.
    @Test func standardDigitsOfTheSpecification() throws {
        let m = try Mnemonic(text: "vacuum bridge buddy supreme exclude milk consider tail expand wasp pattern nuclear")
        #expect(SeedQR.standardDigits(m) == "192402220235174306311124037817700641198012901210")
        let v1 = try Mnemonic(text: "attack pizza motion avocado network gather crop fresh patrol unusual wild holiday candy pony ranch winter theme error hybrid van cereal salon goddess expire")
        #expect(SeedQR.standardDigits(v1) == "011513251154012711900771041507421289190620080870026613431420201617920614089619290300152408010643")
        // CompactSeedQR bytestream of vector 1 = the entropy.
        #expect(v1.entropy().unsafeCopy() == [0x0e, 0x74, 0xb6, 0x41, 0x07, 0xf9, 0x4c, 0xc0, 0xcc, 0xfa, 0xe6, 0xa1, 0x3d, 0xcb, 0xec, 0x36,
                                              0x62, 0x15, 0x4f, 0xec, 0x67, 0xe0, 0xe0, 0x09, 0x99, 0xc0, 0x78, 0x92, 0x59, 0x7d, 0x19, 0x0a])
    }

    @Test func versionsAndRefusals() throws {
        let twelve = try Mnemonic(text: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
        #expect(try SeedQR.encode(twelve, format: .standard).size == 25)
        #expect(try SeedQR.encode(twelve, format: .compact).size == 21)
        let twentyFour = try Mnemonic.generate(wordCount: 24)
        #expect(try SeedQR.encode(twentyFour, format: .standard).size == 29)
        #expect(try SeedQR.encode(twentyFour, format: .compact).size == 25)
        #expect(throws: SeedQR.Error.notEnglish) { try SeedQR.encode(try Mnemonic.generate(wordCount: 12, language: .french), format: .standard) }
        #expect(throws: SeedQR.Error.unsupportedLength(18)) { try SeedQR.encode(try Mnemonic.generate(wordCount: 18), format: .compact) }
        #expect(SeedQR.supports(twelve) && SeedQR.supports(twentyFour))
        let eighteen = try Mnemonic.generate(wordCount: 18), french = try Mnemonic.generate(wordCount: 12, language: .french)
        #expect(!SeedQR.supports(eighteen) && !SeedQR.supports(french))
    }
}

@Suite("Paper sheet")
struct PaperSheetTests {
    /// The sheet drawn in memory is a whole PDF holding the words (read back by poppler's
    /// pdftotext, an independent reader), like the one drawn into a file.
    @Test func drawnInMemoryLikeOnDisk() throws {
        let mnemonic = try Mnemonic(text: "vacuum bridge buddy supreme exclude milk consider tail expand wasp pattern nuclear")
        let sheet = PaperBackup(walletName: "Main", fingerprint: "73c5da0a", paper: .letter, content: .words(mnemonic))
        let bytes = try sheet.pdf().unsafeCopy()
        #expect(bytes.starts(with: Array("%PDF-".utf8)) && String(decoding: bytes.suffix(8), as: UTF8.self).contains("%%EOF"))
        let text = try pdfText(bytes)
        for word in mnemonic.words { #expect(text.contains(word), "\(word)") }
        #expect(text.contains("Fingerprint: 73c5da0a"))
        // Paper burns and floods: the sheet names metal as the durable option.
        #expect(text.replacingOccurrences(of: "\n", with: " ").contains("metal backup"), "\(text)")
        // The words in DejaVu Sans Mono: with Noto Sans Mono (what "monospace" matches on
        // Debian) cairo wrote them with another font's outlines.
        let file = temporaryFolder("sheet", suffix: ".pdf")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fonts = String(decoding: try tool("pdffonts", [file.path]), as: UTF8.self)
        #expect(fonts.contains("DejaVuSansMono-Bold") && !fonts.contains("NotoSansMono"), "\(fonts)")
    }
}

@Suite("SLIP-39 share sheets")
struct ShareSheetsTests {
    /// One share a page, in order, each with its group, its number, the recovery rule and its
    /// words in order (read back by pdftotext); a passphrase is mentioned, never printed.
    @Test func oneShareAPage() throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes(utf8: "bip39 extra"), name: "Main", network: .mainnet, keyring: keyring)
        let split = try store.shamirSplit(wallet, groupThreshold: 2, groups: [SLIP39.Group(threshold: 2, count: 3), SLIP39.Group(threshold: 1, count: 1)],
                                          passphrase: SecretBytes(utf8: "slip pass"), keyring: keyring)
        let file = temporaryFolder("shares", suffix: ".pdf")
        try Data(try ShareSheets(split, paper: .a4).pdf().unsafeCopy()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pages = String(decoding: try tool("pdftotext", ["-layout", file.path, "-"]), as: UTF8.self).split(separator: "\u{0C}").filter { $0.contains("SLIP-39 share") }
        #expect(pages.count == 4)
        for (page, (g, m, share)) in zip(pages, split.shares.enumerated().flatMap { g, group in group.enumerated().map { (g, $0, $1) } }) {
            #expect(page.contains("group \(g + 1) of 2, share \(m + 1) of \(split.shares[g].count)"))
            #expect(page.contains("2 of the 2 groups recover the wallet") && page.contains("made with a passphrase") && page.contains("BIP39 passphrase"))
            #expect(!page.contains("slip pass") && !page.contains("bip39 extra"))
            // "N. word", in two columns: the words by their numbers.
            let tokens = page.split(whereSeparator: \.isWhitespace)
            var numbered: [Int: String] = [:]
            for (i, token) in tokens.enumerated() where token.hasSuffix(".") && i + 1 < tokens.count {
                if let n = Int(token.dropLast()), (1...33).contains(n) { numbered[n] = String(tokens[i + 1]) }
            }
            #expect(numbered.sorted { $0.key < $1.key }.map(\.value) == share.words)
        }
    }
}
