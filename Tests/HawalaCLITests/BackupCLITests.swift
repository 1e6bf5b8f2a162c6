import Foundation
import HawalaBackup
import Testing
import HawalaTestSupport

@Suite("hawala backup")
struct BackupCLITests {
    func exported(_ f: WalletFixture) throws -> (String, String) {
        #expect(try f.restoreAbandon(name: "Main").status == 0)
        let backupPassword = try f.write("backup-password", "a long backup passphrase\n")
        let out = f.home.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let r = try f.run(["backup", "export", "--out", out, "--password-file", f.path("password"), "--backup-password-file", backupPassword])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("verified by reading it back"))
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.count == 1 && files[0].hasPrefix("hawala-backup-") && files[0].hasSuffix(".hawala"))
        return (out + "/" + files[0], backupPassword)
    }

    @Test func exportInspectImportElsewhere() throws {
        let f = try WalletFixture()
        let (file, backupPassword) = try exported(f)
        let inspect = try f.run(["backup", "inspect", "--json", file])
        let json = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect(json["version"] as? Int == 1 && (json["kdf"] as! [String: Any])["memoryKiB"] as? Int == 262_144)
        // A fresh home: preview, then import.
        let g = try WalletFixture()
        let dry = try g.run(["backup", "import", file, "--backup-password-file", backupPassword, "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("Main (mainnet, 12 words): bitcoin bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"), "\(dry.stdout)\(dry.stderr)")
        #expect(!FileManager.default.fileExists(atPath: g.data.path), "a dry run writes nothing")
        let imported = try g.run(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", g.path("password")])
        #expect(imported.status == 0 && imported.stdout.contains("imported \"Main\""), "\(imported.stderr)")
        #expect(try g.run(["wallet", "show-seed", "--reveal", "--password-file", g.path("password")]).stdout == abandonAbout + "\n")
    }

    @Test func conflictsNeedAChoice() throws {
        let f = try WalletFixture()
        let (file, backupPassword) = try exported(f)
        let r = try f.run(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", f.path("password")])
        #expect(r.status == 1 && r.stderr.contains("--on-conflict"), "\(r.stderr)")
        let skip = try f.run(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", f.path("password"), "--on-conflict", "skip"])
        #expect(skip.stdout.contains("skipped \"Main\""))
        #expect(try f.run(["wallet", "rename", "Main", "Old"]).status == 0)
        let replace = try f.run(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", f.path("password"), "--on-conflict", "replace"])
        #expect(replace.stdout.contains("replaced wallet \"Old\" with the one from the backup"), "\(replace.stdout)\(replace.stderr)")
        let keepBoth = try f.run(["backup", "import", file, "--backup-password-file", backupPassword, "--password-file", f.path("password"), "--on-conflict", "keep-both"])
        #expect(keepBoth.stdout.contains("kept \"Main\" once: the same wallet (same words and network) is already here"), "\(keepBoth.stdout)")
        #expect(try f.run(["backup", "import", file, "--on-conflict", "merge"]).status == 2)
    }

    @Test func badFilesAndPasswords() throws {
        let f = try WalletFixture()
        let (file, backupPassword) = try exported(f)
        let wrong = try f.write("wrong-backup", "not the right passphrase")
        expectCleanFailure(try f.run(["backup", "import", file, "--backup-password-file", wrong, "--dry-run"]), contains: "wrong password or damaged file")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 3] ^= 1
        let damaged = try f.write("damaged.hawala", "")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        expectCleanFailure(try f.run(["backup", "import", damaged, "--backup-password-file", backupPassword, "--dry-run"]), contains: "damaged file")
        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: damaged))
        expectCleanFailure(try f.run(["backup", "inspect", damaged]), contains: "truncated")
        var hostile = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        hostile.replaceSubrange(14..<18, with: [0xFF, 0xFF, 0xFF, 0xFF])  // 4 TiB of memory
        try Data(hostile).write(to: URL(fileURLWithPath: damaged))
        expectCleanFailure(try f.run(["backup", "import", damaged, "--backup-password-file", backupPassword, "--dry-run"]), contains: "out of bounds")
        expectCleanFailure(try f.run(["backup", "inspect", f.path("mnemonic")]), contains: "not a .hawala file")
        expectCleanFailure(try f.run(["backup", "inspect", "/nonexistent.hawala"]), contains: "cannot open")
        // Never replaces an existing backup; weak passwords refused.
        let again = try f.run(["backup", "export", "--out", file, "--password-file", f.path("password"), "--backup-password-file", backupPassword])
        expectCleanFailure(again, contains: "already exists")
        // A second export into the same folder on the same day takes the next free name.
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let second = try f.run(["backup", "export", "--out", folder.path, "--password-file", f.path("password"), "--backup-password-file", backupPassword])
        #expect(second.status == 0, "\(second.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(Set(names) == [URL(fileURLWithPath: file).lastPathComponent, URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + "-2.hawala"], "\(names)")
        // A file named without the extension gets it: a backup is found, and opened, by it.
        let bare = folder.appendingPathComponent("my-backup").path
        let named = try f.run(["backup", "export", "--out", bare, "--password-file", f.path("password"), "--backup-password-file", backupPassword])
        #expect(named.status == 0 && named.stdout.hasPrefix("wrote \(bare).hawala ("), "\(named.stdout)\(named.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare))
        expectCleanFailure(try f.run(["backup", "export", "--out", bare, "--password-file", f.path("password"), "--backup-password-file", backupPassword]),
                           contains: "my-backup.hawala already exists")
        let weak = try f.write("weak", "password")
        let out = f.home.appendingPathComponent("weak.hawala").path
        expectCleanFailure(try f.run(["backup", "export", "--out", out, "--password-file", f.path("password"), "--backup-password-file", weak]), contains: "at least 10 characters")
        for guessable in ["qwertyuiop", "password123"] {
            let file = try f.write("guessable", guessable + "\n")
            expectCleanFailure(try f.run(["backup", "export", "--out", out, "--password-file", f.path("password"), "--backup-password-file", file]),
                               contains: "too easy to guess")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
