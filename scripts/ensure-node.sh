#!/usr/bin/env bash
# Prints the path of a polkadot-omni-node 0.24.0 binary (the real node the real-node suites and
# benches run beside), or prints on stderr in one line how to get one and exits 3.
#
# Where it looks, in order: FASTCAR_OMNI_NODE; a prebuilt copy in the project's shared folder
# (../shared/nodes, unpacked once into the cache); the cache of a build made here. Never a
# download of a prebuilt binary: with --build it builds from crates.io (over an hour on two
# cores, niced; Debian's protobuf-compiler, clang and libclang-dev installed first when root).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=0.24.0
cache="${FASTCAR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fastcar}"
unpacked="$cache/nodes/omni-node-$version"
built="$cache/omni-node-build-$version"
shared="$root/../shared/nodes"

works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if [ -n "${FASTCAR_OMNI_NODE:-}" ]; then
  if works "$FASTCAR_OMNI_NODE"; then echo "$FASTCAR_OMNI_NODE"; exit 0; fi
  echo "ensure-node: FASTCAR_OMNI_NODE=$FASTCAR_OMNI_NODE does not run" >&2
  exit 3
fi
if works "$unpacked/polkadot-omni-node"; then echo "$unpacked/polkadot-omni-node"; exit 0; fi
if works "$built/bin/polkadot-omni-node"; then echo "$built/bin/polkadot-omni-node"; exit 0; fi
if [ -x "$shared/install.sh" ] && [ -f "$shared/polkadot-omni-node-$version.xz" ]; then
  rm -rf "$unpacked.partial"
  bash "$shared/install.sh" "$unpacked.partial" >/dev/null
  rm -rf "$unpacked"
  mv "$unpacked.partial" "$unpacked"
  echo "$unpacked/polkadot-omni-node"
  exit 0
fi
if [ "${1:-}" != "--build" ]; then
  echo "ensure-node: no polkadot-omni-node $version here (FASTCAR_OMNI_NODE, ../shared/nodes or a build in $cache): 'bash scripts/ensure-node.sh --build' builds it from crates.io (over an hour)" >&2
  exit 3
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  for package in protobuf-compiler clang libclang-dev; do
    dpkg -s "$package" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq protobuf-compiler clang libclang-dev >&2; break; }
  done
fi
echo "ensure-node: building polkadot-omni-node $version from crates.io into $built (over an hour on two cores)" >&2
# SKIP_WASM_BUILD: the node's bundled westend/rococo parts would otherwise need a wasm target;
# the chain's runtime comes from devnet/runtime's committed wasm.
SKIP_WASM_BUILD=1 CARGO_TARGET_DIR="$cache/omni-node-target" nice -n 10 \
  cargo install polkadot-omni-node --version "$version" --locked --root "$built" >&2
rm -rf "$cache/omni-node-target"
echo "$built/bin/polkadot-omni-node"
