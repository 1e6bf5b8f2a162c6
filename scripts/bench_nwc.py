#!/usr/bin/env python3
"""Nostr Wallet Connect's round trip (issue 40's benchmark), release build, on loopback: a relay
(PyPI nostr-relay) and `hawala connect serve` on devnet. In the same run:

  - the relay's own echo: a kind-1 event published and received back on a subscription;
  - NWC get_balance (the service's work without a payment): request → answer;
  - NWC pay_invoice of a fresh devnet invoice each: request → answer with the preimage;
  - devnet's payment alone (--devnet-payment-ms, `hawala-bench seed-figures`' figure).

Each is timed 200 times in a row (p50/p95). Target: pay_invoice ≤ 2 × echo + devnet payment.
Run by `make bench` with .build/nostr-venv/bin/python.
"""
import argparse, asyncio, json, os, shutil, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HAWALA_BIN", ".build/release/hawala")
import nostr_sdk as n  # noqa: E402
import websockets  # noqa: E402
from nwc_e2e import ABANDON, LEGAL, Home, Raw, Relay  # noqa: E402


def p(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] * 1000


async def echo(relay_url, runs, kind=1):
    keys = n.Keys.generate()
    times = []
    async with websockets.connect(relay_url) as ws:
        await ws.send(json.dumps(["REQ", "echo", {"kinds": [kind], "authors": [keys.public_key().to_hex()]}]))
        while json.loads(await ws.recv())[0] != "EOSE":
            pass
        for i in range(runs):
            event = n.EventBuilder(n.Kind(kind), f"echo {i}").finalize(keys)
            wanted = event.id().to_hex()
            start = time.perf_counter()
            await ws.send(json.dumps(["EVENT", json.loads(event.as_json())]))
            while True:
                message = json.loads(await ws.recv())
                if message[0] == "EVENT" and message[2]["id"] == wanted:
                    break
            times.append(time.perf_counter() - start)
    return times


async def nwc_round_trips(raw, requests):
    """Each request alone, in turn, on one WebSocket: the time from publishing to its answer."""
    times = []
    async with websockets.connect(raw.relay, max_size=1 << 20) as ws:
        await ws.send(json.dumps(["REQ", "answers", {"kinds": [23195], "authors": [raw.service.to_hex()]}]))
        while json.loads(await ws.recv())[0] != "EOSE":
            pass
        for make in requests:
            event = make()
            wanted = event.id().to_hex()
            start = time.perf_counter()
            await ws.send(json.dumps(["EVENT", json.loads(event.as_json())]))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
                if message[0] == "EVENT" and any(t[0] == "e" and t[1] == wanted for t in message[2]["tags"]):
                    answer = json.loads(n.nip44_decrypt(raw.secret, raw.service, message[2]["content"]))
                    if answer.get("error"):
                        raise SystemExit(f"refused: {answer['error']}")
                    break
            times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--devnet-payment-ms", type=float, help="devnet's payment alone, measured in the same run")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="hawala-bench-nwc-")
    relay = serve = None
    try:
        relay = Relay(root)
        ledger = os.path.join(root, "ledger.sqlite")
        buyer = Home(root, "buyer", ABANDON, ledger)
        provider = Home(root, "provider", LEGAL, ledger)
        buyer.run("ln", "devnet", "fund", "10000000", "--password-file", buyer.password)
        uri = buyer.connection("bench", "--budget", "none", "--methods", "pay,balance", "--relay", relay.url)["uri"]
        invoices = [provider.invoice(100, f"bench {i}") for i in range(args.runs)]
        serve, serve_log = buyer.serve("--requests-per-minute", "100000")
        raw = Raw(relay.url, uri)
        echoes = asyncio.run(echo(relay.url, args.runs))
        ephemeral = asyncio.run(echo(relay.url, args.runs, kind=29999))
        balances = asyncio.run(nwc_round_trips(raw, [lambda: raw.event({"method": "get_balance", "params": {}})] * args.runs))
        pays = asyncio.run(nwc_round_trips(raw, [(lambda i=i: raw.event({"method": "pay_invoice", "params": {"invoice": i}})) for i in invoices]))
        print(f"{'relay echo (kind-1 publish + receive)':52} p50 {p(echoes, .5):7.2f} ms  p95 {p(echoes, .95):7.2f} ms")
        print(f"{'relay echo, an ephemeral kind (29999, as NWC uses)':52} p50 {p(ephemeral, .5):7.2f} ms  p95 {p(ephemeral, .95):7.2f} ms")
        print(f"{'NWC get_balance round trip':52} p50 {p(balances, .5):7.2f} ms  p95 {p(balances, .95):7.2f} ms")
        print(f"{'NWC pay_invoice round trip (devnet)':52} p50 {p(pays, .5):7.2f} ms  p95 {p(pays, .95):7.2f} ms")
        # The service's own time a request (its log's ms=: from the request read to the answer
        # handed to the relay, the answer kept afterwards), by method.
        served = {}
        for line in open(serve_log):
            if "nwc request" in line and "ms=" in line and "method=" in line:
                method = line.split("method=")[1].split()[0]
                served.setdefault(method, []).append(float(line.split("ms=")[1].split()[0]) / 1000)
        for method in ("get_balance", "pay_invoice"):
            if served.get(method):
                print(f"{'  of which the service (' + method + ')':52} p50 {p(served[method], .5):7.2f} ms  p95 {p(served[method], .95):7.2f} ms")
        if args.devnet_payment_ms is not None:
            target = 2 * p(echoes, .5) + args.devnet_payment_ms
            verdict = "✓" if p(pays, .5) <= target else "✗"
            print(f"{'target: 2 × echo p50 + devnet payment':52}     {target:7.2f} ms  (pay_invoice p50 {verdict})")
    finally:
        if serve:
            serve.terminate()
            serve.wait(timeout=10)
        if relay:
            relay.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
