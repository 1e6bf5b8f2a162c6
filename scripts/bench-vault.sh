#!/usr/bin/env bash
# `make bench-vault`: wrk (Debian's) on loopback against a release `hawala-vault serve` (SQLite):
# GET /vault/backups listing 20 backups (and /healthz, the stack's ceiling), and downloads of a
# 1 MiB backup (streamed from 64 KiB chunks); nginx serving the same 1 MiB file is measured in
# the same run as the reference. DURATION (default 30s),
# CONNECTIONS (default 32), THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
VAULT=.build/release/hawala-vault
DIR=$(mktemp -d /tmp/hawala-bench-vault.XXXXXX)
chmod 755 "$DIR"
SERVER="" NGINX_STARTED=""
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    [ -n "$NGINX_STARTED" ] && nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -s stop 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

export HAWALA_HOME="$DIR/home"
DB="sqlite:$DIR/vault.sqlite"
# Start once so the schema exists, then add the users, then serve.
LIST_TOKEN=$($VAULT user add lister --db "$DB")
GET_TOKEN=$($VAULT user add downloader --db "$DB")
# wrk's 32 connections share one token: the per-user transfer limit is raised for them.
$VAULT serve --port 0 --db "$DB" --auth-failures 1000000 --transfers-per-user 64 > "$DIR/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do grep -q listening "$DIR/serve.log" && break; sleep 0.1; done
URL=$(sed -n 's/^vault listening on //p' "$DIR/serve.log")
[ -n "$URL" ] || { cat "$DIR/serve.log" >&2; exit 1; }

# 20 backups of 4 KiB for the listing; one 1 MiB backup for the downloads.
for i in $(seq 20); do
    head -c 4096 /dev/urandom > "$DIR/small"
    curl -sf -H "Expect:" -H "Content-Type: application/octet-stream" -H "Authorization: Bearer $LIST_TOKEN" --data-binary "@$DIR/small" "$URL/vault/backup?type=auto" > /dev/null
done
mkdir -p "$DIR/nginx/www" "$DIR/nginx/logs"
head -c 1048576 /dev/urandom > "$DIR/nginx/www/backup.bin"
ID=$(curl -sf -H "Expect:" -H "Content-Type: application/octet-stream" -H "Authorization: Bearer $GET_TOKEN" --data-binary "@$DIR/nginx/www/backup.bin" "$URL/vault/backup?type=manual" \
     | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')

# nginx with the file in a folder of its own (sendfile on, no access log).
NGINX_PORT=$(free_port)
cat > "$DIR/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon on;
pid $DIR/nginx/nginx.pid;
error_log $DIR/nginx/logs/error.log;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path $DIR/nginx/tmp-body;
    proxy_temp_path $DIR/nginx/tmp-proxy;
    fastcgi_temp_path $DIR/nginx/tmp-fastcgi;
    uwsgi_temp_path $DIR/nginx/tmp-uwsgi;
    scgi_temp_path $DIR/nginx/tmp-scgi;
    server { listen 127.0.0.1:$NGINX_PORT; root $DIR/nginx/www; }
}
CONF
nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf"
NGINX_STARTED=1

# Check that each target answers what we think before timing it.
[ "$(curl -sf -H "Authorization: Bearer $LIST_TOKEN" "$URL/vault/backups" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 20 ]
cmp <(curl -sf -H "Authorization: Bearer $GET_TOKEN" "$URL/vault/backups/$ID") "$DIR/nginx/www/backup.bin"
cmp <(curl -sf "http://127.0.0.1:$NGINX_PORT/backup.bin") "$DIR/nginx/www/backup.bin"

run() {  # name, then wrk arguments; prints "name: N req/s, p50 X, p99 Y"
    local name=$1; shift
    local out
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@")
    local rps p50 p99 errors
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" || true)
    printf '%-34s %10s req/s   p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" "$errors"
    echo "$rps" > "$DIR/rps-$name"
}
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION, loopback, $(nproc) cores"
run list-20-backups -H "Authorization: Bearer $LIST_TOKEN" "$URL/vault/backups"
# The stack's own ceiling: the smallest route (no token, no database) through the same server.
run healthz-ceiling "$URL/healthz"
run download-1MiB-hawala -H "Authorization: Bearer $GET_TOKEN" "$URL/vault/backups/$ID"
run download-1MiB-nginx "http://127.0.0.1:$NGINX_PORT/backup.bin"
python3 - "$DIR" <<'PY'
import sys
d = sys.argv[1]
r = {n: float(open(f"{d}/rps-{n}").read()) for n in ("list-20-backups", "healthz-ceiling", "download-1MiB-hawala", "download-1MiB-nginx")}
print(f"list: {r['list-20-backups']:.0f} req/s (target >= 10000); /healthz through the same stack: {r['healthz-ceiling']:.0f} req/s")
print(f"downloads: hawala {r['download-1MiB-hawala']:.0f} req/s = {100 * r['download-1MiB-hawala'] / r['download-1MiB-nginx']:.0f}% of nginx (target >= 50%)")
PY
