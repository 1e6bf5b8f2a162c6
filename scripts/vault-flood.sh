#!/usr/bin/env bash
# The vault under a token-guessing flood (issue 14 §1), against a release `hawala-vault serve`
# (SQLite) on loopback: wrk sends FAILED (default 200000) requests, each with a new random
# token and a new client address (X-Forwarded-For from a trusted proxy, so the limiter sees as
# many addresses as requests). Then, with the flood over, a valid token's listing is measured
# (p99 must be under 100 ms) and the server's resident memory is read (peak and now; the bound
# is MAX_RSS_MIB, default 256). Exit 1 when either bound fails.
set -euo pipefail
cd "$(dirname "$0")/.."
FAILED=${FAILED:-200000}
MAX_RSS_MIB=${MAX_RSS_MIB:-256}
VAULT=.build/release/hawala-vault
[ -x "$VAULT" ] || { echo "vault-flood: build it first (make release)" >&2; exit 1; }
DIR=$(mktemp -d /tmp/hawala-vault-flood.XXXXXX)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
export HAWALA_HOME="$DIR/home"
DB="sqlite:$DIR/vault.sqlite"
TOKEN=$($VAULT user add owner --db "$DB")
$VAULT serve --port 0 --db "$DB" --trusted-proxy 127.0.0.1 > "$DIR/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do grep -q listening "$DIR/serve.log" && break; sleep 0.1; done
URL=$(sed -n 's/^vault listening on //p' "$DIR/serve.log")
[ -n "$URL" ] || { cat "$DIR/serve.log" >&2; exit 1; }
curl -sf -H "Expect:" -H "Content-Type: application/octet-stream" -H "Authorization: Bearer $TOKEN" --data-binary "a backup" "$URL/vault/backup" > /dev/null

# Each request: a token and an address never seen before (BASE keeps runs apart); wrk runs in
# 5 s rounds until FAILED requests were sent.
cat > "$DIR/flood.lua" <<'LUA'
local n = tonumber(os.getenv("BASE"))
request = function()
  n = n + 1
  local address = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
  return wrk.format("GET", "/vault/backups", { ["Authorization"] = "Bearer hwv_flood" .. n, ["X-Forwarded-For"] = address })
end
LUA
start=$(date +%s.%N)
sent=0
while [ "$sent" -lt "$FAILED" ]; do
    count=$(BASE=$sent wrk -t1 -c32 -d5s -s "$DIR/flood.lua" "$URL" | awk '/requests in/ {print $1}')
    sent=$((sent + count))
done
seconds=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
echo "flood: $sent failed logins (distinct tokens and addresses) in $seconds s"

out=$(wrk -t1 -c4 -d5s --latency -H "Authorization: Bearer $TOKEN" "$URL/vault/backups")
p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
non2xx=$(grep -E "Non-2xx" <<<"$out" || true)
peak=$(awk '/^VmHWM:/ {print int($2 / 1024)}' "/proc/$SERVER/status")
now=$(awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$SERVER/status")
echo "then a valid token: $(awk '/^Requests\/sec:/ {print $2}' <<<"$out") req/s, p99 $p99 ${non2xx:+($non2xx)}; server memory peak $peak MiB, now $now MiB (bound $MAX_RSS_MIB MiB)"
ms=$(python3 -c "import sys; v = sys.argv[1]; print(float(v[:-2]) if v.endswith('ms') else float(v[:-2]) / 1000 if v.endswith('us') else float(v[:-1]) * 1000)" "$p99")
ok=1
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 100 else 1)" "$ms" || { echo "FAIL: p99 $p99 is not under 100 ms"; ok=0; }
[ "$peak" -le "$MAX_RSS_MIB" ] || { echo "FAIL: peak resident memory $peak MiB is over $MAX_RSS_MIB MiB"; ok=0; }
[ -z "$non2xx" ] || { echo "FAIL: the valid token was refused"; ok=0; }
[ "$ok" = 1 ]
