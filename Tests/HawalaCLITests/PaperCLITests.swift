import Foundation
import HawalaKeys
import HawalaTestSupport
import Testing

/// Reads a QR code drawn in a terminal with half blocks (light modules drawn) back with zbarimg,
/// an independent decoder: the drawing becomes a PGM image with a wide white border.
func decodeTerminalQR(_ art: [String], scratch: URL) throws -> String {
    let width = art[0].count, scale = 4, border = 8
    var rows: [[Bool]] = []
    for line in art {
        let chars = Array(line)
        #expect(chars.count == width)
        rows.append(chars.map { $0 == "█" || $0 == "▀" })
        rows.append(chars.map { $0 == "█" || $0 == "▄" })
    }
    let side = (width + 2 * border) * scale, height = (rows.count + 2 * border) * scale
    var pixels = [UInt8](repeating: 255, count: side * height)
    for (y, row) in rows.enumerated() {
        for (x, light) in row.enumerated() where !light {
            for dy in 0..<scale { for dx in 0..<scale { pixels[((y + border) * scale + dy) * side + (x + border) * scale + dx] = 0 } }
        }
    }
    let pgm = scratch.appendingPathComponent("qr-\(UUID().uuidString).pgm")
    try (Data("P5 \(side) \(height) 255\n".utf8) + Data(pixels)).write(to: pgm)
    return String(decoding: try tool("zbarimg", ["--raw", "-q", pgm.path]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("hawala backup paper")
struct PaperCLITests {
    // SeedQR specification test vector 2: its Compact bytestream holds a zero byte.
    let vector2 = "atom solve joy ugly ankle message setup typical bean era cactus various odor refuse element afraid meadow quick medal plate wisdom swap noble shallow"
    let vector2Digits = "011416550964188800731119157218870156061002561932122514430573003611011405110613292018175411971576"

    @Test func withWordsRendersDecodableSeedQRs() throws {
        let f = try WalletFixture()
        let words = try f.write("v2", vector2 + "\n")
        #expect(try f.run(["wallet", "restore", "--name", "V2", "--mnemonic-file", words, "--password-file", f.path("password"), "--yes"]).status == 0)
        let pdf = f.home.appendingPathComponent("sheet.pdf").path
        let r = try f.run(["backup", "paper", "--with-words", "--paper", "letter", "--out", pdf, "--password-file", f.path("password")])
        #expect(r.status == 0 && r.stderr.contains("holds the words in the clear"), "\(r.stderr)")
        var info = stat()
        stat(pdf, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        let png = f.home.appendingPathComponent("sheet").path
        _ = try tool("pdftoppm", ["-r", "150", "-png", "-singlefile", pdf, png])
        let text = String(decoding: try tool("zbarimg", ["--raw", "-q", png + ".png"]), as: UTF8.self)
        #expect(text.contains(vector2Digits), "Standard SeedQR: \(text)")
        let binary = [UInt8](try tool("zbarimg", ["--raw", "-q", "-Sbinary", png + ".png"]))
        let entropy = try Mnemonic(text: vector2).entropy().unsafeCopy()
        #expect(binary.count >= entropy.count && (0...(binary.count - entropy.count)).contains { Array(binary[$0..<($0 + entropy.count)]) == entropy },
                "Compact SeedQR bytes not found")
        let words24 = String(decoding: try tool("pdftotext", [pdf, "-"]), as: UTF8.self)
        #expect(words24.contains("shallow") && words24.contains("24.") && words24.contains("fireproof"))
        #expect(words24.contains("offline signing device") && !words24.contains("BIP39 passphrase"), "\(words24)")
    }

    /// A wallet with a BIP39 passphrase: the sheet says the words alone are not enough, and
    /// never prints the passphrase.
    @Test func passphraseIsMentionedNeverPrinted() throws {
        let f = try WalletFixture()
        let words = try f.write("v2", vector2 + "\n")
        let passphrase = try f.write("passphrase", "Purple Tangerine 42\n")
        #expect(try f.run(["wallet", "restore", "--name", "P", "--mnemonic-file", words, "--passphrase-file", passphrase,
                           "--password-file", f.path("password"), "--yes"]).status == 0)
        for (mode, file) in [("--with-words", "words.pdf"), ("--blank", "blank.pdf")] {
            let pdf = f.home.appendingPathComponent(file).path
            #expect(try f.run(["backup", "paper", mode, "--paper", "letter", "--out", pdf, "--password-file", f.path("password")]).status == 0)
            let text = String(decoding: try tool("pdftotext", [pdf, "-"]), as: UTF8.self)
            #expect(text.contains("also has a BIP39 passphrase") && !text.contains("Tangerine"), "\(text)")
            // Everything fits on the page, down to the last advice (pdftotext crops to the page).
            #expect(text.contains("funds are gone."), "\(text)")
        }
    }

    @Test func blankSheetNeedsNoPassword() throws {
        let f = try WalletFixture()
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        let pdf = f.home.appendingPathComponent("blank.pdf").path
        #expect(try f.run(["backup", "paper", "--blank", "--out", pdf]).status == 0)
        let text = String(decoding: try tool("pdftotext", [pdf, "-"]), as: UTF8.self)
        #expect(text.contains("Main") && text.contains("73c5da0a") && text.contains("12.") && !text.contains("13.") && !text.contains("abandon"))
        #expect(try f.run(["backup", "paper", "--out", pdf + "2"]).status == 2)
        expectCleanFailure(try f.run(["backup", "paper", "--blank", "--out", pdf]), contains: "already exists")
    }
}
