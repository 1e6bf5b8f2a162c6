#!/usr/bin/env bash
# `make install` / `make uninstall`: hawala and hawala-vault in PREFIX/bin; beside them, in
# PREFIX/lib/hawala, every library they load that is neither the system's nor Debian's (the
# Swift runtime of the toolchain that built them, the Breez Spark library), the programs' run
# path set there (patchelf) — so the installed copy needs neither the build tree nor the
# toolchain; the systemd units (their ExecStart pointed at PREFIX/bin) and the docs. DESTDIR is
# honoured. Nothing is built here: `make release` builds what this installs.
#   scripts/install.sh install   DESTDIR PREFIX BIN_DIR
#   scripts/install.sh uninstall DESTDIR PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
action=$1 destdir=$2 prefix=$3
root="$destdir$prefix"
units_user=(hawala-connect.service hawala-vault-agent.service)
units_system=(hawala-vault.service)
docs=(README.md LICENSE docs/user-guide.md docs/reference.md docs/operator-guide.md docs/privacy.md docs/hawala-format.md)
programs=(hawala hawala-vault)
# For sed's replacement: PREFIX with its special characters escaped.
prefix_sed=$(printf '%s' "$prefix" | sed 's/[\\&|]/\\&/g')

case "$action" in
install)
  bin=$4
  for program in "${programs[@]}"; do
    [ -x "$bin/$program" ] || { echo "install: $bin/$program is not built: run \`make release\` first (CONFIG=debug: \`make build\`)" >&2; exit 1; }
  done
  command -v patchelf >/dev/null || ./scripts/install-deps.sh patchelf
  install -d "$root/bin" "$root/lib/hawala"
  for program in "${programs[@]}"; do
    install -m 0755 "$bin/$program" "$root/bin/$program"
    # What it loads from outside the system's folders goes with it.
    ldd "$bin/$program" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r library; do
      case "$(realpath "$library")" in
        /lib/*|/lib64/*|/usr/lib/*) ;;
        *) install -m 0644 "$(realpath "$library")" "$root/lib/hawala/$(basename "$library")" ;;
      esac
    done
    patchelf --set-rpath '$ORIGIN/../lib/hawala' "$root/bin/$program"
  done
  install -d "$root/lib/systemd/user" "$root/lib/systemd/system"
  for unit in "${units_user[@]}"; do
    sed "s|%h/.local/bin/|$prefix_sed/bin/|g" "contrib/$unit" > "$root/lib/systemd/user/$unit"
    chmod 0644 "$root/lib/systemd/user/$unit"
  done
  for unit in "${units_system[@]}"; do
    sed "s|/usr/local/bin/|$prefix_sed/bin/|g" "contrib/$unit" > "$root/lib/systemd/system/$unit"
    chmod 0644 "$root/lib/systemd/system/$unit"
  done
  for doc in "${docs[@]}"; do install -D -m 0644 "$doc" "$root/share/doc/hawala/$(basename "$doc")"; done
  echo "installed hawala and hawala-vault in $root/bin"
  ;;
uninstall)
  for program in "${programs[@]}"; do rm -f "$root/bin/$program"; done
  rm -rf "$root/lib/hawala" "$root/share/doc/hawala"
  for unit in "${units_user[@]}"; do rm -f "$root/lib/systemd/user/$unit"; done
  for unit in "${units_system[@]}"; do rm -f "$root/lib/systemd/system/$unit"; done
  echo "removed hawala and hawala-vault from $root"
  ;;
*)
  echo "usage: scripts/install.sh install|uninstall DESTDIR PREFIX [BIN_DIR]" >&2
  exit 2
  ;;
esac
