#!/usr/bin/env bash
# Puts axe-core's axe.min.js in .build/axe/ for the browser tests (scripts/app_e2e.py), taken
# from the PyPI wheel pinned in scripts/axe/requirements.txt. Quiet when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=.build/axe/axe.min.js
[ -s "$TARGET" ] && exit 0
if ! python3 -m pip --version >/dev/null 2>&1; then
  ./scripts/install-deps.sh python3-pip
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download -q --no-deps --require-hashes -r scripts/axe/requirements.txt -d "$WORK"
mkdir -p .build/axe
python3 - "$WORK" "$TARGET" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/axe_playwright_python-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("axe_playwright_python/axe.min.js")
if not data.startswith(b"/*! axe v4."):
    sys.exit("axe.min.js: not axe-core 4.x")
open(sys.argv[2], "wb").write(data)
PY
echo "axe-core: $(head -n 1 "$TARGET")" >&2
