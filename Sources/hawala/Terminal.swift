import Foundation
import HawalaCrypto

/// The user's terminal (`/dev/tty`), for flows: what is written here never lands in a
/// redirected stdout or in a pipe, and answers are read from the keyboard even when stdin is
/// busy with something else.
final class Terminal {
    private let fd: Int32

    /// Opens the controlling terminal, or nil when there is none (a script, CI).
    static func open() -> Terminal? {
        let fd = Foundation.open("/dev/tty", O_RDWR | O_CLOEXEC)
        return fd >= 0 ? Terminal(fd: fd) : nil
    }

    /// The terminal, or a usage error naming the non-interactive alternative.
    static func required(_ alternative: String) throws -> Terminal {
        guard let terminal = open() else { throw CLIError("this needs a terminal; \(alternative)", code: .usage) }
        return terminal
    }

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// Writes `text` as is.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    /// Writes `text` and a newline.
    func line(_ text: String = "") { write(text + "\n") }

    /// Asks a question; the answer is shown as typed.
    func ask(_ prompt: String) throws -> String {
        write(prompt)
        let answer = try Input.readFirstLine(fd: fd, limit: 4096, what: "the answer")
        guard let text = answer.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw CLIError("the answer is not valid UTF-8 text")
        }
        return text
    }

    /// Asks for a secret with echo off.
    func askSecret(_ prompt: String) throws -> SecretBytes {
        var original = termios()
        let haveTermios = tcgetattr(fd, &original) == 0
        if haveTermios {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer { if haveTermios { tcsetattr(fd, TCSAFLUSH, &original) } }
        write(prompt)
        return try Input.readFirstLine(fd: fd, limit: Input.maximumSecretBytes, what: "input")
    }

    /// Yes/no, default no.
    func confirm(_ prompt: String) throws -> Bool {
        let answer = try ask(prompt + " [y/N] ").trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Clears the screen and its scrollback (so words shown earlier don't stay visible).
    func clearScreen() {
        if ProcessInfo.processInfo.environment["TERM"] == "dumb" { line(); return }
        write("\u{1B}[2J\u{1B}[3J\u{1B}[H")
    }
}
