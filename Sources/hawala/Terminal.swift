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
        let answer = try endingTheLineOnCancel { try Input.readFirstLine(fd: fd, limit: 4096, what: "the answer", endOfInputCancels: true) }
        guard let text = answer.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw CLIError("the answer is not valid UTF-8 text")
        }
        return text
    }

    /// Asks for a secret that is shown as typed (a recovery word, checked as it is entered).
    func askShown(_ prompt: String) throws -> SecretBytes {
        write(prompt)
        return try endingTheLineOnCancel { try Input.readFirstLine(fd: fd, limit: 4096, what: "the answer", endOfInputCancels: true) }
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
        return try endingTheLineOnCancel { try Input.readFirstLine(fd: fd, limit: Input.maximumSecretBytes, what: "input", endOfInputCancels: true) }
    }

    /// Ctrl-D echoes no newline: end the prompt's line so "cancelled" starts a line of its own.
    private func endingTheLineOnCancel<T>(_ read: () throws -> T) throws -> T {
        do { return try read() } catch let error as CLIError where error.isCancellation {
            line()
            throw error
        }
    }

    /// Yes/no, default no (Enter). Anything but y/yes/n/no (any case) is asked again.
    func confirm(_ prompt: String) throws -> Bool {
        while true {
            switch Answer.yesNo(try ask(prompt + " [y/N] ")) {
            case true?: return true
            case false?: return false
            case nil: line("Please answer y or n.")
            }
        }
    }

    /// Asks until `parse` accepts the answer; `hint` says what is expected after a wrong one.
    /// Ctrl-D cancels (`CLIError.cancelled`).
    func choose<T>(_ prompt: String, hint: String, _ parse: (String) -> T?) throws -> T {
        while true {
            if let value = parse(try ask(prompt).trimmingCharacters(in: .whitespaces)) { return value }
            line(hint)
        }
    }

    /// Clears the screen and its scrollback (so words shown earlier don't stay visible).
    func clearScreen() {
        if ProcessInfo.processInfo.environment["TERM"] == "dumb" { line(); return }
        write("\u{1B}[2J\u{1B}[3J\u{1B}[H")
    }
}

/// How typed answers are read, the same at every prompt.
enum Answer {
    /// true for y/yes, false for n/no or nothing (Enter), nil for anything else (any case).
    static func yesNo(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes": true
        case "", "n", "no": false
        default: nil
        }
    }

    /// true for y/yes only (an explicit confirmation: no default), nil for anything else.
    static func explicitYes(_ text: String) -> Bool? {
        ["y", "yes"].contains(text.trimmingCharacters(in: .whitespaces).lowercased()) ? true : nil
    }
}
