#!/usr/bin/env bash
# `make install` tested as a packager uses it: into a temporary DESTDIR (the debug build, already
# built by `make test`), then the installed copy run on its own — every library it loads the
# system's or its own (none from the toolchain or the build tree), `--version`, and a devnet
# payment between two wallets — then `make uninstall`.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make --no-print-directory install CONFIG=debug DESTDIR="$dest" PREFIX=/usr/local >"$dest/install.log" 2>&1 || { cat "$dest/install.log" >&2; exit 1; }
bin="$dest/usr/local/bin"
fail() { echo "FAIL  make install: $*" >&2; exit 1; }
for f in bin/hawala bin/hawala-vault lib/systemd/user/hawala-connect.service lib/systemd/system/hawala-vault.service share/doc/hawala/README.md; do
  [ -e "$dest/usr/local/$f" ] || fail "$f is missing"
done
grep -q "ExecStart=/usr/local/bin/hawala connect serve" "$dest/usr/local/lib/systemd/user/hawala-connect.service" || fail "the unit does not start the installed hawala"
# Every library it loads is the system's or its own: none from the toolchain or the build tree.
for program in hawala hawala-vault; do
  ldd "$bin/$program" | grep -q "not found" && fail "$program: $(ldd "$bin/$program" | grep "not found" | head -1)"
  ldd "$bin/$program" | awk '$2 == "=>" {print $3}' | while read -r library; do
    case "$(realpath -m "$library")" in
      /lib/*|/lib64/*|/usr/lib/*|"$dest"/usr/local/lib/hawala/*) ;;
      *) fail "$program loads $library from outside the system and its own folder" ;;
    esac
  done
done
if [ -f Generated/spark/lib/libbreez_sdk_spark_bindings.so ]; then
  [ -f "$dest/usr/local/lib/hawala/libbreez_sdk_spark_bindings.so" ] || fail "the Spark library was not installed"
fi
"$bin/hawala" --version >/dev/null || fail "--version"
work="$dest/work"
mkdir -p "$work"
printf 'correct horse battery\n' > "$work/password"
printf 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\n' > "$work/buyer-words"
printf 'legal winner thank year wave sausage worth useful legal winner thank yellow\n' > "$work/seller-words"
run() { local who=$1; shift; HAWALA_HOME="$work/$who" NO_COLOR=1 "$bin/hawala" "$@" --password-file "$work/password"; }
for who in buyer seller; do
  HAWALA_HOME="$work/$who" "$bin/hawala" wallet restore --name "$who" --network testnet --mnemonic-file "$work/$who-words" \
    --password-file "$work/password" --yes >/dev/null 2>&1
  HAWALA_HOME="$work/$who" "$bin/hawala" ln config --backend "devnet:$work/ledger.sqlite" >/dev/null
done
run buyer ln devnet fund 10000 >/dev/null
invoice=$(run seller ln invoice --amount 1234 --description "installed" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["invoice"])')
run buyer ln pay "$invoice" --yes >/dev/null 2>&1 || fail "a devnet payment from the installed copy"
HAWALA_HOME="$work/seller" "$bin/hawala" ln history --json | grep -q '"installed"' || fail "the payee does not have it"
make --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr/local >/dev/null
[ ! -e "$bin/hawala" ] && [ ! -e "$dest/usr/local/share/doc/hawala" ] || fail "make uninstall left files behind"
echo "ok    make install into a DESTDIR: the installed copy runs on its own and pays on devnet; make uninstall removes it"
