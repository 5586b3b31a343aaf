#!/usr/bin/env bash
# Rebuilds a devnet runtime committed as wasm from its published crate, unchanged, and checks
# the result against the folder's runtime.sha256: what each runtime folder's rebuild.sh runs.
#
#   rebuildRuntime.sh FOLDER CRATE ARTIFACT NATIVE_PROFILE
#
# FOLDER holds Cargo.toml, Cargo.lock.template (the build's exact lockfile with the
# registry's source id left out, filled in from a lockfile cargo writes here) and
# runtime.sha256. NATIVE_PROFILE is `release`, or `debug` for the native half in debug with
# only the wasm in release (WASM_BUILD_TYPE=release: the same wasm, built much faster).
# Needs a Rust toolchain with the wasm32v1-none target.
set -euo pipefail
here="$(cd "$1" && pwd)"
crate="$2"
artifact="$3"
profile="$4"
work="${RUNTIME_BUILD_DIR:-$here/.build}"

rustup target add wasm32v1-none
mkdir -p "$work/fetch/src" "$work/build/src"

# 1. Learn the registry's source id.
cd "$work/fetch"
cp "$here/Cargo.toml" Cargo.toml
echo 'fn main() {}' > src/main.rs
cargo generate-lockfile
source_id=$(grep -m1 '^source = "registry+' Cargo.lock | sed 's/^source = "\(.*\)"$/\1/')

# 2. Build with the pinned lockfile.
cd "$work/build"
cp "$here/Cargo.toml" Cargo.toml
sed "s#@CRATES_IO_SOURCE@#$source_id#" "$here/Cargo.lock.template" > Cargo.lock
echo 'fn main() {}' > src/main.rs
if [ "$profile" = release ]; then
  cargo build --release --locked
else
  WASM_BUILD_TYPE=release cargo build --locked
fi
cp "target/$profile/wbuild/$crate/$artifact" "$here/$artifact.rebuilt"

cd "$here"
expected=$(cut -d' ' -f1 runtime.sha256)
actual=$(sha256sum "$artifact.rebuilt" | cut -d' ' -f1)
if [ "$expected" != "$actual" ]; then
  echo "rebuilt runtime sha256 $actual differs from the committed $expected" >&2
  exit 1
fi
echo "rebuilt runtime matches runtime.sha256 ($actual)"
