#!/usr/bin/env python3
"""Agents that pay (issue 41), end to end on devnet, offline: `hawala mcp` driven by an
independent MCP client (PyPI `mcp`, the official Python SDK) over stdio, and `hawala ln sell`
in front of a small upstream as the paid compute endpoint. Run by `make test` with .build/nostr-venv/bin/python.

Each scenario prints one ok/FAIL line; exit 1 when any failed.
"""
import asyncio, contextlib, hashlib, json, os, shutil, subprocess, sys, tempfile, time, traceback

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
import mcp.types as types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nwc_e2e import ABANDON, LEGAL, HAWALA, Home, check, free_port  # noqa: E402

failures = []
TOOLS = {"get_balance", "get_budget", "make_invoice", "make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice", "lookup_invoice", "list_payments", "pay_invoice", "pay_lightning_address", "fetch_paid_url"}


def scenario(title):
    def wrap(function):
        def run(*args):
            started = time.time()
            try:
                asyncio.run(asyncio.wait_for(function(*args), timeout=120))
                print(f"ok    {title} ({time.time() - started:.1f} s)", flush=True)
            except BaseException as error:  # noqa: B036 — a timeout or a task group's error, said in one line
                failures.append(title)
                print(f"FAIL  {title}: {error!r}", flush=True)
                traceback.print_exc(limit=8, file=sys.stdout)
        return run
    return wrap


class Agent:
    """An MCP client session with `hawala mcp --connection NAME`; `answer` is what the person
    says to an elicitation (None: this client can't ask)."""

    def __init__(self, home, connection, *options, answer=None):
        self.home, self.connection, self.options, self.answer = home, connection, options, answer
        self.asked = []

    async def __aenter__(self):
        params = StdioServerParameters(command=HAWALA, args=["mcp", "--connection", self.connection, "--password-file", self.home.password, *self.options],
                                       env=self.home.env)
        self._stack = contextlib.AsyncExitStack()
        read, write = await self._stack.enter_async_context(stdio_client(params))
        callback = None
        if callable(self.answer):
            callback = self.answer
        elif self.answer is not None:
            async def callback(context, params):
                self.asked.append(params.message)
                return types.ElicitResult(action=self.answer)
        self.session = await self._stack.enter_async_context(ClientSession(read, write, elicitation_callback=callback))
        await asyncio.wait_for(self.session.initialize(), 30)
        return self

    async def __aexit__(self, *exc):
        await self._stack.aclose()

    async def call(self, name, **arguments):
        result = await self.session.call_tool(name, arguments)
        text = " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")
        return bool(result.is_error), result.structured_content or {}, text


UPSTREAM = """
import http.server, json, hashlib
class Handler(http.server.BaseHTTPRequestHandler):
    jobs = 0
    def do_GET(self): self.answer()
    def do_POST(self): self.answer()
    def answer(self):
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(size) if size else b""
        Handler.jobs += 1
        out = json.dumps({"job": Handler.jobs, "result": hashlib.sha256(self.path.encode() + body).hexdigest()}, separators=(",", ":")).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(out)))
        self.end_headers(); self.wfile.write(out)
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
"""


def endpoint(provider, price, *options):
    """A small compute service and `hawala ln sell` in front of it: (the two processes, the paywall's address)."""
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE, text=True)
    process = subprocess.Popen([HAWALA, "ln", "sell", "--upstream", upstream.stdout.readline().strip(), "--price", str(price),
                                "--password-file", provider.password, *options],
                               env=provider.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    check(line.startswith("selling http://127.0.0.1:"), f"the paywall: {line!r}")
    return [process, upstream], line.split()[1]


def received(home, description="paid request: /jobs/run"):
    return [p for p in home.history() if p["type"] == "received" and p["status"] == "completed" and p.get("description") == description]


@scenario("the official MCP client: tools listed; get_balance, make_invoice, pay_invoice (preimage), fetch_paid_url; over the budget a tool error, nothing paid")
async def tools_and_budget(buyer, provider, url):
    async with Agent(buyer, "agent") as agent:
        listed = await agent.session.list_tools()
        check({t.name for t in listed.tools} == TOOLS, f"tools {[t.name for t in listed.tools]}")
        check(all(t.input_schema.get("type") == "object" and t.description for t in listed.tools), "schemas and descriptions")
        error, balance, _ = await agent.call("get_balance")
        check(not error and balance["balance_sats"] == 100_000, f"balance {balance}")
        error, made, text = await agent.call("make_invoice", amount_sats=500, description="tip")
        check(not error and made["invoice"].startswith("lnbcrt5u"), f"{text}")
        invoice = provider.invoice(300, "through MCP")
        error, paid, text = await agent.call("pay_invoice", invoice=invoice)
        decoded = json.loads(buyer.run("ln", "decode", invoice, "--json").stdout)
        check(not error and hashlib.sha256(bytes.fromhex(paid["preimage"])).hexdigest() == decoded["paymentHash"], f"{text}")
        check(any(p["description"] == "through MCP" for p in provider.history() if p["status"] == "completed"), "the payee has it")
        # A retry of the same invoice (the answer was lost): a success with the same proof, paid once.
        error, again, text = await agent.call("pay_invoice", invoice=invoice)
        check(not error and again.get("paid_before") is True and again.get("preimage") == paid["preimage"] and "Already paid" in text, f"a retry: {text} {again}")
        check(len([p for p in provider.history() if p["description"] == "through MCP" and p["status"] == "completed"]) == 1, "paid once")
        # Numbers: a fraction, a number past 64 bits or a string is refused, the parameter named
        # as sent (5.0 is the integer 5, as JSON Schema counts it).
        for wrong in (0.5, 2 ** 64 + 5, 1e30, "5", -3):
            error, _, text = await agent.call("make_invoice", amount_sats=wrong)
            check(error and "amount_sats" in text, f"amount_sats={wrong!r}: {text}")
        before = len(received(provider))
        error, fetched, text = await agent.call("fetch_paid_url", url=url)
        check(not error and fetched["status"] == 200 and fetched["cost_sats"] == 1000 and '"job":' in fetched["body"], f"{text} {fetched}")
        check(len(received(provider)) == before + 1, "the endpoint was paid once")
        big = provider.invoice(6_000, "too big")
        error, _, text = await agent.call("pay_invoice", invoice=big)
        check(error and "budget" in text, f"over the budget: {text}")
        check(not any(p["description"] == "too big" and p["status"] == "completed" for p in provider.history()), "nothing paid")
        error, budget, _ = await agent.call("get_budget")
        check(not error and budget["total_sats"] == 5_000 and budget["used_sats"] >= 1_300, f"budget {budget}")
    sent = [p for p in buyer.history() if p["type"] == "sent"]
    check(sent and all(p["connection"] == "agent" for p in sent), "the buyer's history says the connection paid")


@scenario("above --confirm-above: declined then accepted through elicitation (paid only after yes); a client that can't ask: refused, nothing paid")
async def elicitation(buyer, provider):
    invoice = provider.invoice(2_500, "asks first")
    async with Agent(buyer, "careful", "--confirm-above", "2000", answer="decline") as agent:
        error, _, text = await agent.call("pay_invoice", invoice=invoice)
        # Who is paid as Hawala knows it (the payee's node), amount, fee and total; the
        # description only as the payee's own words.
        asked = agent.asked[0] if agent.asked else ""
        check(error and "declined" in text and "Pay 2,500 sat to node " in asked and "fee" in asked and "in all" in asked
              and "They describe it as: \u201casks first\u201d" in asked, f"{text} {agent.asked}")
    check(not any(p["description"] == "asks first" and p["status"] == "completed" for p in provider.history()), "not paid after no")
    async with Agent(buyer, "careful", "--confirm-above", "2000") as agent:
        started = time.time()
        error, _, text = await agent.call("pay_invoice", invoice=invoice)
        # It never offered elicitation: refused at once, not after the 5 minutes an answer may take.
        check(error and "can't ask" in text and time.time() - started < 10, f"no elicitation: {text} after {time.time() - started:.1f} s")
    async with Agent(buyer, "careful", "--confirm-above", "2000", answer="accept") as agent:
        error, paid, text = await agent.call("pay_invoice", invoice=invoice)
        check(not error and paid["status"] == "completed", f"{text}")
        error, small, text = await agent.call("pay_invoice", invoice=provider.invoice(100, "small"))
        check(not error and len(agent.asked) == 1, f"below the threshold nobody is asked: {agent.asked}")
    check(any(p["description"] == "asks first" and p["status"] == "completed" for p in provider.history()), "paid after yes")


@scenario("a connection that asks approval: without the app, the client's form asks (yes: paid); with the app running, the client sends the person to its Approvals page (URL mode) — approved there, paid; declined in the client: nothing paid; the app stopped, the form again")
async def approval_in_the_app(buyer, provider):
    # Without the app: the client's own form asks, its yes approves.
    async with Agent(buyer, "approver", answer="accept") as agent:
        error, paid, text = await agent.call("pay_invoice", invoice=provider.invoice(3_000, "approved in the form"))
        check(not error and paid["status"] == "completed" and agent.asked and "Asked by \u201capprover\u201d" in agent.asked[0], f"{text} {agent.asked}")
    app = subprocess.Popen([HAWALA, "app", "--no-open", "--port", "0"], env=buyer.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = app.stdout.readline().strip().split("/start")[0]
        check(base.startswith("http://127.0.0.1:"), f"the app printed {base!r}")
        opened = []

        async def open_the_page(context, params):
            """The person opens the page the client sends them to and approves there (the CLI,
            with the password, answers as the page's button does)."""
            opened.append(params)
            if getattr(params, "mode", None) == "url":
                approval = params.url.rsplit("/", 1)[1]
                await asyncio.to_thread(buyer.run, "connect", "approve", approval, "--password-file", buyer.password)
            return types.ElicitResult(action="accept")

        async with Agent(buyer, "approver", answer=open_the_page) as agent:
            error, paid, text = await agent.call("pay_invoice", invoice=provider.invoice(4_000, "approved in the app"))
            check(opened and getattr(opened[0], "mode", None) == "url" and opened[0].url.startswith(base + "/approvals/"), f"sent to the app: {opened}")
            check(not error and paid["status"] == "completed", f"{text}")
        async with Agent(buyer, "approver", answer="decline") as agent:
            error, _, text = await agent.call("pay_invoice", invoice=provider.invoice(5_000, "declined in the client"))
            check(error and "declined" in text, f"{text}")
        check(not any(p["description"] == "declined in the client" and p["status"] == "completed" for p in provider.history()), "nothing paid after no")
    finally:
        app.send_signal(2)
        app.wait(timeout=10)
    # The app stopped: clients are no longer sent to it; the form asks again.
    async with Agent(buyer, "approver", answer="accept") as agent:
        error, paid, text = await agent.call("pay_invoice", invoice=provider.invoice(3_000, "after the app stopped"))
        check(not error and paid["status"] == "completed", f"the form asks once the app is gone: {text}")


@scenario("pay_lightning_address: LNURL-pay through devnet's LNURL server, with a comment, within the budget")
async def lightning_address(buyer, provider):
    port = str(free_port())
    server = subprocess.Popen([HAWALA, "ln", "devnet", "serve", "--port", port], env=provider.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        check(server.stdout.readline().startswith("devnet LNURL server on"), "the LNURL server runs")
        address = provider.run("ln", "address", "register", "tips", "--password-file", provider.password).stdout.strip()
        check(address == f"tips@127.0.0.1:{port}", f"address {address}")
        async with Agent(buyer, "agent") as agent:
            error, paid, text = await agent.call("pay_lightning_address", address=address, amount_sats=200, comment="for the GPU hour")
            check(not error and paid["status"] == "completed", f"{text}")
            error, _, text = await agent.call("pay_lightning_address", address=address, amount_sats=9_000)
            check(error and "budget" in text, f"over the budget: {text}")
        got = [p for p in provider.history() if p["type"] == "received" and p["status"] == "completed" and p.get("amountMsat") == 200_000]
        check(got and got[0].get("comment") == "for the GPU hour", f"the payee has it, with its comment: {got[:1]}")
    finally:
        server.terminate()
        server.wait(timeout=10)


@scenario("the seed's scenario for agents: ten jobs from the L402 compute endpoint on a budget for five: five results, the sixth refused, the provider received five")
async def ten_jobs(buyer, provider, url):
    before = len(received(provider))
    results, refusals = [], []
    async with Agent(buyer, "buyer-agent") as agent:
        for job in range(1, 11):
            error, fetched, text = await agent.call("fetch_paid_url", url=url, method="POST", body=f"job {job}")
            (refusals if error else results).append(text if error else fetched)
    check(len(results) == 5 and all(r["status"] == 200 and r["cost_sats"] == 1000 for r in results), f"{len(results)} results")
    check(len(refusals) == 5 and "budget" in refusals[0], f"refusals: {refusals[:1]}")
    check(len(received(provider)) == before + 5, f"the provider received {len(received(provider)) - before}")
    shown = json.loads(buyer.run("connect", "show", "buyer-agent", "--json").stdout)
    check(len(shown["payments"]) == 5 and shown["spentMsat"] > 5_000_000, f"the connection shows {len(shown['payments'])} payments")


@scenario("a provider's agent takes payment on delivery: make_hold_invoice, the buyer's payment held, settle_hold_invoice by hash (the wallet kept the preimage); a job not delivered: cancel_hold_invoice, the buyer whole")
async def hold_invoices(buyer, provider):
    async with Agent(provider, "seller") as agent:
        error, made, text = await agent.call("make_hold_invoice", amount_sats=700, description="held job")
        check(not error and made["invoice"].startswith("lnbcrt7u"), f"{text}")
        paid = buyer.run("ln", "pay", made["invoice"], "--yes", "--password-file", buyer.password, check_status=False)
        check(paid.returncode == 3, f"the buyer's payment is pending while held: exit {paid.returncode}")
        error, held, text = await agent.call("lookup_invoice", payment_hash=made["payment_hash"])
        check(not error and held["status"] == "held" and "settle_by" in held, f"held: {text} {held}")
        error, settled, text = await agent.call("settle_hold_invoice", payment_hash=made["payment_hash"])
        check(not error and settled["status"] == "completed" and settled["amount_sats"] == 700, f"settled: {text}")
        error, again, text = await agent.call("settle_hold_invoice", payment_hash=made["payment_hash"])
        check(not error and again["id"] == settled["id"], f"settling again: {text}")
        sent = [p for p in buyer.history() if p["type"] == "sent" and p.get("paymentHash") == made["payment_hash"]]
        check(sent and sent[0]["status"] == "completed", f"the buyer's payment completed: {sent}")
        before = json.loads(buyer.run("ln", "balance", "--json").stdout)["balanceMsat"]
        error, second, text = await agent.call("make_hold_invoice", amount_sats=400, description="not delivered")
        buyer.run("ln", "pay", second["invoice"], "--yes", "--password-file", buyer.password, check_status=False)
        error, cancelled, text = await agent.call("cancel_hold_invoice", payment_hash=second["payment_hash"])
        check(not error and cancelled["status"] == "failed", f"cancelled: {text}")
        after = json.loads(buyer.run("ln", "balance", "--json").stdout)["balanceMsat"]
        check(after == before, f"the buyer is whole: {before} → {after}")
        error, _, text = await agent.call("settle_hold_invoice", payment_hash=second["payment_hash"])
        check(error and "cancelled" in text, f"never settled after a cancel: {text}")


@scenario("a revoked connection: the next call refused, nothing paid")
async def revoked(buyer, provider):
    async with Agent(buyer, "short") as agent:
        error, balance, _ = await agent.call("get_budget")
        check(not error, "live at first")
        buyer.run("connect", "revoke", "short")
        error, _, text = await agent.call("pay_invoice", invoice=provider.invoice(10, "after revocation"))
        check(error and "revoked" in text, f"{text}")
    check(not any(p["description"] == "after revocation" and p["status"] == "completed" for p in provider.history()), "nothing paid")


def main():
    root = tempfile.mkdtemp(prefix="hawala-mcp-")
    server = None
    try:
        ledger = os.path.join(root, "ledger.sqlite")
        buyer = Home(root, "buyer", ABANDON, ledger)
        provider = Home(root, "provider", LEGAL, ledger)
        buyer.run("ln", "devnet", "fund", "100000", "--password-file", buyer.password)
        relay = ["--for", "mcp"]  # these programs speak MCP
        buyer.connection("agent", "--budget", "5000/daily", "--methods", "pay,receive,balance", *relay)
        buyer.connection("careful", "--budget", "10000/daily", "--methods", "pay", *relay)
        buyer.connection("buyer-agent", "--budget", "5010/daily", "--methods", "pay", *relay)
        buyer.connection("short", "--budget", "1000/daily", "--methods", "pay", *relay)
        buyer.connection("approver", "--budget", "20000/daily", "--methods", "pay", "--approve-above", "2000", *relay)
        provider.connection("seller", "--budget", "1000/daily", "--methods", "receive", *relay)
        server, url = endpoint(provider, 1000, "--uses", "1")
        url += "jobs/run"
        tools_and_budget(buyer, provider, url)
        elicitation(buyer, provider)
        approval_in_the_app(buyer, provider)
        lightning_address(buyer, provider)
        ten_jobs(buyer, provider, url)
        hold_invoices(buyer, provider)
        revoked(buyer, provider)
    finally:
        for process in server or []:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                failures.append("the paywall or its service did not stop on SIGTERM")
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
