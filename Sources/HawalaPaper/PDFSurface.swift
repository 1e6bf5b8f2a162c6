import CCairo
import HawalaCrypto

/// Where a sheet is drawn: a PDF file, or bytes in memory (a sheet with a secret never touches
/// the disk). `draw` gets a cairo context; every page it shows is kept.
enum PDFSurface {
    static func file(_ path: String, paper: PaperBackup.Paper, draw: (PDFPen) throws -> Void) throws {
        let (width, height) = paper.size
        guard let surface = cairo_pdf_surface_create(path, width, height) else { throw PaperBackup.Error.cairo("no surface") }
        defer { cairo_surface_destroy(surface) }
        try finish(surface, paper: paper, draw: draw)
    }

    static func memory(paper: PaperBackup.Paper, draw: (PDFPen) throws -> Void) throws -> SecretBytes {
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
                throw PaperBackup.Error.cairo("no surface")
            }
            defer { cairo_surface_destroy(surface) }
            try finish(surface, paper: paper, draw: draw)
        }
        return SecretBytes(sink.bytes)
    }

    private static func finish(_ surface: OpaquePointer, paper: PaperBackup.Paper, draw: (PDFPen) throws -> Void) throws {
        guard let cr = cairo_create(surface) else { throw PaperBackup.Error.cairo("no context") }
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 0, 0, 0)
        try draw(PDFPen(cr, width: paper.size.0))
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw PaperBackup.Error.cairo(String(cString: cairo_status_to_string(status))) }
    }
}

/// Writes down a page: text lines from the top margin, wrapped paragraphs, the page break.
final class PDFPen {
    let cr: OpaquePointer
    let width: Double
    let margin = 50.0
    /// The baseline of the next line.
    var y: Double

    init(_ cr: OpaquePointer, width: Double) {
        self.cr = cr
        self.width = width
        y = margin
    }

    /// The words' font, named: "monospace" matches Noto Sans Mono on Debian, whose bold subset
    /// cairo writes with another font's outlines (the words of a recovery sheet came out in a
    /// proportional bold). DejaVu (fonts-dejavu-core) comes with fontconfig.
    static let monospaceFamily = "DejaVu Sans Mono"

    func text(_ string: String, size: Double, bold: Bool = false, monospace: Bool = false, x: Double? = nil) {
        cairo_select_font_face(cr, monospace ? Self.monospaceFamily : "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        cairo_move_to(cr, x ?? margin, y)
        cairo_show_text(cr, string)
    }

    /// A paragraph wrapped at `width` characters, `leading` points a line.
    func paragraph(_ string: String, size: Double, bold: Bool = false, width: Int, leading: Double) {
        for line in PaperBackup.wrap(string, width: width) {
            text(line, size: size, bold: bold)
            y += leading
        }
    }

    /// Numbered words in two columns, `gap` points apart — or, without words, numbered lines to
    /// write `count` words on.
    func numberedColumns(_ words: [String]?, count: Int, gap: Double) {
        let rows = (count + 1) / 2
        let columnWidth = (width - 2 * margin) / 2
        let top = y
        for i in 0..<count {
            let x = margin + Double(i / rows) * columnWidth
            y = top + Double(i % rows) * gap
            text("\(i + 1).", size: 12, x: x)
            if let words {
                text(words[i], size: 12, bold: true, monospace: true, x: x + 28)
            } else {
                cairo_set_line_width(cr, 0.6)
                cairo_move_to(cr, x + 28, y + 2)
                cairo_line_to(cr, x + columnWidth - 20, y + 2)
                cairo_stroke(cr)
            }
        }
        y = top + Double(rows) * gap
    }

    /// A heading and its short paragraphs (how to keep a sheet).
    func advice(_ title: String, _ lines: [String]) {
        text(title, size: 12, bold: true)
        y += 18
        for line in lines {
            paragraph(line, size: 9.5, width: 95, leading: 13)
            y += 3
        }
    }

    /// Ends the page; the next one starts at the top.
    func newPage() {
        cairo_show_page(cr)
        y = margin
    }
}
