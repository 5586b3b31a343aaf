#!/usr/bin/env bash
# Rebuilds the relay chain runtime of the devnet (Westend, crate westend-runtime
# 40.0.0: the release whose polkadot-runtime-parachains and frame-support match those
# of the Asset Hub runtime in ../runtime) from the published crate, unchanged, and
# checks it against runtime.sha256. Needs a Rust toolchain with the wasm32v1-none
# target; took about an hour on 2 cores (most of it the native half of the crate,
# which the wasm does not need) and ~6 GB of disk. The artifact is committed; this
# script proves where it came from.
#
# Cargo.lock.template is the exact lockfile of the build with the registry's source
# id left out; it is filled in from a lockfile cargo writes here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${RUNTIME_BUILD_DIR:-$here/.build}"
crate=westend-runtime
artifact=westend_runtime.compact.compressed.wasm

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
cargo build --release --locked
cp "target/release/wbuild/$crate/$artifact" "$here/$artifact.rebuilt"

cd "$here"
expected=$(cut -d' ' -f1 runtime.sha256)
actual=$(sha256sum "$artifact.rebuilt" | cut -d' ' -f1)
if [ "$expected" != "$actual" ]; then
  echo "rebuilt runtime sha256 $actual differs from the committed $expected" >&2
  exit 1
fi
echo "rebuilt runtime matches runtime.sha256 ($actual)"
