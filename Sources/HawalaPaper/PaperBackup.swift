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
        let (width, height) = paper.size
        guard let surface = cairo_pdf_surface_create(path, width, height) else { throw Error.cairo("no surface") }
        defer { cairo_surface_destroy(surface) }
        try draw(on: surface)
    }

    /// The sheet as PDF bytes, drawn in memory: a sheet with the words never touches the disk.
    public func pdf() throws -> SecretBytes {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        // Room for a sheet up front: fewer reallocations leave fewer copies behind.
        sink.bytes.reserveCapacity(1 << 20)
        defer { SecretBytes.wipe(&sink.bytes) }
        let (width, height) = paper.size
        let written: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        try withExtendedLifetime(sink) {
            guard let surface = cairo_pdf_surface_create_for_stream(written, Unmanaged.passUnretained(sink).toOpaque(), width, height) else {
                throw Error.cairo("no surface")
            }
            defer { cairo_surface_destroy(surface) }
            try draw(on: surface)
        }
        return SecretBytes(sink.bytes)
    }

    private func draw(on surface: OpaquePointer) throws {
        let (width, _) = paper.size
        guard let cr = cairo_create(surface) else { throw Error.cairo("no context") }
        defer { cairo_destroy(cr) }
        let margin = 50.0
        var y = margin

        func text(_ string: String, size: Double, bold: Bool = false, x: Double = margin) {
            cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
            cairo_set_font_size(cr, size)
            cairo_move_to(cr, x, y)
            cairo_show_text(cr, string)
        }

        cairo_set_source_rgb(cr, 0, 0, 0)
        y += 10
        text("Hawala wallet recovery sheet", size: 20, bold: true)
        y += 24
        let day = date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
        text("Wallet: \(walletName)    Fingerprint: \(fingerprint)    Printed: \(day)", size: 10)
        y += 30
        if hasPassphrase {
            for wrapped in PaperBackup.wrap(PaperBackup.passphraseWarning, width: 80) {
                text(wrapped, size: 11, bold: true)
                y += 15
            }
            y += 12
        }

        let words: [String]
        let count: Int
        switch content {
        case .blank(let n): words = []; count = n
        case .words(let m): words = m.words; count = m.wordCount
        }
        // Two columns of numbered lines.
        let rows = (count + 1) / 2
        let columnWidth = (width - 2 * margin) / 2
        let lineGap = count > 12 ? 24.0 : 30.0
        for i in 0..<count {
            let column = i / rows, row = i % rows
            let x = margin + Double(column) * columnWidth
            let lineY = y + Double(row) * lineGap
            cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
            cairo_set_font_size(cr, 12)
            cairo_move_to(cr, x, lineY)
            cairo_show_text(cr, "\(i + 1).")
            if words.isEmpty {
                cairo_set_line_width(cr, 0.6)
                cairo_move_to(cr, x + 28, lineY + 2)
                cairo_line_to(cr, x + columnWidth - 20, lineY + 2)
                cairo_stroke(cr)
            } else {
                cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
                cairo_move_to(cr, x + 28, lineY)
                cairo_show_text(cr, words[i])
            }
        }
        y += Double(rows) * lineGap + 16

        if case .words(let mnemonic) = content {
            // Both SeedQRs side by side, with a quiet zone of four modules.
            let side = 130.0
            var x = margin
            for format in SeedQR.Format.allCases {
                if let symbol = try? SeedQR.encode(mnemonic, format: format) {
                    let module = side / Double(symbol.size + 8)
                    cairo_set_source_rgb(cr, 1, 1, 1)
                    cairo_rectangle(cr, x, y, side, side)
                    cairo_fill(cr)
                    cairo_set_source_rgb(cr, 0, 0, 0)
                    for my in 0..<symbol.size {
                        for mx in 0..<symbol.size where symbol.isDark(mx, my) {
                            cairo_rectangle(cr, x + Double(mx + 4) * module, y + Double(my + 4) * module, module, module)
                        }
                    }
                    cairo_fill(cr)
                    let saved = y
                    y += side + 14
                    text("SeedQR (\(format.rawValue))", size: 9, x: x)
                    y = saved
                }
                x += side + 40
            }
            y += side + 28
            for wrapped in PaperBackup.wrap(PaperBackup.seedQRUse, width: 95) {
                text(wrapped, size: 9.5)
                y += 13
            }
            y += 10
        }

        text("Keeping this sheet", size: 12, bold: true)
        y += 18
        for line in PaperBackup.advice {
            for wrapped in PaperBackup.wrap(line, width: 95) {
                text(wrapped, size: 9.5)
                y += 13
            }
            y += 3
        }
        cairo_show_page(cr)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw Error.cairo(String(cString: cairo_status_to_string(status))) }
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
