import Foundation
import HawalaTestSupport
import Testing

/// Issue 39, item 14: `hawala` crashing while it holds a wallet's words, with core dumps
/// enabled, leaves no core file — where the same crash of another program leaves one.
@Suite("No core dump of a process holding secrets", .serialized)
struct CoreDumpTests {
    /// Runs `command` through sh with core dumps enabled, in `folder`; its output (stdout and
    /// stderr) read by the caller.
    static func start(_ command: String, in folder: URL, environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -c unlimited && exec " + command]
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = errors
        process.standardError = errors
        try process.run()
        return (process, errors)
    }

    /// The soft core-size limit /proc shows for `pid` ("0", "unlimited", …).
    static func coreLimit(_ pid: Int32) throws -> String? {
        // Read whole: a /proc file says it is empty.
        let limits = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/limits")).readToEnd() ?? Data(), as: UTF8.self)
        return limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }?
            .dropFirst("Max core file size".count).split(separator: " ").first.map(String.init)
    }

    static func crash(_ process: Process) {
        kill(process.processIdentifier, SIGSEGV)
        process.waitUntilExit()
    }

    static func files(in folder: URL) -> [URL] {
        (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    }

    /// hawala blocked reading a FIFO, in `folder`, with core dumps enabled and the Swift
    /// runtime's crash handler off (a crash then dumps as the kernel decides); its stderr.
    static func blockedHawala(_ arguments: [String], in folder: URL, home: [String: String]) throws -> (Process, Pipe) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let line = ([CLI.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try start(line, in: folder, environment: home.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
    }

    /// hawala as `blockedHawala` starts it, but with the Swift runtime's backtracer asked for
    /// (it prints registers and the memory around them unless Hawala turns it off).
    static func blockedHawalaWithBacktracer(_ arguments: [String], in folder: URL, home: [String: String]) throws -> (Process, Pipe) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let line = ([CLI.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try start(line, in: folder, environment: home.merging(["SWIFT_BACKTRACE": "enable=yes,interactive=no"]) { $1 })
    }

    /// Reads `pipe` until `text` shows (or 30 s pass).
    static func waitFor(_ text: String, on pipe: Pipe) -> String {
        var shown = Data()
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: shown, as: UTF8.self).contains(text), Date() < deadline {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            shown += chunk
        }
        return String(decoding: shown, as: UTF8.self)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/limits")))
    func aCrashHoldingTheWordsLeavesNoCoreFile() throws {
        let f = try WalletFixture()
        try f.write("mnemonic", legalWinner + "\n")
        let secrets = f.home.appendingPathComponent("secrets")
        #expect(mkfifo(secrets.appendingPathComponent("password-fifo").path, 0o600) == 0)

        // The control: the same binary, crashed while it holds no secret (the app, no one signed
        // in), writes a core file here.
        let control = temporaryFolder("core-control")
        let (early, started) = try Self.blockedHawala(["app", "--no-open", "--port", "0"], in: control, home: f.environment)
        _ = Self.waitFor("127.0.0.1", on: started)
        #expect(try Self.coreLimit(early.processIdentifier) == "unlimited", "core dumps enabled for the control")
        Self.crash(early)
        let controlCores = Self.files(in: control).filter { $0.lastPathComponent.hasPrefix("core") }
        #expect(!controlCores.isEmpty, "the control wrote no core file (core_pattern?): this test would prove nothing")

        // Holding the words it restores, blocked reading the password from a FIFO.
        let folder = temporaryFolder("core-hawala")
        let (hawala, errors) = try Self.blockedHawala(["wallet", "restore", "--mnemonic-file", f.path("mnemonic"),
                                                       "--password-file", secrets.appendingPathComponent("password-fifo").path, "--yes"],
                                                      in: folder, home: f.environment)
        // Its addresses are shown once it holds the words; then it waits on the FIFO.
        let shown = Self.waitFor("bitcoin", on: errors)
        #expect(shown.contains("bitcoin"), "the words were read: \(shown)")
        usleep(200_000)
        #expect(try Self.coreLimit(hawala.processIdentifier) == "0", "the process holding a secret allows no core file")
        Self.crash(hawala)
        #expect(hawala.terminationReason == .uncaughtSignal && hawala.terminationStatus == SIGSEGV)
        let left = Self.files(in: folder)
        #expect(!left.contains { $0.lastPathComponent.hasPrefix("core") }, "no core file: \(left.map(\.lastPathComponent))")
        for file in left { #expect((try Data(contentsOf: file)).range(of: Data("sausage".utf8)) == nil) }
    }

    /// A crash while holding the words prints no memory: the runtime's backtrace (registers and
    /// the bytes around each) is off in Hawala's programs, even when the environment asks for it.
    @Test func aCrashPrintsNoMemory() throws {
        let f = try WalletFixture()
        try f.write("mnemonic", legalWinner + "\n")
        let secrets = f.home.appendingPathComponent("secrets")
        #expect(mkfifo(secrets.appendingPathComponent("password-fifo").path, 0o600) == 0)
        let folder = temporaryFolder("crash-output")
        let (hawala, output) = try Self.blockedHawalaWithBacktracer(["wallet", "restore", "--mnemonic-file", f.path("mnemonic"),
                                                                      "--password-file", secrets.appendingPathComponent("password-fifo").path, "--yes"],
                                                                     in: folder, home: f.environment)
        let shown = Self.waitFor("bitcoin", on: output)
        #expect(shown.contains("bitcoin"), "the words were read: \(shown)")
        usleep(200_000)
        Self.crash(hawala)
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(hawala.terminationReason == .uncaughtSignal && hawala.terminationStatus == SIGSEGV)
        for printed in ["Registers", "rip 0x", "rax 0x", "Backtrace", "crashed"] { #expect(!rest.contains(printed), "the crash printed \(printed): \(rest.prefix(600))") }
        #expect(!rest.contains("sausage") && !rest.contains("legal"), "the words in the crash output")
    }
}
