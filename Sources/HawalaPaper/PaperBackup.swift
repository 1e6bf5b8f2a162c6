import CCairo
import Foundation
import HawalaCrypto
import HawalaKeys

/// A printable recovery sheet (seed 000's paper backup template), drawn with cairo into a PDF:
/// numbered lines to write the words on — or, with the words, the words themselves and both
/// SeedQR formats — the wallet's name and fingerprint, and how to keep the sheet.
public struct PaperBackup {
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter
        /// Width and height in PostScript points.
        var size: (Double, Double) { self == .a4 ? (595.28, 841.89) : (612, 792) }
    }

    public enum Content {
        /// Numbered empty lines for `wordCount` words.
        case blank(wordCount: Int)
        /// The words and their SeedQRs.
        case words(Mnemonic)
    }

    public let walletName: String
    public let fingerprint: String
    public let paper: Paper
    public let content: Content
    /// The wallet also has a BIP39 passphrase: the sheet says the words alone don't recover it
    /// (the passphrase itself is never printed).
    public let hasPassphrase: Bool
    public let date: Date

    public init(walletName: String, fingerprint: String, paper: Paper, content: Content, hasPassphrase: Bool = false, date: Date = Date()) {
        self.walletName = walletName
        self.fingerprint = fingerprint
        self.paper = paper
        self.content = content
        self.hasPassphrase = hasPassphrase
        self.date = date
    }

    /// Printed when the wallet has a BIP39 passphrase.
    public static let passphraseWarning = "This wallet also has a BIP39 passphrase: these words alone do not recover it. Keep the passphrase too, written down apart from this sheet."
    /// Printed under the SeedQR codes: what they are for.
    public static let seedQRUse = "The codes hold the same words, for loading them into an offline signing device (such as SeedSigner). Scan them with nothing else."

    public static let advice = [
        "Write the words by hand, in order, and check each one twice.",
        "Keep this sheet in a fireproof and waterproof place; consider a metal backup (stamped or engraved plates) for fire and flood.",
        "Consider two copies in separate locations (a safe at home, a bank deposit box) so one event cannot destroy both.",
        "Never photograph this sheet or copy it with a scanner or phone, never type the words into a website, and never store them in a cloud note or email.",
        "Anyone who reads these words can take the funds. Lose both this sheet and the device, and the funds are gone.",
    ]

    public enum Error: Swift.Error, CustomStringConvertible {
        case cairo(String)
        public var description: String {
            switch self { case .cairo(let why): "cannot draw the PDF: \(why)" }
        }
    }

    /// Draws the sheet into a PDF file at `path` (the caller makes the file private and atomic).
    public func render(to path: String) throws {
        try PDFSurface.file(path, paper: paper, draw: draw)
    }

    /// The sheet as PDF bytes, drawn in memory: a sheet with the words never touches the disk.
    public func pdf() throws -> SecretBytes {
        try PDFSurface.memory(paper: paper, draw: draw)
    }

    private func draw(_ pen: PDFPen) throws {
        let cr = pen.cr, margin = pen.margin
        pen.y += 10
        pen.text("Hawala wallet recovery sheet", size: 20, bold: true)
        pen.y += 24
        pen.text("Wallet: \(walletName)    Fingerprint: \(fingerprint)    Printed: \(PaperBackup.day(date))", size: 10)
        pen.y += 30
        if hasPassphrase {
            pen.paragraph(PaperBackup.passphraseWarning, size: 11, bold: true, width: 80, leading: 15)
            pen.y += 12
        }

        let (words, count): ([String]?, Int) = switch content {
        case .blank(let n): (nil, n)
        case .words(let m): (m.words, m.wordCount)
        }
        pen.numberedColumns(words, count: count, gap: count > 12 ? 24 : 30)
        pen.y += 16

        if case .words(let mnemonic) = content {
            // Both SeedQRs side by side, with a quiet zone of four modules.
            let side = 130.0
            var x = margin
            for format in SeedQR.Format.allCases {
                if let symbol = try? SeedQR.encode(mnemonic, format: format) {
                    let module = side / Double(symbol.size + 8)
                    cairo_set_source_rgb(cr, 1, 1, 1)
                    cairo_rectangle(cr, x, pen.y, side, side)
                    cairo_fill(cr)
                    cairo_set_source_rgb(cr, 0, 0, 0)
                    for my in 0..<symbol.size {
                        for mx in 0..<symbol.size where symbol.isDark(mx, my) {
                            cairo_rectangle(cr, x + Double(mx + 4) * module, pen.y + Double(my + 4) * module, module, module)
                        }
                    }
                    cairo_fill(cr)
                    let saved = pen.y
                    pen.y += side + 14
                    pen.text("SeedQR (\(format.rawValue))", size: 9, x: x)
                    pen.y = saved
                }
                x += side + 40
            }
            pen.y += side + 28
            pen.paragraph(PaperBackup.seedQRUse, size: 9.5, width: 95, leading: 13)
            pen.y += 10
        }

        pen.advice("Keeping this sheet", PaperBackup.advice)
        pen.newPage()
    }

    /// The day a sheet is printed, as it says it (UTC).
    static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ") {
            if current.count + word.count + 1 > width, !current.isEmpty { lines.append(current); current = "" }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
