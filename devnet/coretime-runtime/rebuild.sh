#!/usr/bin/env bash
# Rebuilds the coretime chain runtime of the coretime devnet (Coretime Westend, crate
# coretime-westend-runtime 0.33.0: the release whose pallet-broker 0.30.0 and
# frame-support 49.0.1 go with the Asset Hub runtime in ../runtime and the relay
# runtime in ../relay-runtime) from the published crate, unchanged, and checks it
# against runtime.sha256. Needs a Rust toolchain with the wasm32v1-none target.
#
# The native half of the crate is built in debug and only the wasm in release
# (WASM_BUILD_TYPE=release): the wasm is the same as a release build's and the native
# half, which the devnet never runs, compiles much faster. So the artifact is under
# target/debug/wbuild, not target/release.
#
# Cargo.lock.template is the exact lockfile of the build with the registry's source
# id left out; it is filled in from a lockfile cargo writes here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${RUNTIME_BUILD_DIR:-$here/.build}"
crate=coretime-westend-runtime
artifact=coretime_westend_runtime.compact.compressed.wasm

rustup target add wasm32v1-none
mkdir -p "$work/fetch/src" "$work/build/src"

# 1. Learn the registry's source id.
cd "$work/fetch"
cp "$here/Cargo.toml" Cargo.toml
echo 'fn main() {}' > src/main.rs
cargo generate-lockfile
source_id=$(grep -m1 '^source = "registry+' Cargo.lock | sed 's/^source = "\(.*\)"$/\1/')

# 2. Build with the pinned lockfile: native in debug, the wasm in release.
cd "$work/build"
cp "$here/Cargo.toml" Cargo.toml
sed "s#@CRATES_IO_SOURCE@#$source_id#" "$here/Cargo.lock.template" > Cargo.lock
echo 'fn main() {}' > src/main.rs
WASM_BUILD_TYPE=release cargo build --locked
cp "target/debug/wbuild/$crate/$artifact" "$here/$artifact.rebuilt"

cd "$here"
expected=$(cut -d' ' -f1 runtime.sha256)
actual=$(sha256sum "$artifact.rebuilt" | cut -d' ' -f1)
if [ "$expected" != "$actual" ]; then
  echo "rebuilt runtime sha256 $actual differs from the committed $expected" >&2
  exit 1
fi
echo "rebuilt runtime matches runtime.sha256 ($actual)"
