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
            one-time login link never appears on a command line). With --no-open the first line on \
            stdout is that link: open it once, in the browser you will use. The wallet password \
            unlocks the app; it locks itself after --idle-lock minutes without use. Ctrl-C stops it.
            """)

    @Option(help: "Port to listen on (0: any free port).") var port: Int = 0
    @Flag(name: .customLong("no-open"), help: "Print the login link on stdout instead of opening a browser.") var noOpen = false
    @Option(help: ArgumentHelp("Address to listen on. Anything but loopback lets other machines reach the login page.", valueName: "address"))
    var listen: String = "127.0.0.1"
    @Option(name: .customLong("idle-lock"), help: ArgumentHelp("Minutes without a request before the app locks (1–120; default: the app's setting, else 5).", valueName: "minutes"))
    var idleLock: Int?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let idleLock, !(1...120).contains(idleLock) { throw ValidationError("--idle-lock takes 1 to 120 minutes") }
    }

    func run() async throws {
        var options = AppOptions()
        options.host = listen
        options.port = port
        options.idleLock = idleLock.map { TimeInterval($0 * 60) }
        options.producer = "hawala \(HawalaVersion.string)"
        #if canImport(HawalaSpark)
        options.spark = .sdk(logFilter: SparkBackend.logFilter(logLevel.rawValue))
        #endif
        let app = try await WebApp(home: WalletHome.fromEnvironment(), options: options)
        if !options.isLoopback {
            Output.error("warning: listening on \(listen): other machines can reach the app and try the wallet password; there is no TLS")
        }
        let opener = noOpen ? nil : BrowserOpener()
        defer { opener?.removeFile() }
        try await app.run { port in
            let url = app.startURL(port: port)
            if let opener {
                Output.error(opener.open(url) ?? "Opening the app in your browser…")
            } else {
                print(url)
                fflush(nil)
            }
            Output.error("Hawala app on port \(port); Ctrl-C stops it.")
        }
    }
}

/// Opens the login link without putting it on a command line: a 0600 HTML file that redirects
/// to it, in a 0700 folder, handed to the browser (`$BROWSER`, else `xdg-open`).
final class BrowserOpener: Sendable {
    private let directory = Mutex<URL?>(nil)

    /// Nil when the browser was started; otherwise what to tell the person.
    func open(_ url: String) -> String? {
        let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        var template = Array((base as NSString).appendingPathComponent("hawala-app.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return "Could not make a private folder for the login link; restart with --no-open." }
        let folder = URL(fileURLWithPath: String(cString: made))
        directory.withLock { $0 = folder }
        let file = folder.appendingPathComponent("open.html")
        let html = "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=\(url)\"><title>Hawala</title><p><a href=\"\(url)\">Open Hawala</a></p>\n"
        guard FileManager.default.createFile(atPath: file.path, contents: Data(html.utf8), attributes: [.posixPermissions: 0o600]) else {
            return "Could not write the login link; restart with --no-open."
        }
        let browser = ProcessInfo.processInfo.environment["BROWSER"].flatMap { $0.isEmpty ? nil : $0 } ?? "xdg-open"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [browser, file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            return "No browser to open (\(browser)); open \(file.path) in your browser."
        }
        return nil
    }

    func removeFile() {
        if let folder = directory.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}
