#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server (Debian's postgresql package): a new
# cluster in a temporary folder, listening on a free loopback port, trust authentication.
# The command sees HAWALA_TEST_POSTGRES (the admin address) and HAWALA_REQUIRE_POSTGRES=1;
# the server and its folder are removed afterwards. Used by `make test`.
set -euo pipefail
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$BIN/initdb" ] || { echo "with-postgres: PostgreSQL is not installed (make deps installs it)" >&2; exit 1; }
DIR=$(mktemp -d /tmp/hawala-pg.XXXXXX)
RUN_AS=()
if [ "$(id -u)" = 0 ]; then  # initdb refuses to run as root
    chown postgres "$DIR"
    RUN_AS=(runuser -u postgres --)
fi
stop() {
    "${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
}
trap stop EXIT
"${RUN_AS[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres -A trust --no-sync >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$DIR/server.log" >&2; exit 1; }
export HAWALA_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
export HAWALA_REQUIRE_POSTGRES=1
"$@"
