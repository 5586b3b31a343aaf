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
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/../rebuildRuntime.sh" "$here" coretime-westend-runtime coretime_westend_runtime.compact.compressed.wasm debug
