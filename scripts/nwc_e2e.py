#!/usr/bin/env python3
"""Nostr Wallet Connect end to end (issue 40): `hawala connect serve` on devnet, a real relay
(PyPI nostr-relay, SQLite) on loopback, and rust-nostr's NWC client (PyPI nostr-sdk) plus
requests built by hand (NIP-44 v2 and NIP-04) over a raw WebSocket. Run by `make test` with
.build/nostr-venv/bin/python (scripts/install-nostr.sh). Never needs the network.

Each scenario prints one ok/FAIL line; exit 1 when any failed.
"""
import asyncio
import hashlib, json, os, shutil, socket, subprocess, sys, tempfile, time, traceback
from datetime import timedelta

import nostr_sdk as n
import websockets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nostr"))
from test_relay import Relay  # noqa: E402

HAWALA = os.path.abspath(os.environ.get("HAWALA_BIN", ".build/debug/hawala"))
PASSWORD = "correct horse battery"
ABANDON = "abandon " * 11 + "about"
LEGAL = "legal winner thank year wave sausage worth useful legal winner thank yellow"
failures = []


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Home:
    """A wallet home run through the hawala binary."""

    def __init__(self, root, name, words, ledger):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.env = dict(os.environ, HAWALA_HOME=os.path.join(self.dir, "data"), NO_COLOR="1")
        self.password = os.path.join(self.dir, "password")
        open(self.password, "w").write(PASSWORD + "\n")
        words_file = os.path.join(self.dir, "words")
        open(words_file, "w").write(words + "\n")
        self.run("wallet", "restore", "--name", name, "--network", "testnet", "--mnemonic-file", words_file, "--password-file", self.password, "--yes")
        self.run("ln", "config", "--backend", "devnet:" + ledger)

    def run(self, *args, check_status=True):
        result = subprocess.run([HAWALA, *args], env=self.env, capture_output=True, text=True, timeout=120)
        if check_status and result.returncode != 0:
            raise AssertionError(f"hawala {' '.join(args[:3])}: {result.stderr.strip()[:300]}")
        return result

    def connection(self, name, *options):
        out = self.run("connect", "new", name, *options, "--json", "--password-file", self.password).stdout
        return json.loads(out)

    def serve(self, *options):
        log = open(os.path.join(self.dir, "serve.log"), "w")
        process = subprocess.Popen([HAWALA, "connect", "serve", "--password-file", self.password, *options], env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if "serving" in open(log.name).read():
                time.sleep(1.5)  # subscribed on the relay
                return process, log.name
            if process.poll() is not None:
                raise AssertionError("connect serve exited: " + open(log.name).read()[-500:])
            time.sleep(0.2)
        raise AssertionError("connect serve did not start")

    def invoice(self, sats, description):
        out = self.run("ln", "invoice", "--amount", str(sats), "--description", description, "--json", "--password-file", self.password).stdout
        return json.loads(out)["invoice"]

    def history(self):
        return json.loads(self.run("ln", "history", "--json").stdout)


def nwc(uri, seconds=15):
    return n.NostrWalletConnectBuilder(n.NostrWalletConnectUri.parse(uri)).timeout(timedelta(seconds=seconds)).build()


class Raw:
    """Requests built by hand: signed by the connection's client key, encrypted with NIP-44 v2
    or NIP-04 (nostr-sdk's own functions), sent over a plain WebSocket; answers read the same way."""

    def __init__(self, relay_url, uri):
        parsed = n.NostrWalletConnectUri.parse(uri)
        self.relay, self.secret = relay_url, parsed.secret()
        self.keys = n.Keys(self.secret)
        self.service = parsed.public_key()

    def event(self, payload, scheme="nip44_v2", tags=(), keys=None, created_at=None):
        keys = keys or self.keys
        text = payload if isinstance(payload, str) else json.dumps(payload)
        content = n.nip44_encrypt(keys.secret_key(), self.service, text, n.Nip44Version.V2) if scheme == "nip44_v2" else n.nip04_encrypt(keys.secret_key(), self.service, text)
        all_tags = [n.Tag.parse(["p", self.service.to_hex()])] + ([n.Tag.parse(["encryption", scheme])] if scheme != "nip04-untagged" and scheme else [])
        all_tags += [n.Tag.parse(list(t)) for t in tags]
        builder = n.EventBuilder(n.Kind(23194), content).tags(all_tags)
        if created_at is not None:
            builder = builder.custom_created_at(n.Timestamp.from_secs(created_at))
        return builder.finalize(keys)

    async def send(self, events, wait=10.0, expect=None):
        """Publishes `events` (JSON texts may repeat), returns the answers {request id: payload} seen within `wait`."""
        answers = {}
        async with websockets.connect(self.relay, max_size=1 << 20) as ws:
            ids = [e.id().to_hex() for e in events]
            await ws.send(json.dumps(["REQ", "answers", {"kinds": [23195], "#e": ids}]))
            for e in events:
                await ws.send(json.dumps(["EVENT", json.loads(e.as_json())]))
            deadline = time.time() + wait
            while time.time() < deadline and (expect is None or len(answers) < expect):
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.time())))
                except asyncio.TimeoutError:
                    break
                if message[0] == "EVENT":
                    event = message[2]
                    request = next(t[1] for t in event["tags"] if t[0] == "e")
                    scheme = next((t[1] for t in event["tags"] if t[0] == "encryption"), "nip04")
                    author = n.PublicKey.parse(event["pubkey"])
                    text = n.nip44_decrypt(self.secret, author, event["content"]) if scheme == "nip44_v2" else n.nip04_decrypt(self.secret, author, event["content"])
                    answers.setdefault(request, []).append(json.loads(text))
        return answers


def scenario(title):
    def wrap(function):
        def run(*args):
            started = time.time()
            try:
                asyncio.run(function(*args))
                print(f"ok    {title} ({time.time() - started:.1f} s)", flush=True)
            except Exception as error:
                failures.append(title)
                print(f"FAIL  {title}: {error}", flush=True)
                traceback.print_exc(limit=12, file=sys.stdout)
        return run
    return wrap


@scenario("rust-nostr's NWC client (NIP-04): get_info, get_balance, make_invoice + lookup_invoice, pay_invoice (preimage, fees), list_transactions")
async def client_flows(relay, buyer, provider, uri):
    client = nwc(uri)
    info = await client.get_info()
    check(any(m.is_pay_invoice() for m in info.methods) and any(m.is_make_invoice() for m in info.methods) and info.network == "regtest",
          f"methods {info.methods}, network {info.network}")
    balance = (await client.get_balance()).balance
    check(balance == 100_000_000, f"balance {balance} msat")
    made = await client.make_invoice(n.MakeInvoiceRequest(amount=21_000, description="made through NWC", description_hash=None, expiry=None))
    check(made.invoice.startswith("lnbcrt21"), f"invoice {made.invoice[:20]}")
    found = await client.lookup_invoice(n.LookupInvoiceRequest(payment_hash=made.payment_hash, invoice=None))
    check(found.payment_hash == made.payment_hash and found.amount == 21_000, "the invoice looked up")
    invoice = provider.invoice(1_000, "first job")
    paid = await client.pay_invoice(n.PayInvoiceRequest(id=None, invoice=invoice, amount=None))
    payment_hash = n.Bolt11Invoice.parse(invoice).payment_hash() if hasattr(n, "Bolt11Invoice") else None
    decoded = json.loads(buyer.run("ln", "decode", invoice, "--json").stdout)
    check(hashlib.sha256(bytes.fromhex(paid.preimage)).hexdigest() == decoded["paymentHash"], "the preimage is the payment hash's")
    check(paid.fees_paid is not None and paid.fees_paid > 0, f"fees_paid {paid.fees_paid}")
    received = [p for p in provider.history() if p["type"] == "received" and p["description"] == "first job"]
    check(received and received[0]["status"] == "completed", "the provider's history shows it")
    sent = [p for p in buyer.history() if p["type"] == "sent"]
    check(sent and sent[0]["connection"] == "agent-1", "the buyer's says who paid")
    listed = await client.list_transactions(n.ListTransactionsRequest(_from=None, until=None, limit=10, offset=None, unpaid=None, transaction_type=None))
    check(any(t.payment_hash == decoded["paymentHash"] for t in listed), "list_transactions has the payment")


@scenario("by hand (NIP-44 v2 and NIP-04): the same answer in the same scheme, no error key on success; a request sent twice pays once; the same invoice in a new request: paid before, not again; over the maximum QUOTA_EXCEEDED; no answer to a stranger or an expired request; a stale one refused")
async def hand_built(relay, buyer, provider, uri):
    raw = Raw(relay.url, uri)
    answers = await raw.send([raw.event({"method": "get_balance", "params": {}}, "nip44_v2"),
                              raw.event({"method": "get_budget", "params": {}}, "nip04")], expect=2)
    # NIP-47's examples: a success carries no "error" key (PyPI's nostrwalletconnect fails on any).
    check(len(answers) == 2 and all("error" not in a[0] for a in answers.values()), f"{answers}")
    budget = next(a[0]["result"] for a in answers.values() if a[0]["result_type"] == "get_budget")
    check(budget["total_budget"] == 20_000_000 and budget["renewal_period"] == "daily" and budget["used_budget"] > 0, f"budget {budget}")
    # The same request event twice: paid once, the same answer both times.
    invoice = provider.invoice(500, "twice")
    twice = raw.event({"method": "pay_invoice", "params": {"invoice": invoice}})
    answers = await raw.send([twice, twice], expect=1)
    answers2 = await raw.send([twice], expect=1)
    first, again = answers[twice.id().to_hex()][0], answers2[twice.id().to_hex()][0]
    check("error" not in first and first == again, f"{first} then {again}")
    check(len([p for p in provider.history() if p["description"] == "twice" and p["status"] == "completed"]) == 1, "paid once")
    # The same invoice in a new request (a retry after a lost answer): the payment made, as a success.
    retry = raw.event({"method": "pay_invoice", "params": {"invoice": invoice}})
    answers = await raw.send([retry], expect=1)
    retried = answers[retry.id().to_hex()][0]
    check("error" not in retried and retried["result"]["preimage"] == first["result"]["preimage"], f"a retry: {retried}")
    check(len([p for p in provider.history() if p["description"] == "twice" and p["status"] == "completed"]) == 1, "still paid once")
    # Numbers past 64 bits, fractions and booleans: refused in words, never wrapped or rounded.
    tip = provider.run("ln", "invoice", "--amountless", "--description", "any amount", "--json", "--password-file", provider.password)
    amountless = json.loads(tip.stdout)["invoice"]
    huge = [raw.event('{"method":"pay_invoice","params":{"invoice":"%s","amount":18446744073709651616}}' % amountless),
            raw.event('{"method":"pay_invoice","params":{"invoice":"%s","amount":100000.9}}' % amountless),
            raw.event('{"method":"pay_invoice","params":{"invoice":"%s","amount":true}}' % amountless),
            raw.event('{"method":"make_invoice","params":{"amount":18446744073709551616}}'),
            raw.event('{"method":"make_invoice","params":{"amount":1000,"expiry":1e400}}')]
    answers = await raw.send(huge, expect=len(huge))
    codes = [answers.get(e.id().to_hex(), [{}])[0].get("error", {}).get("code") for e in huge]
    check(codes == ["OTHER"] * len(huge), f"out-of-range numbers: {codes} {answers}")
    check(not [p for p in provider.history() if p.get("description") == "any amount" and p["status"] == "completed"], "nothing paid for a wrapped amount")
    # Made far from the service's clock (this relay filters old ones out by the subscription's
    # `since`; one from the future passes it): refused in words, never acted on.
    stale = raw.event({"method": "pay_invoice", "params": {"invoice": provider.invoice(700, "stale")}}, created_at=int(time.time()) + 600)
    answers = await raw.send([stale], expect=1)
    check(answers and answers[stale.id().to_hex()][0]["error"]["code"] == "OTHER", f"a stale request: {answers}")
    check(not [p for p in provider.history() if p["description"] == "stale" and p["status"] == "completed"], "a stale request paid nothing")
    # Over the maximum a payment (5,000 sat), then above what is left of the budget.
    over = raw.event({"method": "pay_invoice", "params": {"invoice": provider.invoice(6_000, "too big")}})
    answers = await raw.send([over], expect=1)
    check(answers[over.id().to_hex()][0]["error"]["code"] == "QUOTA_EXCEEDED", f"{answers}")
    # A stranger's key, an expired request: no answer at all.
    stranger = n.Keys.generate()
    alien = raw.event({"method": "get_balance", "params": {}}, keys=stranger)
    old = raw.event({"method": "get_balance", "params": {}}, tags=[("expiration", str(int(time.time()) - 60))])
    answers = await raw.send([alien, old], wait=4)
    check(not answers, f"answered {list(answers)}")
    # An encryption it does not speak: UNSUPPORTED_ENCRYPTION.
    odd = raw.event({"method": "get_balance", "params": {}}, tags=[])
    odd = n.EventBuilder(n.Kind(23194), n.nip04_encrypt(raw.secret, raw.service, "{}")).tags(
        [n.Tag.parse(["p", raw.service.to_hex()]), n.Tag.parse(["encryption", "nip99"])]).finalize(raw.keys)
    answers = await raw.send([odd], expect=1)
    check(answers[odd.id().to_hex()][0]["error"]["code"] == "UNSUPPORTED_ENCRYPTION", f"{answers}")


@scenario("20 requests at once against a budget that covers exactly 5 with their fees: exactly 5 paid, never 6")
async def twenty_at_once(relay, buyer, provider, uri):
    raw = Raw(relay.url, uri)
    events = [raw.event({"method": "pay_invoice", "params": {"invoice": provider.invoice(1_000, f"parallel {i}")}}) for i in range(20)]
    answers = await raw.send(events, wait=30, expect=20)
    results = [a[0] for a in answers.values()]
    paid = [r for r in results if "error" not in r]
    refused = [r for r in results if r.get("error", {}).get("code") == "QUOTA_EXCEEDED"]
    check(len(answers) == 20, f"{len(answers)} answers")
    check(len(paid) == 5 and len(refused) == 15, f"{len(paid)} paid, {len(refused)} refused")
    received = [p for p in provider.history() if (p["description"] or "").startswith("parallel") and p["status"] == "completed"]
    check(len(received) == 5, f"the provider received {len(received)}")


@scenario("the seed's scenario: ten job invoices, a daily budget for five with fees; five paid through NWC, the sixth QUOTA_EXCEEDED; both histories agree")
async def seed_scenario(relay, buyer, provider, uri):
    client = nwc(uri)
    invoices = [provider.invoice(1_000, f"job {i}") for i in range(1, 11)]
    outcomes = []
    for invoice in invoices[:6]:
        try:
            await client.pay_invoice(n.PayInvoiceRequest(id=None, invoice=invoice, amount=None))
            outcomes.append("paid")
        except Exception as error:
            outcomes.append(str(error))
    check(outcomes[:5] == ["paid"] * 5, f"{outcomes}")
    check("QUOTA_EXCEEDED" in outcomes[5] or "quota" in outcomes[5].lower() or "budget" in outcomes[5].lower(), f"the sixth: {outcomes[5]}")
    jobs = [p for p in provider.history() if p["description"].startswith("job ") and p["status"] == "completed"]
    check(len(jobs) == 5, f"the provider received {len(jobs)}")
    mine = [p for p in buyer.history() if p["type"] == "sent" and (p["description"] or "").startswith("job ")]
    check(len(mine) == 5 and all(p["connection"] == "buyer-agent" for p in mine), "five, each paid by the connection")


@scenario("connect serve stops within 5 s of SIGTERM or SIGINT, also with payments in flight (5 stops)")
async def stops_when_told(relay, buyer, provider, uri):
    import signal
    raw = Raw(relay.url, uri)
    for i in range(5):
        serve, log = buyer.serve()
        events = [raw.event({"method": "pay_invoice", "params": {"invoice": provider.invoice(10, f"in flight {i}.{j}")}}) for j in range(4)]
        async with websockets.connect(relay.url) as ws:
            for e in events:
                await ws.send(json.dumps(["EVENT", json.loads(e.as_json())]))
            await asyncio.sleep(0.3 * (i % 3))
        started = time.time()
        serve.send_signal(signal.SIGTERM if i % 2 == 0 else signal.SIGINT)
        try:
            serve.wait(timeout=5)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
            raise AssertionError(f"stop {i + 1}: still running 5 s after the signal; log: {open(log).read()[-800:]}")
        check("stopped" in open(log).read(), f"stop {i + 1}: {open(log).read()[-300:]}")


@scenario("strangers' large events p-tagged to the service don't make it deaf: the subscription names the clients' keys")
async def strangers(relay, buyer, provider, uri):
    raw = Raw(relay.url, uri)
    stranger = n.Keys.generate()
    accepted = 0
    async with websockets.connect(relay.url, max_size=1 << 22) as ws:
        for i in range(5):
            junk = n.EventBuilder(n.Kind(23194), "A" * 300_000).tags([n.Tag.parse(["p", raw.service.to_hex()])]).finalize(stranger)
            await ws.send(json.dumps(["EVENT", json.loads(junk.as_json())]))
            reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
            accepted += reply[0] == "OK" and reply[2]
    answers = await raw.send([raw.event({"method": "get_budget", "params": {}})], expect=1)
    check(answers and "error" not in next(iter(answers.values()))[0], f"after {accepted} accepted strangers' events: {answers}")


@scenario("revoked and expired connections get UNAUTHORIZED; notifications reach a subscriber: payment_received for its invoice, payment_sent for its own payment")
async def revocation_and_notifications(relay, buyer, provider, uris):
    uri, short_uri = uris
    raw = Raw(relay.url, uri)
    # A payment received by a connection's invoice: payment_received, in NIP-44 (23197).
    async with websockets.connect(relay.url) as ws:
        await ws.send(json.dumps(["REQ", "notes", {"kinds": [23197, 23196], "#p": [raw.keys.public_key().to_hex()]}]))
        answers = await raw.send([raw.event({"method": "make_invoice", "params": {"amount": 3_000_000, "description": "to be notified"}})], expect=1)
        made = next(iter(answers.values()))[0]["result"]
        provider.run("ln", "pay", made["invoice"], "--yes", "--password-file", provider.password)
        kinds = set()
        deadline = time.time() + 15
        while time.time() < deadline and kinds != {23196, 23197}:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1))
            except asyncio.TimeoutError:
                continue
            if message[0] == "EVENT":
                event = message[2]
                author = n.PublicKey.parse(event["pubkey"])
                text = n.nip44_decrypt(raw.secret, author, event["content"]) if event["kind"] == 23197 else n.nip04_decrypt(raw.secret, author, event["content"])
                note = json.loads(text)
                if note["notification"]["payment_hash"] != made["payment_hash"]:
                    continue  # another payment this connection may see (it reads the history)
                check(note["notification_type"] == "payment_received", f"{note}")
                kinds.add(event["kind"])
        check(kinds == {23196, 23197}, f"notifications {kinds}")
        # Its own payment: payment_sent, to this connection.
        invoice = provider.invoice(1_200, "notified when sent")
        paid_hash = json.loads(buyer.run("ln", "decode", invoice, "--json").stdout)["paymentHash"]
        answers = await raw.send([raw.event({"method": "pay_invoice", "params": {"invoice": invoice}})], expect=1)
        check(answers and "result" in next(iter(answers.values()))[0] and next(iter(answers.values()))[0]["result"], f"paid: {answers}")
        sent = None
        deadline = time.time() + 15
        while time.time() < deadline and sent is None:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1))
            except asyncio.TimeoutError:
                continue
            if message[0] == "EVENT" and message[2]["kind"] == 23197:
                note = json.loads(n.nip44_decrypt(raw.secret, n.PublicKey.parse(message[2]["pubkey"]), message[2]["content"]))
                if note["notification"]["payment_hash"] == paid_hash:
                    sent = note
        check(sent and sent["notification_type"] == "payment_sent" and sent["notification"]["type"] == "outgoing" and sent["notification"]["amount"] == 1_200_000,
              f"payment_sent: {sent}")
    # Revoked: the next request is refused UNAUTHORIZED (at once, not a timeout); expired likewise.
    buyer.run("connect", "revoke", "agent-1")
    answers = await raw.send([raw.event({"method": "get_balance", "params": {}})], wait=8, expect=1)
    check(answers and next(iter(answers.values()))[0]["error"]["code"] == "UNAUTHORIZED", f"a revoked connection: {answers}")
    client = nwc(uri, seconds=10)
    try:
        await client.get_balance()
        check(False, "rust-nostr's client was answered after the revocation")
    except Exception as error:
        check("unauthorized" in str(error).lower() or "revoked" in str(error).lower(), f"rust-nostr's client heard: {error}")
    short = Raw(relay.url, short_uri)
    answers = await short.send([short.event({"method": "get_balance", "params": {}})], wait=6, expect=1)
    check(answers, "the short-lived connection answered while live")
    # Time passes (its expiry moved into the past, as a clock would): no answer any more.
    import sqlite3
    database = sqlite3.connect(os.path.join(buyer.env["HAWALA_HOME"], "wallets.sqlite"))
    database.execute("UPDATE appConnection SET expiresAt = ? WHERE name = 'short'", (time.time() - 1,))
    database.commit()
    database.close()
    answers = await short.send([short.event({"method": "get_balance", "params": {}})], wait=8, expect=1)
    check(answers and next(iter(answers.values()))[0]["error"]["code"] == "UNAUTHORIZED", f"an expired connection: {answers}")


@scenario("pay on delivery over NWC: make_hold_invoice (the program's own hash), hold_invoice_accepted, settle_hold_invoice; cancel_hold_invoice gives it back")
async def hold_invoices(relay, buyer, provider, uri):
    raw = Raw(relay.url, uri)
    preimage = os.urandom(32)
    payment_hash = hashlib.sha256(preimage).hexdigest()
    async with websockets.connect(relay.url) as ws:
        await ws.send(json.dumps(["REQ", "holds", {"kinds": [23197], "#p": [raw.keys.public_key().to_hex()]}]))
        answers = await raw.send([raw.event({"method": "make_hold_invoice", "params": {"amount": 2_000_000, "description": "job 7", "payment_hash": payment_hash}})], expect=1)
        made = next(iter(answers.values()))[0]
        check("error" not in made and made["result"]["payment_hash"] == payment_hash, f"make_hold_invoice: {made}")
        before = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
        paid = provider.run("ln", "pay", made["result"]["invoice"], "--yes", "--password-file", provider.password, check_status=False)
        check(paid.returncode == 3, f"the payer's payment is pending while held: exit {paid.returncode} {paid.stderr[-200:]}")
        accepted = None
        deadline = time.time() + 15
        while time.time() < deadline and accepted is None:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1))
            except asyncio.TimeoutError:
                continue
            if message[0] == "EVENT":
                note = json.loads(n.nip44_decrypt(raw.secret, n.PublicKey.parse(message[2]["pubkey"]), message[2]["content"]))
                if note["notification_type"] == "hold_invoice_accepted" and note["notification"]["payment_hash"] == payment_hash:
                    accepted = note["notification"]
        check(accepted is not None and accepted["amount"] == 2_000_000 and accepted["state"] == "accepted", f"hold_invoice_accepted: {accepted}")
    # Someone else's preimage, then the right one: settled once.
    answers = await raw.send([raw.event({"method": "settle_hold_invoice", "params": {"preimage": os.urandom(32).hex()}})], expect=1)
    check(next(iter(answers.values()))[0]["error"]["code"] == "NOT_FOUND", f"a stranger's preimage: {answers}")
    answers = await raw.send([raw.event({"method": "settle_hold_invoice", "params": {"preimage": preimage.hex()}})], expect=1)
    check(next(iter(answers.values()))[0].get("result") == {}, f"settle_hold_invoice: {answers}")
    answers = await raw.send([raw.event({"method": "lookup_invoice", "params": {"payment_hash": payment_hash}})], expect=1)
    check(next(iter(answers.values()))[0]["result"]["state"] == "settled", f"after settling: {answers}")
    sent = [p for p in provider.history() if p.get("paymentHash") == payment_hash and p["type"] == "sent"]
    check(sent and sent[0]["status"] == "completed" and hashlib.sha256(bytes.fromhex(sent[0]["preimage"])).hexdigest() == payment_hash, f"the payer's proof: {sent}")
    # A second job that is not delivered: cancelled, the payer whole.
    second = hashlib.sha256(os.urandom(32)).hexdigest()
    answers = await raw.send([raw.event({"method": "make_hold_invoice", "params": {"amount": 1_000_000, "payment_hash": second}})], expect=1)
    invoice = next(iter(answers.values()))[0]["result"]["invoice"]
    middle = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
    provider.run("ln", "pay", invoice, "--yes", "--password-file", provider.password, check_status=False)
    answers = await raw.send([raw.event({"method": "cancel_hold_invoice", "params": {"payment_hash": second}})], expect=1)
    check(next(iter(answers.values()))[0].get("result") == {}, f"cancel_hold_invoice: {answers}")
    after = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
    check(after == middle and middle < before, f"the payer got it back: {before} → {middle} → {after}")


@scenario("a program proposes its connection (nostr+walletauth://); accepted with lower limits, never higher; it learns so from the info event naming it, then pays with rust-nostr's client")
async def proposed_by_the_program(relay, buyer, provider, _):
    from urllib.parse import quote
    keys = n.Keys.generate()
    program = keys.public_key().to_hex()
    uri = (f"nostr+walletauth://{program}?relay={quote(relay.url, safe='')}&name=job-runner"
           f"&request_methods=pay_invoice%20get_balance%20list_transactions%20keysend_everything&max_amount=50000&budget_renewal=weekly")
    # Not accepted (no terminal to ask, no --yes): nothing is made.
    refused = buyer.run("connect", "accept", uri, "--password-file", buyer.password, check_status=False)
    check(refused.returncode != 0 and "job-runner" not in buyer.run("connect", "list").stdout, f"unasked: {refused.stderr[-300:]}")
    higher = buyer.run("connect", "accept", uri, "--budget", "60000/weekly", "--yes", "--password-file", buyer.password, check_status=False)
    check(higher.returncode == 1 and "may only be lowered" in higher.stderr, f"raised: {higher.stderr[-300:]}")
    accepted = json.loads(buyer.run("connect", "accept", uri, "--budget", "20000/weekly", "--methods", "pay,balance", "--yes", "--json",
                                    "--password-file", buyer.password).stdout)
    check(accepted["name"] == "job-runner" and accepted["budgetSats"] == 20_000 and accepted["renewal"] == "weekly" and accepted["methods"] == ["pay", "balance"],
          f"{accepted}")
    # The program hears of it: the connection's info event, tagged with its key.
    service = None
    async with websockets.connect(relay.url) as ws:
        await ws.send(json.dumps(["REQ", "accepted", {"kinds": [13194], "#p": [program]}]))
        deadline = time.time() + 20
        while time.time() < deadline and service is None:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1))
            except asyncio.TimeoutError:
                continue
            if message[0] == "EVENT" and message[2]["kind"] == 13194:
                service = message[2]["pubkey"]
                check("pay_invoice" in message[2]["content"] and "get_balance" in message[2]["content"], f"{message[2]['content']}")
    check(service == accepted["servicePublicKey"], f"the info event came from {service}")
    client = nwc(f"nostr+walletconnect://{service}?relay={quote(relay.url, safe='')}&secret={keys.secret_key().to_hex()}")
    balance = (await client.get_balance()).balance
    check(balance > 0, f"balance {balance}")
    paid = await client.pay_invoice(n.PayInvoiceRequest(invoice=provider.invoice(321, "proposed"), id=None, amount=None))
    check(len(paid.preimage) == 64, "paid through the proposed connection")


UPSTREAM = """
import http.server, json, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        out = json.dumps({"job": "done", "path": self.path, "authorization": self.headers.get("Authorization")}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(out)))
        self.end_headers(); self.wfile.write(out)
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
"""


@scenario("a third-party L402 client (PyPI l402-requests) pays `hawala ln sell` through Hawala's NWC service, within the connection's budget")
async def third_party_l402(relay, buyer, provider, uri):
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE, text=True)
    sell = None
    try:
        upstream_url = upstream.stdout.readline().strip()
        sell = subprocess.Popen([HAWALA, "ln", "sell", "--upstream", upstream_url, "--price", "700", "--password-file", provider.password],
                                env=provider.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = sell.stdout.readline()
        check(line.startswith("selling http://127.0.0.1:"), f"ln sell: {line!r}")
        url = line.split()[1] + "jobs/run"
        before = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
        import l402_requests
        from l402_requests.wallets.nwc import NwcWallet
        os.environ["NWC_ENCRYPTION"] = "nip44_v2"
        client = l402_requests.L402Client(wallet=NwcWallet(uri, timeout=30), budget=l402_requests.BudgetController(max_sats_per_request=1_000))
        answer = await asyncio.to_thread(client.get, url)
        check(answer.status_code == 200 and answer.json()["job"] == "done" and answer.json()["authorization"] is None, f"{answer.status_code} {answer.text[:200]}")
        after = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
        check(after - before == 700_000, f"the provider received the price: {before} → {after}")
        sent = [p for p in buyer.history() if p["type"] == "sent" and p.get("connection") == "agent-1" and p["amountMsat"] == 700_000]
        check(sent, "the buyer's history says the connection paid it")
        # On delivery (--hold): the payment waits in the NWC answer until the job came back.
        sell.terminate()
        sell.wait(timeout=10)
        sell = subprocess.Popen([HAWALA, "ln", "sell", "--upstream", upstream_url, "--price", "600", "--hold", "--password-file", provider.password],
                                env=provider.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = sell.stdout.readline().split()[1] + "jobs/held"
        answer = await asyncio.to_thread(l402_requests.L402Client(wallet=NwcWallet(uri, timeout=40), budget=None).get, url)
        check(answer.status_code == 200 and answer.json()["path"] == "/jobs/held", f"on delivery: {answer.status_code} {answer.text[:200]}")
        final = json.loads(provider.run("ln", "balance", "--json").stdout)["balanceMsat"]
        check(final - after == 600_000, f"settled on delivery: {after} → {final}")
    finally:
        for process in (sell, upstream):
            if process:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


def stop(serve):
    """SIGTERM, then at most 10 s: past it, killed and counted as a failure."""
    serve.terminate()
    try:
        serve.wait(timeout=10)
    except subprocess.TimeoutExpired:
        serve.kill()
        failures.append("connect serve did not stop on SIGTERM")


def main():
    root = tempfile.mkdtemp(prefix="hawala-nwc-")
    relay = serve = None
    try:
        relay = Relay(root)
        ledger = os.path.join(root, "ledger.sqlite")
        buyer = Home(root, "buyer", ABANDON, ledger)
        provider = Home(root, "provider", LEGAL, ledger)
        buyer.run("ln", "devnet", "fund", "100000", "--password-file", buyer.password)
        agent = buyer.connection("agent-1", "--budget", "20000/daily", "--max-payment", "5000", "--methods", "pay,receive,balance,history", "--relay", relay.url)
        seed = buyer.connection("buyer-agent", "--budget", "5010/daily", "--methods", "pay", "--relay", relay.url)
        parallel = buyer.connection("parallel", "--budget", "5010/daily", "--methods", "pay", "--relay", relay.url)
        short = buyer.connection("short", "--budget", "1000/daily", "--methods", "balance", "--expires-in", "10m", "--relay", relay.url)
        stopper = buyer.connection("stopper", "--budget", "1000/daily", "--methods", "pay", "--relay", relay.url)
        serve, serve_log = buyer.serve()
        client_flows(relay, buyer, provider, agent["uri"])
        hand_built(relay, buyer, provider, agent["uri"])
        twenty_at_once(relay, buyer, provider, parallel["uri"])
        seed_scenario(relay, buyer, provider, seed["uri"])
        strangers(relay, buyer, provider, parallel["uri"])
        hold_invoices(relay, buyer, provider, agent["uri"])
        third_party_l402(relay, buyer, provider, agent["uri"])
        proposed_by_the_program(relay, buyer, provider, None)
        revocation_and_notifications(relay, buyer, provider, (agent["uri"], short["uri"]))
        stop(serve)
        serve = None
        stops_when_told(relay, buyer, provider, stopper["uri"])
        log = open(serve_log).read()
        paid_lines = [line for line in log.splitlines() if "method=pay_invoice" in line and "outcome=ok" in line]
        if not paid_lines or not all("amount_msat=" in line for line in paid_lines):
            failures.append("the service's log lines for payments carry the amount")
            print("FAIL  connect serve's payment log lines lack the amount", flush=True)
        if "CancellationError" in log:
            failures.append("the service's log blames the relay for its own cancellation")
            print("FAIL  connect serve logged a CancellationError as a relay failure", flush=True)
        if failures:
            print("      connect serve log:", open(serve_log).read()[-3000:])
    finally:
        if serve:
            stop(serve)
        if relay:
            relay.stop()
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
