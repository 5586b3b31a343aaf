#!/usr/bin/env bash
# The tests compare fastcar with sidecar's final line, 20.14.1, which the npm registry
# does not serve: the project's shared folder holds it compiled (shared/sidecar20). Install
# it once into .cache/sidecar20 (its dependencies from the npm registry, about 15 s).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source_dir="${FASTCAR_SIDECAR20_SOURCE:-$root/../shared/sidecar20}"
target="$root/.cache/sidecar20"
stamp="$target/.installed-from"
if [ ! -f "$source_dir/install.sh" ]; then
  echo "ensure-sidecar20: no $source_dir/install.sh; the tests that compare with sidecar 20 will fail" >&2
  exit 0
fi
wanted="$(sha256sum "$source_dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -f "$target/build/src/main.js" ]; then exit 0; fi
rm -rf "$target.partial"
bash "$source_dir/install.sh" "$target.partial"
echo "$wanted" > "$target.partial/.installed-from"
rm -rf "$target"
mv "$target.partial" "$target"
