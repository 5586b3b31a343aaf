#!/usr/bin/env bash
# Rebuilds the devnet runtime from the published crate and checks it against
# runtime.sha256. Needs a Rust toolchain with the wasm32v1-none target; takes
# about 40 minutes on 2 cores and ~5 GB of disk. No test needs this: the
# artifact is committed, this script proves where it came from.
#
# Cargo.lock.template is the exact lockfile of the build with the registry's
# source id left out; it is filled in from a lockfile cargo writes here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${RUNTIME_BUILD_DIR:-$here/.build}"
crate=asset-hub-westend-runtime
version=0.57.0

rustup target add wasm32v1-none
mkdir -p "$work/fetch/src" "$work/build/src"

# 1. Fetch the published crate (and learn the registry's source id) without the patch.
cd "$work/fetch"
sed '/^\[patch.crates-io\]/,$d' "$here/Cargo.toml" > Cargo.toml
echo 'fn main() {}' > src/main.rs
cargo generate-lockfile
source_id=$(grep -m1 '^source = "registry+' Cargo.lock | sed 's/^source = "\(.*\)"$/\1/')
cargo fetch
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$version" | head -n 1)

# 2. Build the patched copy with the pinned lockfile (alloy-trie 0.9.8: 0.9.9 breaks pallet-revive).
cd "$work/build"
cp "$here/Cargo.toml" Cargo.toml
sed "s#@CRATES_IO_SOURCE@#$source_id#" "$here/Cargo.lock.template" > Cargo.lock
echo 'fn main() {}' > src/main.rs
rm -rf ahw && cp -r "$src" ahw && chmod -R u+w ahw
# The one change: chopsticks cannot feed the relay-parent descendants that offset 1 needs.
(cd ahw/src && patch lib.rs < "$here/relay-parent-offset.patch")
grep -q '^const RELAY_PARENT_OFFSET: u32 = 0;' ahw/src/lib.rs
cargo build --release --locked
out="target/release/wbuild/$crate/asset_hub_westend_runtime.compact.compressed.wasm"
cp "$out" "$here/asset_hub_westend_runtime.compact.compressed.wasm.rebuilt"

cd "$here"
expected=$(cut -d' ' -f1 runtime.sha256)
actual=$(sha256sum asset_hub_westend_runtime.compact.compressed.wasm.rebuilt | cut -d' ' -f1)
if [ "$expected" != "$actual" ]; then
  echo "rebuilt runtime sha256 $actual differs from the committed $expected" >&2
  exit 1
fi
echo "rebuilt runtime matches runtime.sha256 ($actual)"
