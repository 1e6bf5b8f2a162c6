import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaWallet

/// SLIP-39 shares on paper: one share a page — whose it is, its group and number, which shares
/// recover the wallet, its words numbered — drawn into a PDF like `PaperBackup`, in memory or
/// into a file. Each page holds a share in the clear: print it, keep the sheets apart.
public struct ShareSheets: Sendable {
    public let split: ShamirSplit
    public let paper: PaperBackup.Paper
    public let date: Date

    public init(_ split: ShamirSplit, paper: PaperBackup.Paper, date: Date = Date()) {
        self.split = split
        self.paper = paper
        self.date = date
    }

    /// How to keep the sheets, on each one.
    public static let advice = [
        "Keep each share in its own place: one person or place should never hold enough shares to recover the wallet.",
        "Never photograph a share, never type it into a website, never keep it in a cloud note or email.",
        "Recover with Hawala (`hawala backup shamir recover`, or Restore from shares in `hawala app`) or another SLIP-39 wallet.",
    ]

    /// The sheets as PDF bytes, drawn in memory.
    public func pdf() throws -> SecretBytes {
        try PDFSurface.memory(paper: paper, draw: draw)
    }

    /// The sheets drawn into a PDF file at `path` (the caller makes the file private and atomic).
    public func render(to path: String) throws {
        try PDFSurface.file(path, paper: paper, draw: draw)
    }

    private func draw(_ pen: PDFPen) throws {
        let groups = split.shares.count
        for (g, group) in split.shares.enumerated() {
            for (m, share) in group.enumerated() {
                pen.y += 10
                pen.text(groups == 1 ? "SLIP-39 share \(m + 1) of \(group.count)" : "SLIP-39 share: group \(g + 1) of \(groups), share \(m + 1) of \(group.count)",
                         size: 18, bold: true)
                pen.y += 24
                pen.text("Wallet: \(split.wallet.name)    Fingerprint: \(split.wallet.fingerprint)    Printed: \(PaperBackup.day(date))", size: 10)
                pen.y += 22
                var rule = (groups == 1 ? "" : "Any \(split.layout[g].threshold) of this group's \(group.count) shares make the group. ") + split.recoveryRule + "."
                if split.withPassphrase { rule += " The shares were made with a passphrase: without it they recover another wallet, without warning." }
                pen.paragraph(rule, size: 10.5, width: 90, leading: 14)
                if split.bip39PassphraseLeftOut {
                    pen.paragraph("This wallet also has a BIP39 passphrase the shares do not hold: keep it too.", size: 10.5, bold: true, width: 90, leading: 14)
                }
                pen.y += 16
                pen.numberedColumns(share.words, count: share.words.count, gap: 22)
                pen.y += 20
                pen.advice("Keeping this share", ShareSheets.advice)
                pen.newPage()
            }
        }
    }
}
