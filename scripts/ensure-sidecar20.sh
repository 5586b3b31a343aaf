#!/usr/bin/env bash
# Usage: ensure-sidecar20.sh [--required]
# The tests and the wallet and staking benches compare fastcar with sidecar's final line,
# 20.14.1. Install it once into .cache/sidecar20 from the first source that has it: the
# npm registry (where it is published, though not every mirror serves it), else a compiled
# copy in the project's shared folder (../shared/sidecar20, or FASTCAR_SIDECAR20_SOURCE).
# Without either, it says what is missing in one line; --required (the benches) then fails,
# while the tests go on and only those comparing with 20 fail.
set -euo pipefail
version="20.14.1"
package="@substrate/api-sidecar@$version"
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${FASTCAR_SIDECAR20_SOURCE:-$root/../shared/sidecar20}"
target="$root/.cache/sidecar20"
stamp="$target/.installed-from"
npm_stamp="npm:$package"
shared_stamp() { sha256sum "$shared/package-lock.json" | cut -d' ' -f1; }

installed="$([ -f "$target/build/src/main.js" ] && [ -f "$stamp" ] && cat "$stamp" || true)"
if [ "$installed" = "$npm_stamp" ]; then exit 0; fi
# A copy from the shared folder stands until that folder holds another build.
if [ -n "$installed" ] && { [ ! -f "$shared/install.sh" ] || [ "$installed" = "$(shared_stamp)" ]; }; then exit 0; fi

partial="$target.partial"
rm -rf "$partial"
mkdir -p "$partial"
# A registry without this version answers 404 at once; its error is noise when the shared copy follows.
if tarball="$(cd "$partial" && timeout 120 npm pack "$package" --silent --fetch-retries=0 2>/dev/null)" && [ -f "$partial/$tarball" ]; then
  tar -xzf "$partial/$tarball" -C "$partial" --strip-components=1
  rm "$partial/$tarball"
  (cd "$partial" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock --silent)
  echo "$npm_stamp" > "$partial/.installed-from"
  source_name="the npm registry"
elif [ -f "$shared/install.sh" ]; then
  rm -rf "$partial"
  bash "$shared/install.sh" "$partial"
  shared_stamp > "$partial/.installed-from"
  source_name="$shared"
else
  rm -rf "$partial"
  echo "ensure-sidecar20: sidecar $version is missing: the npm registry here does not serve $package and there is no compiled copy at $shared (set FASTCAR_SIDECAR20_SOURCE to one, or use a registry that serves it)" >&2
  [ "${1:-}" = "--required" ] && exit 1
  exit 0
fi
rm -rf "$target"
mv "$partial" "$target"
echo "ensure-sidecar20: installed sidecar $version into .cache/sidecar20 from $source_name" >&2
