#!/usr/bin/env bash
# Sets up the Breez Spark SDK for the `spark:` Lightning backend (docs/decisions/0004): downloads
# the two pinned wheels from PyPI (hash-checked), extracts the SDK's native library, generates its
# Swift bindings with uniffi-bindgen, and writes them to Generated/spark/ (gitignored). Quiet when
# already done. Where no wheel exists (not x86_64 Linux) it says so and Hawala builds without
# Spark. Package.swift adds the Spark targets only when Generated/spark/ready exists.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Generated/spark
REQ=scripts/spark/requirements.txt
STAMP="$(sha256sum "$REQ" scripts/install-spark.sh | sha256sum | cut -c1-16)"
[ -f "$OUT/ready" ] && [ "$(cat "$OUT/ready")" = "$STAMP" ] && exit 0

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "Spark: the Breez Spark SDK wheel exists for Linux x86_64 only; building without the spark: backend" >&2
  rm -rf "$OUT"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  ./scripts/install-deps.sh python3-pip
fi

echo "Spark: downloading the Breez Spark SDK and generating its Swift bindings…" >&2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The SDK's wheel is tagged cp311/manylinux_2_31; asking for that tag explicitly makes the
# download independent of the local Python.
python3 -m pip download -q --no-deps --only-binary=:all: --require-hashes -r "$REQ" \
  --platform manylinux_2_31_x86_64 --platform manylinux_2_17_x86_64 --python-version 3.11 --implementation cp --abi cp311 --abi none \
  -d "$WORK/wheels"
python3 - "$WORK" <<'PY'
import sys, zipfile, glob, os
work = sys.argv[1]
for wheel in glob.glob(os.path.join(work, "wheels", "*.whl")):
    zipfile.ZipFile(wheel).extractall(os.path.join(work, "x"))
PY
SO="$WORK/x/breez_sdk_spark/libbreez_sdk_spark_bindings.so"
BINDGEN="$WORK/x/uniffi_bindgen-0.29.5.data/scripts/uniffi-bindgen"
chmod +x "$BINDGEN"
mkdir -p "$WORK/gen"
( cd "$WORK/gen" && PATH="$OLDPWD/scripts/spark:$PATH" "$BINDGEN" generate --library --metadata-no-deps \
    --language swift --out-dir out "$SO" 2>&1 | grep -v "swift-format" >&2 || true )
[ -s "$WORK/gen/out/breez_sdk_spark.swift" ] || { echo "Spark: uniffi-bindgen wrote no bindings" >&2; exit 1; }

NEW="$WORK/spark"
mkdir -p "$NEW/lib" "$NEW/BreezSdkSpark" "$NEW/breez_sdk_sparkFFI"
cp "$SO" "$NEW/lib/"
cp "$WORK/gen/out/breez_sdk_spark.swift" "$NEW/BreezSdkSpark/"
cp "$WORK/gen/out/breez_sdk_sparkFFI.h" "$NEW/breez_sdk_sparkFFI/"
# The generated module map names Darwin (Apple only); on Linux the header needs only the C
# builtins, and the module links the SDK's library.
cat > "$NEW/breez_sdk_sparkFFI/module.modulemap" <<'MAP'
module breez_sdk_sparkFFI {
    header "breez_sdk_sparkFFI.h"
    link "breez_sdk_spark_bindings"
    export *
}
MAP
echo "$STAMP" > "$NEW/ready"
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$NEW" "$OUT"
# Package.swift adds the Spark targets when Generated/spark/ready exists, but SwiftPM caches an
# evaluated manifest by its text: one evaluated before this setup would go on leaving Spark out.
rm -f "${XDG_CACHE_HOME:-$HOME/.cache}/org.swift.swiftpm/manifests/manifest.db"
echo "Spark: ready in $OUT" >&2
