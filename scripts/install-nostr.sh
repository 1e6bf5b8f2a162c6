#!/usr/bin/env bash
# The peers of the tests of programs that pay, in .build/nostr-venv: PyPI nostr-relay (a real relay, SQLite),
# rust-nostr's nostr-sdk (its NostrWalletConnect client) and mcp (the official MCP client), pinned with their hashes in
# scripts/nostr/requirements.txt. Quiet when they are there. Debian's python3-venv if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/nostr-venv
STAMP="$VENV/requirements.sha256"
WANT=$(sha256sum scripts/nostr/requirements.txt | cut -d' ' -f1)
[ -s "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && exit 0
if ! /usr/bin/python3 -m venv --help >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1; then
  ./scripts/install-deps.sh python3-venv
fi
rm -rf "$VENV"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --no-deps --require-hashes -r scripts/nostr/requirements.txt
echo "$WANT" > "$STAMP"
echo "nostr peers: $("$VENV/bin/pip" list 2>/dev/null | grep -E '^(nostr-relay|nostr_relay|nostr-sdk|nostr_sdk|mcp) ' | tr -s ' ' | paste -sd' ')" >&2
