#!/usr/bin/env python3
"""What `hawala ln sell` adds to a paid request (issue 50's benchmark): p50/p95 of N requests to
a small upstream directly and through the paywall with a valid credential (bought once, unlimited
uses for an hour: no write on the way), alternated, on keep-alive connections, devnet, same run.
Run by `make bench` (HAWALA_BIN: the release build)."""
import http.client, http.server, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

HAWALA = os.path.abspath(os.environ.get("HAWALA_BIN", ".build/release/hawala"))
N = int(os.environ.get("SELL_REQUESTS", "1000"))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One write an answer, sent at once: no 40 ms wait on a delayed ACK.
    wbufsize = -1
    disable_nagle_algorithm = True

    def do_GET(self):
        out = b'{"job":"done"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def run(env, *args, stdin=None):
    result = subprocess.run([HAWALA, *args], env=env, capture_output=True, text=True, timeout=120, input=stdin)
    if result.returncode != 0:
        raise SystemExit(f"hawala {' '.join(args[:2])}: {result.stderr.strip()[:300]}")
    return result.stdout


def timed(port, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def one():
        started = time.perf_counter()
        connection.request("GET", "/jobs/run", headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status} from port {port}")
        return (time.perf_counter() - started) * 1000
    return one


def main():
    root = tempfile.mkdtemp(prefix="hawala-bench-sell-")
    sell = None
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    try:
        password = os.path.join(root, "password")
        open(password, "w").write("correct horse battery\n")
        ledger = os.path.join(root, "ledger.sqlite")
        homes = {}
        for name, words in (("provider", "legal winner thank year wave sausage worth useful legal winner thank yellow"),
                            ("buyer", "abandon " * 11 + "about")):
            env = dict(os.environ, HAWALA_HOME=os.path.join(root, name), NO_COLOR="1")
            words_file = os.path.join(root, name + ".words")
            open(words_file, "w").write(words + "\n")
            run(env, "wallet", "restore", "--name", name, "--network", "testnet", "--mnemonic-file", words_file, "--password-file", password, "--yes")
            run(env, "ln", "config", "--backend", "devnet:" + ledger)
            homes[name] = env
        run(homes["buyer"], "ln", "devnet", "fund", "10000", "--password-file", password)
        sell = subprocess.Popen([HAWALA, "ln", "sell", "--upstream", f"http://127.0.0.1:{upstream.server_address[1]}", "--price", "10",
                                 "--uses", "unlimited", "--valid-for", "1h", "--password-file", password],
                                env=homes["provider"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        port = int(sell.stdout.readline().split()[1].rstrip("/").rsplit(":", 1)[1])
        challenge = http.client.HTTPConnection("127.0.0.1", port)
        challenge.request("GET", "/jobs/run")
        answer = challenge.getresponse()
        answer.read()
        value = answer.getheader("WWW-Authenticate")
        token = value.split('macaroon="')[1].split('"')[0]
        invoice = value.split('invoice="')[1].split('"')[0]
        paid = json.loads(run(homes["buyer"], "ln", "pay", invoice, "--yes", "--json", "--password-file", password))
        headers = {"Authorization": f"L402 {token}:{paid['preimage']}"}
        direct, paywalled = timed(upstream.server_address[1], {}), timed(port, headers)
        for _ in range(50):
            direct(), paywalled()
        alone, through = [], []
        for _ in range(N):
            alone.append(direct())
            through.append(paywalled())
        q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1]
        print(f"{N} paid requests each, devnet, keep-alive:")
        print(f"  upstream alone      p50 {q(alone, 50):6.2f} ms   p95 {q(alone, 95):6.2f} ms")
        print(f"  through ln sell     p50 {q(through, 50):6.2f} ms   p95 {q(through, 95):6.2f} ms")
        print(f"  added by the paywall p50 {q(through, 50) - q(alone, 50):6.2f} ms   p95 {q(through, 95) - q(alone, 95):6.2f} ms   (goal: 2 ms)")
    finally:
        if sell:
            sell.terminate()
            sell.wait(timeout=10)
        upstream.shutdown()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
