import ArgumentParser
import Foundation
import HawalaText
import HawalaVault
import HawalaVaultStorage

/// `hawala-vault check`: reads every stored backup back and compares it with its SHA-256.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every stored backup against the SHA-256 recorded at upload (changes nothing).",
        discussion: """
            Exit 0 when every backup is intact, 1 when any is damaged (each is listed: user, id, \
            date, size). With --repair-report, also what each affected user still has and what \
            to do. Safe while the server runs; reads one backup at a time.
            """)
    @OptionGroup var database: DatabaseOptions
    @Flag(name: .customLong("repair-report"), help: "Per affected user: the newest intact backup, and the remedy.") var repairReport = false
    @Flag(help: "JSON output: {checked, bytes, damaged: [{user, id, createdAt, sizeBytes}]}.") var json = false

    struct Damaged: Encodable {
        let user: String
        let id: String
        let createdAt: String
        let sizeBytes: Int64
    }

    struct Advice: Encodable {
        let user: String
        let damaged: Int
        let newestIntact: String?
    }

    struct Report: Encodable {
        let checked: Int
        let bytes: Int64
        let damaged: [Damaged]
        let repair: [Advice]?
    }

    func run() async throws {
        let interactive = isatty(STDERR_FILENO) == 1 && !json
        let report = try await database.with { storage in
            try await VaultCheck.run(storage: storage) { done, total in
                guard interactive, done == total || done % 10 == 0 else { return }
                FileHandle.standardError.write(Data("\rchecked \(done) of \(total)\(done == total ? "\n" : "")".utf8))
            }
        }
        let damaged = report.damaged.map { Damaged(user: $0.user.name, id: $0.backup.id, createdAt: $0.backup.createdAt.iso8601, sizeBytes: $0.backup.sizeBytes) }
        let advice = report.repairAdvice.map { Advice(user: $0.user, damaged: $0.damaged.count, newestIntact: $0.newestIntact.map(\.iso8601)) }
        if json {
            try printJSON(Report(checked: report.checked, bytes: report.bytes, damaged: damaged, repair: repairReport ? advice : nil))
        } else {
            print("\(report.checked) backup\(report.checked == 1 ? "" : "s") checked, \(report.damaged.count) damaged")
            for d in damaged { print("damaged: user \(d.user), backup \(d.id), \(d.createdAt), \(d.sizeBytes) bytes") }
            if repairReport {
                for a in advice {
                    let remedy = a.newestIntact.map { "newest intact backup \($0); ask the device for a new upload" }
                        ?? "no intact backup left: restore the database from your own backup, or ask the device for a new upload at once"
                    print("user \(a.user): \(a.damaged) damaged; \(remedy)")
                }
            }
        }
        if !report.damaged.isEmpty { throw ExitCode(1) }
    }
}
