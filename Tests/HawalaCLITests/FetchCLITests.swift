import Foundation
import HawalaTestSupport
import Testing

/// `hawala ln fetch` against `hawala ln sell`: two wallets on one ledger, the provider selling
/// a small service, the buyer paying it — once for several requests, again when the credential
/// is used up, never above its maximum or its connection's budget; on delivery with `--hold`.
@Suite("hawala ln fetch and hawala ln sell")
struct FetchCLITests {
    let buyer: WalletFixture
    let provider: WalletFixture

    init() throws {
        buyer = try WalletFixture()
        provider = try WalletFixture()
        try provider.write("mnemonic", legalWinner + "\n")
        let ledger = buyer.data.appendingPathComponent("devnet/ledger.sqlite").path
        #expect(try buyer.restoreAbandon(name: "buyer").status == 0)
        #expect(try provider.restoreAbandon(name: "provider").status == 0)
        #expect(try buyer.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        #expect(try provider.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        #expect(try buyer.run(["ln", "devnet", "fund", "100000", "--password-file", buyer.path("password")]).status == 0)
    }

    func json(_ result: CLIResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    /// A small compute service (`upstream`) sold by `hawala ln sell` in front of it, running
    /// until `body` returns; `body` gets the paywall's URL of /jobs/run and its log so far.
    func withEndpoint(price: Int, uses: Int? = nil, options: [String] = [], _ body: (String, RunningCLI) throws -> Void) throws {
        let folder = temporaryFolder("fetch-upstream")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("upstream.py")
        try Self.upstream.write(to: script, atomically: true, encoding: .utf8)
        let service = try RunningCLI([script.path], environment: [:], binary: URL(fileURLWithPath: "/usr/bin/python3"))
        defer {
            kill(service.process.processIdentifier, SIGKILL)
            _ = service.finish()
        }
        let upstream = try #require(service.nextLine())
        let sold = options.contains("--hold") ? [] : ["--uses", String(uses ?? 1_000)]
        let server = try RunningCLI(["ln", "sell", "--upstream", upstream, "--price", String(price), "--password-file", provider.path("password")] + sold + options,
                                    environment: provider.environment)
        defer {
            server.process.interrupt()
            _ = server.finish()
        }
        let line = try #require(server.nextLine())
        let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init), "\(line)")
        try body(url + "jobs/run", server)
    }

    /// The service sold: a job number, its path and SHA-256 of path and body, as JSON; /fail
    /// answers 500; /slow waits 3 s; /drip sends its 100 bytes over 20 s. Prints its address first.
    static let upstream = #"""
        import http.server, json, hashlib, sys, threading, time
        jobs = [0]
        lock = threading.Lock()
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self): self.answer()
            def do_POST(self): self.answer()
            def answer(self):
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(size) if size else b""
                if self.path.startswith("/fail"):
                    self.send_response(500); self.send_header("Content-Length", "4"); self.end_headers(); self.wfile.write(b"boom"); return
                if self.path.startswith("/slow"):
                    time.sleep(3)
                if self.path.startswith("/drip"):
                    self.send_response(200); self.send_header("Content-Length", "100"); self.end_headers()
                    for _ in range(100):
                        self.wfile.write(b"."); self.wfile.flush(); time.sleep(0.2)
                    return
                with lock:
                    jobs[0] += 1
                    job = jobs[0]
                out = json.dumps({"job": job, "path": self.path, "authorization": self.headers.get("Authorization"),
                                  "result": hashlib.sha256(self.path.encode() + body).hexdigest()}, separators=(",", ":")).encode()
                self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(out)))
                self.end_headers(); self.wfile.write(out)
            def log_message(self, *args): pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
        server.serve_forever()
        """#

    @Test func paysOnceUsesTheCredentialThenPaysAgain() throws {
        try withEndpoint(price: 100, uses: 3) { url, _ in
            let pw = ["--password-file", buyer.path("password")]
            let first = try buyer.run(["ln", "fetch", url, "--json"] + pw)
            let answer = try json(first)
            #expect(first.status == 0 && answer["status"] as? Int == 200 && answer["costSats"] as? Int == 100 && answer["paymentId"] is String, "\(first.stderr)")
            #expect(first.stderr.contains("paid 100 sat") && (answer["body"] as? String)?.contains("\"job\":1") == true)
            // The same credential, twice more: nothing paid (the endpoint sells three uses).
            for job in 2...3 {
                let again = try json(try buyer.run(["ln", "fetch", url, "-X", "POST", "-d", "input \(job)", "--json"] + pw))
                #expect(again["costSats"] as? Int == 0 && again["reusedToken"] as? Bool == true && (again["body"] as? String)?.contains("\"job\":\(job)") == true)
            }
            // Used up: refused, a new challenge paid once, the answer given.
            let renewed = try json(try buyer.run(["ln", "fetch", url, "--json"] + pw))
            #expect(renewed["status"] as? Int == 200 && renewed["costSats"] as? Int == 100 && renewed["paymentId"] as? String != answer["paymentId"] as? String)
            // Above --max-cost: one line, nothing paid.
            let dear = try buyer.run(["ln", "fetch", url.replacingOccurrences(of: "/jobs/run", with: "/other/run"), "--max-cost", "99"] + pw)
            #expect(dear.status == 1 && dear.errorLines.count == 1 && dear.stderr.contains("asks 100 sat, more than the 99 sat allowed; nothing was paid"), "\(dear.stderr)")
            let received = try #require(try JSONSerialization.jsonObject(with: Data(try provider.run(["ln", "history", "--json"]).stdout.utf8)) as? [[String: Any]])
            #expect(received.filter { $0["type"] as? String == "received" && $0["status"] as? String == "completed" }.count == 2)
            let sent = try #require(try JSONSerialization.jsonObject(with: Data(try buyer.run(["ln", "history", "--json"]).stdout.utf8)) as? [[String: Any]])
            #expect(sent.filter { $0["type"] as? String == "sent" }.allSatisfy { ($0["connection"] as? String)?.hasPrefix("L402: 127.0.0.1") == true })
        }
    }

    @Test func withinAConnection() throws {
        let pw = ["--password-file", buyer.path("password")]
        #expect(try buyer.run(["connect", "new", "agent", "--budget", "250/daily", "--methods", "pay", "--relay", "ws://127.0.0.1:1"] + pw).status == 0)
        try withEndpoint(price: 100, uses: 1) { url, _ in
            for _ in 0..<2 {
                let paid = try buyer.run(["ln", "fetch", url, "--connection", "agent", "--json"] + pw)
                let answer = try json(paid)
                #expect(paid.status == 0 && answer["costSats"] as? Int == 100, "\(paid.stderr)")
            }
            let over = try buyer.run(["ln", "fetch", url, "--connection", "agent"] + pw)
            #expect(over.status == 1 && over.stderr.contains("budget"), "\(over.stderr)")
            let shown = try json(try buyer.run(["connect", "show", "agent", "--json"]))
            #expect((shown["spentMsat"] as? Int ?? 0) >= 200_000 && (shown["payments"] as? [Any])?.count == 2)
            #expect(try buyer.run(["connect", "revoke", "agent"]).status == 0)
            let revoked = try buyer.run(["ln", "fetch", url, "--connection", "agent"] + pw)
            #expect(revoked.status == 1 && revoked.stderr.contains("revoked; nothing was paid"), "\(revoked.stderr)")
        }
    }

    /// A paid service that redirects to another origin: the credential is sent to the service,
    /// never to the other origin (a different port is another origin).
    @Test func theCredentialStaysWithItsOrigin() throws {
        try withEndpoint(price: 100) { paid, _ in
            let folder = temporaryFolder("fetch-origins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = folder.appendingPathComponent("servers.py")
            try Self.servers.write(to: script, atomically: true, encoding: .utf8)
            let servers = try RunningCLI([script.path, paid, folder.path], environment: [:], binary: URL(fileURLWithPath: "/usr/bin/python3"))
            defer {
                // SIGKILL: a child may inherit the test runner's ignored SIGTERM.
                kill(servers.process.processIdentifier, SIGKILL)
                _ = servers.finish()
            }
            let service = try #require(servers.nextLine())
            let fetched = try buyer.run(["ln", "fetch", service + "/paid", "--json", "--password-file", buyer.path("password")])
            let answer = try json(fetched)
            #expect(fetched.status == 0 && answer["body"] as? String == "elsewhere" && answer["costSats"] as? Int == 100, "\(fetched.stderr)")
            let seenByService = try String(contentsOf: folder.appendingPathComponent("service.log"), encoding: .utf8)
            let seenElsewhere = try String(contentsOf: folder.appendingPathComponent("elsewhere.log"), encoding: .utf8)
            #expect(seenByService.contains("L402 ") && !seenElsewhere.contains("L402") && seenElsewhere.contains("none"), "\(seenElsewhere)")
            // The person's own credentials stay with their origin too (as curl does).
            let own = try buyer.run(["ln", "fetch", service + "/own", "-H", "Authorization: Bearer mine", "-H", "Cookie: session=mine",
                                     "-H", "Proxy-Authorization: Basic mine", "--password-file", buyer.path("password")])
            let seen = try String(contentsOf: folder.appendingPathComponent("elsewhere.log"), encoding: .utf8)
            #expect(own.status == 0 && own.stdout == "elsewhere" && !seen.contains("mine"), "\(own.stderr) \(seen)")
            // An answer shorter than its Content-Length: an error, not a success.
            let short = try buyer.run(["ln", "fetch", service + "/short", "--password-file", buyer.path("password")])
            #expect(short.status == 1 && short.stderr.contains("the answer from 127.0.0.1 ended early"), "\(short.status) \(short.stderr)")
            // Slow redirects: the network's time is the whole exchange's, not each hop's.
            let started = Date()
            // Twelve hops of 1.5 s: 18 s hop by hop; the whole exchange's 3 s end it long before.
            let slow = try buyer.run(["ln", "fetch", service + "/slow/12", "--network-timeout", "3", "--password-file", buyer.path("password")])
            #expect(slow.status == 1 && slow.stderr.contains("did not answer within 3 s in all") && Date().timeIntervalSince(started) < 15,
                    "\(slow.stderr) after \(Date().timeIntervalSince(started)) s")
        }
    }

    /// Two HTTP servers on loopback: the service (its 402 is the devnet endpoint's; with a
    /// credential it redirects to the other) and the other origin; each logs the Authorization
    /// it was sent.
    static let servers = #"""
        import http.server, sys, threading, time, urllib.request, urllib.error
        paid, folder = sys.argv[1], sys.argv[2]
        def server(handler):
            s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=s.serve_forever, daemon=True).start()
            return s
        class Elsewhere(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen = [self.headers.get(h) for h in ("Authorization", "Cookie", "Proxy-Authorization")]
                open(folder + "/elsewhere.log", "a").write(" ".join(v or "none" for v in seen) + "\n")
                self.send_response(200); self.send_header("Content-Length", "9"); self.end_headers(); self.wfile.write(b"elsewhere")
            def log_message(self, *a): pass
        other = server(Elsewhere)
        class Service(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/short":
                    self.send_response(200); self.send_header("Content-Length", "100"); self.end_headers(); self.wfile.write(b"0123456789")
                    self.close_connection = True; return
                if self.path.startswith("/slow/"):
                    hops = int(self.path.split("/")[2]); time.sleep(1.5)
                    self.send_response(302); self.send_header("Location", "/slow/%d" % (hops - 1) if hops > 1 else "/short")
                    self.send_header("Content-Length", "0"); self.end_headers(); return
                credential = self.headers.get("Authorization")
                open(folder + "/service.log", "a").write((credential or "none") + "\n")
                if credential:
                    self.send_response(302); self.send_header("Location", "http://127.0.0.1:%d/moved" % other.server_port)
                    self.send_header("Content-Length", "0"); self.end_headers(); return
                try:
                    urllib.request.urlopen(paid)
                except urllib.error.HTTPError as challenge:
                    self.send_response(402); self.send_header("WWW-Authenticate", challenge.headers["WWW-Authenticate"])
                    self.send_header("Content-Length", "0"); self.end_headers()
            def log_message(self, *a): pass
        service = server(Service)
        print("http://127.0.0.1:%d" % service.server_port, flush=True)
        threading.Event().wait()
        """#

    /// Pay on delivery: the buyer's payment is held, the job sent upstream once it is, settled
    /// on 2xx — the buyer gets the job's answer; a job that fails upstream cancels the payment,
    /// the buyer whole. The credential never reaches the upstream; one log line a request,
    /// never a credential.
    @Test func onDeliveryWithHold() throws {
        try withEndpoint(price: 300, options: ["--hold"]) { url, server in
            let pw = ["--password-file", buyer.path("password")]
            let balance = { () throws -> Int in try #require(try self.json(try self.buyer.run(["ln", "balance", "--json"]))["balanceMsat"] as? Int) }
            let before = try balance()
            let fetched = try buyer.run(["ln", "fetch", url, "-X", "POST", "-d", "render", "--json"] + pw)
            let answer = try json(fetched)
            #expect(fetched.status == 0 && answer["status"] as? Int == 200 && answer["costSats"] as? Int == 300, "\(fetched.stderr)")
            let job = try #require((answer["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            #expect(job["job"] as? Int == 1 && job["authorization"] is NSNull, "the job ran once, without the credential: \(job)")
            let paid = before - (try balance())
            #expect(paid > 300_000 && paid < 310_000, "\(paid)")
            let failing = try buyer.run(["ln", "fetch", url.replacingOccurrences(of: "/jobs/run", with: "/fail")] + pw)
            #expect(failing.status == 1 && failing.errorLines.last?.contains("nothing was paid") == true, "\(failing.stderr)")
            #expect(try balance() == before - paid, "the failed job cost nothing")
            server.process.interrupt()
            let log = server.finish().stderr
            #expect(log.contains("POST /jobs/run 402 challenged") && log.contains("delivered 200, payment settled") && log.contains("not delivered (upstream 500), payment cancelled"),
                    "\(log)")
            #expect(!log.contains("macaroon") && !log.contains("L402 "), "no credential in the log")
        }
    }

    /// A slow upstream is bounded (502, and on delivery the payment given back); a body over
    /// the limit is refused before anything is asked; the paywall's log never holds a credential.
    @Test func boundedLikeEveryServer() throws {
        try withEndpoint(price: 20, uses: 10, options: ["--upstream-timeout", "1"]) { url, server in
            let pw = ["--password-file", buyer.path("password")]
            let root = String(url.dropLast("jobs/run".count))
            let started = Date()
            let slow = try json(try buyer.run(["ln", "fetch", root + "slow", "--json"] + pw))
            #expect(slow["status"] as? Int == 502 && Date().timeIntervalSince(started) < 10, "\(slow)")
            // An answer that starts on time and never ends: cut off, not streamed for 20 s.
            let dripping = Date()
            let drip = try buyer.run(["ln", "fetch", root + "drip", "--json"] + pw)
            #expect(drip.status != 0 && Date().timeIntervalSince(dripping) < 8, "\(drip.stdout.prefix(300)) \(drip.stderr) after \(Date().timeIntervalSince(dripping)) s")
            let big = folder("big")
            try Data(count: 9 * 1_048_576).write(to: big)
            let refused = try buyer.run(["ln", "fetch", url, "-X", "POST", "-d", "@" + big.path, "--json"] + pw)
            #expect((try? json(refused))?["status"] as? Int == 413, "\(refused.stdout.prefix(300)) \(refused.stderr)")
            server.process.interrupt()
            let log = server.finish().stderr
            #expect(log.contains("GET /slow 502 paid, upstream failed") && log.contains("413 refused (body too large)"), "\(log)")
        }
    }

    func folder(_ name: String) -> URL {
        let folder = temporaryFolder("fetch-\(name)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }

    /// Paths no rule covers are not for sale; another rule is another purchase.
    @Test func pathRules() throws {
        try withEndpoint(price: 50, uses: 5, options: ["--path", "/jobs/.*", "--path", "/slow"]) { url, _ in
            let pw = ["--password-file", buyer.path("password")]
            #expect(try json(try buyer.run(["ln", "fetch", url, "--json"] + pw))["costSats"] as? Int == 50)
            let root = String(url.dropLast("jobs/run".count))
            let outside = try buyer.run(["ln", "fetch", root + "other", "--json"] + pw)
            #expect(try json(outside)["status"] as? Int == 404, "not for sale: \(outside.stdout)")
            let slow = try json(try buyer.run(["ln", "fetch", root + "slow", "--json"] + pw))
            #expect(slow["status"] as? Int == 200 && slow["costSats"] as? Int == 50, "another rule is another purchase: \(slow)")
        }
    }

    /// The address the endpoint prints is paid too (it once answered 404).
    @Test func theRootIsPaid() throws {
        try withEndpoint(price: 100) { url, _ in
            let root = String(url.dropLast("jobs/run".count))
            let fetched = try json(try buyer.run(["ln", "fetch", root, "--json", "--password-file", buyer.path("password")]))
            #expect(fetched["status"] as? Int == 200 && fetched["costSats"] as? Int == 100, "\(fetched)")
        }
    }

    @Test func notAnL402Service() throws {
        let bad = try buyer.run(["ln", "fetch", "ftp://example.com/x", "--password-file", buyer.path("password")])
        #expect(bad.status != 0 && bad.errorLines.count == 1 && bad.stderr.contains("is not an http:// or https:// address"))
    }
}
