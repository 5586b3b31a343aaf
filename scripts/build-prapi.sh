#!/usr/bin/env bash
# build-prapi.sh SRC: builds polkadot-rest-api (sidecar's Rust successor, the benches' third
# column) from a checkout of its repository into fastcar's cache, where `npm run bench:real`
# finds it (or name any binary with PRAPI_BIN). Not a dependency: no test needs it.
#
# The checkout may leave out two large fixture files of its integration tests (git
# `clone --no-checkout`, then `git checkout HEAD -- .` reports them missing): the server
# builds without them. About 15 minutes on two cores with a warm cargo cache, an hour cold.
set -euo pipefail
src="${1:?usage: build-prapi.sh PATH_TO_POLKADOT_REST_API_CHECKOUT}"
[ -f "$src/Cargo.toml" ] || { echo "build-prapi: no Cargo.toml in $src" >&2; exit 2; }
cache="${FASTCAR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fastcar}"
cd "$src"
CARGO_TARGET_DIR="$cache/prapi-target" nice -n 10 cargo build --release -p polkadot-rest-api
echo "$cache/prapi-target/release/polkadot-rest-api"
