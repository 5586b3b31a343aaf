#!/usr/bin/env bash
# Usage: ensure-bench.sh NEED...   (NEED: sidecar20, redis, node)
# A bench reaches the rows that need these programs minutes after it starts: have them
# before its first row, or fail in its first seconds saying which one is missing.
set -euo pipefail
here="$(dirname "$0")"
ready=()
for need in "$@"; do
  case "$need" in
    sidecar20)
      bash "$here/ensure-sidecar20.sh" --required
      ready+=("sidecar 20.14.1")
      ;;
    redis)
      bash "$here/ensure-redis.sh"
      ready+=("redis-server")
      ;;
    node)
      bash "$here/ensure-node.sh" >/dev/null
      ready+=("polkadot-omni-node")
      ;;
    *)
      echo "ensure-bench: no rule for '$need' (known: sidecar20, redis, node)" >&2
      exit 2
      ;;
  esac
done
list="$(printf '%s, ' "${ready[@]}")"
echo "${npm_lifecycle_event:-bench} needs ${list%, }: ready" >&2
