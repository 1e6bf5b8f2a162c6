#!/usr/bin/env bash
# The Electrum server the on-chain tests run in front of a regtest Litecoin Core: PyPI's e-x
# (ElectrumX) in .build/electrumx-venv, pinned with its hashes in scripts/electrum/requirements.txt.
# Quiet when it is there. Debian's python3-venv if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/electrumx-venv
STAMP="$VENV/requirements.sha256"
WANT=$(sha256sum scripts/electrum/requirements.txt | cut -d' ' -f1)
[ -s "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && exit 0
if ! /usr/bin/python3 -m venv --help >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1; then
  ./scripts/install-deps.sh python3-venv
fi
rm -rf "$VENV"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --no-deps --require-hashes -r scripts/electrum/requirements.txt
echo "$WANT" > "$STAMP"
echo "electrum server: $("$VENV/bin/pip" list 2>/dev/null | grep -E '^e-x ' | tr -s ' ')" >&2
