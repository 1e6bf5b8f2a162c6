import Foundation
import HawalaCrypto
import HawalaLightning

/// A failure the user can act on: one line on stderr and a meaningful exit code.
struct CLIError: Error {
    /// Exit codes: 1 user-facing failure (bad input, wrong password, invalid data), 2 usage error.
    enum Code: Int32 { case failure = 1, usage = 2 }
    let message: String
    let code: Code

    init(_ message: String, code: Code = .failure) {
        self.message = message
        self.code = code
    }

    /// Ctrl-D (end of input) at a prompt: the person cancelled.
    static let cancelled = CLIError("cancelled")

    /// Whether this is `cancelled` (a prompt ended by Ctrl-D).
    var isCancellation: Bool { message == CLIError.cancelled.message && code == CLIError.cancelled.code }
}

/// Reading secrets and input without putting them in argv, and without unbounded reads.
enum Input {
    /// No real mnemonic or passphrase comes near this; larger input is refused, not read.
    static let maximumSecretBytes = 64 * 1024

    /// Whether standard input is a terminal.
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads the first line of `fd` (without its newline), at most `limit` bytes; never reads
    /// past the first newline more than one buffer's worth and never waits for more once the
    /// line is complete. With `endOfInputCancels` (a prompt), end of input before any byte —
    /// Ctrl-D at a terminal — throws `CLIError.cancelled` instead of returning an empty line.
    static func readFirstLine(fd: Int32 = STDIN_FILENO, limit: Int = 4096, what: String, endOfInputCancels: Bool = false) throws -> SecretBytes {
        var collected = [UInt8]()
        defer { SecretBytes.wipe(&collected) }
        var buffer = [UInt8](repeating: 0, count: 1)
        defer { SecretBytes.wipe(&buffer) }
        // Byte by byte so nothing after the line is consumed (the next reader may want it).
        while true {
            let n = read(fd, &buffer, 1)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read \(what): \(String(cString: strerror(errno)))")
            }
            if n == 0, endOfInputCancels, collected.isEmpty { throw CLIError.cancelled }
            if n == 0 || buffer[0] == 0x0A { break }
            collected.append(buffer[0])
            if collected.count > limit { throw CLIError("\(what) is too long (more than \(limit) bytes on one line)") }
        }
        if collected.last == 0x0D { collected.removeLast() }
        return SecretBytes(collected)
    }

    /// Reads a secret file exactly as written, minus one trailing newline: leading and trailing
    /// spaces are part of a BIP39 passphrase. `-` reads standard input.
    static func readSecretFile(_ path: String, what: String) throws -> SecretBytes {
        let fd: Int32 = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError("cannot open \(what) file \(path): \(String(cString: strerror(errno)))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var collected = [UInt8]()
        defer { SecretBytes.wipe(&collected) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { SecretBytes.wipe(&buffer) }
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read \(what) file \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            collected.append(contentsOf: buffer[0..<n])
            if collected.count > maximumSecretBytes { throw CLIError("\(what) file \(path) is too large") }
        }
        if collected.last == 0x0A { collected.removeLast() }
        return SecretBytes(collected)
    }

    /// Prompts on the terminal with echo off and reads one line.
    static func promptSecret(_ prompt: String) throws -> SecretBytes {
        guard let terminal = Terminal.open() else {
            throw CLIError("no terminal to prompt on; pass the secret through a file or standard input")
        }
        return try terminal.askSecret(prompt)
    }

    /// The mnemonic: a prompt with echo off on a terminal, else the first line of stdin.
    static func readMnemonic() throws -> SecretBytes {
        let secret = stdinIsTerminal
            ? try promptSecret("Mnemonic (input hidden): ")
            : try readFirstLine(limit: 4096, what: "the mnemonic")
        return secret
    }

    /// The BIP39 passphrase from `--passphrase-file`, or empty.
    static func readPassphrase(file: String?) throws -> SecretBytes {
        guard let file else { return SecretBytes([]) }
        return try readSecretFile(file, what: "passphrase")
    }
}

/// Writing to stderr.
enum Output {
    /// Writes `line` to stderr, its control characters (an escape sequence or a bell echoed
    /// from the input in an error) replaced: nothing a person typed or pasted can drive the
    /// terminal.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((DisplayText.safeLines(line) + "\n").utf8))
    }

    /// "uploading… N% of K KiB" on a terminal's stderr for transfers of at least 1 MiB, as a
    /// library's (done, total) progress callback.
    static func transferProgress(_ verb: String) -> @Sendable (Int, Int) -> Void {
        let shown = isatty(STDERR_FILENO) == 1
        return { done, total in
            guard shown, total >= 1 << 20 else { return }
            FileHandle.standardError.write(Data("\r\(verb) \(done * 100 / total)% of \(total / 1024) KiB\(done == total ? "\n" : "")".utf8))
        }
    }
}
