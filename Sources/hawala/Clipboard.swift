import Foundation
import HawalaCrypto

/// The desktop clipboard through wl-copy (Wayland) or xclip (X11), when one is there. The secret
/// goes through the tool's standard input, never its arguments, and is cleared after a delay.
struct Clipboard {
    let name: String
    private let executable: String
    private let copyArguments: [String]

    /// The clipboard tool of the running session, or nil.
    static func find(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Clipboard? {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func which(_ tool: String) -> String? {
            path.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        if environment["WAYLAND_DISPLAY"] != nil, let tool = which("wl-copy") {
            return Clipboard(name: "wl-copy", executable: tool, copyArguments: [])
        }
        if environment["DISPLAY"] != nil, let tool = which("xclip") {
            return Clipboard(name: "xclip", executable: tool, copyArguments: ["-selection", "clipboard"])
        }
        return nil
    }

    /// Puts `secret` on the clipboard.
    func copy(_ secret: SecretBytes) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = copyArguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw CLIError("cannot start \(name): \(error.localizedDescription)") }
        secret.withUnsafeBytes { input.fileHandleForWriting.write(Data($0)) }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError("\(name) failed (exit \(process.terminationStatus))") }
    }

    /// Empties the clipboard after `seconds`, in a background process that outlives this one.
    func scheduleClear(after seconds: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The tool's path and arguments are ours, not the user's: no quoting issue.
        let command = ([executable] + copyArguments).map { "'\($0)'" }.joined(separator: " ")
        process.arguments = ["-c", "sleep \(seconds); printf '' | \(command)"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
