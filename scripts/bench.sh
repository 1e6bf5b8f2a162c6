#!/usr/bin/env bash
# `make bench`: release-build throughput figures, with the reference measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== reference: PyPI mnemonic (mnemonic -> seed) =="
python3 - <<'PY' || echo "(python3 with the 'mnemonic' package not available)"
import time
from mnemonic import Mnemonic
w = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
n, t = 0, time.time()
while time.time() - t < 3:
    Mnemonic.to_seed(w, "TREZOR"); n += 1
print(f"python mnemonic: {n / (time.time() - t):.0f} seeds/s")
PY
echo "== hawala-bench =="
.build/release/hawala-bench
echo "== hawala derive --count 20000 (wall vs CPU time shows the cores in use) =="
M="abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
TIMEFORMAT="wall %R s, user %U s, sys %S s"
time (echo "$M" | .build/release/hawala derive --chain bitcoin --count 20000 > /dev/null)
echo "== wallet commands: process time (user + sys) in a store of 50 wallets =="
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
.build/release/hawala-bench populate-wallets "$HOME_DIR/store" 50
HAWALA_HOME="$HOME_DIR/store" python3 - <<'PY'
import resource, subprocess
def cpu_ms(args, runs=5):
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([".build/release/hawala"] + args, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        ms = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
        best = ms if best is None else min(best, ms)
    return best
print(f"{'wallet list (50 wallets)':52} {cpu_ms(['wallet', 'list']):9.1f} ms")
print(f"{'wallet list --json (50 wallets)':52} {cpu_ms(['wallet', 'list', '--json']):9.1f} ms")
chains = ["bitcoin", "bitcoin-taproot", "bitcoin-nested-segwit", "bitcoin-legacy", "litecoin", "ethereum", "bsc", "polygon", "solana", "xrp", "cosmos", "cardano"]
worst = 0
for c in chains:
    ms = cpu_ms(["wallet", "addresses", "--chain", c, "--count", "20"])
    worst = max(worst, ms)
    print(f"{'wallet addresses --count 20 --chain ' + c:52} {ms:9.1f} ms")
print(f"{'wallet addresses --count 20, slowest chain':52} {worst:9.1f} ms")
PY
echo "== .hawala export / import (KDF excluded; file in \$TMPDIR) vs openssl speed, same run =="
openssl speed -evp aes-256-gcm -bytes 16384 -seconds 3 2>/dev/null | awk '/^AES-256-GCM/ { printf "openssl speed -evp aes-256-gcm, 16 KiB blocks: %.0f MB/s\n", $2 / 1000 }'
.build/release/hawala-bench gcm
for mib in 1 100 1024; do
    .build/release/hawala-bench stream "$mib" "$HOME_DIR/stream.hawala"
done
echo "== BOLT11 decoding with signature checks vs PyPI bolt11, same run =="
python3 - "$HOME_DIR/invoices.txt" <<'PY'
import json, sys
vectors = json.load(open("Tests/HawalaLightningTests/Vectors/bolt11.json"))
open(sys.argv[1], "w").write("\n".join(v["invoice"] for v in vectors["cross"]))
PY
.build/release/hawala-bench bolt11 "$HOME_DIR/invoices.txt"
python3 - "$HOME_DIR/invoices.txt" <<'PY' || echo "PyPI bolt11 not installed (pip install bolt11 bitstring==3.1.9): no comparison"
import sys, time
import bolt11
invoices = open(sys.argv[1]).read().split("\n")
n, start = 0, time.time()
while time.time() - start < 3:
    for i in invoices:
        bolt11.decode(i)
        n += 1
print(f"PyPI bolt11 decode (coincurve recovery), 1 core: {n / (time.time() - start):.0f} invoices/s")
PY

