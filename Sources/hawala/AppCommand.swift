import ArgumentParser
import Foundation
import HawalaApp
#if canImport(HawalaSpark)
import HawalaSpark
#endif
import HawalaWallet
import Synchronization

/// `hawala app`: the wallet's screens in a browser, served on this machine.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "The wallet's screens in a browser, served on this machine (127.0.0.1).",
        discussion: """
            Starts a local web server and opens the browser through a private redirect file (the \
            one-time sign-in link never appears on a command line). When no browser opens (no \
            display, or --no-open), the first line on stdout is that link: open it once, in the \
            browser you will use. Press Enter in this terminal for a fresh link (another browser, \
            a link already used). The wallet password unlocks the app; it locks itself after \
            --idle-lock minutes without use. Ctrl-C stops it.
            """)

    @Option(help: "Port to listen on (0: any free port).") var port: Int = 0
    @Flag(name: .customLong("no-open"), help: "Print the login link on stdout instead of opening a browser.") var noOpen = false
    @Option(help: ArgumentHelp("Address to listen on. Anything but loopback lets other machines reach the login page.", valueName: "address"))
    var listen: String = "127.0.0.1"
    @Option(name: .customLong("idle-lock"), help: ArgumentHelp("Minutes without a request before the app locks (\(IdleLock.allowedMinutes.lowerBound)–\(IdleLock.allowedMinutes.upperBound); default: the app's setting, else \(IdleLock.default.minutes)).", valueName: "minutes"))
    var idleLock: Int?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let idleLock { do { _ = try IdleLock(minutes: idleLock) } catch { throw ValidationError("--idle-lock: \(error.description)") } }
    }

    func run() async throws {
        var options = AppOptions()
        options.host = listen
        options.port = port
        options.idleLock = try idleLock.map { try IdleLock(minutes: $0) }
        options.producer = "hawala \(HawalaVersion.string)"
        options.backends = .linked
        let app = try await WebApp(home: WalletHome.fromEnvironment(), options: options)
        if !options.isLoopback {
            Output.error("warning: listening on \(listen): other machines can reach the app and try the wallet password; there is no TLS")
        }
        let opener = noOpen ? nil : BrowserOpener()
        defer { opener?.removeFile() }
        do {
            try await serve(app, opener: opener)
        } catch AppError.portInUse(let port) {
            throw CLIError("port \(port) is in use; choose another with --port (0 picks a free one)")
        }
    }

    func serve(_ app: WebApp, opener: BrowserOpener?) async throws {
        try await app.run { port in
            let url = app.startURL(port: port)
            if let opener, opener.open(url) {
                Output.error("Opening the app in your browser…")
            } else {
                // No browser opened: the link, on stdout whatever else happened.
                print(url)
                fflush(nil)
                if opener != nil { Output.error("No browser could be opened here: open the link above in yours.") }
            }
            Output.error("Hawala app on port \(port). Press Enter for a new sign-in link; Ctrl-C stops it.")
            FreshLinks.start(app: app, port: port)
        }
    }
}

/// Each Enter in the terminal prints a fresh one-time sign-in link (the previous one stops
/// working): for another browser, or after the first link was used. Read on a thread of its
/// own (a blocking read); ends at the end of input.
enum FreshLinks {
    static func start(app: WebApp, port: Int) {
        let thread = Thread {
            while readLine() != nil {
                let done = DispatchSemaphore(value: 0)
                let link = Mutex("")
                Task {
                    let url = await app.freshStartURL(port: port)
                    link.withLock { $0 = url }
                    done.signal()
                }
                done.wait()
                print(link.withLock { $0 })
                fflush(nil)
                Output.error("A new sign-in link (it works once; the one before no longer does).")
            }
        }
        thread.start()
    }
}

/// Opens the login link without putting it on a command line: a 0600 HTML file that redirects
/// to it, in a 0700 folder, handed to the browser (`$BROWSER`, else `xdg-open`).
final class BrowserOpener: Sendable {
    private let directory = Mutex<URL?>(nil)

    /// Whether a browser was started: false without a display (Linux), or when the opener
    /// failed within five seconds.
    func open(_ url: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let browser = environment["BROWSER"].flatMap { $0.isEmpty ? nil : $0 }
        #if os(Linux)
        if browser == nil, (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return false }
        #endif
        let base = environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        var template = Array((base as NSString).appendingPathComponent("hawala-app.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return false }
        let folder = URL(fileURLWithPath: String(cString: made))
        directory.withLock { $0 = folder }
        let file = folder.appendingPathComponent("open.html")
        let html = "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=\(url)\"><title>Hawala</title><p><a href=\"\(url)\">Open Hawala</a></p>\n"
        guard FileManager.default.createFile(atPath: file.path, contents: Data(html.utf8), attributes: [.posixPermissions: 0o600]) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #if os(macOS)
        process.arguments = browser.map { [$0, file.path] } ?? ["open", file.path]
        #else
        process.arguments = [browser ?? "xdg-open", file.path]
        #endif
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do { try process.run() } catch { return false }
        // xdg-open returns once the browser has the file; a failure says so at once.
        if exited.wait(timeout: .now() + 5) == .success { return process.terminationStatus == 0 }
        return true
    }

    func removeFile() {
        if let folder = directory.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}
