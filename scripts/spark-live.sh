#!/usr/bin/env bash
# Live check of the spark: backend between two Hawala wallets (needs a network and a funded
# wallet; not part of `make test`, which runs offline). It restores the funded wallet into a
# temporary home (the payer), creates a new wallet in another (the payee), has the payee invoice
# SATS and the payer pay it, then the payee pay back half through the payer's invoice; then the
# payee registers a Lightning address (a random name) and the payer pays it with a comment; then
# (when WITHDRAW_LNURL is set: an LNURL-withdraw voucher or faucet of the same network) the payee
# withdraws from it; it prints both balances and histories, signs and checks a message. On-chain:
# the payer's deposits and a fresh deposit address (when DEPOSIT_WAIT is set, it waits that many
# minutes for a deposit sent there by hand, watching it confirm and be claimed), a small withdrawal
# (WITHDRAW_SATS, default 1000, to WITHDRAW_ADDRESS or the payer's own Bitcoin address, slow speed),
# then `ln exit check`. Nothing is written outside the two temporary homes.
#
#   scripts/spark-live.sh NETWORK WORDS_FILE PASSWORD_FILE [API_KEY_FILE] [SATS]
#
# NETWORK: mainnet (real bitcoin; API_KEY_FILE required, a Breez API key) or regtest (Spark's test
# network; fund the payer first with `hawala ln invoice --method bitcoin` and a regtest faucet).
# WORDS_FILE holds the funded wallet's words; PASSWORD_FILE the password to give both test wallets.
set -euo pipefail
cd "$(dirname "$0")/.."
NETWORK=${1:?usage: $0 mainnet|regtest WORDS_FILE PASSWORD_FILE [API_KEY_FILE] [SATS]}
WORDS=${2:?words file}
PASSWORD=${3:?password file}
KEY=${4:-}
SATS=${5:-100}
BIN=${HAWALA_BIN:-.build/debug/hawala}
[ -x "$BIN" ] || make build
PAYER=$(mktemp -d) PAYEE=$(mktemp -d)
trap 'rm -rf "$PAYER" "$PAYEE"' EXIT
payer() { HAWALA_HOME="$PAYER" "$BIN" "$@"; }
payee() { HAWALA_HOME="$PAYEE" "$BIN" "$@"; }

payer wallet restore --name payer --network mainnet --mnemonic-file "$WORDS" --password-file "$PASSWORD" --yes >/dev/null
payee wallet create --name payee --skip-backup --password-file "$PASSWORD" >/dev/null
for who in payer payee; do
  if [ "$NETWORK" = mainnet ]; then
    [ -n "$KEY" ] || { echo "spark:mainnet needs API_KEY_FILE (a Breez API key)" >&2; exit 2; }
    $who ln config --backend spark:mainnet --api-key-file "$KEY" --password-file "$PASSWORD" >/dev/null
  else
    $who ln config --backend "spark:$NETWORK" >/dev/null
  fi
done

echo "== payer balance"; payer ln balance --password-file "$PASSWORD"
INVOICE=$(payee ln invoice --amount "$SATS" --description "hawala live check" --password-file "$PASSWORD")
echo "== payer pays $SATS sat"; payer ln pay "$INVOICE" --yes --password-file "$PASSWORD"
echo "== payee balance (syncs)"; payee ln balance --password-file "$PASSWORD"
BACK=$(payer ln invoice --amount $((SATS / 2)) --description "hawala live check, back" --password-file "$PASSWORD")
echo "== payee pays $((SATS / 2)) sat back"; payee ln pay "$BACK" --yes --password-file "$PASSWORD"
echo "== payer balance (syncs)"; payer ln balance --password-file "$PASSWORD"
NAME="hawala-live-$RANDOM$RANDOM"
echo "== payee registers $NAME"; ADDRESS=$(payee ln address register "$NAME" --description "Hawala live check" --password-file "$PASSWORD")
echo "$ADDRESS"; payee ln address --password-file "$PASSWORD"
echo "== payer pays $SATS sat to $ADDRESS with a comment"
payer ln pay "$ADDRESS" --amount "$SATS" --comment "hawala live check by address" --yes --password-file "$PASSWORD"
sleep 5
echo "== payee history (the comment shows)"; payee ln balance --password-file "$PASSWORD"; payee ln history | head -3
if [ -n "${WITHDRAW_LNURL:-}" ]; then
  echo "== payee withdraws from the LNURL"; payee ln withdraw "$WITHDRAW_LNURL" --yes --password-file "$PASSWORD"
fi
echo "== sign and check a message"
SIGNED=$(echo "hawala live check" | payee ln sign-message --json --password-file "$PASSWORD")
PUB=$(echo "$SIGNED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pubkey"])')
SIG=$(echo "$SIGNED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["signature"])')
echo "hawala live check" | payee ln verify-message --pubkey "$PUB" --signature "$SIG"
payee ln address delete --yes --password-file "$PASSWORD"
echo "== payer deposits, and a fresh deposit address"
payer ln deposits --password-file "$PASSWORD" || true
DEPOSIT_ADDRESS=$(payer ln invoice --method bitcoin --new --password-file "$PASSWORD")
echo "$DEPOSIT_ADDRESS"
if [ -n "${DEPOSIT_WAIT:-}" ]; then
  echo "== send bitcoin to $DEPOSIT_ADDRESS now; watching for $DEPOSIT_WAIT minutes (seen, then claimed)"
  payer ln watch --timeout $((DEPOSIT_WAIT * 60)) --password-file "$PASSWORD" || true
  payer ln deposits --password-file "$PASSWORD"
fi
echo "== payer withdraws ${WITHDRAW_SATS:-1000} sat on-chain (slow)"
TO=${WITHDRAW_ADDRESS:-$(payer ln exit check --json --password-file "$PASSWORD" | python3 -c 'import json,sys; p=json.load(sys.stdin)["plan"]; print(p["destination"] if p else "")')}
if [ -n "$TO" ]; then
  payer ln pay "$TO" --amount "${WITHDRAW_SATS:-1000}" --speed slow --yes --password-file "$PASSWORD"
else
  echo "no address to withdraw to: set WITHDRAW_ADDRESS" >&2
fi
echo "== the way out"; payer ln exit check --password-file "$PASSWORD" || true
echo "== payer history"; payer ln history
echo "== payee history"; payee ln history
