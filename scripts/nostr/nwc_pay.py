#!/usr/bin/env python3
"""Pays one invoice with rust-nostr's NWC client (PyPI nostr-sdk), as a program would: for the
browser end to end (scripts/app_e2e.py), which runs under Debian's python with selenium while
nostr-sdk lives in .build/nostr-venv.

Usage: nwc_pay.py URI INVOICE [TIMEOUT_SECONDS]
Prints one JSON line: {"preimage": …, "fees_paid": …} or {"error": "the client's words"}.
"""
import asyncio
import json
import sys
from datetime import timedelta

import nostr_sdk as n


async def pay(uri, invoice, seconds):
    client = n.NostrWalletConnectBuilder(n.NostrWalletConnectUri.parse(uri)).timeout(timedelta(seconds=seconds)).build()
    try:
        paid = await client.pay_invoice(n.PayInvoiceRequest(id=None, invoice=invoice, amount=None))
        return {"preimage": paid.preimage, "fees_paid": paid.fees_paid}
    except Exception as error:  # the NWC error, in the client's words
        return {"error": str(error)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(pay(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 60))), flush=True)
