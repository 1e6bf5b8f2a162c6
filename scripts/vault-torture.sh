#!/usr/bin/env bash
# The vault under attack and failure (issues 14 and 31): scripts/vault_torture.py's attacks
# against a real `hawala-vault serve` on loopback — a token flood, innocents behind a guessing
# address, idle and slow-header clients, ulimit -n 128, a quota race, append-only tokens, six
# large transfers' memory, SIGKILLs during uploads, 10,000 tiny backups, a database that stops
# answering, oversized chunked bodies, trickled bodies, and (PostgreSQL) two servers on one
# database, forged and replayed logins with the words — on SQLite, then on PostgreSQL when HAWALA_TEST_POSTGRES names a server
# (scripts/with-postgres.sh gives one). HAWALA_TORTURE_ONLY=outage,… runs only those attacks.
# Run by `make test` with the debug build; exit 1 on the first storage with a failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
VAULT=${HAWALA_VAULT_BIN:-.build/debug/hawala-vault}
[ -x "$VAULT" ] || { echo "vault-torture: build it first (swift build)" >&2; exit 1; }
DIR=$(mktemp -d /tmp/hawala-vault-torture.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export HAWALA_HOME="$DIR/home"
echo "vault torture: SQLite"
python3 scripts/vault_torture.py "$VAULT" "sqlite:$DIR/vault.sqlite"
if [ -n "${HAWALA_TEST_POSTGRES:-}" ]; then
    echo "vault torture: PostgreSQL"
    NAME=hawala_torture_$$
    psql -q "$HAWALA_TEST_POSTGRES" -c "CREATE DATABASE $NAME"
    python3 scripts/vault_torture.py "$VAULT" "${HAWALA_TEST_POSTGRES%%/postgres\?*}/$NAME?sslmode=disable"
fi
