import Foundation
import HawalaKeys
import HawalaTestSupport
import Testing
@testable import HawalaPaper

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
    }
}
