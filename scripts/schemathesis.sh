#!/usr/bin/env bash
# schemathesis (PyPI) against the OpenAPI document and a running `hawala-vault serve` (debug
# build, SQLite in a temporary folder). Part of `make test`. Failed-auth limiting is raised so
# the fuzzer sees 401 answers, not 429.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v st >/dev/null || python3 -m pip install -q "schemathesis==4.32.5"
DIR=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DIR"' EXIT
export HAWALA_HOME="$DIR/home"
.build/debug/hawala-vault serve --port 0 --db "sqlite:$DIR/vault.sqlite" --auth-failures 1000000 > "$DIR/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do grep -q listening "$DIR/serve.log" && break; sleep 0.2; done
URL=$(sed -n 's/^vault listening on //p' "$DIR/serve.log")
TOKEN=$(.build/debug/hawala-vault user add schemathesis --db "sqlite:$DIR/vault.sqlite")
st run Sources/HawalaVaultAPI/openapi.yaml --url "$URL" -H "Authorization: Bearer $TOKEN" --max-examples 40 --seed "${SEED:-1}" --no-color
