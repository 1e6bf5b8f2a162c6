#!/usr/bin/env bash
# `make install` / `make uninstall`: hawala and hawala-vault in PREFIX/bin, the Breez Spark
# library in PREFIX/lib (the binaries look in $ORIGIN/../lib first), the systemd units
# (their ExecStart pointed at PREFIX/bin) and the docs. DESTDIR is honoured.
#   scripts/install.sh install   DESTDIR PREFIX BIN_DIR
#   scripts/install.sh uninstall DESTDIR PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
action=$1 destdir=$2 prefix=$3
root="$destdir$prefix"
units_user=(hawala-connect.service hawala-vault-agent.service)
units_system=(hawala-vault.service)
docs=(README.md LICENSE docs/user-guide.md docs/reference.md docs/operator-guide.md docs/privacy.md docs/hawala-format.md)
spark_lib=libbreez_sdk_spark_bindings.so

case "$action" in
install)
  bin=$4
  for program in hawala hawala-vault; do
    [ -x "$bin/$program" ] || { echo "install: $bin/$program is not built" >&2; exit 1; }
    install -D -m 0755 "$bin/$program" "$root/bin/$program"
  done
  if [ -f "Generated/spark/lib/$spark_lib" ]; then
    install -D -m 0644 "Generated/spark/lib/$spark_lib" "$root/lib/$spark_lib"
  fi
  for unit in "${units_user[@]}"; do
    install -d "$root/lib/systemd/user"
    sed "s|%h/.local/bin/|$prefix/bin/|g" "contrib/$unit" > "$root/lib/systemd/user/$unit"
    chmod 0644 "$root/lib/systemd/user/$unit"
  done
  for unit in "${units_system[@]}"; do
    install -d "$root/lib/systemd/system"
    sed "s|/usr/local/bin/|$prefix/bin/|g" "contrib/$unit" > "$root/lib/systemd/system/$unit"
    chmod 0644 "$root/lib/systemd/system/$unit"
  done
  for doc in "${docs[@]}"; do install -D -m 0644 "$doc" "$root/share/doc/hawala/$(basename "$doc")"; done
  echo "installed hawala and hawala-vault in $root/bin"
  ;;
uninstall)
  rm -f "$root/bin/hawala" "$root/bin/hawala-vault" "$root/lib/$spark_lib"
  for unit in "${units_user[@]}"; do rm -f "$root/lib/systemd/user/$unit"; done
  for unit in "${units_system[@]}"; do rm -f "$root/lib/systemd/system/$unit"; done
  rm -rf "$root/share/doc/hawala"
  echo "removed hawala and hawala-vault from $root"
  ;;
*)
  echo "usage: scripts/install.sh install|uninstall DESTDIR PREFIX [BIN_DIR]" >&2
  exit 2
  ;;
esac
