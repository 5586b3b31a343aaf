#!/usr/bin/env bash
# Rebuilds the relay chain runtime of the devnet (Westend, crate westend-runtime
# 40.0.0: the release whose polkadot-runtime-parachains and frame-support match those
# of the Asset Hub runtime in ../runtime) from the published crate, unchanged, and
# checks it against runtime.sha256. Needs a Rust toolchain with the wasm32v1-none
# target; took about an hour on 2 cores (most of it the native half of the crate,
# which the wasm does not need) and ~6 GB of disk. The artifact is committed; this
# script proves where it came from.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/../rebuildRuntime.sh" "$here" westend-runtime westend_runtime.compact.compressed.wasm release
