import Foundation

/// Runs the real `hawala` binary, as a user or script would (the CLI tests, and the tests
/// that hold the CLI and the app to the same decisions).
public struct CLIResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// stderr as lines, without the trailing empty one.
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public var errorLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

public enum CLI {
    /// Runs a system tool to its end, its output discarded; its exit status.
    public static func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The binary: `$HAWALA_BIN`, or the one SwiftPM built beside the test bundle.
    public static let binary = built("hawala", override: "HAWALA_BIN")
    /// The vault server: `$HAWALA_VAULT_BIN`, or the one SwiftPM built.
    public static let vaultBinary = built("hawala-vault", override: "HAWALA_VAULT_BIN")

    private static func built(_ name: String, override: String) -> URL {
        if let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent(".build/debug/" + name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: name)
    }

    /// Runs `hawala arguments…` with `stdin` as standard input; kills it after `timeout` seconds
    /// (a hang is a failure, reported as status -9).
    /// With `newSession`, the program runs in a new session (setsid(1)): no controlling terminal,
    /// as under CI or cron, even when the tests run in a terminal.
    public static func run(_ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:], timeout: TimeInterval = 60, newSession: Bool = false,
                    binary: URL = CLI.binary) throws -> CLIResult {
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        if newSession {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            process.arguments = ["--wait", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        // Each run gets its own empty wallet home unless the test names one.
        env["HAWALA_HOME"] = temporaryFolder("hawala-cli").path
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let outBox = DataBox(), errBox = DataBox()
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) { outBox.data = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { errBox.data = error.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate(); kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        readers.wait()
        return CLIResult(
            status: process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus,
            stdout: String(decoding: outBox.data, as: UTF8.self),
            stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    public static func run(_ arguments: [String], input: String) throws -> CLIResult {
        try run(arguments, stdin: Data(input.utf8))
    }
}

/// Bytes read on another thread.
final class DataBox: @unchecked Sendable { var data = Data() }
