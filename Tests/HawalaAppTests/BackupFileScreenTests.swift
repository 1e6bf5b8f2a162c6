import Foundation
@testable import HawalaApp
import HawalaCrypto
import HawalaKeys
import HawalaTestSupport
import HawalaWallet
import Testing

/// `.hawala` files through HTTP: the export's passwords, the upload's checks, the preview that
/// writes nothing, conflicts, and an import into a new home that logs in.
extension AppSecurityTests {
    static let backupPassword = "orbit candle meadow thunder salmon"

    /// A multipart form as a browser sends it, with the file's name as given.
    static func multipart(_ fields: [String: String], file: [UInt8]?, filename: String) -> (contentType: String, body: [UInt8]) {
        let boundary = "----hawala\(UInt32.random(in: 0...UInt32.max))"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            body += file + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    /// A file larger than the app takes is refused as it arrives (413), nothing read into a plan.
    @Test func aBackupLargerThanTheLimitIsRefused() async throws {
        try await withApp(maximumBackupBytes: 1 << 20) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/backups").body))
            let form = Self.multipart(["backupPassword": Self.backupPassword], file: [UInt8](repeating: 0x48, count: (1 << 20) + 1), filename: "big.hawala")
            let refused = try await browser.send(.post, "/backups/import?csrf=\(csrf)", raw: form.body, contentType: form.contentType)
            #expect(refused.status == 413 && refused.body.contains("larger than a backup can be here (1 MiB)"), "\(refused.status)")
            #expect(try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf]).status == 303, "no plan waits")
        }
    }

    @Test func aBackupIsExportedWithThePasswordAgainAndImportedAfterAPreview() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/backups")
            let csrf = try #require(Browser.csrf(page.body))
            let export = ["csrf": csrf, "password": "correct horse", "backupPassword": Self.backupPassword, "backupRepeat": Self.backupPassword]
            // The wallet password again; two equal backup passwords; a strong one.
            var wrong = export
            wrong["password"] = "wrong horse"
            let refused = try await browser.send(.post, "/backups/export", form: wrong)
            #expect(refused.status == 401 && Browser.header("Content-Disposition", refused.headers) == nil)
            var differ = export
            differ["backupRepeat"] = "something else entirely"
            #expect(try await browser.send(.post, "/backups/export", form: differ).status == 400)
            let weak = try await browser.send(.post, "/backups/export", form: export.merging(["backupPassword": "password123", "backupRepeat": "password123"]) { $1 })
            #expect(weak.status == 400 && weak.body.contains("too easy to guess"))
            // Made: a confirmation page (name and size; the form and its passwords gone) that
            // downloads the file by itself.
            let made = try await browser.send(.post, "/backups/export", form: export)
            #expect(made.status == 303 && Browser.header("Location", made.headers) == "/backups/exported")
            let ready = try await browser.send(.get, "/backups/exported")
            #expect(ready.status == 200 && ready.body.contains("Your backup is ready") && ready.body.contains(".hawala</strong> · "))
            #expect(ready.body.contains(#"<meta http-equiv="refresh" content="0;url=/backups/download">"#))
            #expect(!ready.body.contains(Self.backupPassword))
            let file = try await browser.sendBytes(.get, "/backups/download")
            #expect(file.status == 200)
            #expect(Browser.header("Content-Disposition", file.headers)?.hasPrefix("attachment; filename=\"hawala-backup-") == true)
            #expect(Array(file.body.prefix(4)) == Array("HWLA".utf8))

            // Uploads: no form token, not a backup, a wrong password; a hostile file name.
            func upload(_ fields: [String: String], _ bytes: [UInt8]?, filename: String = "b.hawala", token: String? = csrf) async throws -> (status: Int, headers: [(String, String)], body: String) {
                let form = Self.multipart(fields, file: bytes, filename: filename)
                return try await browser.send(.post, "/backups/import" + (token.map { "?csrf=\($0)" } ?? ""), raw: form.body, contentType: form.contentType)
            }
            #expect(try await upload(["backupPassword": Self.backupPassword], file.body, token: nil).status == 403)
            #expect(try await upload(["csrf": csrf, "backupPassword": Self.backupPassword], file.body, token: nil).status == 403, "the token goes in the address")
            #expect(try await upload(["backupPassword": Self.backupPassword], Array("not a backup".utf8)).body.contains("not a .hawala backup file"))
            #expect(try await upload(["backupPassword": "nope"], file.body).body.contains("Wrong password"))
            #expect(try await upload(["backupPassword": Self.backupPassword], nil).status == 400)
            let opened = try await upload(["backupPassword": Self.backupPassword], file.body, filename: #"x"><img src=x>.hawala"#)
            #expect(opened.status == 303 && Browser.header("Location", opened.headers) == "/backups/import")
            let preview = try await browser.send(.get, "/backups/import")
            #expect(preview.status == 200 && preview.body.contains("Import 1 wallet?"))
            #expect(!preview.body.contains("<img") && preview.body.contains("x&quot;&gt;&lt;img src=x&gt;.hawala"))
            #expect(preview.body.contains("already here as") && preview.body.contains(Self.abandonFirst))
            // No choice made for the conflict: refused, nothing written (never a silent skip).
            let none = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf])
            #expect(none.status == 400 && none.body.contains("already here") && none.body.contains("nothing was imported"), "\(none.body)")
            let unknown = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf, "policy-0": "merge"])
            #expect(unknown.status == 400)
            // The same wallet can't be kept twice: keep-both keeps it once, as the CLI's does.
            let both = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf, "policy-0": "keep-both"])
            #expect(both.status == 200 && both.body.contains("Kept"), "\(both.body)")
            #expect(try WalletStore(home: app.home, create: false).list().count == 1)
            #expect(try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf, "policy-0": "skip"]).status == 303, "the plan is used once")

            // A new home: the import sets the wallet password and logs in.
            try await withApp(wallet: false) { fresh, newBrowser, _ in
                var newBrowser = newBrowser
                let start = try await newBrowser.send(.get, fresh.startPath)
                newBrowser.cookie = Browser.sessionID(start.headers)
                let home = try await newBrowser.send(.get, "/")
                #expect(home.body.contains("From a .hawala backup file"))
                let token = try #require(Browser.uploadToken(try await newBrowser.send(.get, "/backups").body))
                let form = Self.multipart(["backupPassword": Self.backupPassword], file: file.body, filename: "b.hawala")
                #expect(try await newBrowser.send(.post, "/backups/import?csrf=\(token)", raw: form.body, contentType: form.contentType).status == 303)
                let opened = try await newBrowser.send(.get, "/backups/import")
                #expect(opened.status == 200 && opened.body.contains(#"id="repeat""#) && !opened.body.contains("already here"))
                let short = try await newBrowser.send(.post, "/backups/import/confirm", form: ["csrf": token, "password": "short", "repeat": "short"])
                #expect(short.status == 400)
                #expect(try !fresh.home.existing() || WalletStore(home: fresh.home, create: false).list().isEmpty, "nothing written before the import")
                let done = try await newBrowser.send(.post, "/backups/import/confirm", form: ["csrf": token, "password": "correct horse", "repeat": "correct horse"])
                #expect(done.status == 200 && done.body.contains("Imported"))
                let newID = try #require(Browser.sessionID(done.headers))
                #expect(newID != newBrowser.cookie, "a new session id: the import is the login")
                newBrowser.cookie = newID
                #expect(try await newBrowser.send(.get, "/").body.contains("W&quot;&gt;&lt;script&gt;"))
            }
        }
    }

    /// An upload is judged on its head before a byte of its body is read: a wrong form token,
    /// a foreign Origin or a declared size over the limit is refused at once while a 256 MiB
    /// body is still to come. (Before, the body was read and parsed first: 871 MiB resident for
    /// a refused 255 MiB upload.) And one upload is read at a time.
    @Test func uploadsAreJudgedOnTheirHeadAndReadOneAtATime() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/backups").body))
            let cookie = try #require(browser.cookie)
            func head(token: String, origin: String, length: Int) -> String {
                "POST /backups/import?csrf=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(browser.port)\r\nCookie: hawala_sid=\(cookie)\r\nOrigin: \(origin)\r\n"
                    + "Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: \(length)\r\n\r\n--xyz\r\n"
            }
            let own = "http://127.0.0.1:\(browser.port)"
            #expect(await RawHTTP.statusLine(port: browser.port, send: head(token: (csrf.hasPrefix("0") ? "1" : "0") + csrf.dropFirst(), origin: own, length: 255 << 20))?.hasPrefix("HTTP/1.1 403") == true)
            #expect(await RawHTTP.statusLine(port: browser.port, send: head(token: csrf, origin: "https://evil.example", length: 255 << 20))?.hasPrefix("HTTP/1.1 403") == true)
            #expect(await RawHTTP.statusLine(port: browser.port, send: head(token: csrf, origin: own, length: 300 << 20))?.hasPrefix("HTTP/1.1 413") == true)
            // A valid upload still arriving holds the one slot: another is told to wait.
            let slow = RawHTTP(port: browser.port)
            slow.send(head(token: csrf, origin: own, length: 10 << 20))
            // It reaches the server first: another upload arriving before it would take the slot.
            let holding = Date().addingTimeInterval(10)
            while !app.imports.isBusy, Date() < holding { try await Task.sleep(for: .milliseconds(5)) }
            #expect(app.imports.isBusy, "the slow upload never reached the server")
            var busy: (status: Int, headers: [(String, String)], body: String)?
            var seen: [Int] = []
            for _ in 0..<100 {
                let form = Self.multipart(["backupPassword": Self.backupPassword], file: Array("HWLA".utf8), filename: "b.hawala")
                let answer = try await browser.send(.post, "/backups/import?csrf=\(csrf)", raw: form.body, contentType: form.contentType)
                seen.append(answer.status)
                if answer.status == 429 { busy = answer; break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(busy?.body.contains("Another backup is being read") == true, "\(seen)")
            slow.close()
            // The slot is given back once the server sees the connection closed.
            let form = Self.multipart(["backupPassword": Self.backupPassword], file: Array("not a backup".utf8), filename: "b.hawala")
            var freed: [Int] = []
            for _ in 0..<200 {
                freed.append(try await browser.send(.post, "/backups/import?csrf=\(csrf)", raw: form.body, contentType: form.contentType).status)
                if freed.last != 429 { break }
            }
            #expect(freed.last == 400, "free again: \(freed)")
        }
    }

    /// The paper sheet: lines without a password; the words only with the password again.
    @Test func aPaperSheetIsDrawnWithTheWordsOnlyAfterThePassword() async throws {
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let page = try await browser.send(.get, "/backups")
            #expect(page.body.contains(#"action="/backups/paper""#))
            let csrf = try #require(Browser.csrf(page.body))
            let form = ["csrf": csrf, "wallet": Self.hostileName, "paper": "letter"]
            let lines = try await browser.sendBytes(.post, "/backups/paper", form: form.merging(["content": "lines"]) { $1 })
            #expect(lines.status == 200 && Browser.header("Content-Type", lines.headers) == "application/pdf")
            #expect(Browser.header("Content-Disposition", lines.headers) == #"attachment; filename="hawala-paper-lines.pdf""#)
            #expect(lines.body.starts(with: Array("%PDF-".utf8)))
            #expect(try pdfText(lines.body).contains("12.") && !pdfText(lines.body).contains("abandon"))

            let words = form.merging(["content": "words"]) { $1 }
            #expect(try await browser.send(.post, "/backups/paper", form: words).status == 400)
            let wrong = try await browser.sendBytes(.post, "/backups/paper", form: words.merging(["password": "wrong horse"]) { $1 })
            #expect(wrong.status == 401 && !wrong.body.starts(with: Array("%PDF-".utf8)))
            let sheet = try await browser.sendBytes(.post, "/backups/paper", form: words.merging(["password": "correct horse"]) { $1 })
            #expect(sheet.status == 200 && Browser.header("Content-Disposition", sheet.headers) == #"attachment; filename="hawala-paper-words.pdf""#)
            let text = try pdfText(sheet.body)
            #expect(text.components(separatedBy: "abandon").count - 1 == 11 && text.contains("about") && text.contains("SeedQR"))
            #expect(try await browser.send(.post, "/backups/paper", form: form.merging(["wallet": "nobody"]) { $1 }).status == 400)
        }
    }
}

/// A raw HTTP/1.1 connection to the app, driven from a thread of its own (never one of the
/// cooperative pool's, which the in-process server needs).
final class RawHTTP: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) } }

    func close() { Glibc.close(fd) }

    /// Sends `text` on a new connection and reads the answer's status line (within 3 s), on a
    /// thread of its own.
    static func statusLine(port: Int, send text: String) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let connection = RawHTTP(port: port)
                defer { connection.close() }
                connection.send(text)
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(connection.fd, &buffer, buffer.count, 0)
                continuation.resume(returning: n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).components(separatedBy: "\r\n").first : nil)
            }
        }
    }
}
