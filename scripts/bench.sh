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
